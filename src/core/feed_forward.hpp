#pragma once
// The position-wise feed-forward network (the "MLP" of each block).
#include <cstdint>

#include "core/activation.hpp"
#include "core/tensor.hpp"
#include "core/weight.hpp"

namespace attnlab {

// Parameters under GPT-2's names (`h.{i}.mlp.c_fc`, `h.{i}.mlp.c_proj`), y = x·W + b; SwiGLU adds a
// gate projection, `mlp.c_gate`, which GPT-2 does not have.
struct FeedForwardParams {
  WeightMatrix c_fc_weight;     // (d, d_ff)  W_1 (the "up" projection under SwiGLU)
  RowVector c_fc_bias;    // (d_ff)
  WeightMatrix c_gate_weight;   // (d, d_ff)  W_gate, SwiGLU only (empty otherwise)
  RowVector c_gate_bias;  // (d_ff)
  WeightMatrix c_proj_weight;   // (d_ff, d)  W_2
  RowVector c_proj_bias;  // (d)

  // W ~ N(0, 0.02²), b = 0, seeded
  static FeedForwardParams init(Index d, Index d_ff, Activation activation, std::uint32_t seed);
};

struct FeedForwardTrace {
  Matrix hidden;     // (n, d_ff)  x·W_1 + b_1
  Matrix gate;       // (n, d_ff)  x·W_gate + b_gate (SwiGLU only)
  Matrix activated;  // (n, d_ff)  σ(hidden), or Swish(gate) ⊙ hidden
  Matrix output;     // (n, d)     activated·W_2 + b_2
};

// |W_1| + |b_1| + |W_2| + |b_2| (+ |W_gate| + |b_gate| for SwiGLU) = 2·d·d_ff + d_ff + d (+ d·d_ff + d_ff)
Index feed_forward_parameters(Index d, Index d_ff, Activation activation);

// FFN(x) = σ(x·W_1 + b_1)·W_2 + b_2, or (Swish(x·W_gate + b_g) ⊙ (x·W_1 + b_1))·W_2 + b_2 for SwiGLU
//   x:(n,d) → (n,d)
Matrix feed_forward(const FeedForwardParams& params, Activation activation, const ConstMatrixRef& x,
                    FeedForwardTrace* trace = nullptr);

// dx of feed_forward, given its input x and its trace (hidden, gate, activated)
//   differentiates FFN(x) line by line, from activated·W_2 + b_2 back to x·W_1 + b_1
//   x,dout:(n,d) → (n,d); parameter gradients accumulate into grads (same shapes as params)
Matrix feed_forward_backward(const FeedForwardParams& params, Activation activation,
                             const ConstMatrixRef& x, const FeedForwardTrace& trace,
                             const ConstMatrixRef& dout, FeedForwardParams& grads);

}  // namespace attnlab
