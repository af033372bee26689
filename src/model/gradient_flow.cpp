#include "model/gradient_flow.hpp"

#include <cmath>
#include <string>

#include "core/attention.hpp"
#include "core/check.hpp"
#include "core/random.hpp"
#include "core/rnn.hpp"

namespace attnlab {
namespace {

// Q of a Gaussian matrix's QR, its columns' signs fixed by R's diagonal so that Q is Haar-distributed
Matrix random_orthogonal(Index n, Rng& rng) {
  const Eigen::HouseholderQR<Matrix> qr(draw_normal(n, n, rng));
  const Matrix r = qr.matrixQR();
  Matrix q = qr.householderQ();
  for (Index j = 0; j < n; ++j)
    if (r(j, j) < 0) q.col(j) = -q.col(j);
  return q;
}

// ‖row t‖ for every row   (T,w) → (T)
RowVector row_norms(const Matrix& m) { return m.rowwise().norm().transpose(); }

}  // namespace

GradientFlow gradient_flow(const GradientFlowOptions& o) {
  require(o.length >= 2, "gradient flow: length must be at least 2, got ", o.length);
  require(o.hidden >= 1 && o.input >= 1, "gradient flow: hidden and input must be at least 1");
  // beyond 1e6 the recurrence's float sums can overflow; tanh is long saturated by then
  require(std::isfinite(o.recurrent_scale) && o.recurrent_scale > 0 && o.recurrent_scale <= 1e6f,
          "gradient flow: recurrentScale must be a number > 0 and at most 1e6, got ", o.recurrent_scale);
  const Index T = o.length, H = o.hidden, D = o.input;
  Rng rng(o.seed);
  const Matrix x = draw_normal(T, D, rng);
  const float input_std = 1.0f / std::sqrt(static_cast<float>(D));
  const RnnParams rnn{random_orthogonal(H, rng) * o.recurrent_scale, draw_normal(H, D, rng, input_std),
                      RowVector::Zero(H)};
  const Matrix w_q = draw_normal(D, H, rng, input_std), w_k = draw_normal(D, H, rng, input_std),
               w_v = draw_normal(D, H, rng, input_std);

  GradientFlow flow;
  const RowVector h0 = RowVector::Zero(H);
  flow.states = rnn_forward(rnn, x, h0);
  flow.jacobian_norms = rnn_state_jacobian_norms(rnn, flow.states);
  // L = ½‖h_T‖²: ∂L/∂h_T = h_T, nothing at earlier states
  Matrix dh = Matrix::Zero(T, H);
  dh.row(T - 1) = flow.states.row(T - 1);
  RnnParams weight_gradients = RnnParams::zeros(H, D);  // computed alongside, not reported
  flow.rnn_gradient_norms = row_norms(rnn_backward(rnn, x, h0, flow.states, dh, weight_gradients).dx);

  const AttentionTrace head = attention_head_forward_traced(x, x, w_q, w_k, w_v, Mask::causal_mask(), true);
  // L = ½‖y_T‖²: ∂L/∂y_T = y_T
  Matrix dy = Matrix::Zero(T, H);
  dy.row(T - 1) = head.output.row(T - 1);
  flow.attention_gradient_norms = row_norms(attention_head_backward(head, w_q, w_k, w_v, dy));
  return flow;
}

}  // namespace attnlab
