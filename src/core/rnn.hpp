#pragma once
// A tanh recurrent network, the sequential model attention replaced: one step per position, each
// waiting for the one before.
//   T  time steps;  D  width of an input x_t;  H  width of a state h_t
// Weights act on column vectors as in the equation (PyTorch's weight_hh_l0 and weight_ih_l0
// layout); the rows of x and h are the x_t and h_t.
#include "core/tensor.hpp"

namespace attnlab {

struct RnnParams {
  Matrix w_hh;  // (H,H)
  Matrix w_xh;  // (H,D)
  RowVector b;  // (H)    PyTorch's b_ih + b_hh

  Index hidden() const { return w_hh.rows(); }
  Index input() const { return w_xh.cols(); }
  // all zeros, for gradients to accumulate into
  static RnnParams zeros(Index hidden, Index input);
  // throws attnlab::Error unless the shapes fit together and every entry is finite
  void validate() const;
};

// h_t = tanh(W_hh·h_{t−1} + W_xh·x_t + b), t = 1…T   x:(T,D) h_0:(H) → h:(T,H), row t−1 holding h_t
Matrix rnn_forward(const RnnParams& params, const ConstMatrixRef& x, const RowVector& h0);

struct RnnInputGradients {
  Matrix dx;      // (T,D) ∂L/∂x_t
  RowVector dh0;  // (H)   ∂L/∂h_0
};

// δ_t = (dh_t + W_hhᵀ·δ_{t+1}) ⊙ (1 − h_t²), t = T…1; dx_t = W_xhᵀ·δ_t, dh_0 = W_hhᵀ·δ_1
//   differentiates h_t = tanh(W_hh·h_{t−1} + W_xh·x_t + b) of rnn_forward, back through time;
//   dW_hh += Σ δ_t·h_{t−1}ᵀ, dW_xh += Σ δ_t·x_tᵀ, db += Σ δ_t accumulate into grads
//   x:(T,D) h_0:(H) h:(T,H) as in the forward, dh:(T,H) the loss's own ∂L/∂h_t → dx:(T,D), dh_0:(H)
RnnInputGradients rnn_backward(const RnnParams& params, const ConstMatrixRef& x, const RowVector& h0,
                               const ConstMatrixRef& h, const ConstMatrixRef& dh, RnnParams& grads);

// ‖∂h_t/∂h_1‖_F, t = 1…T, from ∂h_t/∂h_{t−1} = diag(1 − h_t²)·W_hh of rnn_forward's line
//   h:(T,H) → (T); entry 0 is ‖I‖_F = √H
RowVector rnn_state_jacobian_norms(const RnnParams& params, const ConstMatrixRef& h);

}  // namespace attnlab
