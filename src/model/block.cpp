#include "model/block.hpp"

#include "core/check.hpp"
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

// One residual sub-layer: x + f(norm(x)) before, norm(x + f(x)) after; without residual
// connections (config.residual false) f(norm(x)) and norm(f(x)). Keeps the norm's output in
// *normed and the sum in *sum when given.
template <class Sublayer>
Matrix residual(const ModelConfig& config, const NormParams& norm, const ConstMatrixRef& x, Sublayer&& f,
                Matrix* normed, Matrix* sum) {
  if (config.pre_norm) {
    Matrix h = norm_forward(config, norm, x);
    Matrix s = f(h);
    if (config.residual) s += x;
    if (normed) *normed = std::move(h);
    if (sum) *sum = s;
    return s;
  }
  Matrix s = f(x);
  if (config.residual) s += x;
  Matrix h = norm_forward(config, norm, s);
  if (sum) *sum = std::move(s);
  if (normed) *normed = h;
  return h;
}

// Backward of residual(): x is the sub-layer's stream input, normed and sum what residual() kept,
// f_backward(input of f, dy) returns the gradient of f's input.
//   pre-LN:  out = x + f(norm(x))  →  dx = dout + norm_backward(x, f_backward(norm(x), dout))
//   post-LN: out = norm(x + f(x))  →  ds = norm_backward(x + f(x), dout);  dx = ds + f_backward(x, ds)
// without residual connections the first term (dout, ds) of dx is dropped
template <class SublayerBackward>
Matrix residual_backward(const ModelConfig& config, const NormParams& norm, NormParams& norm_grads,
                         const Matrix& x, const Matrix& normed, const Matrix& sum, const ConstMatrixRef& dout,
                         SublayerBackward&& f_backward) {
  if (config.pre_norm) {
    const Matrix dnormed = f_backward(normed, dout);
    Matrix dx = norm_backward(config, norm, x, dnormed, norm_grads);
    if (config.residual) dx += dout;
    return dx;
  }
  const Matrix dsum = norm_backward(config, norm, sum, dout, norm_grads);
  Matrix dx = f_backward(x, dsum);
  if (config.residual) dx += dsum;
  return dx;
}

}  // namespace

Matrix block_forward(const ModelConfig& config, const BlockParams& p, const ConstMatrixRef& input,
                     const BlockContext& ctx) {
  BlockActivations* a = ctx.activations;
  if (a) {
    a->in = input;
    a->attn.detail = a->cross.detail = ctx.detail;
  }

  // x ← x + SelfAttn(LN₁(x))
  const AttentionConfig attention = config.attention();
  Matrix x = residual(config, p.ln_1, input, [&](const ConstMatrixRef& h) {
    MultiHeadTrace* kept = a ? &a->attn : nullptr;
    // the model's weights are known to be finite (WeightCheck): only their shapes are checked
    return ctx.cache ? self_attention_forward_cached(attention, p.attn, h, *ctx.cache, kept, WeightCheck::shapes)
                     : self_attention_forward(attention, p.attn, h, ctx.self_mask ? *ctx.self_mask : Mask::none(), kept,
                                              WeightCheck::shapes);
  }, a ? &a->ln_1 : nullptr, a ? &a->residual_1 : nullptr);

  // x ← x + CrossAttn(LN_c(x), memory)
  if (ctx.memory) {
    x = residual(config, p.ln_cross_attn, x, [&](const ConstMatrixRef& h) {
      return cross_attention_forward(config.cross_attention(), p.crossattention, h, *ctx.memory,
                                     ctx.memory_mask ? *ctx.memory_mask : Mask::none(), a ? &a->cross : nullptr,
                                     WeightCheck::shapes);
    }, a ? &a->ln_cross_attn : nullptr, a ? &a->residual_cross : nullptr);
  }

  // x ← x + FFN(LN₂(x))
  x = residual(config, p.ln_2, x, [&](const ConstMatrixRef& h) {
    return feed_forward(p.mlp, config.activation, h, a ? &a->mlp : nullptr);
  }, a ? &a->ln_2 : nullptr, a ? &a->residual_2 : nullptr);

  if (a) a->out = x;
  return x;
}

Matrix block_backward(const ModelConfig& config, const BlockParams& p, const BlockActivations& a,
                      const Matrix* memory, const ConstMatrixRef& dout, BlockParams& grads, Matrix* dmemory) {
  require(a.in.rows() == dout.rows() && a.in.cols() == dout.cols(),
          "block backward: needs the activations of the forward pass that produced dout");
  // the stream entering each sub-layer, as block_forward left it
  const Matrix& after_attn = config.pre_norm ? a.residual_1 : a.ln_1;
  const Matrix& after_cross = config.pre_norm ? a.residual_cross : a.ln_cross_attn;

  // x ← x + FFN(LN₂(x))
  Matrix dx = residual_backward(config, p.ln_2, grads.ln_2, memory ? after_cross : after_attn, a.ln_2, a.residual_2,
                                dout, [&](const Matrix& h, const ConstMatrixRef& dy) {
    return feed_forward_backward(p.mlp, config.activation, h, a.mlp, dy, grads.mlp);
  });

  // x ← x + CrossAttn(LN_c(x), memory)
  if (memory) {
    require(dmemory != nullptr, "block backward: cross-attention needs somewhere to put the memory's gradient");
    dx = residual_backward(config, p.ln_cross_attn, grads.ln_cross_attn, after_attn, a.ln_cross_attn,
                           a.residual_cross, dx, [&](const Matrix& h, const ConstMatrixRef& dy) {
      const MultiHeadInputGrads g = multi_head_backward(config.cross_attention(), p.crossattention, h,
                                                        *memory, a.cross, dy, grads.crossattention);
      *dmemory += g.dx_kv;
      return g.dx;
    });
  }

  // x ← x + SelfAttn(LN₁(x)): queries, keys and values all come from the same input
  return residual_backward(config, p.ln_1, grads.ln_1, a.in, a.ln_1, a.residual_1, dx,
                           [&](const Matrix& h, const ConstMatrixRef& dy) {
    const MultiHeadInputGrads g = multi_head_backward(config.attention(), p.attn, h, h, a.attn, dy, grads.attn);
    return Matrix(g.dx + g.dx_kv);
  });
}

}  // namespace attnlab
