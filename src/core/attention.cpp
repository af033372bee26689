#include "core/attention.hpp"

#include <cmath>
#include <string>

#include "core/check.hpp"
#include "core/softmax.hpp"

namespace attnlab {

float attention_scale(Index d_k, bool scaled) {
  return scaled ? 1.0f / std::sqrt(static_cast<float>(d_k)) : 1.0f;
}

void validate_attention_inputs(const ConstMatrixRef& q, const ConstMatrixRef& k,
                               const ConstMatrixRef& v) {
  require(q.rows() >= 1, "attention: Q has no rows (n = 0)");
  require(k.rows() >= 1, "attention: K has no rows (m = 0)");
  require(q.cols() >= 1 && v.cols() >= 1, "attention: d_k and d_v must be at least 1");
  require(k.cols() == q.cols(), "attention: K has width " + std::to_string(k.cols()) +
                                    " but Q has width " + std::to_string(q.cols()) +
                                    " (d_k must match)");
  require(v.rows() == k.rows(), "attention: V has " + std::to_string(v.rows()) +
                                    " rows but K has " + std::to_string(k.rows()) +
                                    " (one value per key)");
  require_finite(q, "attention: Q");
  require_finite(k, "attention: K");
  require_finite(v, "attention: V");
}

void attention_scores(const ConstMatrixRef& q, const ConstMatrixRef& k, MatrixRef scores) {
  scores.noalias() = q * k.transpose();
}

void attention_mix(const ConstMatrixRef& weights, const ConstMatrixRef& v, MatrixRef out) {
  out.noalias() = weights * v;
}

void attention_forward(const ConstMatrixRef& q, const ConstMatrixRef& k, const ConstMatrixRef& v,
                       const Mask& mask, bool scaled, MatrixRef weights, MatrixRef out) {
  validate_attention_inputs(q, k, v);
  require_shape(weights, q.rows(), k.rows(), "attention: weights");
  require_shape(out, q.rows(), v.cols(), "attention: output");
  attention_scores(q, k, weights);
  weights *= attention_scale(q.cols(), scaled);
  if (!mask.empty()) mask.apply(weights);
  softmax_rows_forward(weights, weights);
  attention_mix(weights, v, out);
}

AttentionTrace attention_forward_traced(const ConstMatrixRef& q, const ConstMatrixRef& k,
                                        const ConstMatrixRef& v, const Mask& mask, bool scaled) {
  validate_attention_inputs(q, k, v);
  mask.validate(q.rows(), k.rows());
  AttentionTrace t;
  t.q = q;
  t.k = k;
  t.v = v;
  t.scores.resize(q.rows(), k.rows());
  attention_scores(t.q, t.k, t.scores);
  t.scale = attention_scale(q.cols(), scaled);
  t.scaled = t.scores * t.scale;
  t.masked = t.scaled;
  mask.apply(t.masked);
  t.weights.resize(q.rows(), k.rows());
  softmax_rows_forward(t.masked, t.weights);
  t.output.resize(q.rows(), v.cols());
  attention_mix(t.weights, t.v, t.output);
  return t;
}

AttentionTrace attention_head_forward_traced(const ConstMatrixRef& x_q, const ConstMatrixRef& x_kv,
                                             const ConstMatrixRef& w_q, const ConstMatrixRef& w_k,
                                             const ConstMatrixRef& w_v, const Mask& mask, bool scaled) {
  require(x_q.cols() == x_kv.cols(), "attention head: queries have width " +
                                         std::to_string(x_q.cols()) + " but keys/values have " +
                                         std::to_string(x_kv.cols()));
  const Index d = x_q.cols();
  require(w_q.rows() == d && w_k.rows() == d && w_v.rows() == d,
          "attention head: W_Q, W_K and W_V need d = " + std::to_string(d) + " rows");
  require_finite(x_q, "attention head: X");
  require_finite(x_kv, "attention head: memory");
  require_finite(w_q, "attention head: W_Q");
  require_finite(w_k, "attention head: W_K");
  require_finite(w_v, "attention head: W_V");
  return attention_forward_traced(x_q * w_q, x_kv * w_k, x_kv * w_v, mask, scaled);
}

}  // namespace attnlab
