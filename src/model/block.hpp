#pragma once
// One Transformer layer: self-attention, (cross-attention,) feed-forward, each wrapped in a
// residual connection with a norm before (pre-LN) or after (post-LN) it.
#include <string>

#include "core/mask.hpp"
#include "core/multi_head_attention.hpp"
#include "model/config.hpp"
#include "model/params.hpp"
#include "model/trace.hpp"

namespace attnlab {

// LayerNorm, RMSNorm or the identity, as configured   x:(n,d) → (n,d)
Matrix norm_forward(const ModelConfig& config, const NormParams& params, const ConstMatrixRef& x);

// dx of norm_forward (layer_norm_backward or rms_norm_backward)   x,dy:(n,d); grads accumulate
Matrix norm_backward(const ModelConfig& config, const NormParams& params, const ConstMatrixRef& x,
                     const ConstMatrixRef& dy, NormParams& grads);

// Where a block reads keys and values from beyond its own input.
struct BlockContext {
  const Mask* self_mask = nullptr;        // mask of self-attention (ignored with a cache: causal)
  const Matrix* memory = nullptr;         // encoder output for cross-attention, (m,d)
  const Mask* memory_mask = nullptr;      // mask of cross-attention, e.g. source padding
  KVCacheLayer* cache = nullptr;          // incremental decoding
  Trace* trace = nullptr;
  std::string prefix;                     // trace names start with this, e.g. "layer3."
};

// pre-LN:  x ← x + SelfAttn(LN₁(x));  x ← x + CrossAttn(LN_c(x), memory);  x ← x + FFN(LN₂(x))
// post-LN: x ← LN₁(x + SelfAttn(x));  x ← LN_c(x + CrossAttn(x, memory));  x ← LN₂(x + FFN(x))
//   x:(n,d) → (n,d); cross-attention only when ctx.memory is given
Matrix block_forward(const ModelConfig& config, const BlockParams& params, const ConstMatrixRef& x,
                     const BlockContext& ctx);

// dx of block_forward, reading the block's activations from the trace its forward recorded under
// prefix   differentiates block_forward sub-layer by sub-layer, last to first   dout:(n,d) → (n,d)
//   parameter gradients accumulate into grads; with cross-attention (memory given) the memory's
//   gradient accumulates into *dmemory
Matrix block_backward(const ModelConfig& config, const BlockParams& params, const Trace& trace,
                      const std::string& prefix, const Matrix* memory, const ConstMatrixRef& dout,
                      BlockParams& grads, Matrix* dmemory = nullptr);

}  // namespace attnlab
