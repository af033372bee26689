#include <catch2/catch.hpp>

#include "model/trace.hpp"
#include "core/check.hpp"
#include "model/layer_attention.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {
ModelConfig config_of(Architecture architecture, bool pre_norm) {
  return ModelConfig::Builder(architecture, 11, 16)
      .width(12, 3)
      .ffn(24)
      .layers(2)
      .pre_norm(pre_norm)
      .final_norm(pre_norm)
      .positional(architecture == Architecture::decoder_only ? Positional::rope : Positional::learned)
      .build();
}
}  // namespace

TEST_CASE("stepping through one layer of a model", "[model][steps]") {
  const std::vector<int> tokens = {3, 1, 4, 1, 5}, source = {2, 7, 1, 8};
  for (bool pre_norm : {true, false}) {
    DYNAMIC_SECTION((pre_norm ? "pre-LN" : "post-LN")) {
      for (Architecture a : {Architecture::decoder_only, Architecture::encoder_only}) {
        const Transformer model = Transformer::random(config_of(a, pre_norm), 5);
        ModelActivations kept;
        const Trace trace(kept);
        model.forward(tokens, &kept);
        AttentionSteps s = layer_attention_steps(model, tokens, 1);
        s.run_all();
        CHECK_THAT(s.output(), IsNear(trace.get("layer1.attn.out"), 1e-5));
        CHECK_THAT(s.head(2).weights, IsNear(trace.get("layer1.attn.head2.weights"), 1e-6));
      }
      const Transformer seq2seq = Transformer::random(config_of(Architecture::encoder_decoder, pre_norm), 6);
      ModelActivations kept;
      const Trace trace(kept);
      seq2seq.forward(source, tokens, &kept);
      AttentionSteps cross = layer_attention_steps(seq2seq, tokens, 0, source, true);
      cross.run_all();
      CHECK_THAT(cross.output(), IsNear(trace.get("decoder.layer0.cross.out"), 1e-5));
      AttentionSteps self = layer_attention_steps(seq2seq, tokens, 1, source, false);
      self.run_all();
      CHECK_THAT(self.head(0).weights, IsNear(trace.get("decoder.layer1.attn.head0.weights"), 1e-6));
    }
  }
  SECTION("bad requests are refused") {
    const Transformer model = Transformer::random(config_of(Architecture::decoder_only, true), 5);
    CHECK_THROWS_WITH(layer_attention_steps(model, tokens, 2), Catch::Contains("layer 2 does not exist"));
    CHECK_THROWS_WITH(layer_attention_steps(model, tokens, 0, source), Catch::Contains("only encoder-decoder"));
    CHECK_THROWS_WITH(layer_attention_steps(model, tokens, 0, {}, true), Catch::Contains("cross-attention exists only"));
  }
}
