#include "model/block.hpp"

#include "core/check.hpp"
#include "core/feed_forward.hpp"
#include "core/layer_norm.hpp"
#include "core/rms_norm.hpp"

namespace attnlab {

Matrix norm_forward(const ModelConfig& config, const NormParams& params, const ConstMatrixRef& x) {
  if (config.norm == Norm::none) return x;
  return config.norm == Norm::layer_norm ? layer_norm_forward(x, params.weight, params.bias, config.norm_eps)
                                         : rms_norm_forward(x, params.weight, config.norm_eps);
}

Matrix norm_backward(const ModelConfig& config, const NormParams& params, const ConstMatrixRef& x,
                     const ConstMatrixRef& dy, NormParams& grads) {
  if (config.norm == Norm::none) return dy;
  return config.norm == Norm::layer_norm
             ? layer_norm_backward(x, params.weight, dy, grads.weight, grads.bias, config.norm_eps)
             : rms_norm_backward(x, params.weight, dy, grads.weight, config.norm_eps);
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

// One residual sub-layer: x + f(norm(x)) before, norm(x + f(x)) after; without residual
// connections (config.residual false) f(norm(x)) and norm(f(x)). Records the norm's output as
// `<name>` and the sub-layer's sum as `<residual>`.
template <class Sublayer>
Matrix residual(const ModelConfig& config, const NormParams& norm, const Matrix& x, Sublayer&& f,
                Trace* trace, const std::string& norm_name, const std::string& residual_name) {
  if (config.pre_norm) {
    const Matrix normed = norm_forward(config, norm, x);
    Matrix sum = f(normed);
    if (config.residual) sum += x;
    if (trace) {
      trace->record(norm_name, normed);
      trace->record(residual_name, sum);
    }
    return sum;
  }
  Matrix sum = f(x);
  if (config.residual) sum += x;
  Matrix normed = norm_forward(config, norm, sum);
  if (trace) {
    trace->record(residual_name, sum);
    trace->record(norm_name, normed);
  }
  return normed;
}

// The attention activations that record_attention stored, back in their struct.
MultiHeadTrace recorded_attention(const Trace& trace, const std::string& prefix, Index n_heads) {
  MultiHeadTrace t;
  t.q = trace.get(prefix + ".q");
  t.k = trace.get(prefix + ".k");
  t.v = trace.get(prefix + ".v");
  t.heads.resize(static_cast<size_t>(n_heads));
  for (Index h = 0; h < n_heads; ++h) t.heads[h].weights = trace.get(prefix + ".head" + std::to_string(h) + ".weights");
  t.concat = trace.get(prefix + ".concat");
  return t;
}

// Backward of residual(): x_in is the sub-layer's stream input, f_backward(input of f, dy)
// returns the gradient of f's input.
//   pre-LN:  out = x + f(norm(x))  →  dx = dout + norm_backward(x, f_backward(norm(x), dout))
//   post-LN: out = norm(x + f(x))  →  ds = norm_backward(x + f(x), dout);  dx = ds + f_backward(x, ds)
// without residual connections the first term (dout, ds) of dx is dropped
template <class SublayerBackward>
Matrix residual_backward(const ModelConfig& config, const NormParams& norm, NormParams& norm_grads,
                         const Trace& trace, const Matrix& x_in, const ConstMatrixRef& dout,
                         SublayerBackward&& f_backward, const std::string& norm_name,
                         const std::string& residual_name) {
  if (config.pre_norm) {
    const Matrix dnormed = f_backward(trace.get(norm_name), dout);
    Matrix dx = norm_backward(config, norm, x_in, dnormed, norm_grads);
    if (config.residual) dx += dout;
    return dx;
  }
  const Matrix dsum = norm_backward(config, norm, trace.get(residual_name), dout, norm_grads);
  Matrix dx = f_backward(x_in, dsum);
  if (config.residual) dx += dsum;
  return dx;
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

Matrix block_backward(const ModelConfig& config, const BlockParams& p, const Trace& trace,
                      const std::string& prefix, const Matrix* memory, const ConstMatrixRef& dout,
                      BlockParams& grads, Matrix* dmemory) {
  const AttentionConfig attention = config.attention();
  // the stream entering each sub-layer, as block_forward left it
  const std::string after_attn = prefix + (config.pre_norm ? "residual_1" : "ln_1");
  const std::string after_cross = prefix + (config.pre_norm ? "residual_cross" : "ln_cross_attn");
  const Matrix& in_attn = trace.get(prefix + "in");
  const Matrix& in_ffn = trace.get(memory ? after_cross : after_attn);

  // x ← x + FFN(LN₂(x))
  Matrix dx = residual_backward(config, p.ln_2, grads.ln_2, trace, in_ffn, dout, [&](const Matrix& h, const ConstMatrixRef& dy) {
    FeedForwardTrace ffn;
    ffn.hidden = trace.get(prefix + "mlp.hidden");
    if (config.activation == Activation::swiglu) ffn.gate = trace.get(prefix + "mlp.gate");
    ffn.activated = trace.get(prefix + "mlp.act");
    return feed_forward_backward(p.mlp, config.activation, h, ffn, dy, grads.mlp);
  }, prefix + "ln_2", prefix + "residual_2");

  // x ← x + CrossAttn(LN_c(x), memory)
  if (memory) {
    require(dmemory != nullptr, "block backward: cross-attention needs somewhere to put the memory's gradient");
    AttentionConfig cross = attention;
    cross.rope = cross.alibi = false;
    dx = residual_backward(config, p.ln_cross_attn, grads.ln_cross_attn, trace, trace.get(after_attn), dx,
                           [&](const Matrix& h, const ConstMatrixRef& dy) {
      const MultiHeadInputGrads g = multi_head_backward(cross, p.crossattention, h, *memory,
          recorded_attention(trace, prefix + "cross", cross.n_heads), dy, grads.crossattention);
      *dmemory += g.dx_kv;
      return g.dx;
    }, prefix + "ln_cross_attn", prefix + "residual_cross");
  }

  // x ← x + SelfAttn(LN₁(x)): queries, keys and values all come from the same input
  return residual_backward(config, p.ln_1, grads.ln_1, trace, in_attn, dx, [&](const Matrix& h, const ConstMatrixRef& dy) {
    const MultiHeadInputGrads g = multi_head_backward(attention, p.attn, h, h,
        recorded_attention(trace, prefix + "attn", attention.n_heads), dy, grads.attn);
    return Matrix(g.dx + g.dx_kv);
  }, prefix + "ln_1", prefix + "residual_1");
}

}  // namespace attnlab
