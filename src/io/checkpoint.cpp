#include "io/checkpoint.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>

#include "core/check.hpp"
#include "core/enum_names.hpp"
#include "io/files.hpp"
#include "io/model_file.hpp"
#include "io/strict_json.hpp"

namespace attnlab {

using nlohmann::json;

namespace {

constexpr std::pair<const char*, CheckpointFamily> kFamilies[] = {
    {"attnlab", CheckpointFamily::attnlab}, {"gpt2", CheckpointFamily::gpt2}, {"llama", CheckpointFamily::llama}};

// Fields of any Hugging Face config that change nothing the engine computes: training-only
// settings (dropout, initialisation), generation defaults, labels and bookkeeping.
const std::set<std::string> kNeutralFields = {
    "_name_or_path", "_commit_hash", "_attn_implementation", "_attn_implementation_autoset", "architectures",
    "transformers_version", "torch_dtype", "model_type", "use_cache", "initializer_range", "pad_token_id",
    "bos_token_id", "eos_token_id", "sep_token_id", "decoder_start_token_id", "task_specific_params", "id2label",
    "label2id", "problem_type", "finetuning_task", "tokenizer_class", "prefix", "return_dict", "output_hidden_states",
    "output_attentions", "torchscript", "use_bfloat16", "tf_legacy_loss", "pruned_heads", "chunk_size_feed_forward",
    "is_encoder_decoder", "is_decoder", "tie_encoder_decoder", "gradient_checkpointing", "max_length", "min_length",
    "do_sample", "early_stopping", "num_beams", "num_beam_groups", "diversity_penalty", "temperature", "top_k",
    "top_p", "typical_p", "repetition_penalty", "length_penalty", "no_repeat_ngram_size",
    "encoder_no_repeat_ngram_size", "bad_words_ids", "num_return_sequences", "output_scores",
    "return_dict_in_generate", "forced_bos_token_id", "forced_eos_token_id", "remove_invalid_values",
    "exponential_decay_length_penalty", "suppress_tokens", "begin_suppress_tokens", "cross_attention_hidden_size",
    "output_past",
    // GPT-2: dropout and the sequence-summary head of GPT2DoubleHeadsModel
    "resid_pdrop", "embd_pdrop", "attn_pdrop", "summary_type", "summary_use_proj", "summary_activation",
    "summary_proj_to_labels", "summary_first_dropout", "n_ctx",
    // float16 training detail: the engine computes attention in float32 anyway
    "reorder_and_upcast_attn",
    // Llama: dropout; a tensor-parallel slicing of the same products; flags of exporters that
    // Hugging Face's Llama code does not read (it always rotates halves)
    "attention_dropout", "pretraining_tp", "is_llama_config", "rope_interleaved"};

// One config.json, read field by field: each read marks its field, and whatever is left unread
// at the end is refused by name.
class HfFields {
 public:
  HfFields(const json& j, std::string model_type) : j_(j), model_type_(std::move(model_type)) {}

  bool has(const char* key) const { return j_.contains(key) && !j_.at(key).is_null(); }

  Index integer(const char* key, Index fallback) {
    read_.insert(key);
    if (!has(key)) return fallback;
    const json& v = j_.at(key);
    require(v.is_number_integer(), where(key), "must be an integer");
    require(v.is_number_unsigned() ? v.get<std::uint64_t>() <= (std::uint64_t(1) << 30)
                                   : v.get<std::int64_t>() >= 0 && v.get<std::int64_t>() <= (std::int64_t(1) << 30),
            where(key), "is out of range, got ", v.dump());
    return static_cast<Index>(v.get<std::int64_t>());
  }
  float number(const char* key, float fallback) {
    read_.insert(key);
    if (!has(key)) return fallback;
    require(j_.at(key).is_number(), where(key), "must be a number");
    return j_.at(key).get<float>();
  }
  bool boolean(const char* key, bool fallback) {
    read_.insert(key);
    if (!has(key)) return fallback;
    require(j_.at(key).is_boolean(), where(key), "must be true or false");
    return j_.at(key).get<bool>();
  }
  std::string string(const char* key, const std::string& fallback) {
    read_.insert(key);
    if (!has(key)) return fallback;
    require(j_.at(key).is_string(), where(key), "must be a string");
    return j_.at(key).get<std::string>();
  }
  // a field the engine does not implement: accepted only absent, null or at its no-op value
  void unsupported(const char* key, const json& no_op = nullptr) {
    read_.insert(key);
    if (!has(key) || j_.at(key) == no_op) return;
    throw Error(where(key) + "is " + j_.at(key).dump() + ", which the engine does not implement");
  }
  // a token id, or the first of a list of them (Llama 3 gives several end-of-text ids)
  std::optional<int> token_id(const char* key) {
    read_.insert(key);
    if (!has(key)) return std::nullopt;
    const json& v = j_.at(key).is_array() && !j_.at(key).empty() ? j_.at(key)[0] : j_.at(key);
    require(v.is_number_integer() && v.get<std::int64_t>() >= 0 && v.get<std::int64_t>() < (1 << 30),
            where(key), "must be a token id");
    return static_cast<int>(v.get<std::int64_t>());
  }
  void refuse_unread() const {
    for (const auto& item : j_.items())
      require(read_.count(item.key()) || kNeutralFields.count(item.key()), "config.json: unknown field \"",
              item.key(), "\" for model_type \"", model_type_,
              "\" (the engine cannot tell whether it changes the model, so it refuses it)");
  }

 private:
  std::string where(const char* key) const { return "config.json (" + model_type_ + "): \"" + key + "\" "; }
  const json& j_;
  std::string model_type_;
  std::set<std::string> read_;
};

// configuration_gpt2.py's fields and defaults
CheckpointConfig gpt2_config(HfFields& f) {
  const Index d = f.integer("n_embd", 768), heads = f.integer("n_head", 12);
  const std::string activation = f.string("activation_function", "gelu_new");
  Activation act;
  if (activation == "gelu_new" || activation == "gelu_pytorch_tanh") act = Activation::gelu_tanh;
  else if (activation == "gelu") act = Activation::gelu;
  else if (activation == "relu") act = Activation::relu;
  else throw Error("config.json (gpt2): \"activation_function\" is \"" + activation +
                   "\"; the engine implements gelu_new, gelu_pytorch_tanh, gelu and relu");
  CheckpointConfig c;
  c.family = CheckpointFamily::gpt2;
  c.config = ModelConfig::Builder(Architecture::decoder_only, f.integer("vocab_size", 50257), f.integer("n_positions", 1024))
                 .width(d, heads)
                 .ffn(f.integer("n_inner", 4 * d))
                 .layers(f.integer("n_layer", 12))
                 .positional(Positional::learned)
                 .activation(act)
                 .norm(Norm::layer_norm)
                 .norm_eps(f.number("layer_norm_epsilon", 1e-5f))
                 .tie_embeddings(f.boolean("tie_word_embeddings", true))
                 .scaled(f.boolean("scale_attn_weights", true))
                 .build();
  f.unsupported("scale_attn_by_inverse_layer_idx", false);
  f.unsupported("add_cross_attention", false);
  return c;
}

// configuration_llama.py's fields and defaults
CheckpointConfig llama_config(HfFields& f) {
  const Index d = f.integer("hidden_size", 4096), heads = f.integer("num_attention_heads", 32);
  const Index kv_heads = f.integer("num_key_value_heads", heads);
  require(heads >= 1 && kv_heads >= 1,
          "config.json (llama): \"num_attention_heads\" and \"num_key_value_heads\" must be at least 1");
  const Index head_dim = f.integer("head_dim", d / heads);
  require(head_dim * heads == d, "config.json (llama): \"head_dim\" = ", head_dim, " with ", heads,
          " heads is not hidden_size = ", d, "; the engine needs head_dim × num_attention_heads = hidden_size");
  const std::string act = f.string("hidden_act", "silu");
  require(act == "silu", "config.json (llama): \"hidden_act\" is \"", act, "\"; the engine implements silu (SwiGLU)");
  f.unsupported("rope_scaling");
  f.unsupported("sliding_window");
  f.unsupported("use_sliding_window", false);
  CheckpointConfig c;
  c.family = CheckpointFamily::llama;
  c.config = ModelConfig::Builder(Architecture::decoder_only, f.integer("vocab_size", 32000),
                                  f.integer("max_position_embeddings", 2048))
                 .width(d, heads)
                 .kv_heads(kv_heads)
                 .ffn(f.integer("intermediate_size", 11008))
                 .layers(f.integer("num_hidden_layers", 32))
                 .positional(Positional::rope)
                 .positional_base(f.number("rope_theta", 10000.0f))
                 .rope_pairing(RopePairing::rotate_half)
                 .activation(Activation::swiglu)
                 .norm(Norm::rms_norm)
                 .norm_eps(f.number("rms_norm_eps", 1e-6f))
                 .tie_embeddings(f.boolean("tie_word_embeddings", false))
                 .build();
  c.attention_bias = f.boolean("attention_bias", false);
  c.mlp_bias = f.boolean("mlp_bias", false);
  return c;
}

}  // namespace

std::string to_string(CheckpointFamily family) { return enum_name(family, kFamilies); }

CheckpointConfig checkpoint_config_from_json(const std::string& text) {
  const json j = parse_strict_json(text, "config.json");
  require(j.is_object(), "config.json: expected a JSON object");
  if (!j.contains("model_type")) return {config_from_json(text), CheckpointFamily::attnlab, {}, {}};
  require(j.at("model_type").is_string(), "config.json: \"model_type\" must be a string");
  const std::string type = j.at("model_type").get<std::string>();
  HfFields fields(j, type);
  CheckpointConfig c;
  if (type == "gpt2") c = gpt2_config(fields);
  else if (type == "llama") c = llama_config(fields);
  else throw Error("config.json: model_type \"" + type + "\" is not one the engine loads (gpt2 or llama)");
  c.bos_token_id = fields.token_id("bos_token_id");
  c.eos_token_id = fields.token_id("eos_token_id");
  fields.refuse_unread();
  return c;
}

std::vector<TensorPlacement> checkpoint_placements(const CheckpointConfig& checkpoint, const std::string& prefix) {
  const ModelConfig& config = checkpoint.config;
  const std::vector<TensorShape> layout = tensor_layout(config);
  std::map<std::string, std::size_t> slot_of;
  for (std::size_t i = 0; i < layout.size(); ++i) slot_of[layout[i].name] = i;
  std::vector<TensorPlacement> out;
  if (checkpoint.family != CheckpointFamily::llama) {
    // the engine's names are GPT-2's, and so are its layouts: one tensor per parameter
    for (std::size_t i = 0; i < layout.size(); ++i) {
      const bool head = layout[i].name == "lm_head.weight";  // GPT2LMHeadModel keeps it outside "transformer."
      out.push_back({(head ? "" : prefix) + layout[i].name, layout[i].shape, i});
    }
    return out;
  }
  const Index d = config.d_model, kv = config.attention().kv_width(), ff = config.d_ff;
  const auto place = [&](const std::string& source, std::vector<std::int64_t> shape, const std::string& slot,
                         Index column, bool transpose) {
    out.push_back({source, std::move(shape), slot_of.at(slot), column, transpose});
  };
  place("model.embed_tokens.weight", {config.vocab_size, d}, "wte.weight", 0, false);
  for (Index i = 0; i < config.n_layers; ++i) {
    const std::string hf = "model.layers." + std::to_string(i) + ".", h = "h." + std::to_string(i) + ".";
    place(hf + "input_layernorm.weight", {d}, h + "ln_1.weight", 0, false);
    place(hf + "self_attn.q_proj.weight", {d, d}, h + "attn.c_attn.weight", 0, true);
    place(hf + "self_attn.k_proj.weight", {kv, d}, h + "attn.c_attn.weight", d, true);
    place(hf + "self_attn.v_proj.weight", {kv, d}, h + "attn.c_attn.weight", d + kv, true);
    if (checkpoint.attention_bias) {
      place(hf + "self_attn.q_proj.bias", {d}, h + "attn.c_attn.bias", 0, false);
      place(hf + "self_attn.k_proj.bias", {kv}, h + "attn.c_attn.bias", d, false);
      place(hf + "self_attn.v_proj.bias", {kv}, h + "attn.c_attn.bias", d + kv, false);
    }
    place(hf + "self_attn.o_proj.weight", {d, d}, h + "attn.c_proj.weight", 0, true);
    if (checkpoint.attention_bias) place(hf + "self_attn.o_proj.bias", {d}, h + "attn.c_proj.bias", 0, false);
    place(hf + "post_attention_layernorm.weight", {d}, h + "ln_2.weight", 0, false);
    place(hf + "mlp.up_proj.weight", {ff, d}, h + "mlp.c_fc.weight", 0, true);
    place(hf + "mlp.gate_proj.weight", {ff, d}, h + "mlp.c_gate.weight", 0, true);
    place(hf + "mlp.down_proj.weight", {d, ff}, h + "mlp.c_proj.weight", 0, true);
    if (checkpoint.mlp_bias) {
      place(hf + "mlp.up_proj.bias", {ff}, h + "mlp.c_fc.bias", 0, false);
      place(hf + "mlp.gate_proj.bias", {ff}, h + "mlp.c_gate.bias", 0, false);
      place(hf + "mlp.down_proj.bias", {d}, h + "mlp.c_proj.bias", 0, false);
    }
  }
  place("model.norm.weight", {d}, "ln_f.weight", 0, false);
  if (!config.tie_embeddings) place("lm_head.weight", {config.vocab_size, d}, "lm_head.weight", 0, false);
  return out;
}

namespace {

// GPT-2 checkpoints store their causal mask as h.{i}.attn.bias and attn.masked_bias, older Llama
// ones their RoPE frequencies as rotary_emb.inv_freq: buffers the engine computes itself
bool is_buffer(CheckpointFamily family, const std::string& name) {
  const auto ends_with = [&](const std::string& s) {
    return name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  switch (family) {
    case CheckpointFamily::llama: return ends_with(".rotary_emb.inv_freq");
    case CheckpointFamily::attnlab:  // the engine's names are GPT-2's, and so may a file's buffers be
    case CheckpointFamily::gpt2: return ends_with(".attn.bias") || ends_with(".attn.masked_bias");
  }
  return false;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace

CheckpointLoader::CheckpointLoader(CheckpointConfig config, std::uint64_t max_parameter_bytes, WeightStorage storage)
    : config_(std::move(config)), max_parameter_bytes_(max_parameter_bytes), storage_(storage) {
  require_parameter_bytes(config_.config, max_parameter_bytes_);
}

std::uint64_t CheckpointLoader::parameter_bytes() const { return attnlab::parameter_bytes(config_.config); }

void CheckpointLoader::add_shard(const std::string& header_text, std::uint64_t file_size, const std::string& file_name) {
  require(!params_, "model weights: every shard must be added before loading starts");
  require(shards_.size() < 4096, "model weights: more than 4096 shards");
  try {
    shards_.push_back({file_name, safetensors_parse_header(header_text, file_size)});
  } catch (const Error& e) {
    if (file_name.empty()) throw;
    throw Error(file_name + ": " + e.what());
  }
}

void CheckpointLoader::use_index(const std::string& index_json) {
  require(!params_, "model weights: the index must be given before loading starts");
  const std::vector<std::string> files = shard_files(index_json);
  // the shards' names, given them only once the index has been checked against them
  std::vector<std::string> names;
  for (const Shard& shard : shards_) names.push_back(shard.file_name);
  if (std::all_of(names.begin(), names.end(), [](const std::string& name) { return name.empty(); })) {
    require(shards_.size() == files.size(), "model weights: the index names ", files.size(), " shards, got ",
            shards_.size());
    names = files;
  }
  const json j = parse_strict_json(index_json, "model.safetensors.index.json");
  std::map<std::string, std::string> shard_of;
  for (std::size_t s = 0; s < shards_.size(); ++s)
    for (const TensorEntry& t : shards_[s].header.tensors) shard_of[t.name] = names[s];
  std::set<std::string> named;
  for (const auto& [tensor, file] : j.at("weight_map").items()) {
    require(file.is_string(), "model.safetensors.index.json: the shard of \"", tensor, "\" is not a file name");
    named.insert(file.get<std::string>());
    const auto found = shard_of.find(tensor);
    require(found != shard_of.end(), "model.safetensors.index.json names \"", tensor, "\" in ", file.get<std::string>(),
            ", which no shard holds");
    require(found->second == file.get<std::string>(), "model.safetensors.index.json puts \"", tensor, "\" in ",
            file.get<std::string>(), " but it is in ", found->second);
  }
  for (const auto& [tensor, file] : shard_of)
    require(j.at("weight_map").contains(tensor), "model.safetensors.index.json does not name \"", tensor, "\" (in ",
            file, ")");
  for (const std::string& name : names)
    require(named.count(name), "model.safetensors.index.json does not name the shard ", name);
  for (std::size_t s = 0; s < shards_.size(); ++s) shards_[s].file_name.swap(names[s]);
}

const std::vector<CheckpointLoader::Read>& CheckpointLoader::start() {
  require(!params_, "model weights: loading has already started");
  require(!shards_.empty(), "model weights: no file was given");
  struct Found {
    std::size_t shard;
    const TensorEntry* entry;
    bool used = false;
  };
  std::map<std::string, Found> files;
  bool prefixed = false;
  for (std::size_t s = 0; s < shards_.size(); ++s)
    for (const TensorEntry& t : shards_[s].header.tensors) {
      require(files.emplace(t.name, Found{s, &t}).second, "model weights: tensor \"", t.name,
              "\" is in two shards");
      prefixed = prefixed || t.name.rfind("transformer.", 0) == 0;
    }
  const std::string prefix = config_.family == CheckpointFamily::gpt2 && prefixed ? "transformer." : "";
  std::vector<TensorPlacement> placements = checkpoint_placements(config_, prefix);
  std::vector<Pending> pending;
  // a tied head that the file also holds (some exporters write it): checked against wte, last
  const bool tied_copy = config_.family != CheckpointFamily::attnlab && config_.config.tie_embeddings &&
                         files.count("lm_head.weight");
  if (tied_copy) placements.push_back({"lm_head.weight", placements[0].shape, placements[0].slot});

  const std::string what =
      config_.family == CheckpointFamily::attnlab ? "model weights: " : "model weights (" + to_string(config_.family) + "): ";
  for (const TensorPlacement& p : placements) {
    const auto found = files.find(p.source);
    require(found != files.end(), what, "tensor \"", p.source, "\" is missing");
    const TensorEntry& t = *found->second.entry;
    require(t.shape == p.shape, what, "tensor \"", p.source, "\" has shape ", shape_text(t.shape), "; the config needs ",
            shape_text(p.shape));
    found->second.used = true;
    pending.push_back({{found->second.shard, t.begin, t.end, t.name}, t.dtype, p, 0, false});
  }
  if (tied_copy) pending.back().compare = true;
  for (const auto& [name, found] : files)
    require(found.used || is_buffer(config_.family, name), what, "unexpected tensor \"", name, "\" for this config");

  ModelParams params = ModelParams::zeros(config_.config, max_parameter_bytes_, kept_weight_dtype(pending));
  std::vector<TensorSlot> slots = tensor_slots(config_.config, params);
  std::vector<Read> reads;
  for (const Pending& p : pending) reads.push_back(p.read);
  // all or nothing: a start that failed can be tried again
  params_ = std::move(params);
  slots_ = std::move(slots);
  pending_ = std::move(pending);
  reads_ = std::move(reads);
  return reads_;
}

void CheckpointLoader::feed(std::size_t index, std::uint64_t offset, const std::uint8_t* bytes, std::size_t size) {
  require(params_.has_value(), "model weights: feed() before start()");
  require(index < pending_.size(), "model weights: there is no read number ", index);
  Pending& p = pending_[index];
  const std::size_t value_bytes = dtype_bytes(p.dtype);
  const std::uint64_t total = p.read.end - p.read.begin;
  require(offset == p.fed, "model weights: \"", p.read.name, "\" expected bytes from ", p.fed, ", got ", offset);
  require(size <= total - offset && size % value_bytes == 0, "model weights: \"", p.read.name,
          "\": a piece of ", size, " bytes at ", offset, " does not fit its ", total, " bytes");

  require(!p.compare || pending_[0].fed == pending_[0].read.end - pending_[0].read.begin,
          "model weights: lm_head.weight is compared with the embedding, which must be read first");
  const TensorSlot& slot = slots_[p.placement.slot];
  const Index slot_cols = slot.shape.size() == 2 ? static_cast<Index>(slot.shape[1]) : static_cast<Index>(slot.shape[0]);
  const Index source_cols = static_cast<Index>(p.placement.shape.back());
  float buffer[4096];
  std::uint16_t raw[4096];  // the values themselves, for a slot kept in their 16-bit type (p.dtype then)
  Index e = static_cast<Index>(offset / value_bytes);
  for (std::size_t done = 0; done < size;) {
    const std::size_t count = std::min<std::size_t>((size - done) / value_bytes, std::size(buffer));
    widen_to_float(p.dtype, bytes + done, count, buffer);
    if (slot.halves) std::memcpy(raw, bytes + done, count * 2);
    for (std::size_t k = 0; k < count; ++k, ++e) {
      const Index r = e / source_cols, c = e % source_cols;
      // stored (out, in) for the engine's (in, out) when transposed
      const Index row = p.placement.transpose ? c : r, col = p.placement.column + (p.placement.transpose ? r : c);
      const Index target = row * slot_cols + col;
      if (p.compare)
        require((slot.halves ? widen_16(slot.dtype, slot.halves[target]) : slot.data[target]) == buffer[k],
                "model weights: lm_head.weight differs from the embedding it is tied to (",
                "tie_word_embeddings); untie it in config.json or drop lm_head.weight");
      else if (slot.halves)
        slot.halves[target] = raw[k];
      else
        slot.data[target] = buffer[k];
    }
    done += count * value_bytes;
  }
  p.fed += size;
}

Dtype CheckpointLoader::kept_weight_dtype(const std::vector<Pending>& pending) const {
  if (storage_ == WeightStorage::float32) return Dtype::f32;
  const std::vector<TensorShape> layout = tensor_layout(config_.config);
  std::optional<Dtype> common;
  for (const Pending& p : pending) {
    if (!layout[p.placement.slot].weight) continue;
    if (common && *common != p.dtype) return Dtype::f32;  // mixed: floats hold them all
    common = p.dtype;
  }
  return common.value_or(Dtype::f32);
}

ModelParams CheckpointLoader::finish() {
  require(params_.has_value(), "model weights: finish() before start()");
  for (const Pending& p : pending_)
    require(p.fed == p.read.end - p.read.begin, "model weights: \"", p.read.name, "\" was read only up to byte ", p.fed,
            " of ", p.read.end - p.read.begin);
  validate_params(config_.config, *params_);
  ModelParams out = std::move(*params_);
  params_.reset();
  slots_.clear();
  return out;
}

std::vector<std::string> shard_files(const std::string& index_json) {
  const json j = parse_strict_json(index_json, "model.safetensors.index.json");
  require(j.is_object() && j.contains("weight_map") && j.at("weight_map").is_object(),
          "model.safetensors.index.json: expected an object with a \"weight_map\" object");
  std::set<std::string> names;
  for (const auto& [tensor, file] : j.at("weight_map").items()) {
    require(file.is_string() && !file.get<std::string>().empty() && file.get<std::string>().find('/') == std::string::npos,
            "model.safetensors.index.json: the shard of \"", tensor, "\" is not a file name");
    names.insert(file.get<std::string>());
  }
  require(!names.empty(), "model.safetensors.index.json names no shard");
  return {names.begin(), names.end()};
}

ModelParams read_checkpoint(const CheckpointConfig& config, const std::vector<ByteSpan>& shards,
                            std::uint64_t max_parameter_bytes, const std::string& index_json, WeightStorage storage) {
  CheckpointLoader loader(config, max_parameter_bytes, storage);
  for (const ByteSpan& file : shards) {
    const std::uint64_t header_length = safetensors_header_length(file.data, file.size);
    loader.add_shard(std::string(reinterpret_cast<const char*>(file.data + 8), static_cast<size_t>(header_length)),
                     file.size);
  }
  if (!index_json.empty()) loader.use_index(index_json);
  const std::vector<CheckpointLoader::Read> reads = loader.start();
  for (std::size_t i = 0; i < reads.size(); ++i)
    loader.feed(i, 0, shards[reads[i].shard].data + reads[i].begin, static_cast<size_t>(reads[i].end - reads[i].begin));
  return loader.finish();
}

ModelParams read_checkpoint_dir(const std::string& directory, const CheckpointConfig& config,
                                std::uint64_t max_parameter_bytes, WeightStorage storage) {
  CheckpointLoader loader(config, max_parameter_bytes, storage);
  const std::string index_path = directory + "/model.safetensors.index.json";
  const bool sharded = !is_file(directory + "/model.safetensors") && is_file(index_path);
  const std::string index = sharded ? read_file(index_path) : "";
  const std::vector<std::string> files = sharded ? shard_files(index) : std::vector<std::string>{"model.safetensors"};
  std::vector<std::ifstream> streams;
  for (const std::string& name : files) {
    const std::string path = directory + "/" + name;
    std::uint64_t size = 0;
    streams.push_back(open_file(path, size));
    std::ifstream& in = streams.back();
    std::uint8_t first8[8] = {};
    in.read(reinterpret_cast<char*>(first8), size >= 8 ? 8 : static_cast<std::streamsize>(size));
    const std::uint64_t header_length = safetensors_header_length(first8, size);
    std::string header(static_cast<size_t>(header_length), '\0');
    in.read(header.data(), static_cast<std::streamsize>(header_length));
    require(in.good(), "reading ", path, " failed");
    loader.add_shard(header, size, name);
  }
  if (sharded) loader.use_index(index);
  const std::vector<CheckpointLoader::Read> reads = loader.start();
  std::vector<std::uint8_t> piece(std::size_t(4) << 20);
  for (std::size_t i = 0; i < reads.size(); ++i) {
    std::ifstream& in = streams[reads[i].shard];
    in.seekg(static_cast<std::streamoff>(reads[i].begin));
    for (std::uint64_t at = 0, total = reads[i].end - reads[i].begin; at < total;) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(piece.size(), total - at));
      in.read(reinterpret_cast<char*>(piece.data()), static_cast<std::streamsize>(n));
      require(in.good(), "reading ", files[reads[i].shard], " failed at \"", reads[i].name, "\"");
      loader.feed(i, at, piece.data(), n);
      at += n;
    }
  }
  return loader.finish();
}

}  // namespace attnlab
