#include "model/config.hpp"

#include "core/check.hpp"
#include "core/enum_names.hpp"

namespace attnlab {

AttentionConfig ModelConfig::attention() const {
  AttentionConfig a;
  a.d_model = d_model;
  a.n_heads = n_heads;
  a.n_kv_heads = n_kv_heads;
  a.scaled = scaled;
  a.rope = positional == Positional::rope;
  a.rope_base = positional_base;
  a.rope_pairing = rope_pairing;
  a.alibi = positional == Positional::alibi;
  return a;
}

AttentionConfig ModelConfig::cross_attention() const {
  AttentionConfig a = attention();
  a.rope = a.alibi = false;
  return a;
}

void ModelConfig::validate() const {
  const auto within = [](Index v, Index lo, Index hi, const char* name) {
    require(v >= lo && v <= hi, std::string("model config: "), name, " must be between ", lo, " and ", hi, ", got ",
            v);
  };
  within(vocab_size, 1, kMaxVocabSize, "vocab_size");
  within(n_ctx, 1, 1 << 16, "n_ctx");
  within(d_model, 1, 1 << 14, "d_model");
  within(d_ff, 1, 1 << 16, "d_ff");
  within(n_layers, 1, 256, "n_layers");
  if (architecture == Architecture::encoder_decoder) within(n_decoder_layers, 1, 256, "n_decoder_layers");
  require(std::isfinite(norm_eps) && norm_eps > 0.0f, "model config: norm_eps must be a positive number");
  require(std::isfinite(positional_base) && positional_base > 1.0f,
          "model config: positional_base must be a finite number above 1");
  require(vocab_size <= (Index(1) << 26) / d_model, "model config: vocab_size × d_model is too large");
  attention().validate();
}

ModelConfig::Builder::Builder(Architecture architecture, Index vocab_size, Index n_ctx) {
  config_.architecture = architecture;
  config_.vocab_size = vocab_size;
  config_.n_ctx = n_ctx;
}

ModelConfig::Builder& ModelConfig::Builder::width(Index d_model, Index n_heads) {
  config_.d_model = d_model;
  config_.n_heads = n_heads;
  return *this;
}

ModelConfig::Builder& ModelConfig::Builder::layers(Index n) {
  // a decoder-only or encoder-only model has one stack, n_layers; its unused n_decoder_layers stays as it was
  return layers(n, config_.architecture == Architecture::encoder_decoder ? n : config_.n_decoder_layers);
}

ModelConfig::Builder& ModelConfig::Builder::layers(Index n_encoder, Index n_decoder) {
  config_.n_layers = n_encoder;
  config_.n_decoder_layers = n_decoder;
  return *this;
}

ModelConfig ModelConfig::Builder::build() const {
  config_.validate();
  return config_;
}

namespace {
constexpr std::pair<const char*, Architecture> kArchitectures[] = {
    {"encoder_only", Architecture::encoder_only},
    {"decoder_only", Architecture::decoder_only},
    {"encoder_decoder", Architecture::encoder_decoder}};
constexpr std::pair<const char*, Positional> kPositionals[] = {
    {"none", Positional::none}, {"sinusoidal", Positional::sinusoidal},
    {"learned", Positional::learned}, {"rope", Positional::rope}, {"alibi", Positional::alibi}};
constexpr std::pair<const char*, Norm> kNorms[] = {{"layer_norm", Norm::layer_norm},
                                                   {"rms_norm", Norm::rms_norm},
                                                   {"none", Norm::none}};
}  // namespace

std::string to_string(Architecture a) { return enum_name(a, kArchitectures); }
std::string to_string(Positional p) { return enum_name(p, kPositionals); }
std::string to_string(Norm n) { return enum_name(n, kNorms); }
Architecture architecture_from_string(const std::string& s) { return enum_from_name(s, "architecture", kArchitectures); }
Positional positional_from_string(const std::string& s) { return enum_from_name(s, "positional encoding", kPositionals); }
Norm norm_from_string(const std::string& s) { return enum_from_name(s, "norm", kNorms); }

}  // namespace attnlab
