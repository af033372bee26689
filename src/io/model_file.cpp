#include "io/model_file.hpp"

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>

#include "core/check.hpp"
#include "io/strict_json.hpp"

namespace attnlab {

using nlohmann::json;

std::string config_to_json(const ModelConfig& c) {
  const json j = {
      {"architecture", to_string(c.architecture)}, {"vocab_size", c.vocab_size}, {"n_ctx", c.n_ctx},
      {"d_model", c.d_model}, {"n_heads", c.n_heads}, {"n_kv_heads", c.n_kv_heads}, {"d_ff", c.d_ff},
      {"n_layers", c.n_layers}, {"n_decoder_layers", c.n_decoder_layers},
      {"positional", to_string(c.positional)}, {"positional_base", c.positional_base},
      {"activation", to_string(c.activation)}, {"norm", to_string(c.norm)}, {"pre_norm", c.pre_norm},
      {"residual", c.residual}, {"final_norm", c.final_norm}, {"norm_eps", c.norm_eps}, {"tie_embeddings", c.tie_embeddings},
      {"scaled", c.scaled}};
  return j.dump(2);
}

namespace {

template <class T>
void read_field(const json& j, const char* key, T& out, bool required = false) {
  if (!j.contains(key)) {
    require(!required, std::string("model config: \""), key, "\" is required");
    return;
  }
  const json& v = j.at(key);
  if constexpr (std::is_same_v<T, bool>) {
    require(v.is_boolean(), std::string("model config: \""), key, "\" must be true or false");
    out = v.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    require(v.is_number_integer(), std::string("model config: \""), key, "\" must be an integer");
    out = v.get<T>();
  } else if constexpr (std::is_floating_point_v<T>) {
    require(v.is_number(), std::string("model config: \""), key, "\" must be a number");
    out = v.get<T>();
  } else {
    require(v.is_string(), std::string("model config: \""), key, "\" must be a string");
    out = v.get<std::string>();
  }
}

}  // namespace

ModelConfig config_from_json(const std::string& text) {
  const json j = parse_strict_json(text, "model config");
  require(j.is_object(), "model config: expected a JSON object");
  static const std::set<std::string> known = {
      "architecture", "vocab_size", "n_ctx", "d_model", "n_heads", "n_kv_heads", "d_ff", "n_layers",
      "n_decoder_layers", "positional", "positional_base", "activation", "norm", "pre_norm",
      "residual", "final_norm", "norm_eps", "tie_embeddings", "scaled"};
  for (const auto& item : j.items())
    require(known.count(item.key()), "model config: unknown field \"", item.key(), "\"");
  ModelConfig c;
  std::string architecture = to_string(c.architecture), positional = to_string(c.positional),
              activation = to_string(c.activation), norm = to_string(c.norm);
  read_field(j, "architecture", architecture);
  read_field(j, "vocab_size", c.vocab_size, true);
  read_field(j, "n_ctx", c.n_ctx, true);
  read_field(j, "d_model", c.d_model, true);
  read_field(j, "n_heads", c.n_heads);
  read_field(j, "n_kv_heads", c.n_kv_heads);
  read_field(j, "d_ff", c.d_ff, true);
  read_field(j, "n_layers", c.n_layers);
  read_field(j, "n_decoder_layers", c.n_decoder_layers);
  read_field(j, "positional", positional);
  read_field(j, "positional_base", c.positional_base);
  read_field(j, "activation", activation);
  read_field(j, "norm", norm);
  read_field(j, "pre_norm", c.pre_norm);
  read_field(j, "residual", c.residual);
  read_field(j, "final_norm", c.final_norm);
  read_field(j, "norm_eps", c.norm_eps);
  read_field(j, "tie_embeddings", c.tie_embeddings);
  read_field(j, "scaled", c.scaled);
  c.architecture = architecture_from_string(architecture);
  c.positional = positional_from_string(positional);
  c.activation = activation_from_string(activation);
  c.norm = norm_from_string(norm);
  c.validate();
  return c;
}

std::vector<std::uint8_t> params_to_safetensors(const ModelConfig& config, const ModelParams& params) {
  validate_params(config, params);
  ModelParams copy = params;
  TensorMap tensors;
  for (const TensorSlot& slot : tensor_slots(config, copy)) {
    StoredTensor t;
    t.shape = slot.shape;
    std::size_t count = 1;
    for (auto d : slot.shape) count *= static_cast<std::size_t>(d);
    t.data.assign(slot.data, slot.data + count);
    tensors.emplace(slot.name, std::move(t));
  }
  return safetensors_write(tensors, {{"format", "attnlab"}});
}

namespace {
// GPT-2 checkpoints store their causal mask as h.{i}.attn.bias (and attn.masked_bias): buffers, not parameters
bool is_gpt2_mask_buffer(const std::string& name) {
  const auto ends_with = [&](const std::string& s) {
    return name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  return ends_with(".attn.bias") || ends_with(".attn.masked_bias");
}
}  // namespace

ModelParams params_from_safetensors(const ModelConfig& config, const std::uint8_t* bytes, std::size_t size,
                                    std::uint64_t max_parameter_bytes) {
  require_parameter_bytes(config, max_parameter_bytes);
  TensorMap stored = safetensors_read(bytes, size);
  // every tensor is checked against the config before the model's memory is allocated, so the
  // allocation below is exactly what the file holds
  for (const TensorShape& want : tensor_layout(config)) {
    const auto found = stored.find(want.name);
    require(found != stored.end(), "model weights: tensor \"", want.name, "\" is missing");
    require(found->second.shape == want.shape,
            "model weights: tensor \"", want.name, "\" has the wrong shape for the config");
  }
  ModelParams params = ModelParams::init(config, 0);
  for (const TensorSlot& slot : tensor_slots(config, params)) {
    const auto found = stored.find(slot.name);
    std::copy(found->second.data.begin(), found->second.data.end(), slot.data);
    stored.erase(found);
  }
  for (const auto& [name, t] : stored)
    require(is_gpt2_mask_buffer(name), "model weights: unexpected tensor \"", name, "\" for this config");
  validate_params(config, params);
  return params;
}

LoadedModel load_model(const std::uint8_t* weights, std::size_t size, const std::string& config_json,
                       const std::string& vocab_json, std::uint64_t max_parameter_bytes) {
  const ModelConfig config = config_from_json(config_json);
  require_parameter_bytes(config, max_parameter_bytes);
  Tokenizer tokenizer = Tokenizer::from_json(vocab_json, config.vocab_size);
  return {Transformer(config, params_from_safetensors(config, weights, size, max_parameter_bytes)), std::move(tokenizer)};
}

namespace {
std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  require(in.good(), "cannot open ", path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void write_file(const std::string& path, const void* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary);
  require(out.good(), "cannot write ", path);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  require(out.good(), "writing ", path, " failed");
}
}  // namespace

LoadedModel load_model_dir(const std::string& directory) {
  const std::string weights = read_file(directory + "/model.safetensors");
  return load_model(reinterpret_cast<const std::uint8_t*>(weights.data()), weights.size(),
                    read_file(directory + "/config.json"), read_file(directory + "/vocab.json"));
}

void save_model_dir(const std::string& directory, const Transformer& model, const Tokenizer& tokenizer) {
  require(tokenizer.size() == model.config().vocab_size, "model: the vocabulary and the model differ in size");
  const std::vector<std::uint8_t> weights = params_to_safetensors(model.config(), model.params());
  const std::string config = config_to_json(model.config()), vocab = tokenizer.to_json();
  write_file(directory + "/model.safetensors", weights.data(), weights.size());
  write_file(directory + "/config.json", config.data(), config.size());
  write_file(directory + "/vocab.json", vocab.data(), vocab.size());
}

}  // namespace attnlab
