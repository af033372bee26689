#include "core/rnn.hpp"

#include <string>

#include "core/check.hpp"

namespace attnlab {

RnnParams RnnParams::zeros(Index hidden, Index input) {
  return {Matrix::Zero(hidden, hidden), Matrix::Zero(hidden, input), RowVector::Zero(hidden)};
}

void RnnParams::validate() const {
  const Index H = hidden();
  require(H >= 1 && input() >= 1, "rnn: W_hh and W_xh need at least one row and column");
  require_shape(w_hh, H, H, "rnn: W_hh");
  require_shape(w_xh, H, input(), "rnn: W_xh");
  require(b.size() == H, "rnn: b has ", b.size(), " entries, expected H = ", H);
  require_finite(w_hh, "rnn: W_hh");
  require_finite(w_xh, "rnn: W_xh");
  require_finite(b, "rnn: b");
}

namespace {

void validate_sequence(const RnnParams& params, const ConstMatrixRef& x, const RowVector& h0) {
  params.validate();
  require(x.rows() >= 1, "rnn: the sequence x is empty");
  require(x.cols() == params.input(), "rnn: x_t has width ", x.cols(), " but W_xh expects D = ", params.input());
  require(h0.size() == params.hidden(), "rnn: h_0 has ", h0.size(), " entries, expected H = ", params.hidden());
  require_finite(x, "rnn: x");
  require_finite(h0, "rnn: h_0");
}

}  // namespace

Matrix rnn_forward(const RnnParams& params, const ConstMatrixRef& x, const RowVector& h0) {
  validate_sequence(params, x, h0);
  // every W_xh·x_t + b at once; only the recurrence is sequential
  Matrix h = x * params.w_xh.transpose();
  h.rowwise() += params.b;
  for (Index t = 0; t < h.rows(); ++t) {
    const RowVector previous = t == 0 ? h0 : RowVector(h.row(t - 1));
    h.row(t).noalias() += previous * params.w_hh.transpose();
    h.row(t) = h.row(t).array().tanh().matrix();
  }
  return h;
}

RnnInputGradients rnn_backward(const RnnParams& params, const ConstMatrixRef& x, const RowVector& h0,
                               const ConstMatrixRef& h, const ConstMatrixRef& dh, RnnParams& grads) {
  validate_sequence(params, x, h0);
  const Index T = x.rows(), H = params.hidden();
  require_shape(h, T, H, "rnn backward: h");
  require_shape(dh, T, H, "rnn backward: dh");
  require_shape(grads.w_hh, H, H, "rnn backward: dW_hh");
  require_shape(grads.w_xh, H, params.input(), "rnn backward: dW_xh");
  require(grads.b.size() == H, "rnn backward: db needs H = ", H, " entries");
  Matrix delta(T, H);                      // δ_t, row t−1
  RowVector from_later = RowVector::Zero(H);  // W_hhᵀ·δ_{t+1}
  for (Index t = T - 1; t >= 0; --t) {
    delta.row(t) = ((dh.row(t) + from_later).array() * (1 - h.row(t).array().square())).matrix();
    from_later.noalias() = delta.row(t) * params.w_hh;
  }
  // the previous states h_0 … h_{T−1}, one per row
  Matrix previous(T, H);
  previous.row(0) = h0;
  previous.bottomRows(T - 1) = h.topRows(T - 1);
  grads.w_hh.noalias() += delta.transpose() * previous;
  grads.w_xh.noalias() += delta.transpose() * x;
  grads.b += delta.colwise().sum();
  return {delta * params.w_xh, from_later};
}

RowVector rnn_state_jacobian_norms(const RnnParams& params, const ConstMatrixRef& h) {
  params.validate();
  if (h.rows() < 1 || h.cols() != params.hidden())  // shapes written only on failure
    throw_error({"rnn Jacobian: h has shape ", shape_string(h.rows(), h.cols()), ", expected (T,", params.hidden(), ")"});
  RowVector norms(h.rows());
  Matrix jacobian = Matrix::Identity(params.hidden(), params.hidden());  // ∂h_t/∂h_1
  norms(0) = jacobian.norm();
  for (Index t = 1; t < h.rows(); ++t) {
    // ∂h_t/∂h_1 = diag(1 − h_t²)·W_hh·∂h_{t−1}/∂h_1
    const Matrix through_w_hh = params.w_hh * jacobian;
    jacobian = (1 - h.row(t).array().square()).matrix().asDiagonal() * through_w_hh;
    norms(t) = jacobian.norm();
  }
  return norms;
}

}  // namespace attnlab
