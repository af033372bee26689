#pragma once
// Why attention divides by √d_k: the dot product of two random d_k-vectors grows with d_k.
#include <cstdint>

#include "core/tensor.hpp"

namespace attnlab {

struct DotProductStatistics {
  double mean = 0;             // of s = q·k over the sampled pairs
  double variance = 0;         // of s, population variance (divides by the number of pairs); E = d_k
  double scaled_variance = 0;  // of s·(1/√d_k), as attention scales it; E = 1
  RowVector scores;            // (keys) one query's raw scores q·k_j against `keys` keys
};

// s = q·k for `samples` independent pairs q, k ~ N(0, I_{d_k}): E[s] = 0, Var[s] = d_k, and
// Var[s/√d_k] = 1; plus one query's scores against `keys` random keys (attention_scores)
//   d_k ≥ 1, samples ≥ 1, keys ≥ 1 → statistics, scores:(keys); seeded, the same on every platform
DotProductStatistics dot_product_statistics(Index d_k, Index samples, Index keys, std::uint32_t seed);

}  // namespace attnlab
