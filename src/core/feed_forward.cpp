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

Index feed_forward_parameters(Index d, Index d_ff, Activation activation) {
  require(d >= 1 && d_ff >= 1, "feed-forward: d and d_ff must be at least 1");
  const Index gate = activation == Activation::swiglu ? d * d_ff + d_ff : 0;
  return 2 * d * d_ff + d_ff + d + gate;
}

Matrix feed_forward(const FeedForwardParams& p, Activation activation, const ConstMatrixRef& x,
                    FeedForwardTrace* trace) {
  require(x.cols() == p.c_fc_weight.weight_rows(), "feed-forward: input width ", x.cols(), " differs from d = ",
          p.c_fc_weight.weight_rows());
  Matrix hidden = linear_forward(x, p.c_fc_weight, p.c_fc_bias);
  Matrix gate;
  Matrix activated;
  if (activation == Activation::swiglu) {
    gate = linear_forward(x, p.c_gate_weight, p.c_gate_bias);
    activated = pointwise_activation(activation, gate).cwiseProduct(hidden);
  } else {
    activated = pointwise_activation(activation, hidden);
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
  if (activation == Activation::swiglu) {
    // activated = Swish(gate) ⊙ hidden
    const Matrix dhidden = dactivated.cwiseProduct(pointwise_activation(activation, t.gate));
    const Matrix dgate = pointwise_activation_backward(activation, t.gate, dactivated.cwiseProduct(t.hidden));
    Matrix dx = linear_backward(x, p.c_gate_weight, dgate, grads.c_gate_weight, grads.c_gate_bias);
    return dx + linear_backward(x, p.c_fc_weight, dhidden, grads.c_fc_weight, grads.c_fc_bias);
  }
  const Matrix dhidden = pointwise_activation_backward(activation, t.hidden, dactivated);
  // hidden = x·W_1 + b_1
  return linear_backward(x, p.c_fc_weight, dhidden, grads.c_fc_weight, grads.c_fc_bias);
}

}  // namespace attnlab
