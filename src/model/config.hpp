#pragma once
// One struct describes a whole model: which family, which positional scheme, which norm and
// activation, and every size.
#include <string>

#include "core/activation.hpp"
#include "core/multi_head_attention.hpp"
#include "core/rope.hpp"
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
  RopePairing rope_pairing = RopePairing::interleaved;  // RoPE only: which coordinates rotate together
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

  class Builder;
};

// Assembles a ModelConfig in one expression and checks it once, in build(). GPT-2 small reads
//   ModelConfig::Builder(Architecture::decoder_only, 50257, 1024).width(768, 12).ffn(3072).layers(12).build()
// and every field left unset keeps ModelConfig's default.
class ModelConfig::Builder {
 public:
  Builder(Architecture architecture, Index vocab_size, Index n_ctx);
  // a variation of an existing config, e.g. a task's demo model at another size
  explicit Builder(const ModelConfig& start) : config_(start) {}

  // d_model split into n_heads heads of d_model / n_heads
  Builder& width(Index d_model, Index n_heads);
  // grouped-query attention: n_kv_heads key/value heads, each shared by n_heads / n_kv_heads queries
  Builder& kv_heads(Index n_kv_heads) { config_.n_kv_heads = n_kv_heads; return *this; }
  Builder& ffn(Index d_ff) { config_.d_ff = d_ff; return *this; }
  // n blocks in every stack the architecture has (an encoder-decoder's encoder and decoder alike)
  Builder& layers(Index n);
  // an encoder-decoder whose stacks differ in depth
  Builder& layers(Index n_encoder, Index n_decoder);
  Builder& positional(Positional positional) { config_.positional = positional; return *this; }
  Builder& positional_base(float base) { config_.positional_base = base; return *this; }
  Builder& rope_pairing(RopePairing pairing) { config_.rope_pairing = pairing; return *this; }
  Builder& activation(Activation activation) { config_.activation = activation; return *this; }
  Builder& norm(Norm norm) { config_.norm = norm; return *this; }
  Builder& norm_eps(float eps) { config_.norm_eps = eps; return *this; }
  Builder& pre_norm(bool pre_norm) { config_.pre_norm = pre_norm; return *this; }
  Builder& residual(bool residual) { config_.residual = residual; return *this; }
  Builder& final_norm(bool final_norm) { config_.final_norm = final_norm; return *this; }
  Builder& tie_embeddings(bool tie) { config_.tie_embeddings = tie; return *this; }
  Builder& scaled(bool scaled) { config_.scaled = scaled; return *this; }

  // the config; throws attnlab::Error naming what does not fit (ModelConfig::validate)
  ModelConfig build() const;

 private:
  ModelConfig config_;
};

// names used in JSON configs, e.g. "decoder_only", "rope", "rms_norm"
std::string to_string(Architecture architecture);
std::string to_string(Positional positional);
std::string to_string(Norm norm);
Architecture architecture_from_string(const std::string& name);
Positional positional_from_string(const std::string& name);
Norm norm_from_string(const std::string& name);

}  // namespace attnlab
