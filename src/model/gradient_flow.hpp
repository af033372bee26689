#pragma once
// How strongly a loss at the last position reaches each earlier input: back through T steps of a
// tanh RNN, or in one step of causal self-attention. The seminar's argument for attention.
#include <cstdint>

#include "core/tensor.hpp"

namespace attnlab {

struct GradientFlowOptions {
  Index length = 64;            // T, the positions
  Index hidden = 16;            // H, the RNN's state width and the head's d_k = d_v
  Index input = 8;              // D, the width of an input x_t
  std::uint32_t seed = 0;
  Scalar recurrent_scale = 1;   // W_hh = scale·(a random orthogonal matrix)
};

struct GradientFlow {
  Matrix states;                       // (T,H) h_1 … h_T
  RowVector jacobian_norms;            // (T)   ‖∂h_t/∂h_1‖_F; entry 0 is ‖I‖_F = √H
  RowVector rnn_gradient_norms;        // (T)   ‖∂L/∂x_t‖ for L = ½‖h_T‖², by rnn_backward
  RowVector attention_gradient_norms;  // (T)   ‖∂L/∂x_t‖ for L = ½‖y_T‖², by attention_head_backward
};

// One seeded sequence x_1 … x_T ~ N(0, I_D) run through
//   the RNN   h_t = tanh(W_hh·h_{t−1} + W_xh·x_t + b), h_0 = 0, b = 0, W_xh ~ N(0, 1/D),
//             W_hh = scale·Q with Q orthogonal (QR of a Gaussian matrix, Haar-distributed)
//   the head  y = softmax((X·W_Q)(X·W_K)ᵀ/√H + M_causal)·(X·W_V), W_Q, W_K, W_V ~ N(0, 1/D) of (D,H)
// and the gradient of a loss on the last position with respect to every input.
//   T ≥ 2, H ≥ 1, D ≥ 1, 0 < scale ≤ 1e6 → states:(T,H), norms:(T) each
GradientFlow gradient_flow(const GradientFlowOptions& options);

}  // namespace attnlab
