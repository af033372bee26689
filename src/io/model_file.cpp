#include "io/model_file.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <variant>

#include "core/check.hpp"
#include "io/checkpoint.hpp"
#include "io/files.hpp"
#include "io/strict_json.hpp"

namespace attnlab {

using nlohmann::json;

namespace {

// One field of config.json: its name, whether a file must give it, and the member it holds. The
// table drives reading, the refusal of unknown names and writing, so each field is listed once.
struct ConfigField {
  const char* name;
  bool required;
  std::variant<Index ModelConfig::*, float ModelConfig::*, bool ModelConfig::*, Architecture ModelConfig::*,
               Positional ModelConfig::*, RopePairing ModelConfig::*, Activation ModelConfig::*, Norm ModelConfig::*>
      member;
};

constexpr bool kRequired = true, kOptional = false;
const ConfigField kConfigFields[] = {
    {"architecture", kOptional, &ModelConfig::architecture},
    {"vocab_size", kRequired, &ModelConfig::vocab_size},
    {"n_ctx", kRequired, &ModelConfig::n_ctx},
    {"d_model", kRequired, &ModelConfig::d_model},
    {"n_heads", kOptional, &ModelConfig::n_heads},
    {"n_kv_heads", kOptional, &ModelConfig::n_kv_heads},
    {"d_ff", kRequired, &ModelConfig::d_ff},
    {"n_layers", kOptional, &ModelConfig::n_layers},
    {"n_decoder_layers", kOptional, &ModelConfig::n_decoder_layers},
    {"positional", kOptional, &ModelConfig::positional},
    {"positional_base", kOptional, &ModelConfig::positional_base},
    {"rope_pairing", kOptional, &ModelConfig::rope_pairing},
    {"activation", kOptional, &ModelConfig::activation},
    {"norm", kOptional, &ModelConfig::norm},
    {"pre_norm", kOptional, &ModelConfig::pre_norm},
    {"residual", kOptional, &ModelConfig::residual},
    {"final_norm", kOptional, &ModelConfig::final_norm},
    {"norm_eps", kOptional, &ModelConfig::norm_eps},
    {"tie_embeddings", kOptional, &ModelConfig::tie_embeddings},
    {"scaled", kOptional, &ModelConfig::scaled},
};

// the enums by the names config.json gives them (the second argument picks the enum)
Architecture from_name(const std::string& name, Architecture) { return architecture_from_string(name); }
Positional from_name(const std::string& name, Positional) { return positional_from_string(name); }
Activation from_name(const std::string& name, Activation) { return activation_from_string(name); }
Norm from_name(const std::string& name, Norm) { return norm_from_string(name); }
RopePairing from_name(const std::string& name, RopePairing) { return rope_pairing_from_string(name); }

// one field's value read into its member; throws naming the field when the JSON kind is wrong
template <class T>
void read_value(const json& v, const char* key, T& out) {
  if constexpr (std::is_same_v<T, bool>) {
    require(v.is_boolean(), "model config: \"", key, "\" must be true or false");
    out = v.get<bool>();
  } else if constexpr (std::is_enum_v<T>) {
    require(v.is_string(), "model config: \"", key, "\" must be a string");
    out = from_name(v.get<std::string>(), out);
  } else if constexpr (std::is_integral_v<T>) {
    // compared at full width before narrowing: 4294967304 must not become 8 in a 32-bit Index
    require(v.is_number_integer(), "model config: \"", key, "\" must be an integer");
    const bool fits = v.is_number_unsigned()
                          ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())
                          : v.get<std::int64_t>() >= static_cast<std::int64_t>(std::numeric_limits<T>::min()) &&
                                v.get<std::int64_t>() <= static_cast<std::int64_t>(std::numeric_limits<T>::max());
    require(fits, "model config: \"", key, "\" is out of range, got ", v.dump());
    out = static_cast<T>(v.get<std::int64_t>());
  } else {
    require(v.is_number(), "model config: \"", key, "\" must be a number");
    out = v.get<T>();
  }
}

// a member as config.json writes it: enums by name
template <class T>
json json_value(const T& value) {
  if constexpr (std::is_enum_v<T>) return to_string(value);
  else return value;
}

}  // namespace

std::string config_to_json(const ModelConfig& c) {
  json j = json::object();
  for (const ConfigField& field : kConfigFields)
    std::visit([&](auto member) { j[field.name] = json_value(c.*member); }, field.member);
  return j.dump(2);
}

ModelConfig config_from_json(const std::string& text) {
  const json j = parse_strict_json(text, "model config");
  require(j.is_object(), "model config: expected a JSON object");
  for (const auto& item : j.items())
    require(std::any_of(std::begin(kConfigFields), std::end(kConfigFields),
                        [&](const ConfigField& field) { return item.key() == field.name; }),
            "model config: unknown field \"", item.key(), "\"");
  ModelConfig c;
  for (const ConfigField& field : kConfigFields) {
    if (!j.contains(field.name)) {
      require(!field.required, "model config: \"", field.name, "\" is required");
      continue;
    }
    std::visit([&](auto member) { read_value(j.at(field.name), field.name, c.*member); }, field.member);
  }
  c.validate();
  return c;
}

std::vector<std::uint8_t> params_to_safetensors(const ModelConfig& config, const ModelParams& params) {
  validate_params(config, params);
  TensorMap tensors;
  // slots are only read here
  for (const TensorSlot& slot : tensor_slots(config, const_cast<ModelParams&>(params))) {
    StoredTensor t;
    t.shape = slot.shape;
    std::size_t count = 1;
    for (auto d : slot.shape) count *= static_cast<std::size_t>(d);
    if (slot.halves) {  // written as floats, exactly
      t.data.resize(count);
      widen(slot.dtype, slot.halves, static_cast<Index>(count), t.data.data());
    } else {
      t.data.assign(slot.data, slot.data + count);
    }
    tensors.emplace(slot.name, std::move(t));
  }
  return safetensors_write(tensors, {{"format", "attnlab"}});
}

ModelParams params_from_safetensors(const ModelConfig& config, const std::uint8_t* bytes, std::size_t size,
                                    std::uint64_t max_parameter_bytes) {
  return read_checkpoint({config}, {{bytes, size}}, max_parameter_bytes);
}

LoadedModel load_model(const std::vector<ByteSpan>& shards, const std::string& config_json, const std::string& vocab_json,
                       std::uint64_t max_parameter_bytes, const std::string& index_json) {
  const CheckpointConfig checkpoint = checkpoint_config_from_json(config_json);
  require_parameter_bytes(checkpoint.config, max_parameter_bytes);
  Tokenizer tokenizer = Tokenizer::from_json(vocab_json, checkpoint.config.vocab_size);
  return {Transformer(checkpoint.config, read_checkpoint(checkpoint, shards, max_parameter_bytes, index_json)),
          std::move(tokenizer), checkpoint.eos_token_id};
}


LoadedModel load_model_dir(const std::string& directory, std::uint64_t max_parameter_bytes,
                           const std::string& gpt2_tokenizer) {
  const CheckpointConfig checkpoint = checkpoint_config_from_json(read_file(directory + "/config.json"));
  require_parameter_bytes(checkpoint.config, max_parameter_bytes);
  const Index vocab = checkpoint.config.vocab_size;
  const auto exists = [&](const char* name) { return is_file(directory + "/" + name); };
  std::optional<Tokenizer> tokenizer;
  if (exists("tokenizer.json")) {
    tokenizer = Tokenizer::from_json(read_file(directory + "/tokenizer.json"), vocab);
  } else if (exists("vocab.json") && exists("merges.txt")) {
    tokenizer = Tokenizer::from_vocab_merges(read_file(directory + "/vocab.json"), read_file(directory + "/merges.txt"), vocab);
  } else if (exists("vocab.json")) {
    tokenizer = Tokenizer::from_json(read_file(directory + "/vocab.json"), vocab);
  } else {
    // GPT-2's own tokenizer fits a GPT-2 with its vocabulary of 50,257 tokens
    require(checkpoint.family == CheckpointFamily::gpt2 && vocab >= 50257 && !gpt2_tokenizer.empty(), directory,
            " has no tokenizer (tokenizer.json, vocab.json and merges.txt, or vocab.json)");
    tokenizer = Tokenizer::from_json(read_file(gpt2_tokenizer), vocab);
  }
  return {Transformer(checkpoint.config, read_checkpoint_dir(directory, checkpoint, max_parameter_bytes)),
          std::move(*tokenizer), checkpoint.eos_token_id};
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
