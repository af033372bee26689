#include "core/feed_forward.hpp"

#include "core/check.hpp"
#include "core/linear.hpp"
#include "core/random.hpp"

namespace attnlab {

namespace {
Matrix normal_matrix(Index rows, Index cols, Rng& rng) {
  Matrix m(rows, cols);
  for (Index i = 0; i < m.size(); ++i) m.data()[i] = rng.normal(0.0f, 0.02f);
  return m;
}
}  // namespace

FeedForwardParams FeedForwardParams::init(Index d, Index d_ff, Activation activation, std::uint32_t seed) {
  require_size(d, d_ff, "feed-forward W_1");
  Rng rng(seed);
  FeedForwardParams p;
  p.c_fc_weight = normal_matrix(d, d_ff, rng);
  p.c_fc_bias = RowVector::Zero(d_ff);
  if (activation == Activation::swiglu) {
    p.c_gate_weight = normal_matrix(d, d_ff, rng);
    p.c_gate_bias = RowVector::Zero(d_ff);
  }
  p.c_proj_weight = normal_matrix(d_ff, d, rng);
  p.c_proj_bias = RowVector::Zero(d);
  return p;
}

Matrix feed_forward(const FeedForwardParams& p, Activation activation, const ConstMatrixRef& x,
                    FeedForwardTrace* trace) {
  require(x.cols() == p.c_fc_weight.rows(), "feed-forward: input width " + std::to_string(x.cols()) +
                                                " differs from d = " + std::to_string(p.c_fc_weight.rows()));
  Matrix hidden = linear_forward(x, p.c_fc_weight, p.c_fc_bias);
  Matrix gate;
  Matrix activated;
  switch (activation) {
    case Activation::relu: activated = relu_forward(hidden); break;
    case Activation::gelu: activated = gelu_forward(hidden); break;
    case Activation::gelu_tanh: activated = gelu_tanh_forward(hidden); break;
    case Activation::swiglu:
      gate = linear_forward(x, p.c_gate_weight, p.c_gate_bias);
      activated = silu_forward(gate).cwiseProduct(hidden);
      break;
  }
  Matrix out = linear_forward(activated, p.c_proj_weight, p.c_proj_bias);
  if (trace) {
    trace->hidden = std::move(hidden);
    trace->gate = std::move(gate);
    trace->activated = std::move(activated);
    trace->output = out;
  }
  return out;
}

Matrix feed_forward_backward(const FeedForwardParams& p, Activation activation, const ConstMatrixRef& x,
                             const FeedForwardTrace& t, const ConstMatrixRef& dout,
                             FeedForwardParams& grads) {
  // out = activated·W_2 + b_2
  const Matrix dactivated = linear_backward(t.activated, p.c_proj_weight, dout, grads.c_proj_weight, grads.c_proj_bias);
  Matrix dhidden;
  switch (activation) {
    case Activation::relu: dhidden = relu_backward(t.hidden, dactivated); break;
    case Activation::gelu: dhidden = gelu_backward(t.hidden, dactivated); break;
    case Activation::gelu_tanh: dhidden = gelu_tanh_backward(t.hidden, dactivated); break;
    case Activation::swiglu: {
      // activated = Swish(gate) ⊙ hidden
      dhidden = dactivated.cwiseProduct(silu_forward(t.gate));
      const Matrix dgate = silu_backward(t.gate, dactivated.cwiseProduct(t.hidden));
      Matrix dx = linear_backward(x, p.c_gate_weight, dgate, grads.c_gate_weight, grads.c_gate_bias);
      return dx + linear_backward(x, p.c_fc_weight, dhidden, grads.c_fc_weight, grads.c_fc_bias);
    }
  }
  // hidden = x·W_1 + b_1
  return linear_backward(x, p.c_fc_weight, dhidden, grads.c_fc_weight, grads.c_fc_bias);
}

}  // namespace attnlab
