#include "core/multi_head_attention.hpp"

#include <algorithm>
#include <string>

#include "core/alibi.hpp"
#include "core/check.hpp"
#include "core/linear.hpp"
#include "core/random.hpp"
#include "core/rope.hpp"
#include "core/thread_pool.hpp"

namespace attnlab {

void AttentionConfig::validate() const {
  require(d_model >= 1 && d_model <= 65536,
          "attention: d_model must be between 1 and 65536, got ", d_model);
  require(n_heads >= 1, "attention: n_heads must be at least 1, got ", n_heads);
  require(d_model % n_heads == 0, "attention: d_model = ", d_model, " is not divisible by n_heads = ", n_heads);
  require(n_kv_heads >= 0, "attention: n_kv_heads must not be negative");
  require(n_heads % kv_heads() == 0, "attention: n_kv_heads = ", kv_heads(), " does not divide n_heads = ", n_heads);
  require(!rope || d_head() % 2 == 0,
          "attention: RoPE needs an even head width, got d_k = ", d_head());
  require(std::isfinite(rope_base) && rope_base > 1.0f,
          "attention: rope_base must be a finite number above 1");
  require(!(rope && alibi), "attention: choose RoPE or ALiBi, not both");
  require(flash_rows >= 0 && flash_rows <= 4096 && flash_cols >= 0 && flash_cols <= 4096 &&
              (flash_rows > 0) == (flash_cols > 0),
          "attention: flash attention needs both tile sizes, each 1 … 4096");
  require(!(flash() && alibi), "attention: flash attention takes no ALiBi bias");
}

std::uint64_t attention_parameters(const AttentionConfig& config) {
  config.validate();
  const auto d = static_cast<std::uint64_t>(config.d_model);
  const auto kv = static_cast<std::uint64_t>(config.kv_width());
  return d * (d + 2 * kv) + (d + 2 * kv) + d * d + d;  // c_attn weight and bias, c_proj weight and bias
}

std::uint64_t kv_cache_bytes(const AttentionConfig& config, std::uint64_t n, std::uint64_t bytes_per_value) {
  config.validate();
  return 2 * n * static_cast<std::uint64_t>(config.kv_width()) * bytes_per_value;
}

AttentionParams AttentionParams::init(const AttentionConfig& config, std::uint32_t seed) {
  config.validate();
  const Index d = config.d_model, qkv = d + 2 * config.kv_width();
  Rng rng(seed);
  AttentionParams p;
  p.c_attn_weight.resize(d, qkv);
  p.c_proj_weight.resize(d, d);
  for (Index i = 0; i < p.c_attn_weight.size(); ++i) p.c_attn_weight.data()[i] = rng.normal(0, 0.02f);
  for (Index i = 0; i < p.c_proj_weight.size(); ++i) p.c_proj_weight.data()[i] = rng.normal(0, 0.02f);
  p.c_attn_bias = RowVector::Zero(qkv);
  p.c_proj_bias = RowVector::Zero(d);
  return p;
}

void AttentionParams::validate(const AttentionConfig& config, WeightCheck check) const {
  config.validate();
  const Index d = config.d_model, qkv = d + 2 * config.kv_width();
  const bool finite = check == WeightCheck::finite;
  require_weight(c_attn_weight, d, qkv, "attn.c_attn.weight", finite);
  require_shape(c_attn_bias, 1, qkv, "attn.c_attn.bias");
  require_weight(c_proj_weight, d, d, "attn.c_proj.weight", finite);
  require_shape(c_proj_bias, 1, d, "attn.c_proj.bias");
  if (!finite) return;
  require_finite(c_attn_bias, "attn.c_attn.bias");
  require_finite(c_proj_bias, "attn.c_proj.bias");
}

Index kv_head_of(const AttentionConfig& config, Index head) {
  return head / (config.n_heads / config.kv_heads());
}

ProjectedQKV project_qkv(const AttentionConfig& config, const AttentionParams& params,
                         const ConstMatrixRef& x, const ConstMatrixRef& x_kv, const Mask& mask,
                         bool self, KVCacheLayer* cache, WeightCheck check) {
  params.validate(config, check);
  const Index d = config.d_model, dk = config.d_head(), kvw = config.kv_width();
  const Index n = x.rows();
  require(n >= 1, "attention: the query sequence is empty (n = 0)");
  require(x_kv.rows() >= 1, "attention: the key/value sequence is empty (m = 0)");
  require(x.cols() == d, "attention: input has width ", x.cols(), ", expected d_model = ", d);
  require(x_kv.cols() == d, "attention: memory has width ", x_kv.cols(), ", expected d_model = ", d);
  require_finite(x, "attention: input");
  if (!self) require_finite(x_kv, "attention: memory");
  require(self || (!config.rope && !config.alibi),
          "attention: RoPE and ALiBi apply to self-attention, not cross-attention");
  const Index past = cache ? cache->length() : 0;
  const Index m = past + x_kv.rows();
  require_size(n, m, "attention score matrix");
  mask.validate(n, m);

  // project: Q = x·W_Q + b_Q;  [K | V] = x_kv·[W_K | W_V] + [b_K | b_V]
  ProjectedQKV p;
  p.q = linear_forward(x, params.c_attn_weight.view().left_cols(d), params.c_attn_bias.head(d));
  Matrix kv_new = linear_forward(x_kv, params.c_attn_weight.view().right_cols(2 * kvw), params.c_attn_bias.tail(2 * kvw));
  // rotate: queries sit at positions m − n …, new keys at past …
  if (config.rope) {
    for (Index head = 0; head < config.n_heads; ++head)
      rope_apply(p.q.middleCols(head * dk, dk), m - n, config.rope_base, config.rope_pairing);
    for (Index group = 0; group < config.kv_heads(); ++group)
      rope_apply(kv_new.middleCols(group * dk, dk), past, config.rope_base, config.rope_pairing);
  }
  // checked once here, so that the heads need not check their slices (a cache's rows were checked
  // when they were new); a finite input can still overflow a projection or a rotation
  require_finite(p.q, "attention: Q");
  require_finite(kv_new.leftCols(kvw), "attention: K");
  require_finite(kv_new.rightCols(kvw), "attention: V");
  if (cache) {
    cache->append(kv_new);
    p.cache = cache;
  } else {
    p.kv = std::move(kv_new);
  }
  return p;
}

void KVCacheLayer::append(const ConstMatrixRef& more) {
  require(used == 0 || more.cols() == kv.cols(), "attention: the KV cache was built for another configuration");
  if (used + more.rows() > kv.rows()) {
    Matrix grown(std::max({2 * kv.rows(), used + more.rows(), Index(16)}), more.cols());
    grown.topRows(used) = kv.topRows(used);
    kv.swap(grown);
  }
  kv.middleRows(used, more.rows()) = more;
  used += more.rows();
}

ConstMatrixRef ProjectedQKV::all_kv() const { return cache ? cache->rows() : ConstMatrixRef(kv); }

ConstMatrixRef ProjectedQKV::queries(const AttentionConfig& config, Index head) const {
  return q.middleCols(head * config.d_head(), config.d_head());
}
ConstMatrixRef ProjectedQKV::keys(const AttentionConfig& config, Index head) const {
  return all_kv().middleCols(kv_head_of(config, head) * config.d_head(), config.d_head());
}
ConstMatrixRef ProjectedQKV::values(const AttentionConfig& config, Index head) const {
  return all_kv().middleCols(config.kv_width() + kv_head_of(config, head) * config.d_head(), config.d_head());
}

Mask head_mask(const AttentionConfig& config, const Mask& mask, Index head, Index n, Index m) {
  if (!config.alibi) return mask;
  Mask with_bias = mask;
  const Matrix bias = alibi_bias(alibi_slopes(config.n_heads)[static_cast<size_t>(head)], n, m);
  with_bias.additive = mask.additive.size() ? Matrix(mask.additive + bias) : bias;
  return with_bias;
}

Matrix output_projection(const AttentionParams& params, const ConstMatrixRef& concat) {
  return linear_forward(concat, params.c_proj_weight, params.c_proj_bias);
}

// multiply-adds of a query·key (and weight·value) pass over all short heads worth other threads
constexpr double kShortHeadsWorkWorthSplitting = 1 << 16;

Matrix attend_heads(const AttentionConfig& config, const ProjectedQKV& p, const Mask& mask,
                    std::vector<AttentionTrace>* trace, std::vector<FlashTrace>* flash_tiles,
                    TraceDetail detail) {
  const Index n = p.q.rows(), m = p.all_kv().rows(), dk = config.d_head();
  require(!config.flash() || (mask.key_padding.empty() && mask.additive.size() == 0),
          "attention: flash attention supports the causal mask only");
  if (trace) trace->resize(static_cast<size_t>(config.n_heads));
  if (flash_tiles) flash_tiles->assign(config.n_heads, FlashTrace{});
  Matrix concat(n, config.n_heads * dk);
  const auto head_output = [&](Index head) { return concat.middleCols(head * dk, dk); };
  const auto attend = [&](Index head) {
    const ConstMatrixRef q = p.queries(config, head), k = p.keys(config, head), v = p.values(config, head);
    if (config.flash()) {
      head_output(head) = flash_attention_forward(q, k, v, mask.causal, config.scaled, config.flash_rows, config.flash_cols,
                                                  flash_tiles ? &(*flash_tiles)[head] : nullptr, InputCheck::shapes);
      if (trace) (*trace)[head] = {q, k, v, {}, attention_scale(dk, config.scaled), {}, {}, {}, head_output(head)};
    } else if (trace && detail == TraceDetail::for_backward) {
      AttentionTrace& t = (*trace)[head];
      Matrix weights = std::move(t.weights);  // a reused trace keeps its buffer, and no other stage
      t = AttentionTrace{};
      t.weights = std::move(weights);
      t.scale = attention_scale(dk, config.scaled);
      attention_forward_weights(q, k, v, head_mask(config, mask, head, n, m), config.scaled, head_output(head),
                                t.weights, InputCheck::shapes);
    } else if (trace) {
      (*trace)[head] = attention_forward_traced(q, k, v, head_mask(config, mask, head, n, m), config.scaled, InputCheck::shapes);
      head_output(head) = (*trace)[head].output;
    } else {
      attention_forward(q, k, v, head_mask(config, mask, head, n, m), config.scaled, head_output(head), 0,
                        InputCheck::shapes);
    }
  };
  // Long heads run side by side, one hand-over for all, when there are enough of them for the
  // threads (or when each keeps a trace); a long head alone spreads its query blocks over the
  // threads itself. Short ones (a decoded token's one query) run side by side when they read keys
  // enough to pay for handing them to another thread (a few microseconds), in turn otherwise.
  const bool long_heads = n >= kRowsWorthSplitting;
  const double work = static_cast<double>(n) * static_cast<double>(m) * static_cast<double>(dk * config.n_heads);
  if (long_heads ? trace || flash_tiles || config.n_heads >= num_threads() : work >= kShortHeadsWorkWorthSplitting) {
    parallel_for(config.n_heads, attend);
  } else {
    for (Index head = 0; head < config.n_heads; ++head) attend(head);
  }
  return concat;
}

namespace {

// The shared body of self- and cross-attention. Positional schemes apply only to self-attention,
// where queries and keys index one sequence; with a cache, the new keys and values are appended
// to it and attention runs over all of it.
Matrix multi_head_forward(const AttentionConfig& config, const AttentionParams& params,
                          const ConstMatrixRef& x, const ConstMatrixRef& x_kv, const Mask& mask,
                          bool self, KVCacheLayer* cache, MultiHeadTrace* trace, WeightCheck check) {
  // project → attend, head by head → concat → output
  ProjectedQKV p = project_qkv(config, params, x, x_kv, mask, self, cache, check);
  Matrix concat = attend_heads(config, p, mask, trace ? &trace->heads : nullptr, nullptr,
                               trace ? trace->detail : TraceDetail::every_stage);
  Matrix out = output_projection(params, concat);
  if (trace) {
    trace->q = std::move(p.q);
    trace->k = p.all_kv().leftCols(config.kv_width());
    trace->v = p.all_kv().rightCols(config.kv_width());
    trace->concat = std::move(concat);
    trace->output = out;
  }
  return out;
}

}  // namespace

MultiHeadInputGrads multi_head_backward(const AttentionConfig& config, const AttentionParams& params,
                                        const ConstMatrixRef& x, const ConstMatrixRef& x_kv,
                                        const MultiHeadTrace& trace, const ConstMatrixRef& dout,
                                        AttentionParams& grads) {
  const Index d = config.d_model, dk = config.d_head(), kvw = config.kv_width();
  const Index n = x.rows(), m = x_kv.rows();
  require(static_cast<Index>(trace.heads.size()) == config.n_heads && trace.q.rows() == n &&
              trace.k.rows() == m && trace.concat.rows() == n,
          "attention backward: the trace does not belong to this call");
  require_shape(dout, n, d, "attention backward: dOut");
  // out = concat·W_O + b_O
  const Matrix dconcat = linear_backward(trace.concat, params.c_proj_weight, dout, grads.c_proj_weight, grads.c_proj_bias);
  // head_i = softmax(Q_i K_gᵀ·s + M_i)·V_g; heads of one group add into its dK, dV
  Matrix dq = Matrix::Zero(n, d), dkv = Matrix::Zero(m, 2 * kvw);
  const Scalar scale = attention_scale(dk, config.scaled);
  for (Index head = 0; head < config.n_heads; ++head) {
    const Index group = kv_head_of(config, head);
    attention_backward(trace.q.middleCols(head * dk, dk), trace.k.middleCols(group * dk, dk),
                       trace.v.middleCols(group * dk, dk), trace.heads[head].weights, scale,
                       dconcat.middleCols(head * dk, dk), dq.middleCols(head * dk, dk),
                       dkv.middleCols(group * dk, dk), dkv.middleCols(kvw + group * dk, dk));
  }
  // RoPE rotated queries at positions m − n … and keys at 0 …
  if (config.rope) {
    for (Index head = 0; head < config.n_heads; ++head)
      rope_apply_transpose(dq.middleCols(head * dk, dk), m - n, config.rope_base, config.rope_pairing);
    for (Index group = 0; group < config.kv_heads(); ++group)
      rope_apply_transpose(dkv.middleCols(group * dk, dk), 0, config.rope_base, config.rope_pairing);
  }
  // Q = x·W_Q + b_Q;  [K | V] = x_kv·[W_K | W_V] + [b_K | b_V]
  MultiHeadInputGrads g;
  g.dx = linear_backward(x, params.c_attn_weight.leftCols(d), dq, grads.c_attn_weight.leftCols(d),
                         grads.c_attn_bias.head(d));
  g.dx_kv = linear_backward(x_kv, params.c_attn_weight.rightCols(2 * kvw), dkv,
                            grads.c_attn_weight.rightCols(2 * kvw), grads.c_attn_bias.tail(2 * kvw));
  return g;
}

Matrix self_attention_forward(const AttentionConfig& config, const AttentionParams& params,
                              const ConstMatrixRef& x, const Mask& mask, MultiHeadTrace* trace,
                              WeightCheck check) {
  return multi_head_forward(config, params, x, x, mask, true, nullptr, trace, check);
}

Matrix self_attention_forward_cached(const AttentionConfig& config, const AttentionParams& params,
                                     const ConstMatrixRef& x, KVCacheLayer& cache,
                                     MultiHeadTrace* trace, WeightCheck check) {
  require(cache.length() == 0 || cache.kv.cols() == 2 * config.kv_width(),
          "attention: the KV cache was built for another configuration");
  return multi_head_forward(config, params, x, x, Mask::causal_mask(), true, &cache, trace, check);
}

Matrix cross_attention_forward(const AttentionConfig& config, const AttentionParams& params,
                               const ConstMatrixRef& x, const ConstMatrixRef& memory,
                               const Mask& mask, MultiHeadTrace* trace, WeightCheck check) {
  return multi_head_forward(config, params, x, memory, mask, false, nullptr, trace, check);
}

}  // namespace attnlab
