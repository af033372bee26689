#include "model/block.hpp"

#include "core/feed_forward.hpp"
#include "core/layer_norm.hpp"
#include "core/rms_norm.hpp"

namespace attnlab {

Matrix norm_forward(const ModelConfig& config, const NormParams& params, const ConstMatrixRef& x) {
  return config.norm == Norm::layer_norm ? layer_norm_forward(x, params.weight, params.bias, config.norm_eps)
                                         : rms_norm_forward(x, params.weight, config.norm_eps);
}

namespace {

void record_attention(Trace& trace, const std::string& prefix, const MultiHeadTrace& t) {
  trace.record(prefix + ".q", t.q);
  trace.record(prefix + ".k", t.k);
  trace.record(prefix + ".v", t.v);
  for (size_t h = 0; h < t.heads.size(); ++h) {
    const std::string head = prefix + ".head" + std::to_string(h);
    const AttentionTrace& a = t.heads[h];
    trace.record(head + ".scores", a.scores);
    trace.record(head + ".scaled", a.scaled);
    trace.record(head + ".masked", a.masked);
    trace.record(head + ".weights", a.weights);
    trace.record(head + ".output", a.output);
  }
  trace.record(prefix + ".concat", t.concat);
  trace.record(prefix + ".out", t.output);
}

// One residual sub-layer: x + f(norm(x)) before, norm(x + f(x)) after. Records the norm's output
// as `<name>` and the residual sum as `<residual>`.
template <class Sublayer>
Matrix residual(const ModelConfig& config, const NormParams& norm, const Matrix& x, Sublayer&& f,
                Trace* trace, const std::string& norm_name, const std::string& residual_name) {
  if (config.pre_norm) {
    const Matrix normed = norm_forward(config, norm, x);
    Matrix sum = x + f(normed);
    if (trace) {
      trace->record(norm_name, normed);
      trace->record(residual_name, sum);
    }
    return sum;
  }
  const Matrix sum = x + f(x);
  Matrix normed = norm_forward(config, norm, sum);
  if (trace) {
    trace->record(residual_name, sum);
    trace->record(norm_name, normed);
  }
  return normed;
}

}  // namespace

Matrix block_forward(const ModelConfig& config, const BlockParams& p, const ConstMatrixRef& input,
                     const BlockContext& ctx) {
  const AttentionConfig attention = config.attention();
  const std::string& prefix = ctx.prefix;
  Trace* trace = ctx.trace;
  MultiHeadTrace heads;
  MultiHeadTrace* heads_trace = trace ? &heads : nullptr;
  if (trace) trace->record(prefix + "in", input);

  Matrix x = residual(config, p.ln_1, Matrix(input), [&](const Matrix& h) {
    Matrix out = ctx.cache ? self_attention_forward_cached(attention, p.attn, h, *ctx.cache, heads_trace)
                           : self_attention_forward(attention, p.attn, h, ctx.self_mask ? *ctx.self_mask : Mask::none(), heads_trace);
    if (trace) record_attention(*trace, prefix + "attn", heads);
    return out;
  }, trace, prefix + "ln_1", prefix + "residual_1");

  if (ctx.memory) {
    AttentionConfig cross = attention;
    cross.rope = cross.alibi = false;
    x = residual(config, p.ln_cross_attn, x, [&](const Matrix& h) {
      Matrix out = cross_attention_forward(cross, p.crossattention, h, *ctx.memory,
                                           ctx.memory_mask ? *ctx.memory_mask : Mask::none(), heads_trace);
      if (trace) record_attention(*trace, prefix + "cross", heads);
      return out;
    }, trace, prefix + "ln_cross_attn", prefix + "residual_cross");
  }

  x = residual(config, p.ln_2, x, [&](const Matrix& h) {
    FeedForwardTrace ffn;
    Matrix out = feed_forward(p.mlp, config.activation, h, trace ? &ffn : nullptr);
    if (trace) {
      trace->record(prefix + "mlp.hidden", ffn.hidden);
      if (ffn.gate.size()) trace->record(prefix + "mlp.gate", ffn.gate);
      trace->record(prefix + "mlp.act", ffn.activated);
      trace->record(prefix + "mlp.out", ffn.output);
    }
    return out;
  }, trace, prefix + "ln_2", prefix + "residual_2");

  if (trace) trace->record(prefix + "out", x);
  return x;
}

}  // namespace attnlab
