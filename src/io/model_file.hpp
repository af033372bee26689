#pragma once
// A saved model is three files: model.safetensors (parameters under GPT-2 names), config.json
// (the ModelConfig) and vocab.json (the tokenizer). They load from disk or from memory (the page
// receives them as bytes), as do Hugging Face checkpoints (see checkpoint.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include "io/checkpoint.hpp"
#include "io/safetensors.hpp"
#include "io/tokenizer.hpp"
#include "model/transformer.hpp"

namespace attnlab {

std::string config_to_json(const ModelConfig& config);
// every field is optional but vocab_size, n_ctx, d_model, d_ff; unknown fields are an error, as
// are values of the wrong type; the result is validated
ModelConfig config_from_json(const std::string& json);

std::vector<std::uint8_t> params_to_safetensors(const ModelConfig& config, const ModelParams& params);
// every tensor the config needs, with its shape, and nothing else (GPT-2's causal-mask buffers
// h.{i}.attn.bias / attn.masked_bias are recognised and skipped); the shapes are checked before
// anything is allocated, and a config needing more than max_parameter_bytes is refused
ModelParams params_from_safetensors(const ModelConfig& config, const std::uint8_t* bytes, std::size_t size,
                                    std::uint64_t max_parameter_bytes = kDefaultMaxParameterBytes);

struct LoadedModel {
  Transformer model;
  Tokenizer tokenizer;
  std::optional<int> eos_token_id;  // the end of a text, as a Hugging Face config.json names it
};

// config_json: the engine's config.json or a Hugging Face one; shards: model.safetensors, or the
// shards in shard_files(index_json) order. Checks that the vocabulary and the model agree in size,
// and refuses a config needing more than max_parameter_bytes before reading the vocabulary or the
// weights.
LoadedModel load_model(const std::vector<ByteSpan>& shards, const std::string& config_json,
                       const std::string& vocab_json, std::uint64_t max_parameter_bytes = kDefaultMaxParameterBytes,
                       const std::string& index_json = "");
inline LoadedModel load_model(const std::uint8_t* weights, std::size_t size, const std::string& config_json,
                              const std::string& vocab_json,
                              std::uint64_t max_parameter_bytes = kDefaultMaxParameterBytes) {
  return load_model({{weights, size}}, config_json, vocab_json, max_parameter_bytes);
}
// A folder: config.json, model.safetensors (or model.safetensors.index.json and its shards) and
// the tokenizer: tokenizer.json, vocab.json with merges.txt (GPT-2's files), or the engine's
// vocab.json; a GPT-2 checkpoint without one reads gpt2_tokenizer (a tokenizer.json path) when
// given. The weights are read in pieces, never whole.
LoadedModel load_model_dir(const std::string& directory, std::uint64_t max_parameter_bytes = kDefaultMaxParameterBytes,
                           const std::string& gpt2_tokenizer = "");
void save_model_dir(const std::string& directory, const Transformer& model, const Tokenizer& tokenizer);

}  // namespace attnlab
