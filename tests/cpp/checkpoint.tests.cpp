#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <tuple>
#include <nlohmann/json.hpp>

#include "core/check.hpp"
#include "io/checkpoint.hpp"
#include "io/model_file.hpp"
#include "model/generate.hpp"
#include "model/trace.hpp"
#include "allocation_tracker.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;
using nlohmann::json;

namespace {

const std::string kHfFixtures = std::string(ATTNLAB_FIXTURE_DIR) + "/hf/";

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  const std::string text = read_text(path);
  return {text.begin(), text.end()};
}

Matrix fixture_matrix(const json& t) {
  const auto shape = t.at("shape").get<std::vector<Index>>();
  const auto data = t.at("data").get<std::vector<float>>();
  const Index cols = shape.back(), rows = static_cast<Index>(data.size()) / cols;  // (h, n, m) → (h·n, m)
  Matrix m(rows, cols);
  std::copy(data.begin(), data.end(), m.data());
  return m;
}

// the engine's parameters of an engine-format model with one tensor changed, as safetensors bytes
std::vector<std::uint8_t> file_of(const TensorMap& tensors) { return safetensors_write(tensors); }

CheckpointConfig hf_config(const json& j) { return checkpoint_config_from_json(j.dump()); }

const json kLlama = {{"model_type", "llama"},  {"vocab_size", 16},          {"hidden_size", 8},
                     {"intermediate_size", 12}, {"num_hidden_layers", 1},   {"num_attention_heads", 2},
                     {"num_key_value_heads", 1}, {"max_position_embeddings", 16}};
const json kGpt2 = {{"model_type", "gpt2"}, {"vocab_size", 16}, {"n_positions", 16},
                    {"n_embd", 8},          {"n_head", 2},      {"n_layer", 1}};

// A safetensors file of the engine's tensors for `config` (GPT-2's names), each of the dtype
// dtype_of(tensor) gives and every value 0.5; `patch(name, bytes)` may change a tensor's bytes
template <class DtypeOf, class Patch>
std::vector<std::uint8_t> file_with_dtypes(const ModelConfig& config, DtypeOf dtype_of, Patch patch) {
  json header = json::object();
  std::vector<std::uint8_t> data;
  for (const TensorShape& t : tensor_layout(config)) {
    const Dtype dtype = dtype_of(t);
    std::size_t count = 1;
    for (auto d : t.shape) count *= static_cast<std::size_t>(d);
    std::vector<std::uint8_t> bytes(count * dtype_bytes(dtype));
    for (std::size_t i = 0; i < count; ++i) {
      const float half = 0.5f;
      if (dtype == Dtype::f32) std::memcpy(&bytes[4 * i], &half, 4);
      else bytes[2 * i + 1] = dtype == Dtype::bf16 ? 0x3F : 0x38;  // 0x3F00 and 0x3800: 0.5
    }
    patch(t.name, dtype, bytes);
    header[t.name] = {{"dtype", to_string(dtype)}, {"shape", t.shape}, {"data_offsets", {data.size(), data.size() + bytes.size()}}};
    data.insert(data.end(), bytes.begin(), bytes.end());
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::vector<std::uint8_t> file(8);
  const std::uint64_t length = text.size();
  std::memcpy(file.data(), &length, 8);
  file.insert(file.end(), text.begin(), text.end());
  file.insert(file.end(), data.begin(), data.end());
  return file;
}

}  // namespace

TEST_CASE("Hugging Face checkpoints match PyTorch", "[checkpoint][fixtures]") {
  for (const char* name : {"gpt2-f32", "gpt2-f16-untied", "gpt2-bf16", "llama-f32", "llama-f16-mqa", "llama-bf16-sharded"}) {
    DYNAMIC_SECTION(name) {
      const std::string folder = kHfFixtures + name;
      const json expected = json::parse(read_text(folder + "/expected.json"));
      const CheckpointConfig config = checkpoint_config_from_json(read_text(folder + "/config.json"));
      CHECK(to_string(config.family) == expected.at("family").get<std::string>());
      const Transformer model(config.config, read_checkpoint_dir(folder, config, kDefaultMaxParameterBytes));
      const std::vector<int> prompt = expected.at("prompt").get<std::vector<int>>();

      ModelActivations kept;
      const Matrix logits = model.forward(prompt, &kept);
      CHECK_THAT(logits, IsNear(fixture_matrix(expected.at("logits")), 1e-5 * std::max(1.0f, logits.cwiseAbs().maxCoeff())));
      const Trace trace(kept);
      const auto& attention = expected.at("attention");
      for (size_t layer = 0; layer < attention.size(); ++layer) {
        const Matrix all = fixture_matrix(attention[layer]);  // (h·n, n) rows of every head
        const Index n = static_cast<Index>(prompt.size());
        for (Index head = 0; head * n < all.rows(); ++head) {
          INFO("layer " << layer << " head " << head);
          CHECK_THAT(trace.get("layer" + std::to_string(layer) + ".attn.head" + std::to_string(head) + ".weights"),
                     IsNear(Matrix(all.middleRows(head * n, n)), 1e-5));
        }
      }
      std::vector<int> continuation = generate(model, prompt, 20, SamplingOptions{0.0f});
      continuation.erase(continuation.begin(), continuation.begin() + static_cast<long>(prompt.size()));
      CHECK(continuation == expected.at("continuation").get<std::vector<int>>());
    }
  }
}

TEST_CASE("a 16-bit checkpoint kept in its own type runs exactly as its widened floats", "[checkpoint][fixtures]") {
  for (const auto& [name, dtype] : {std::pair{"gpt2-f16-untied", Dtype::f16}, {"gpt2-bf16", Dtype::bf16},
                                    {"llama-f16-mqa", Dtype::f16}, {"llama-bf16-sharded", Dtype::bf16}}) {
    DYNAMIC_SECTION(name) {
      const std::string folder = kHfFixtures + name;
      const CheckpointConfig config = checkpoint_config_from_json(read_text(folder + "/config.json"));
      const ModelConfig& c = config.config;
      ModelParams kept = read_checkpoint_dir(folder, config, kDefaultMaxParameterBytes, WeightStorage::as_stored);
      const ModelParams floats = read_checkpoint_dir(folder, config, kDefaultMaxParameterBytes);
      CHECK(kept.weight_dtype() == dtype);
      CHECK(kept.decoder.h[0].mlp.c_proj_weight.is_half());
      CHECK(floats.weight_dtype() == Dtype::f32);
      // the same numbers: the same fingerprint, tensors and saved file
      CHECK(parameter_fingerprint(c, kept) == parameter_fingerprint(c, floats));
      for (const TensorShape& t : tensor_layout(c))
        CHECK(parameter_tensor(c, kept, t.name).widened() == parameter_tensor(c, floats, t.name).floats());
      CHECK(params_to_safetensors(c, kept) == params_to_safetensors(c, floats));
      // half the bytes in its weight matrices
      CHECK(parameter_bytes(c, dtype) < parameter_bytes(c) * 6 / 10);

      const Transformer run(c, std::move(kept)), reference(c, floats);
      const std::vector<int> prompt = {1, 5, 2, 7, 3};
      ModelActivations run_kept, reference_kept;
      CHECK(run.forward(prompt, &run_kept) == reference.forward(prompt, &reference_kept));
      CHECK(Trace(run_kept).get("layer0.attn.head1.weights") == Trace(reference_kept).get("layer0.attn.head1.weights"));
      KVCache run_cache = run.new_cache(), reference_cache = reference.new_cache();
      for (const int token : prompt) CHECK(run.forward_cached({token}, run_cache) == reference.forward_cached({token}, reference_cache));
      CHECK(generate(run, prompt, 12, SamplingOptions{0.0f}) == generate(reference, prompt, 12, SamplingOptions{0.0f}));
      // run, not trained
      ModelParams grads = ModelParams::zeros(c);
      CHECK_THROWS_WITH(run.backward(prompt, run_kept, Matrix::Zero(5, c.vocab_size), grads),
                        Catch::Contains("to run the model, not to train it"));
      ModelParams again = read_checkpoint_dir(folder, config, kDefaultMaxParameterBytes, WeightStorage::as_stored);
      CHECK_THROWS_WITH(tensor_spans(c, again), Catch::Contains("values, kept to run the model, not to train it"));
    }
  }
  SECTION("an F32 checkpoint stays in floats") {
    const std::string folder = kHfFixtures + "gpt2-f32";
    const CheckpointConfig config = checkpoint_config_from_json(read_text(folder + "/config.json"));
    CHECK(read_checkpoint_dir(folder, config, kDefaultMaxParameterBytes, WeightStorage::as_stored).weight_dtype() == Dtype::f32);
  }
}

TEST_CASE("which 16-bit weights are kept, and what a 16-bit file may not hold", "[checkpoint][errors]") {
  const CheckpointConfig config = hf_config(kGpt2);
  const auto weight_bf16 = [](const TensorShape& t) { return t.weight ? Dtype::bf16 : Dtype::f32; };
  const auto unchanged = [](const std::string&, Dtype, std::vector<std::uint8_t>&) {};
  const auto load = [&](const std::vector<std::uint8_t>& file) {
    return read_checkpoint(config, {{file.data(), file.size()}}, kDefaultMaxParameterBytes, "", WeightStorage::as_stored);
  };
  SECTION("every weight matrix BF16: kept; vectors and learned positions stay floats") {
    const ModelParams p = load(file_with_dtypes(config.config, weight_bf16, unchanged));
    CHECK(p.weight_dtype() == Dtype::bf16);
    CHECK(p.decoder.h[0].attn.c_attn_weight.view().widened() == Matrix::Constant(8, 24, 0.5f));
    CHECK(p.wpe == Matrix::Constant(16, 8, 0.5f));
    CHECK(p.decoder.h[0].ln_1.bias == RowVector::Constant(8, 0.5f));
  }
  SECTION("weight matrices of two types: all widened to floats") {
    const auto mixed = [](const TensorShape& t) {
      if (!t.weight) return Dtype::f32;
      return t.name == "h.0.mlp.c_proj.weight" ? Dtype::f16 : Dtype::bf16;
    };
    const ModelParams p = load(file_with_dtypes(config.config, mixed, unchanged));
    CHECK(p.weight_dtype() == Dtype::f32);
    CHECK(p.decoder.h[0].mlp.c_proj_weight == Matrix::Constant(32, 8, 0.5f));
  }
  SECTION("a non-finite 16-bit value is refused, naming its tensor") {
    const auto infinity = [](const std::string& name, Dtype, std::vector<std::uint8_t>& bytes) {
      if (name == "h.0.mlp.c_fc.weight") bytes[2 * 37 + 1] = 0x7F, bytes[2 * 37] = 0x80;  // BF16 +∞
    };
    CHECK_THROWS_WITH(load(file_with_dtypes(config.config, weight_bf16, infinity)),
                      "model parameters: h.0.mlp.c_fc.weight contains a non-finite value");
  }
  SECTION("a tied head saved beside the embedding is compared in the 16-bit values") {
    ModelConfig with_head = config.config;
    with_head.tie_embeddings = false;  // lays out lm_head.weight, which the tied config then checks against wte
    const auto head_like_wte = [](const std::string& name, Dtype, std::vector<std::uint8_t>& bytes) {
      if (name == "lm_head.weight") bytes[2 * 3] = 0x01;  // 0.5 + one unit in the last place
    };
    CHECK_NOTHROW(load(file_with_dtypes(with_head, weight_bf16, unchanged)));
    CHECK_THROWS_WITH(load(file_with_dtypes(with_head, weight_bf16, head_like_wte)),
                      Catch::Contains("lm_head.weight differs from the embedding it is tied to"));
  }
}

TEST_CASE("the same checkpoint loads from memory, shard by shard, as from its folder", "[checkpoint]") {
  const std::string folder = kHfFixtures + "llama-bf16-sharded";
  const std::string index = read_text(folder + "/model.safetensors.index.json");
  const CheckpointConfig config = checkpoint_config_from_json(read_text(folder + "/config.json"));
  std::vector<std::vector<std::uint8_t>> files;
  for (const std::string& file : shard_files(index)) files.push_back(read_bytes(folder + "/" + file));
  REQUIRE(files.size() == 2);
  const std::vector<ByteSpan> shards = {{files[0].data(), files[0].size()}, {files[1].data(), files[1].size()}};
  const Transformer from_memory(config.config, read_checkpoint(config, shards, kDefaultMaxParameterBytes, index));
  const Transformer from_folder(config.config, read_checkpoint_dir(folder, config, kDefaultMaxParameterBytes));
  const std::vector<int> tokens = {1, 2, 3};
  CHECK_THAT(from_memory.forward(tokens), IsNear(from_folder.forward(tokens), 0));

  SECTION("the index must agree with the shards") {
    const std::vector<ByteSpan> swapped = {shards[1], shards[0]};
    CHECK_THROWS_WITH(read_checkpoint(config, swapped, kDefaultMaxParameterBytes, index),
                      Catch::Contains("model.safetensors.index.json puts"));
    CHECK_THROWS_WITH(read_checkpoint(config, {shards[0]}, kDefaultMaxParameterBytes, index),
                      Catch::Contains("the index names 2 shards, got 1"));
    // without the index, each tensor is still found once, in whichever shard holds it
    const Transformer unindexed(config.config, read_checkpoint(config, swapped, kDefaultMaxParameterBytes));
    CHECK_THAT(unindexed.forward(tokens), IsNear(from_folder.forward(tokens), 0));
    CHECK_THROWS_WITH(read_checkpoint(config, {shards[0], shards[0]}, kDefaultMaxParameterBytes),
                      Catch::Contains("is in two shards"));
  }
}

TEST_CASE("Hugging Face configs become the engine's ModelConfig", "[checkpoint][config]") {
  SECTION("GPT-2 with its defaults") {
    const CheckpointConfig c = hf_config({{"model_type", "gpt2"}, {"n_inner", nullptr}, {"eos_token_id", 50256}});
    CHECK(c.family == CheckpointFamily::gpt2);
    CHECK(c.config.vocab_size == 50257);
    CHECK(c.config.n_ctx == 1024);
    CHECK(c.config.d_model == 768);
    CHECK(c.config.n_heads == 12);
    CHECK(c.config.n_layers == 12);
    CHECK(c.config.d_ff == 3072);
    CHECK(c.config.activation == Activation::gelu_tanh);
    CHECK(c.config.positional == Positional::learned);
    CHECK(c.config.tie_embeddings);
    CHECK(c.eos_token_id == 50256);
    CHECK(parameter_bytes(c.config) == 4 * std::uint64_t(124439808));  // GPT-2 small's parameter count
  }
  SECTION("Llama: grouped-query attention, rotate-half RoPE, SwiGLU, RMSNorm") {
    json smol = kLlama;
    smol.update({{"vocab_size", 49152}, {"hidden_size", 576}, {"intermediate_size", 1536}, {"num_hidden_layers", 30},
                 {"num_attention_heads", 9}, {"num_key_value_heads", 3}, {"max_position_embeddings", 8192},
                 {"rope_theta", 100000}, {"rms_norm_eps", 1e-5}, {"tie_word_embeddings", true},
                 {"rope_interleaved", false}, {"is_llama_config", true}, {"pretraining_tp", 1},
                 {"rope_scaling", nullptr}, {"eos_token_id", json::array({0, 2})}});
    const CheckpointConfig c = hf_config(smol);
    CHECK(c.config.n_kv_heads == 3);
    CHECK(c.config.positional == Positional::rope);
    CHECK(c.config.rope_pairing == RopePairing::rotate_half);
    CHECK(c.config.positional_base == 100000.0f);
    CHECK(c.config.activation == Activation::swiglu);
    CHECK(c.config.norm == Norm::rms_norm);
    CHECK(c.eos_token_id == 0);
    CHECK(parameter_bytes(c.config) / 4 - 30 * (576 + 2 * 192 + 576 + 2 * 1536 + 576) == 134515008);  // SmolLM2-135M
  }
  SECTION("what the engine does not implement is named, never approximated") {
    const auto refuses = [](json j, const char* what) {
      INFO(j.dump());
      CHECK_THROWS_WITH(hf_config(j), Catch::Contains(what));
    };
    refuses({{"model_type", "mistral"}}, "model_type \"mistral\" is not one the engine loads");
    // one field changed in a valid config, and what the refusal says
    const std::tuple<json, const char*, json, const char*> changed[] = {
        {kLlama, "rope_scaling", {{"type", "linear"}, {"factor", 2.0}}, "\"rope_scaling\" is"},
        {kLlama, "sliding_window", 4096, "\"sliding_window\" is 4096, which the engine does not implement"},
        {kLlama, "hidden_act", "gelu", "the engine implements silu"},
        {kLlama, "head_dim", 8, "\"head_dim\" = 8 with 2 heads is not hidden_size = 8"},
        {kLlama, "num_key_value_heads", 0, "must be at least 1"},
        {kGpt2, "attn_logit_softcapping", 30, "unknown field \"attn_logit_softcapping\""},
        {kGpt2, "scale_attn_by_inverse_layer_idx", true, "scale_attn_by_inverse_layer_idx"},
        {kGpt2, "activation_function", "swish", "\"activation_function\" is \"swish\""},
        {kGpt2, "n_embd", 4294967304.0, "must be an integer"},
        {kGpt2, "n_embd", std::uint64_t(4294967304), "\"n_embd\" is out of range, got 4294967304"},
        {kGpt2, "n_layer", -1, "\"n_layer\" is out of range, got -1"},
        {kGpt2, "layer_norm_epsilon", "1e-5", "\"layer_norm_epsilon\" must be a number"},
    };
    for (const auto& [base, key, value, message] : changed) {
      json config = base;
      config[key] = value;
      refuses(config, message);
    }
  }
  SECTION("the engine's own config.json still loads as before") {
    const CheckpointConfig c = checkpoint_config_from_json(R"({"vocab_size": 8, "n_ctx": 4, "d_model": 4, "d_ff": 8})");
    CHECK(c.family == CheckpointFamily::attnlab);
    CHECK(c.config.vocab_size == 8);
  }
}

TEST_CASE("Llama tensors are placed into the engine's layout", "[checkpoint]") {
  const CheckpointConfig c = hf_config(kLlama);
  const std::vector<TensorPlacement> placements = checkpoint_placements(c);
  const std::vector<TensorShape> layout = tensor_layout(c.config);
  const auto find = [&](const std::string& source) {
    const auto it = std::find_if(placements.begin(), placements.end(), [&](const TensorPlacement& p) { return p.source == source; });
    REQUIRE(it != placements.end());
    return *it;
  };
  // K and V are one head wide (g = 1, d_k = 4): [W_Q | W_K | W_V] = columns 0, 8, 12 of c_attn
  const TensorPlacement k = find("model.layers.0.self_attn.k_proj.weight");
  CHECK(layout[k.slot].name == "h.0.attn.c_attn.weight");
  CHECK(k.column == 8);
  CHECK(k.transpose);
  CHECK(k.shape == std::vector<std::int64_t>{4, 8});
  CHECK(find("model.layers.0.self_attn.v_proj.weight").column == 12);
  CHECK(layout[find("model.layers.0.mlp.up_proj.weight").slot].name == "h.0.mlp.c_fc.weight");
  CHECK(layout[find("model.layers.0.mlp.gate_proj.weight").slot].name == "h.0.mlp.c_gate.weight");
  CHECK(layout[find("lm_head.weight").slot].name == "lm_head.weight");
  // no biases in the file: none is placed, and the engine's stay zero
  CHECK(std::none_of(placements.begin(), placements.end(),
                     [](const TensorPlacement& p) { return p.source.find(".bias") != std::string::npos; }));
}

TEST_CASE("bad checkpoint files are refused with the reason, before the model is allocated", "[checkpoint][errors]") {
  const std::string folder = kHfFixtures + "gpt2-f32";
  const CheckpointConfig config = checkpoint_config_from_json(read_text(folder + "/config.json"));
  const std::vector<std::uint8_t> good = read_bytes(folder + "/model.safetensors");
  TensorMap tensors = safetensors_read(good.data(), good.size());
  const auto load = [&](const TensorMap& t) {
    const std::vector<std::uint8_t> bytes = file_of(t);
    return read_checkpoint(config, {{bytes.data(), bytes.size()}}, kDefaultMaxParameterBytes);
  };
  REQUIRE_NOTHROW(load(tensors));

  SECTION("a missing, extra or misshapen tensor") {
    TensorMap missing = tensors;
    missing.erase("h.1.mlp.c_fc.bias");
    CHECK_THROWS_WITH(load(missing), "model weights (gpt2): tensor \"h.1.mlp.c_fc.bias\" is missing");
    TensorMap extra = tensors;
    extra["h.2.ln_1.weight"] = tensors.at("h.1.ln_1.weight");
    CHECK_THROWS_WITH(load(extra), "model weights (gpt2): unexpected tensor \"h.2.ln_1.weight\" for this config");
    TensorMap transposed = tensors;
    transposed["h.0.mlp.c_fc.weight"].shape = {64, 16};
    CHECK_THROWS_WITH(load(transposed), "model weights (gpt2): tensor \"h.0.mlp.c_fc.weight\" has shape (64, 16); the "
                                        "config needs (16, 64)");
  }
  SECTION("a non-finite value, a dtype the engine does not read, a head that contradicts its tie") {
    TensorMap nan = tensors;
    nan["ln_f.bias"].data[3] = std::nanf("");
    CHECK_THROWS_WITH(load(nan), Catch::Contains("ln_f.bias contains a non-finite value"));
    std::vector<std::uint8_t> bytes = file_of(tensors);
    const auto at = std::search(bytes.begin(), bytes.end(), std::begin("\"F32\""), std::end("\"F32\"") - 1);
    std::memcpy(&*at, "\"I32\"", 5);
    CHECK_THROWS_WITH(read_checkpoint(config, {{bytes.data(), bytes.size()}}, kDefaultMaxParameterBytes),
                      Catch::Contains("has dtype \"I32\"; F32, F16 and BF16 are supported"));
    TensorMap untied_copy = tensors;
    untied_copy["lm_head.weight"] = tensors.at("wte.weight");
    REQUIRE_NOTHROW(load(untied_copy));
    untied_copy["lm_head.weight"].data[5] += 1.0f;
    CHECK_THROWS_WITH(load(untied_copy), Catch::Contains("lm_head.weight differs from the embedding it is tied to"));
  }
  SECTION("a truncated file and offsets that lie") {
    CHECK_THROWS_WITH(read_checkpoint(config, {{good.data(), good.size() - 4}}, kDefaultMaxParameterBytes),
                      Catch::Contains("outside the"));
    CHECK_THROWS_WITH(read_checkpoint(config, {{good.data(), 6}}, kDefaultMaxParameterBytes),
                      Catch::Contains("too short for the 8-byte header size"));
  }
  SECTION("a config claiming 10¹² parameters is refused with the numbers, before any allocation") {
    json huge = json::parse(read_text(folder + "/config.json"));
    huge.update({{"n_embd", 16384}, {"n_head", 128}, {"n_layer", 256}, {"n_inner", 65536}});
    CHECK_THROWS_WITH(CheckpointLoader(checkpoint_config_from_json(huge.dump()), kDefaultMaxParameterBytes),
                      Catch::Matches("model config: the parameters need [0-9]+ bytes, more than the limit of [0-9]+ bytes"));
  }
  SECTION("pieces must come in order, whole values, each once") {
    CheckpointLoader loader(config, kDefaultMaxParameterBytes);
    const std::uint64_t header = safetensors_header_length(good.data(), good.size());
    loader.add_shard(std::string(reinterpret_cast<const char*>(good.data() + 8), header), good.size());
    const std::vector<CheckpointLoader::Read> reads = loader.start();
    const std::uint8_t* first = good.data() + reads[0].begin;
    CHECK_THROWS_WITH(loader.feed(0, 4, first + 4, 4), Catch::Contains("expected bytes from 0, got 4"));
    CHECK_THROWS_WITH(loader.feed(0, 0, first, 3), Catch::Contains("a piece of 3 bytes at 0 does not fit"));
    loader.feed(0, 0, first, 8);
    CHECK_THROWS_WITH(loader.finish(), Catch::Contains("was read only up to byte 8"));
    CHECK_THROWS_WITH(loader.feed(reads.size(), 0, first, 4), Catch::Contains("there is no read number"));
  }
}

TEST_CASE("a loading step that fails changes nothing: it can be tried again", "[checkpoint][errors]") {
  SECTION("starting, reading and finishing, failing at any allocation") {
    const std::string folder = kHfFixtures + "gpt2-f32";
    const CheckpointConfig config = checkpoint_config_from_json(read_text(folder + "/config.json"));
    const std::vector<std::uint8_t> file = read_bytes(folder + "/model.safetensors");
    const std::string header(reinterpret_cast<const char*>(file.data() + 8), safetensors_header_length(file.data(), file.size()));
    CheckpointLoader loader(config, kDefaultMaxParameterBytes);
    // (not reading the header: nlohmann::json's destructor allocates, and a failure there ends the program)
    loader.add_shard(header, file.size(), "model.safetensors");
    const std::vector<CheckpointLoader::Read>* started = nullptr;
    fail_each_allocation([&] { started = &loader.start(); }, [&] {
      CHECK_THROWS_WITH(loader.feed(0, 0, file.data(), 4), Catch::Contains("feed() before start()"));
    });
    const std::vector<CheckpointLoader::Read> reads = *started;
    for (std::size_t i = 0; i < reads.size(); ++i) loader.feed(i, 0, file.data() + reads[i].begin, reads[i].end - reads[i].begin);
    ModelParams params;
    fail_each_allocation([&] { params = loader.finish(); }, [] {});
    const std::vector<int> tokens = {1, 2, 3};
    CHECK(Transformer(config.config, std::move(params)).forward(tokens) ==
          Transformer(config.config, read_checkpoint_dir(folder, config, kDefaultMaxParameterBytes)).forward(tokens));
  }
  SECTION("an index that does not fit leaves the shards unnamed, for the right one") {
    const std::string folder = kHfFixtures + "llama-bf16-sharded";
    const std::string index = read_text(folder + "/model.safetensors.index.json");
    const CheckpointConfig config = checkpoint_config_from_json(read_text(folder + "/config.json"));
    json moved = json::parse(index);
    auto& map = moved.at("weight_map");
    const std::vector<std::string> files = shard_files(index);
    const std::string tensor = map.begin().key();
    map[tensor] = map[tensor] == files[0] ? files[1] : files[0];
    CheckpointLoader loader(config, kDefaultMaxParameterBytes);
    std::vector<std::vector<std::uint8_t>> bytes;
    for (const std::string& name : files) {
      bytes.push_back(read_bytes(folder + "/" + name));
      loader.add_shard(std::string(reinterpret_cast<const char*>(bytes.back().data() + 8),
                                   safetensors_header_length(bytes.back().data(), bytes.back().size())),
                       bytes.back().size());
    }
    CHECK_THROWS_WITH(loader.use_index(moved.dump()), Catch::Contains("model.safetensors.index.json puts \"" + tensor + "\""));
    CHECK_NOTHROW(loader.use_index(index));
    const std::vector<CheckpointLoader::Read> reads = loader.start();
    for (std::size_t i = 0; i < reads.size(); ++i)
      loader.feed(i, 0, bytes[reads[i].shard].data() + reads[i].begin, reads[i].end - reads[i].begin);
    const std::vector<int> tokens = {1, 2, 3};
    CHECK(Transformer(config.config, loader.finish()).forward(tokens) ==
          Transformer(config.config, read_checkpoint_dir(folder, config, kDefaultMaxParameterBytes)).forward(tokens));
  }
}

TEST_CASE("a checkpoint folder brings its tokenizer, or GPT-2's", "[checkpoint][tokenizer]") {
  // a GPT-2 with GPT-2's vocabulary and random weights, written as the hub's files are
  const ModelConfig config = ModelConfig::Builder(Architecture::decoder_only, 50257, 16).width(8, 2).ffn(16).layers(1)
                                 .activation(Activation::gelu_tanh).build();
  const std::vector<std::uint8_t> weights = params_to_safetensors(config, Transformer::random(config, 5).params());
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / "attnlab-checkpoint-folder";
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(folder / name, std::ios::binary) << text;
  };
  write("model.safetensors", std::string(weights.begin(), weights.end()));
  write("config.json", json({{"model_type", "gpt2"}, {"vocab_size", 50257}, {"n_positions", 16}, {"n_embd", 8},
                             {"n_head", 2}, {"n_layer", 1}, {"n_inner", 16}, {"eos_token_id", 50256}}).dump());
  const std::string gpt2 = read_text(ATTNLAB_GPT2_TOKENIZER);
  const std::string text = "Hello, world! It's 2026.";

  SECTION("none in the folder: GPT-2's, when it is given") {
    const LoadedModel loaded = load_model_dir(folder.string(), kDefaultMaxParameterBytes, ATTNLAB_GPT2_TOKENIZER);
    CHECK(loaded.tokenizer.encode(text) == std::vector<int>{15496, 11, 995, 0, 632, 338, 1160, 2075, 13});
    CHECK(loaded.eos_token_id == 50256);
    CHECK_THROWS_WITH(load_model_dir(folder.string()), Catch::Contains("has no tokenizer (tokenizer.json, vocab.json and merges.txt, or vocab.json)"));
  }
  SECTION("tokenizer.json, or GPT-2's vocab.json and merges.txt") {
    write("tokenizer.json", gpt2);
    CHECK(load_model_dir(folder.string()).tokenizer.encode(text).size() == 9);
    std::filesystem::remove(folder / "tokenizer.json");
    const json j = json::parse(gpt2);
    std::string merges = "#version: 0.2\n";
    for (const auto& m : j["model"]["merges"]) merges += (m.is_string() ? m.get<std::string>() : m[0].get<std::string>() + " " + m[1].get<std::string>()) + "\n";
    write("vocab.json", j["model"]["vocab"].dump());
    write("merges.txt", merges);
    CHECK(load_model_dir(folder.string()).tokenizer.encode(text) == std::vector<int>{15496, 11, 995, 0, 632, 338, 1160, 2075, 13});
  }
  std::filesystem::remove_all(folder);
}
