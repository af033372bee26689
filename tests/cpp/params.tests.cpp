#include <catch2/catch.hpp>
#include <cstring>

#include "allocation_tracker.hpp"
#include "io/model_file.hpp"
#include "model/params.hpp"

using namespace attnlab;

TEST_CASE("the tensor layout of a config is that of its initialised parameters", "[params]") {
  for (const Architecture architecture : {Architecture::decoder_only, Architecture::encoder_only, Architecture::encoder_decoder}) {
    for (const bool variant : {false, true}) {
      DYNAMIC_SECTION(to_string(architecture) << (variant ? ", rms_norm, swiglu, untied, learned" : "")) {
        const ModelConfig c = ModelConfig::Builder(architecture, 9, 7)
                                  .width(8, 4)
                                  .kv_heads(2)
                                  .ffn(12)
                                  .layers(2, 3)
                                  .positional(variant ? Positional::learned : Positional::rope)
                                  .norm(variant ? Norm::rms_norm : Norm::layer_norm)
                                  .activation(variant ? Activation::swiglu : Activation::gelu)
                                  .tie_embeddings(!variant)
                                  .final_norm(variant)
                                  .build();
        ModelParams p = ModelParams::init(c, 1);
        const std::vector<TensorSlot> slots = tensor_slots(c, p);
        const std::vector<TensorShape> layout = tensor_layout(c);
        REQUIRE(layout.size() == slots.size());
        std::uint64_t floats = 0;
        for (size_t i = 0; i < slots.size(); ++i) {
          INFO(slots[i].name);
          CHECK(layout[i].name == slots[i].name);
          CHECK(layout[i].shape == slots[i].shape);
          std::uint64_t count = 1;
          for (auto d : slots[i].shape) count *= static_cast<std::uint64_t>(d);
          floats += count;
        }
        CHECK(parameter_bytes(c) == floats * sizeof(Scalar));
      }
    }
  }
}

TEST_CASE("the parameter bytes of a config are known, and capped, without allocating them", "[params][errors]") {
  const ModelConfig c =
      ModelConfig::Builder(Architecture::decoder_only, 1 << 20, 1 << 16).width(64, 1).ffn(1 << 16).layers(256).build();
  // wte + wpe + 256 blocks of (attention 4·64² + 4·64, norms 4·64, feed-forward 2·64·65536 + 65536 + 64) + ln_f
  const std::uint64_t expected = (std::uint64_t(1) << 26) + (std::uint64_t(1) << 22) +
                                 std::uint64_t(256) * (4 * 64 * 64 + 4 * 64 + 4 * 64 + 2 * 64 * 65536 + 65536 + 64) + 2 * 64;
  CHECK(parameter_bytes(c) == expected * 4);
  CHECK_NOTHROW(require_parameter_bytes(c, expected * 4));
  CHECK_THROWS_WITH(require_parameter_bytes(c, expected * 4 - 1),
                    Catch::Contains("the parameters need " + std::to_string(expected * 4) + " bytes, more than the limit"));
}

TEST_CASE("one tensor is read by the name save() writes it under, in place", "[params][io]") {
  using Builder = ModelConfig::Builder;
  const std::pair<const char*, ModelConfig> configs[] = {
      {"GPT-2 layout", Builder(Architecture::decoder_only, 11, 9).width(8, 2).ffn(16).layers(2).build()},
      {"Llama layout", Builder(Architecture::decoder_only, 11, 9).width(8, 4).kv_heads(2).ffn(12).layers(2)
                           .positional(Positional::rope).norm(Norm::rms_norm).activation(Activation::swiglu)
                           .tie_embeddings(false).build()},
      {"encoder-only", Builder(Architecture::encoder_only, 11, 9).width(8, 2).ffn(16).layers(1).build()},
      {"encoder-decoder", Builder(Architecture::encoder_decoder, 11, 9).width(8, 2).ffn(16).layers(1, 2).build()},
  };
  for (const auto& [family, config] : configs) {
    DYNAMIC_SECTION(family) {
      const ModelParams params = ModelParams::init(config, 5);
      const std::vector<std::uint8_t> saved = params_to_safetensors(config, params);
      const TensorMap tensors = safetensors_read(saved.data(), saved.size());
      REQUIRE(tensors.size() == tensor_layout(config).size());
      for (const auto& [name, stored] : tensors) {
        INFO(name);
        const Matrix tensor = parameter_tensor(config, params, name).floats();
        const std::vector<std::int64_t> shape{tensor.rows(), tensor.cols()};
        CHECK(shape == (stored.shape.size() == 1 ? std::vector<std::int64_t>{1, stored.shape[0]} : stored.shape));
        REQUIRE(static_cast<size_t>(tensor.size()) == stored.data.size());
        CHECK(std::memcmp(tensor.data(), stored.data.data(), stored.data.size() * sizeof(float)) == 0);
      }
    }
  }
  SECTION("without copying: a lookup allocates nothing") {
    if (!test::allocation_tracking_available()) return;
    const ModelConfig& config = configs[0].second;
    const ModelParams params = ModelParams::init(config, 5);
    const std::string w_o = "h.1.attn.c_proj.weight";
    test::allocation_tracking_start();
    const WeightView tensor = parameter_tensor(config, params, w_o);
    const std::size_t allocations = test::allocation_tracking_count();
    test::allocation_tracking_stop();
    CHECK(allocations == 0);
    CHECK(tensor.float_data() == params.decoder.h[1].attn.c_proj_weight.data());
  }
}

TEST_CASE("a tensor name nothing holds, a long name and a tensor over the limit are refused", "[params][errors]") {
  const ModelConfig gpt2 = ModelConfig::Builder(Architecture::decoder_only, 11, 9).width(8, 2).ffn(16).layers(2).build();
  const ModelConfig seq2seq =
      ModelConfig::Builder(Architecture::encoder_decoder, 11, 9).width(8, 2).ffn(16).layers(1, 1).build();
  const ModelParams params = ModelParams::init(gpt2, 5), seq2seq_params = ModelParams::init(seq2seq, 5);
  CHECK_THROWS_WITH(parameter_tensor(gpt2, params, "h.2.attn.c_proj.weight"),
                    "parameter: the model has no tensor \"h.2.attn.c_proj.weight\"; its 28 tensors are named as save() "
                    "writes them, \"wte.weight\", \"wpe.weight\" … \"ln_f.bias\" (the first block's W_O is "
                    "\"h.0.attn.c_proj.weight\")");
  CHECK_THROWS_WITH(parameter_tensor(seq2seq, seq2seq_params, "h.0.attn.c_proj.weight"),
                    Catch::Contains("(the first block's W_O is \"encoder.h.0.attn.c_proj.weight\")"));
  // a prefix of a name, a name with more after it, and the empty name are not names
  for (const std::string& name : std::vector<std::string>{"h.0.attn", "wte.weight.", "", "wte", std::string("wte.weight\0", 11)}) {
    INFO(name);
    CHECK_THROWS_WITH(parameter_tensor(gpt2, params, name), Catch::StartsWith("parameter: the model has no tensor \""));
  }
  CHECK_THROWS_WITH(parameter_tensor(gpt2, params, std::string("wte\0weight", 10)), Catch::Contains("no tensor \"wte\\0weight\""));
  CHECK_THROWS_WITH(parameter_tensor(gpt2, params, std::string(10 << 20, 'h')),
                    "parameter: a tensor name has at most 256 bytes, got 10485760");
  // the limit counts numbers: wte is 11×8
  CHECK_NOTHROW(parameter_tensor(gpt2, params, "wte.weight", 88));
  CHECK_THROWS_WITH(parameter_tensor(gpt2, params, "wte.weight", 87),
                    "parameter: \"wte.weight\" holds 11×8 = 88 numbers, more than the 87 that one call hands out");
  // and the parameters are as they were
  CHECK(parameter_tensor(gpt2, params, "h.1.attn.c_proj.weight").floats() == params.decoder.h[1].attn.c_proj_weight);
}
