#include "core/attention.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/check.hpp"
#include "core/enum_names.hpp"
#include "core/linear.hpp"
#include "core/matmul.hpp"
#include "core/softmax.hpp"
#include "core/thread_pool.hpp"

namespace attnlab {

namespace {
constexpr std::pair<const char*, AttentionStage> kStageNames[] = {
    {"start", AttentionStage::start},   {"project", AttentionStage::project},
    {"scores", AttentionStage::scores}, {"scale", AttentionStage::scale},
    {"mask", AttentionStage::mask},     {"softmax", AttentionStage::softmax},
    {"mix", AttentionStage::mix},       {"flash", AttentionStage::flash},
    {"concat", AttentionStage::concat}, {"output", AttentionStage::output}};
}  // namespace

Index fused_block_rows(Index m) { return std::clamp<Index>(16384 / std::max<Index>(m, 1), 8, 128); }

std::string to_string(AttentionStage stage) { return enum_name(stage, kStageNames); }

Scalar attention_scale(Index d_k, bool scaled) {
  return scaled ? Scalar(1) / std::sqrt(static_cast<Scalar>(d_k)) : Scalar(1);
}

void validate_attention_inputs(const ConstMatrixRef& q, const ConstMatrixRef& k,
                               const ConstMatrixRef& v, InputCheck check) {
  require(q.rows() >= 1, "attention: Q has no rows (n = 0)");
  require(k.rows() >= 1, "attention: K has no rows (m = 0)");
  require(q.cols() >= 1 && v.cols() >= 1, "attention: d_k and d_v must be at least 1");
  require(k.cols() == q.cols(), "attention: K has width ", k.cols(), " but Q has width ", q.cols(),
          " (d_k must match)");
  require(v.rows() == k.rows(), "attention: V has ", v.rows(), " rows but K has ", k.rows(), " (one value per key)");
  if (check == InputCheck::shapes) return;
  require_finite(q, "attention: Q");
  require_finite(k, "attention: K");
  require_finite(v, "attention: V");
}

void attention_scores(const ConstMatrixRef& q, const PackedMatrix& keys, MatrixRef scores) { matmul(q, keys, scores); }

void attention_scores(const ConstMatrixRef& q, const ConstMatrixRef& k, MatrixRef scores) {
  attention_scores(q, PackedMatrix(k, true, q.rows()), scores);
}

void attention_scale_scores(const ConstMatrixRef& scores, Scalar scale, MatrixRef scaled) {
  scaled = scores * scale;
}

void attention_mix(const ConstMatrixRef& weights, const PackedMatrix& values, MatrixRef out) { matmul(weights, values, out); }

void attention_mix(const ConstMatrixRef& weights, const ConstMatrixRef& v, MatrixRef out) {
  attention_mix(weights, PackedMatrix(v, false, weights.rows()), out);
}

void run_head_stage(AttentionStage stage, AttentionTrace& t, const Mask& mask) {
  const Index n = t.q.rows(), m = t.k.rows();
  switch (stage) {
    case AttentionStage::scores:
      t.scores.resize(n, m);
      attention_scores(t.q, t.k, t.scores);
      break;
    case AttentionStage::scale:
      t.scaled.resize(n, m);
      attention_scale_scores(t.scores, t.scale, t.scaled);
      break;
    case AttentionStage::mask:
      t.masked = t.scaled;
      mask.apply(t.masked);
      break;
    case AttentionStage::softmax:
      t.weights.resize(n, m);
      softmax_rows_forward(t.masked, t.weights);
      break;
    case AttentionStage::mix:
      t.output.resize(n, t.v.cols());
      attention_mix(t.weights, t.v, t.output);
      break;
    default:
      throw Error("attention: " + to_string(stage) + " is not a stage of one head");
  }
}

void attention_forward(const ConstMatrixRef& q, const ConstMatrixRef& k, const ConstMatrixRef& v,
                       const Mask& mask, bool scaled, MatrixRef out, Index block_rows, InputCheck check) {
  validate_attention_inputs(q, k, v, check);
  require_shape(out, q.rows(), v.cols(), "attention: output");
  require(block_rows >= 0, "attention: negative rows per block");
  mask.validate(q.rows(), k.rows());
  const Index n = q.rows(), m = k.rows();
  const Scalar scale = attention_scale(q.cols(), scaled);
  if (block_rows == 0) block_rows = fused_block_rows(m);
  const Index blocks = (n + block_rows - 1) / block_rows;
  // blocks dealt round-robin to the threads (causal rows grow in cost), one scores tile each
  const Index workers = std::min(blocks, n >= kRowsWorthSplitting ? num_threads() : Index(1));
  const PackedMatrix keys(k, true, n), values(v, false, n);
  parallel_for(workers, [&](Index worker) {
    Matrix tile(std::min(block_rows, n), m);
    for (Index b = worker; b < blocks; b += workers) {
      const Index r0 = b * block_rows, rows = std::min(block_rows, n - r0);
      auto s = tile.topRows(rows);
      attention_scores(q.middleRows(r0, rows), keys, s);
      attention_scale_scores(s, scale, s);
      if (!mask.empty()) mask.row_block(r0, rows, n, m).apply(s);
      softmax_rows_forward(s, s);
      attention_mix(s, values, out.middleRows(r0, rows));
    }
  });
}

void attention_backward(const ConstMatrixRef& q, const ConstMatrixRef& k, const ConstMatrixRef& v,
                        const ConstMatrixRef& weights, Scalar scale, const ConstMatrixRef& dout,
                        MatrixRef dq, MatrixRef dk, MatrixRef dv) {
  const Index n = q.rows(), m = k.rows();
  require_shape(weights, n, m, "attention backward: weights");
  require_shape(dout, n, v.cols(), "attention backward: dOut");
  require_shape(dq, n, q.cols(), "attention backward: dQ");
  require_shape(dk, m, k.cols(), "attention backward: dK");
  require_shape(dv, m, v.cols(), "attention backward: dV");
  dv.noalias() += weights.transpose() * dout;
  const Matrix dweights = dout * v.transpose();
  Matrix dscores(n, m);
  softmax_rows_backward(weights, dweights, dscores);
  dscores *= scale;
  dq.noalias() += dscores * k;
  dk.noalias() += dscores.transpose() * q;
}

void attention_forward_weights(const ConstMatrixRef& q, const ConstMatrixRef& k, const ConstMatrixRef& v,
                               const Mask& mask, bool scaled, MatrixRef out, Matrix& weights,
                               InputCheck check) {
  validate_attention_inputs(q, k, v, check);
  require_shape(out, q.rows(), v.cols(), "attention: output");
  mask.validate(q.rows(), k.rows());
  weights.resize(q.rows(), k.rows());
  attention_scores(q, k, weights);
  attention_scale_scores(weights, attention_scale(q.cols(), scaled), weights);
  mask.apply(weights);
  softmax_rows_forward(weights, weights);
  attention_mix(weights, v, out);
}

AttentionTrace attention_forward_traced(const ConstMatrixRef& q, const ConstMatrixRef& k,
                                        const ConstMatrixRef& v, const Mask& mask, bool scaled,
                                        InputCheck check) {
  validate_attention_inputs(q, k, v, check);
  mask.validate(q.rows(), k.rows());
  AttentionTrace t;
  t.q = q;
  t.k = k;
  t.v = v;
  t.scale = attention_scale(q.cols(), scaled);
  for (AttentionStage stage : kHeadStages) run_head_stage(stage, t, mask);
  return t;
}

void validate_attention_head_inputs(const ConstMatrixRef& x_q, const ConstMatrixRef& x_kv,
                                    const ConstMatrixRef& w_q, const ConstMatrixRef& w_k,
                                    const ConstMatrixRef& w_v) {
  require(x_q.cols() == x_kv.cols(), "attention head: queries have width ", x_q.cols(), " but keys/values have ",
          x_kv.cols());
  const Index d = x_q.cols();
  require(w_q.rows() == d && w_k.rows() == d && w_v.rows() == d,
          "attention head: W_Q, W_K and W_V need d = ", d, " rows");
  require_finite(x_q, "attention head: X");
  require_finite(x_kv, "attention head: memory");
  require_finite(w_q, "attention head: W_Q");
  require_finite(w_k, "attention head: W_K");
  require_finite(w_v, "attention head: W_V");
}

Matrix attention_head_forward(const ConstMatrixRef& x_q, const ConstMatrixRef& x_kv, const ConstMatrixRef& w_q,
                              const ConstMatrixRef& w_k, const ConstMatrixRef& w_v, const Mask& mask, bool scaled) {
  validate_attention_head_inputs(x_q, x_kv, w_q, w_k, w_v);
  Matrix out(x_q.rows(), w_v.cols());
  attention_forward(linear_forward(x_q, w_q), linear_forward(x_kv, w_k), linear_forward(x_kv, w_v), mask, scaled, out);
  return out;
}

AttentionTrace attention_head_forward_traced(const ConstMatrixRef& x_q, const ConstMatrixRef& x_kv,
                                             const ConstMatrixRef& w_q, const ConstMatrixRef& w_k,
                                             const ConstMatrixRef& w_v, const Mask& mask, bool scaled) {
  validate_attention_head_inputs(x_q, x_kv, w_q, w_k, w_v);
  return attention_forward_traced(linear_forward(x_q, w_q), linear_forward(x_kv, w_k), linear_forward(x_kv, w_v),
                                  mask, scaled);
}

Matrix attention_head_backward(const AttentionTrace& trace, const ConstMatrixRef& w_q,
                               const ConstMatrixRef& w_k, const ConstMatrixRef& w_v,
                               const ConstMatrixRef& dhead) {
  const Index n = trace.q.rows();
  require(trace.k.rows() == n, "attention head backward: needs the trace of a self-attention call");
  require(w_q.cols() == trace.q.cols() && w_k.cols() == trace.k.cols() && w_v.cols() == trace.v.cols() &&
              w_k.rows() == w_q.rows() && w_v.rows() == w_q.rows(),
          "attention head backward: W_Q, W_K and W_V do not match the trace");
  Matrix dq = Matrix::Zero(n, trace.q.cols()), dk = Matrix::Zero(n, trace.k.cols()),
         dv = Matrix::Zero(n, trace.v.cols());
  attention_backward(trace.q, trace.k, trace.v, trace.weights, trace.scale, dhead, dq, dk, dv);
  return dq * w_q.transpose() + dk * w_k.transpose() + dv * w_v.transpose();
}

}  // namespace attnlab
