#pragma once
// One Transformer layer: self-attention, (cross-attention,) feed-forward, each wrapped in a
// residual connection with a norm before (pre-LN) or after (post-LN) it.
#include "core/feed_forward.hpp"
#include "core/mask.hpp"
#include "core/multi_head_attention.hpp"
#include "model/config.hpp"
#include "model/params.hpp"

namespace attnlab {

// LayerNorm, RMSNorm or the identity, as configured   x:(n,d) → (n,d)
Matrix norm_forward(const ModelConfig& config, const NormParams& params, const ConstMatrixRef& x);

// dx of norm_forward (layer_norm_backward or rms_norm_backward)   x,dy:(n,d); grads accumulate
Matrix norm_backward(const ModelConfig& config, const NormParams& params, const ConstMatrixRef& x,
                     const ConstMatrixRef& dy, NormParams& grads);

// What block_forward keeps of one layer, sub-layer by sub-layer; block_backward reads these, and
// the page reads them by name (Trace, in the order the forward computes them). Every (n,d) unless
// said otherwise.
struct BlockActivations {
  Matrix in;              // x, the block's input
  MultiHeadTrace attn;    // self-attention, on ln_1 (pre-LN) or on in (post-LN)
  Matrix ln_1;            // the first sub-layer's norm output
  Matrix residual_1;      // its sum: in + attn (post-LN: before ln_1)
  MultiHeadTrace cross;   // cross-attention (encoder-decoder only) and its sub-layer's norm and sum
  Matrix ln_cross_attn;
  Matrix residual_cross;
  FeedForwardTrace mlp;   // the feed-forward network, (n, d_ff) inside
  Matrix ln_2;
  Matrix residual_2;
  Matrix out;             // the block's output
};

// Where a block reads keys and values from beyond its own input, and what it keeps.
struct BlockContext {
  const Mask* self_mask = nullptr;        // mask of self-attention (ignored with a cache: causal)
  const Matrix* memory = nullptr;         // encoder output for cross-attention, (m,d)
  const Mask* memory_mask = nullptr;      // mask of cross-attention, e.g. source padding
  KVCacheLayer* cache = nullptr;          // incremental decoding
  BlockActivations* activations = nullptr;            // filled when given
  TraceDetail detail = TraceDetail::every_stage;      // what the attention activations keep
};

// pre-LN:  x ← x + SelfAttn(LN₁(x));  x ← x + CrossAttn(LN_c(x), memory);  x ← x + FFN(LN₂(x))
// post-LN: x ← LN₁(x + SelfAttn(x));  x ← LN_c(x + CrossAttn(x, memory));  x ← LN₂(x + FFN(x))
//   x:(n,d) → (n,d); cross-attention only when ctx.memory is given
Matrix block_forward(const ModelConfig& config, const BlockParams& params, const ConstMatrixRef& x,
                     const BlockContext& ctx);

// dx of block_forward, reading the activations its forward kept (any TraceDetail)
//   differentiates block_forward sub-layer by sub-layer, last to first   dout:(n,d) → (n,d)
//   parameter gradients accumulate into grads; with cross-attention (memory given) the memory's
//   gradient accumulates into *dmemory
Matrix block_backward(const ModelConfig& config, const BlockParams& params, const BlockActivations& activations,
                      const Matrix* memory, const ConstMatrixRef& dout, BlockParams& grads,
                      Matrix* dmemory = nullptr);

}  // namespace attnlab
