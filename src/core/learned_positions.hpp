#pragma once
// Learned absolute positions (BERT, GPT-2's `wpe`): one trained row per position.
#include <cstdint>

#include "core/tensor.hpp"

namespace attnlab {

// wpe_ij ~ N(0, 0.02²), seeded   → (n_ctx,d); GPT-2's initialisation
Matrix learned_positions_init(Index n_ctx, Index d, std::uint32_t seed);

// P = wpe[pos0 : pos0+n]   wpe:(n_ctx,d) → (n,d); positions past n_ctx are an error
Matrix learned_positions_lookup(const ConstMatrixRef& wpe, Index n, Index pos0 = 0);

// dwpe[pos0 + i] += dP_i   differentiates learned_positions_lookup   dP:(n,d) dwpe:(n_ctx,d)
void learned_positions_backward(const ConstMatrixRef& dpositions, Index pos0, MatrixRef dwpe);

}  // namespace attnlab
