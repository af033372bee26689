#pragma once
// One struct describes a whole model: which family, which positional scheme, which norm and
// activation, and every size.
#include <string>

#include "core/activation.hpp"
#include "core/multi_head_attention.hpp"
#include "core/tensor.hpp"

namespace attnlab {

enum class Architecture {
  encoder_only,     // BERT-style: bidirectional self-attention
  decoder_only,     // GPT-style: causal self-attention, next-token prediction
  encoder_decoder,  // the original Transformer: decoder attends to the encoder's output
};

enum class Positional { none, sinusoidal, learned, rope, alibi };

// none: the identity, no parameters (for showing what the norms do; deep stacks need one)
enum class Norm { layer_norm, rms_norm, none };

struct ModelConfig {
  static constexpr Index kMaxVocabSize = Index(1) << 20;

  Architecture architecture = Architecture::decoder_only;
  Index vocab_size = 0;
  Index n_ctx = 0;               // longest sequence (size of a learned position table)
  Index d_model = 0;             // d
  Index n_heads = 1;             // h
  Index n_kv_heads = 0;          // g; 0 means g = h
  Index d_ff = 0;                // inner width of the feed-forward network
  Index n_layers = 1;            // encoder layers (encoder-only) or decoder layers (decoder-only)
  Index n_decoder_layers = 0;    // encoder-decoder only: decoder layers (n_layers are the encoder's)
  Positional positional = Positional::learned;
  float positional_base = 10000.0f;  // sinusoidal and RoPE base
  Activation activation = Activation::gelu;
  Norm norm = Norm::layer_norm;
  bool pre_norm = true;          // x + f(LN(x)) (GPT-2) rather than LN(x + f(x)) (original)
  bool residual = true;          // false drops every skip connection: f(LN(x)) or LN(f(x))
  bool final_norm = true;        // ln_f after the last block (pre-norm models need it)
  float norm_eps = 1e-5f;
  bool tie_embeddings = true;    // logits = h·wteᵀ, or a separate lm_head
  bool scaled = true;            // 1/√d_k in attention

  Index decoder_layers() const {
    return architecture == Architecture::encoder_decoder ? n_decoder_layers : n_layers;
  }
  // the self-attention configuration every layer shares
  AttentionConfig attention() const;
  // cross-attention's: the same without a positional scheme (queries and keys index different
  // sequences)
  AttentionConfig cross_attention() const;
  // throws attnlab::Error naming what does not fit
  void validate() const;
};

// names used in JSON configs, e.g. "decoder_only", "rope", "rms_norm"
std::string to_string(Architecture architecture);
std::string to_string(Positional positional);
std::string to_string(Norm norm);
Architecture architecture_from_string(const std::string& name);
Positional positional_from_string(const std::string& name);
Norm norm_from_string(const std::string& name);

}  // namespace attnlab
