#include "core/alibi.hpp"

#include <cmath>
#include <cstdlib>
#include <string>

#include "core/check.hpp"

namespace attnlab {
namespace {

// 2^(−8j/P), j = 1..P
std::vector<float> power_of_two_slopes(Index p) {
  std::vector<float> slopes;
  for (Index j = 1; j <= p; ++j)
    slopes.push_back(static_cast<float>(std::exp2(-8.0 * static_cast<double>(j) / static_cast<double>(p))));
  return slopes;
}

}  // namespace

std::vector<float> alibi_slopes(Index n_heads) {
  require(n_heads >= 1 && n_heads <= 4096,
          "ALiBi: number of heads must be between 1 and 4096, got ", n_heads);
  Index p = 1;
  while (p * 2 <= n_heads) p *= 2;
  std::vector<float> slopes = power_of_two_slopes(p);
  const std::vector<float> finer = power_of_two_slopes(2 * p);
  for (Index j = 0; static_cast<Index>(slopes.size()) < n_heads; j += 2) slopes.push_back(finer[j]);
  return slopes;
}

Matrix alibi_bias(float slope, Index n, Index m) {
  require_size(n, m, "ALiBi bias");
  require(std::isfinite(slope), "ALiBi: slope must be finite");
  Matrix bias(n, m);
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < m; ++j)
      bias(i, j) = -slope * static_cast<Scalar>(std::llabs(static_cast<long long>(m - n + i - j)));
  return bias;
}

}  // namespace attnlab
