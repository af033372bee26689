#include "model/layer_attention.hpp"

#include <string>

#include "core/check.hpp"

namespace attnlab {

AttentionSteps layer_attention_steps(const Transformer& model, const std::vector<int>& tokens, Index layer,
                                     const std::vector<int>& source, bool cross) {
  const ModelConfig& config = model.config();
  const bool encoder_decoder = config.architecture == Architecture::encoder_decoder;
  require(encoder_decoder == !source.empty(),
          encoder_decoder ? "layer attention: an encoder-decoder model needs the source tokens"
                          : "layer attention: only encoder-decoder models take source tokens");
  require(!cross || encoder_decoder, "layer attention: cross-attention exists only in encoder-decoder models");
  const StackParams& stack = config.architecture == Architecture::encoder_only ? model.params().encoder : model.params().decoder;
  require(layer >= 0 && layer < static_cast<Index>(stack.h.size()),
          "layer attention: layer ", layer, " does not exist (the model has ", stack.h.size(), ")");
  ModelActivations kept;
  kept.detail = TraceDetail::for_backward;  // only the sub-layer's input is read
  if (encoder_decoder) model.forward(source, tokens, &kept);
  else model.forward(tokens, &kept);
  const BlockActivations& block_kept =
      (config.architecture == Architecture::encoder_only ? kept.encoder : kept.decoder).layers[static_cast<size_t>(layer)];
  const BlockParams& block = stack.h[static_cast<size_t>(layer)];
  if (cross) {
    // under post-LN the cross sub-layer reads the first sub-layer's normed output
    const Matrix& x = config.pre_norm ? block_kept.ln_cross_attn : block_kept.ln_1;
    return AttentionSteps::multi_head(config.cross_attention(), block.crossattention, x, model.encode(source),
                                      Mask::none());
  }
  const Matrix& x = config.pre_norm ? block_kept.ln_1 : block_kept.in;
  const Mask mask = config.architecture == Architecture::encoder_only ? Mask::none() : Mask::causal_mask();
  return AttentionSteps::multi_head(config.attention(), block.attn, x, Matrix(), mask);
}

}  // namespace attnlab
