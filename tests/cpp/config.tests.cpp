#include <catch2/catch.hpp>

#include "core/check.hpp"
#include "io/model_file.hpp"
#include "model/config.hpp"

using namespace attnlab;

TEST_CASE("a ModelConfig built in one expression", "[model][config]") {
  SECTION("each setter sets its field; the fields left unset keep ModelConfig's defaults") {
    ModelConfig by_hand;
    by_hand.vocab_size = 50257;
    by_hand.n_ctx = 1024;
    by_hand.d_model = 768;
    by_hand.n_heads = 12;
    by_hand.d_ff = 3072;
    by_hand.n_layers = 12;
    const ModelConfig gpt2 =
        ModelConfig::Builder(Architecture::decoder_only, 50257, 1024).width(768, 12).ffn(3072).layers(12).build();
    CHECK(config_to_json(gpt2) == config_to_json(by_hand));

    by_hand.architecture = Architecture::encoder_decoder;
    by_hand.n_kv_heads = 4;
    by_hand.n_decoder_layers = 6;
    by_hand.positional = Positional::rope;
    by_hand.positional_base = 500000.0f;
    by_hand.activation = Activation::swiglu;
    by_hand.norm = Norm::rms_norm;
    by_hand.norm_eps = 1e-6f;
    by_hand.pre_norm = false;
    by_hand.residual = false;
    by_hand.final_norm = false;
    by_hand.tie_embeddings = false;
    by_hand.scaled = false;
    const ModelConfig every = ModelConfig::Builder(Architecture::encoder_decoder, 50257, 1024)
                                  .width(768, 12)
                                  .kv_heads(4)
                                  .ffn(3072)
                                  .layers(12, 6)
                                  .positional(Positional::rope)
                                  .positional_base(500000.0f)
                                  .activation(Activation::swiglu)
                                  .norm(Norm::rms_norm)
                                  .norm_eps(1e-6f)
                                  .pre_norm(false)
                                  .residual(false)
                                  .final_norm(false)
                                  .tie_embeddings(false)
                                  .scaled(false)
                                  .build();
    CHECK(config_to_json(every) == config_to_json(by_hand));
  }
  SECTION("layers(n) gives every stack n blocks: both of an encoder-decoder, the one of the others") {
    const auto two_layers = [](Architecture architecture) {
      return ModelConfig::Builder(architecture, 10, 8).width(8, 2).ffn(16).layers(2).build();
    };
    CHECK(two_layers(Architecture::encoder_decoder).n_layers == 2);
    CHECK(two_layers(Architecture::encoder_decoder).n_decoder_layers == 2);
    CHECK(two_layers(Architecture::decoder_only).n_layers == 2);
    CHECK(two_layers(Architecture::decoder_only).n_decoder_layers == 0);
    CHECK(two_layers(Architecture::encoder_only).n_layers == 2);
  }
  SECTION("a variation of an existing config keeps every field it does not set") {
    const ModelConfig base = ModelConfig::Builder(Architecture::encoder_decoder, 10, 8)
                                 .width(8, 2)
                                 .ffn(16)
                                 .layers(2)
                                 .activation(Activation::relu)
                                 .build();
    const ModelConfig wider = ModelConfig::Builder(base).width(32, 4).layers(3).build();
    ModelConfig expected = base;
    expected.d_model = 32;
    expected.n_heads = 4;
    expected.n_layers = expected.n_decoder_layers = 3;
    CHECK(config_to_json(wider) == config_to_json(expected));
  }
  SECTION("build() refuses a config that does not fit, naming the field") {
    const auto decoder = [] { return ModelConfig::Builder(Architecture::decoder_only, 10, 8); };
    CHECK_THROWS_WITH(decoder().ffn(16).build(), "model config: d_model must be between 1 and 16384, got 0");
    CHECK_THROWS_WITH(decoder().width(8, 2).build(), "model config: d_ff must be between 1 and 65536, got 0");
    CHECK_THROWS_WITH(decoder().width(10, 4).ffn(16).build(),
                      "attention: d_model = 10 is not divisible by n_heads = 4");
    CHECK_THROWS_WITH(decoder().width(8, 2).ffn(16).layers(0).build(),
                      "model config: n_layers must be between 1 and 256, got 0");
    CHECK_THROWS_WITH(decoder().width(8, 2).ffn(16).norm_eps(0.0f).build(),
                      "model config: norm_eps must be a positive number");
    CHECK_THROWS_WITH(
        ModelConfig::Builder(Architecture::encoder_decoder, 10, 8).width(8, 2).ffn(16).layers(2, 0).build(),
        "model config: n_decoder_layers must be between 1 and 256, got 0");
  }
}
