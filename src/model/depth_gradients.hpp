#pragma once
// How far a gradient reaches down a deep stack of blocks: with or without residual connections,
// pre-LN or post-LN, with or without norms. Write-up 002's claim that without residuals "gradients
// at early layers can be orders of magnitude smaller", measured on seeded random blocks: it holds
// when nothing rescales the stream; a norm in every sub-layer undoes the shrinking at
// initialisation (its 1/σ grows as the sub-layers shrink the stream).
#include <cstdint>

#include "core/tensor.hpp"
#include "model/config.hpp"

namespace attnlab {

struct DepthGradientOptions {
  Index layers = 12;       // L
  Index d_model = 64;      // d; the FFN is 4·d wide, the heads d_k = 16 wide
  Index length = 16;       // n, the positions (causal self-attention)
  Norm norm = Norm::layer_norm;  // or RMSNorm, or none at all
  bool pre_norm = true;           // x + f(LN(x)) rather than LN(x + f(x))
  bool residual = true;    // false: f(LN(x)) and LN(f(x)), no skip connections
  std::uint32_t seed = 0;
};

struct DepthGradients {
  RowVector input_gradient_norms;      // (L+1) ‖∂ℒ/∂x_l‖_F at the input of block l; entry L: the output
  RowVector parameter_gradient_norms;  // (L)   ‖∂ℒ/∂θ_l‖ over every parameter of block l
  RowVector activation_norms;          // (L+1) ‖x_l‖_F, the stream entering block l; entry L: the output
};

// x_0 ~ N(0, I_d) per position, x_{l+1} = Block_l(x_l) with GPT-2's initialisation (weights
// N(0, 0.02²)), and ℒ = Σ x_L ⊙ R for a fixed R ~ N(0, 1): ∂ℒ/∂x_L = R, so every layer sees the
// same pull from above and only the path down differs.
//   1 ≤ L ≤ 96, 1 ≤ d ≤ 512 (a multiple of 16), 1 ≤ n ≤ 512 → norms of (L+1), (L), (L+1)
DepthGradients depth_gradients(const DepthGradientOptions& options);

}  // namespace attnlab
