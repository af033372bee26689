#include <catch2/catch.hpp>

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
