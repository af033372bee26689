#pragma once
// ALiBi: no positional vectors at all; each head penalises distant keys linearly.
#include <vector>

#include "core/tensor.hpp"

namespace attnlab {

// m_j = 2^(−8j/H), j = 1..H, for H a power of two; otherwise those of the nearest smaller power of
// two P, followed by every other slope of 2P until H slopes   → (H)
std::vector<float> alibi_slopes(Index n_heads);

// B_ij = −slope·|(m − n + i) − j|   → (n,m); query i sits at key position m − n + i
Matrix alibi_bias(float slope, Index n, Index m);

}  // namespace attnlab
