#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <set>

#include "allocation_tracker.hpp"
#include "core/check.hpp"
#include "io/model_file.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {

ModelConfig config_for(Positional positional, Architecture architecture) {
  return ModelConfig::Builder(architecture, 10, 12)
      .width(8, 2)
      .kv_heads(1)
      .ffn(12)
      .layers(2, 1)
      .positional(positional)
      .activation(Activation::swiglu)
      .norm(Norm::rms_norm)
      .tie_embeddings(false)
      .build();
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("configs as JSON", "[io][config]") {
  const ModelConfig c = config_for(Positional::rope, Architecture::encoder_decoder);
  const ModelConfig back = config_from_json(config_to_json(c));
  CHECK(config_to_json(back) == config_to_json(c));
  CHECK(back.positional == Positional::rope);
  CHECK(back.activation == Activation::swiglu);
  CHECK_THAT(error_of([] { config_from_json(R"({"vocab_size":5,"n_ctx":4,"d_model":4,"d_ff":4,"colour":"red"})"); }),
             Catch::Contains("unknown field \"colour\""));
  CHECK_THAT(error_of([] { config_from_json(R"({"vocab_size":"5","n_ctx":4,"d_model":4,"d_ff":4})"); }),
             Catch::Contains("\"vocab_size\" must be an integer"));
  CHECK_THAT(error_of([] { config_from_json(R"({"n_ctx":4,"d_model":4,"d_ff":4})"); }),
             Catch::Contains("\"vocab_size\" is required"));
  CHECK_THAT(error_of([] { config_from_json(R"({"vocab_size":5,"n_ctx":4,"d_model":4,"d_ff":4,"activation":"tanh"})"); }),
             Catch::Contains("unknown activation"));
  CHECK_THAT(error_of([] { config_from_json(R"({"vocab_size":5,"n_ctx":4,"d_model":4,"d_ff":4,"n_heads":3})"); }),
             Catch::Contains("not divisible"));
  CHECK_THAT(error_of([] { config_from_json("{]"); }), Catch::Contains("not valid JSON"));
  SECTION("a key given twice is refused, not resolved to the last one") {
    CHECK_THAT(error_of([] { config_from_json(R"({"vocab_size":5,"n_ctx":4,"d_model":4,"d_ff":4,"d_model":8})"); }),
               Catch::Contains("model config names \"d_model\" twice"));
  }
  SECTION("a NUL inside a name is shown, and the rest of the message kept") {
    const std::string config = std::string(R"({"vocab_size":5,"n_ctx":4,"d_model":4,"d_ff":4,"col\u0000our":1})");
    CHECK(error_of([&] { config_from_json(config); }) == "model config: unknown field \"col\\0our\"");
  }
}

TEST_CASE("config.json: every field is written, read back and checked", "[io][config]") {
  // every field off its default (n_decoder_layers too: an encoder ignores it, the file keeps it),
  // and valid still when any one optional field falls back to its default
  const ModelConfig c = ModelConfig::Builder(Architecture::encoder_only, 7, 9)
                            .width(12, 6)
                            .kv_heads(1)
                            .ffn(20)
                            .layers(3, 2)
                            .positional(Positional::rope)
                            .positional_base(500.0f)
                            .rope_pairing(RopePairing::rotate_half)
                            .activation(Activation::swiglu)
                            .norm(Norm::rms_norm)
                            .norm_eps(1e-6f)
                            .pre_norm(false)
                            .residual(false)
                            .final_norm(false)
                            .tie_embeddings(false)
                            .scaled(false)
                            .build();
  const nlohmann::json written = nlohmann::json::parse(config_to_json(c));
  const nlohmann::json defaults = nlohmann::json::parse(config_to_json(ModelConfig{}));
  REQUIRE(written.size() == 20);  // every member of ModelConfig
  SECTION("each field is written under its name, off its default, and read back as written") {
    CHECK(written == nlohmann::json::parse(R"({
        "activation": "swiglu", "architecture": "encoder_only", "d_ff": 20, "d_model": 12, "final_norm": false,
        "n_ctx": 9, "n_decoder_layers": 2, "n_heads": 6, "n_kv_heads": 1, "n_layers": 3, "norm": "rms_norm",
        "norm_eps": 9.999999974752427e-07, "positional": "rope", "positional_base": 500.0, "pre_norm": false,
        "residual": false, "rope_pairing": "rotate_half", "scaled": false, "tie_embeddings": false,
        "vocab_size": 7})"));
    for (const auto& item : written.items()) {
      INFO(item.key());
      CHECK(item.value() != defaults.at(item.key()));
    }
    CHECK(config_to_json(config_from_json(config_to_json(c))) == config_to_json(c));
  }
  SECTION("a field left out takes its default, unless it is required") {
    const std::set<std::string> required = {"vocab_size", "n_ctx", "d_model", "d_ff"};
    for (const auto& item : written.items()) {
      INFO(item.key());
      nlohmann::json without = written;
      without.erase(item.key());
      if (required.count(item.key())) {
        CHECK(error_of([&] { config_from_json(without.dump()); }) ==
              "model config: \"" + item.key() + "\" is required");
      } else {
        const nlohmann::json read = nlohmann::json::parse(config_to_json(config_from_json(without.dump())));
        CHECK(read.at(item.key()) == defaults.at(item.key()));
      }
    }
  }
  SECTION("a value of the wrong kind is refused, naming the field") {
    for (const auto& item : written.items()) {
      nlohmann::json wrong = written;
      wrong[item.key()] = nlohmann::json::array();
      CHECK_THAT(error_of([&] { config_from_json(wrong.dump()); }),
                 Catch::StartsWith("model config: \"" + item.key() + "\" must be"));
    }
  }
  SECTION("an integer is checked at its full width: 2³² + 64 is refused, never read as 64 (32-bit Index)") {
    for (const char* key : {"vocab_size", "n_ctx", "d_model", "d_ff", "n_layers"}) {
      INFO(key);
      for (const std::string value : {"4294967360", "18446744073709551615", "-9223372036854775808"}) {
        nlohmann::json wide = written;
        wide[key] = nlohmann::json::parse(value);
        CHECK_THAT(error_of([&] { config_from_json(wide.dump()); }), Catch::StartsWith("model config: ") &&
                   Catch::Contains(key) && (Catch::Contains("out of range, got " + value) || Catch::Contains("got " + value)));
      }
    }
  }
}

TEST_CASE("models save and load bit-exactly", "[io][model_file]") {
  for (Architecture architecture : {Architecture::decoder_only, Architecture::encoder_only, Architecture::encoder_decoder}) {
    DYNAMIC_SECTION(to_string(architecture)) {
      const ModelConfig config = config_for(Positional::learned, architecture);
      const Transformer model = Transformer::random(config, 17);
      const Tokenizer tokenizer = Tokenizer::build(TokenizerKind::word, {"a b c d"});
      const auto dir = std::filesystem::temp_directory_path() / ("attnlab-model-" + to_string(architecture));
      std::filesystem::create_directories(dir);
      save_model_dir(dir.string(), model, tokenizer);
      const LoadedModel loaded = load_model_dir(dir.string());
      ModelParams a = model.params(), b = loaded.model.params();
      const auto sa = tensor_slots(config, a), sb = tensor_slots(config, b);
      REQUIRE(sa.size() == sb.size());
      for (size_t i = 0; i < sa.size(); ++i) {
        INFO(sa[i].name);
        Index count = 1;
        for (auto d : sa[i].shape) count *= d;
        CHECK(sb[i].name == sa[i].name);
        CHECK(std::memcmp(sa[i].data, sb[i].data, static_cast<size_t>(count) * 4) == 0);
      }
      CHECK(loaded.tokenizer.encode("a c") == tokenizer.encode("a c"));
      std::filesystem::remove_all(dir);
    }
  }
}

TEST_CASE("loading checks the weights against the config", "[io][model_file][errors]") {
  const ModelConfig config = config_for(Positional::learned, Architecture::decoder_only);
  const Transformer model = Transformer::random(config, 3);
  const std::vector<std::uint8_t> good = params_to_safetensors(config, model.params());
  TensorMap tensors = safetensors_read(good.data(), good.size());

  auto load = [&](const TensorMap& t) {
    const std::vector<std::uint8_t> bytes = safetensors_write(t);
    return error_of([&] { params_from_safetensors(config, bytes.data(), bytes.size()); });
  };
  CHECK(load(tensors) == "no error");
  TensorMap missing = tensors;
  missing.erase("h.1.mlp.c_gate.weight");
  CHECK_THAT(load(missing), Catch::Contains("\"h.1.mlp.c_gate.weight\" is missing"));
  TensorMap reshaped = tensors;
  reshaped["wpe.weight"].shape = {8, 12};
  CHECK_THAT(load(reshaped), Catch::Contains("\"wpe.weight\" has shape (8, 12); the config needs (12, 8)"));
  TensorMap extra = tensors;
  extra["h.7.ln_1.weight"] = {{8}, std::vector<float>(8, 1.0f)};
  CHECK_THAT(load(extra), Catch::Contains("unexpected tensor \"h.7.ln_1.weight\""));
  TensorMap nan = tensors;
  nan["lm_head.weight"].data[5] = std::numeric_limits<float>::infinity();
  CHECK_THAT(load(nan), Catch::Contains("lm_head.weight contains a non-finite value"));
  const std::vector<std::uint8_t> truncated(good.begin(), good.end() - 3);
  CHECK_THAT(error_of([&] { params_from_safetensors(config, truncated.data(), truncated.size()); }),
             Catch::Contains("safetensors"));
  const Tokenizer small = Tokenizer::build(TokenizerKind::word, {"a"});
  CHECK_THAT(error_of([&] { load_model(good.data(), good.size(), config_to_json(config), small.to_json()); }),
             Catch::Contains("the vocabulary has 7 tokens but the config says vocab_size = 10"));
}

TEST_CASE("a GPT-2-layout checkpoint loads one to one", "[io][model_file][oracle]") {
  // written here from the PyTorch fixture, with the causal-mask buffers GPT-2 files carry
  const FixtureCase f = load_fixture_cases("layers.json").back();
  REQUIRE(f.kind == "decoder_only_model");
  TensorMap tensors;
  for (const auto& [name, t] : f.tensors.items()) {
    if (name == "logits") continue;
    StoredTensor s;
    s.shape = t.at("shape").get<std::vector<std::int64_t>>();
    s.data = t.at("data").get<std::vector<float>>();
    tensors.emplace(name, std::move(s));
  }
  for (int i = 0; i < 2; ++i)
    tensors["h." + std::to_string(i) + ".attn.bias"] = {{1, 1, 16, 16}, std::vector<float>(256, 1.0f)};
  const std::vector<std::uint8_t> bytes = safetensors_write(tensors);
  const std::string config = R"({"vocab_size":11,"n_ctx":16,"d_model":8,"n_heads":2,"d_ff":32,"n_layers":2,"activation":"gelu_tanh"})";
  std::vector<std::string> words = {"[PAD]", "[UNK]", "[BOS]", "[EOS]", "[MASK]", "[SEP]", "a", "b", "c", "d", "e"};
  const Tokenizer tokenizer(TokenizerKind::word, words, false);
  const LoadedModel loaded = load_model(bytes.data(), bytes.size(), config, tokenizer.to_json());
  CHECK_THAT(loaded.model.forward(f.get<std::vector<int>>("tokens")), IsNear(f.tensor("logits"), 1e-5));
}

TEST_CASE("a config is checked against the file before the model's memory is allocated", "[io][model_file][errors]") {
  const ModelConfig small = config_for(Positional::learned, Architecture::decoder_only);
  const std::vector<std::uint8_t> weights = params_to_safetensors(small, Transformer::random(small, 1).params());
  const Tokenizer tokenizer = Tokenizer::build(TokenizerKind::word, {"a b c d"});
  SECTION("a small config asking for a gigabyte of parameters fails on the first shape, allocating nothing of it") {
    ModelConfig big = small;
    big.vocab_size = tokenizer.size();
    big.n_layers = 256;
    big.d_ff = 1 << 16;  // 256 layers of 3·8·65536 floats: 1.5 GiB
    REQUIRE(parameter_bytes(big) > (std::uint64_t(1) << 30));
    if (allocation_tracking_available()) allocation_tracking_start();
    const std::string error = error_of([&] {
      load_model(weights.data(), weights.size(), config_to_json(big), tokenizer.to_json(), std::uint64_t(2) << 30);
    });
    const std::size_t peak = allocation_tracking_peak();
    allocation_tracking_stop();
    CHECK_THAT(error, Catch::Contains("tensor \"h.0.mlp.c_fc.weight\" has shape (8, 12); the config needs (8, 65536)"));
    if (allocation_tracking_available()) {
      INFO("peak heap bytes " << peak);  // the names and shapes of 256 layers' tensors, no numbers
      CHECK(peak < parameter_bytes(big) / 1000);
    }
  }
  SECTION("the parameter bytes are capped, by default and by the caller") {
    const ModelConfig huge = ModelConfig::Builder(small).width(1 << 14, 1).kv_heads(1).ffn(1 << 16).layers(64).build();
    CHECK_THAT(error_of([&] { params_from_safetensors(huge, weights.data(), weights.size()); }),
               Catch::Contains("more than the limit of " + std::to_string(kDefaultMaxParameterBytes) + " bytes"));
    CHECK_THAT(error_of([&] { load_model(weights.data(), weights.size(), config_to_json(small), tokenizer.to_json(), 1000); }),
               Catch::Contains("model config: the parameters need " + std::to_string(parameter_bytes(small)) +
                               " bytes, more than the limit of 1000 bytes"));
  }
}
