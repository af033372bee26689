#pragma once
// One layer's attention inside a model, on given tokens, ready to be stepped through: the page can
// show how a trained head reaches its weights, stage by stage.
#include <vector>

#include "core/attention_steps.hpp"
#include "model/transformer.hpp"

namespace attnlab {

// The stepper for self-attention (or, in an encoder-decoder's decoder, cross-attention) of
// `layer`, fed with exactly what that sub-layer sees in a forward pass: the normed input under
// pre-LN, the raw input under post-LN; decoders are causal.
//   tokens: the (target) sequence; source: the encoder's input for encoder-decoder models
AttentionSteps layer_attention_steps(const Transformer& model, const std::vector<int>& tokens, Index layer,
                                     const std::vector<int>& source = {}, bool cross = false);

}  // namespace attnlab
