#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/check.hpp"
#include "core/cross_entropy.hpp"
#include "model/trace.hpp"
#include "model/transformer.hpp"
#include "allocation_tracker.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {

ModelConfig small_config(Architecture architecture, Positional positional) {
  return ModelConfig::Builder(architecture, 13, 24).width(16, 4).ffn(32).layers(2).positional(positional).build();
}

// larger weights than GPT-2's initialisation, so that attention patterns are far from uniform
Transformer sharp_model(const ModelConfig& config, std::uint32_t seed) {
  ModelParams p = ModelParams::init(config, seed);
  for (TensorSlot& slot : tensor_slots(config, p)) {
    if (slot.shape.size() != 2) continue;
    Eigen::Map<Matrix> m(slot.data, slot.shape[0], slot.shape[1]);
    m *= 20.0f;
  }
  return Transformer(config, std::move(p));
}

// the GPT-2-shaped decoder-only model of a fixture (learned positions, pre-LN, tied head)
ModelConfig gpt_config(const FixtureCase& f) {
  return ModelConfig::Builder(Architecture::decoder_only, f.get<Index>("vocab_size"), f.get<Index>("n_ctx"))
      .width(f.get<Index>("d_model"), f.get<Index>("n_heads"))
      .ffn(f.get<Index>("d_ff"))
      .layers(f.get<Index>("n_layers"))
      .activation(activation_from_string(f.get<std::string>("activation")))
      .build();
}

}  // namespace

TEST_CASE("a 2-layer decoder-only model matches PyTorch", "[model][oracle]") {
  const std::vector<FixtureCase> cases = load_fixture_cases("layers.json");
  const FixtureCase& f = cases.back();
  REQUIRE(f.kind == "decoder_only_model");
  const ModelConfig config = gpt_config(f);
  ModelParams params = ModelParams::init(config, 0);
  load_slots(tensor_slots(config, params), f, "");  // GPT-2 names, one to one
  const Transformer model(config, std::move(params));
  ModelActivations kept;
  const Trace trace(kept);
  const Matrix logits = model.forward(f.get<std::vector<int>>("tokens"), &kept);
  CHECK_THAT(logits, IsNear(f.tensor("logits"), 1e-5));
  CHECK_THAT(trace.get("logits"), IsNear(logits, 0));
}

TEST_CASE("a 2-layer model's loss and every gradient match PyTorch autograd", "[model][oracle][gradients]") {
  const FixtureCase f = load_fixture_cases("training.json").front();
  const ModelConfig config = gpt_config(f);
  ModelParams params = ModelParams::init(config, 0);
  load_slots(tensor_slots(config, params), f, "");
  const Transformer model(config, std::move(params));
  const std::vector<int> tokens = f.get<std::vector<int>>("tokens"), targets = f.get<std::vector<int>>("targets");
  ModelActivations kept;
  const Trace trace(kept);
  const Matrix logits = model.forward(tokens, &kept);
  const CrossEntropy ce = cross_entropy_forward(logits, targets);
  const double loss = ce.loss_sum / static_cast<double>(ce.targets);
  CHECK_THAT(loss, Catch::Matchers::WithinRel(f.get<double>("loss"), 1e-5));
  ModelParams grads = ModelParams::zeros(config);
  model.backward(tokens, kept, cross_entropy_backward(logits, targets, 1.0f / static_cast<float>(ce.targets)), grads);
  for (const TensorSlot& slot : tensor_slots(config, grads)) {
    const Matrix expected = f.tensor("grad." + slot.name);
    const Eigen::Map<const Matrix> actual(slot.data, expected.rows(), expected.cols());
    // relative error of the whole tensor, ‖g − g_torch‖ / ‖g_torch‖
    const double error = (actual - expected).norm() / expected.norm();
    INFO(slot.name << ": relative error " << error);
    CHECK(error <= 1e-4);
  }
}

TEST_CASE("model families", "[model]") {
  const std::vector<int> tokens = {1, 5, 2, 7, 3, 3, 9};
  std::vector<int> changed = tokens;
  changed[5] = 11;

  SECTION("decoder-only is causal: a later token never changes earlier logits") {
    const Transformer model = sharp_model(small_config(Architecture::decoder_only, Positional::rope), 3);
    const Matrix a = model.forward(tokens), b = model.forward(changed);
    CHECK_THAT(Matrix(a.topRows(5)), IsNear(Matrix(b.topRows(5)), 1e-5));
    CHECK((a.row(5) - b.row(5)).cwiseAbs().maxCoeff() > 1e-3f);
  }
  SECTION("encoder-only is bidirectional: it does") {
    const Transformer model = sharp_model(small_config(Architecture::encoder_only, Positional::sinusoidal), 3);
    const Matrix a = model.forward(tokens), b = model.forward(changed);
    CHECK((a.row(0) - b.row(0)).cwiseAbs().maxCoeff() > 1e-3f);
  }
  SECTION("encoder-decoder: the decoder is causal and every target position sees the whole source") {
    const Transformer model = sharp_model(small_config(Architecture::encoder_decoder, Positional::learned), 4);
    const std::vector<int> source = {4, 4, 8, 1}, target = {2, 6, 6};
    ModelActivations kept;
    const Trace trace(kept);
    const Matrix logits = model.forward(source, target, &kept);
    CHECK(logits.rows() == 3);
    CHECK(logits.cols() == 13);
    CHECK(trace.get("decoder.layer1.cross.head2.weights").cols() == 4);
    CHECK(trace.get("decoder.layer0.attn.head0.weights")(0, 2) == 0.0f);
    CHECK(trace.contains("encoder.ln_f"));
    std::vector<int> other_source = source;
    other_source[3] = 7;
    CHECK((model.forward(other_source, target).row(0) - logits.row(0)).cwiseAbs().maxCoeff() > 1e-3f);
  }
  SECTION("the trace names every stage of every layer and head") {
    const Transformer model = Transformer::random(small_config(Architecture::decoder_only, Positional::learned), 1);
    ModelActivations kept;
    const Trace trace(kept);
    model.forward(tokens, &kept);
    for (const char* name : {"embed.tokens", "embed.positions", "embed.out", "layer0.ln_1", "layer0.attn.q",
                             "layer0.attn.head3.scores", "layer1.attn.head2.weights", "layer1.attn.concat",
                             "layer1.residual_1", "layer1.mlp.act", "layer1.out", "ln_f", "logits"})
      CHECK(trace.contains(name));
    CHECK(trace.get("layer1.attn.head2.weights").rows() == 7);
    CHECK_THROWS_WITH(trace.get("layer9.out"), Catch::Contains("layer9.out"));
    // in the order the forward computes them: pre-LN normalises, attends, then adds
    const std::vector<std::string> names = trace.names();
    const auto at = [&](const std::string& name) { return std::find(names.begin(), names.end(), name) - names.begin(); };
    CHECK(at("embed.out") < at("layer0.in"));
    CHECK(at("layer0.ln_1") < at("layer0.attn.q"));
    CHECK(at("layer0.attn.out") < at("layer0.residual_1"));
    CHECK(at("layer1.out") < at("ln_f"));
    CHECK(names.back() == "logits");
    CHECK(names.size() == trace.entries().size());
  }
  SECTION("kept for the backward pass only, a forward keeps each head's weights and no other stage") {
    const Transformer model = Transformer::random(small_config(Architecture::decoder_only, Positional::learned), 1);
    ModelActivations full, lean;
    lean.detail = TraceDetail::for_backward;
    const Matrix a = model.forward(tokens, &full), b = model.forward(tokens, &lean);
    CHECK(a == b);
    const Trace trace(lean);
    CHECK(trace.get("layer1.attn.head2.weights") == Trace(full).get("layer1.attn.head2.weights"));
    CHECK_FALSE(trace.contains("layer1.attn.head2.scores"));
    CHECK_FALSE(trace.contains("layer1.attn.head2.output"));
    CHECK(trace.contains("layer1.attn.concat"));
    // reused, the same activations hold the next forward's
    model.forward({4, 4}, &lean);
    CHECK(trace.get("layer0.attn.head0.weights").rows() == 2);
    CHECK(trace.get("logits").rows() == 2);
  }
}

TEST_CASE("the causal mask can be switched per forward pass", "[model][mask]") {
  const std::vector<int> tokens = {1, 5, 2, 7, 3, 3, 9};
  std::vector<int> changed = tokens;
  changed[5] = 11;
  // rows 0…4 come before the changed token
  const auto earlier_rows_identical = [](const Matrix& a, const Matrix& b) { return a.topRows(5) == b.topRows(5); };

  SECTION("decoder-only: with the mask earlier logits are bit-identical, without it the future leaks") {
    const Transformer model = sharp_model(small_config(Architecture::decoder_only, Positional::learned), 3);
    CHECK(earlier_rows_identical(model.forward(tokens), model.forward(changed)));
    CHECK(earlier_rows_identical(model.forward(tokens, nullptr, true), model.forward(changed, nullptr, true)));
    CHECK(model.forward(tokens, nullptr, true) == model.forward(tokens));
    const Matrix a = model.forward(tokens, nullptr, false), b = model.forward(changed, nullptr, false);
    CHECK((a.row(0) - b.row(0)).cwiseAbs().maxCoeff() > 1e-3f);
    ModelActivations masked, open;
    model.forward(tokens, &masked);
    model.forward(tokens, &open, false);
    CHECK(std::isinf(Trace(masked).get("layer0.attn.head0.masked")(0, 6)));
    CHECK(std::isfinite(Trace(open).get("layer0.attn.head0.masked")(0, 6)));
  }
  SECTION("encoder-only: causal = true adds the mask an encoder lacks") {
    const Transformer model = sharp_model(small_config(Architecture::encoder_only, Positional::sinusoidal), 3);
    CHECK(earlier_rows_identical(model.forward(tokens, nullptr, true), model.forward(changed, nullptr, true)));
    CHECK(model.forward(tokens, nullptr, false) == model.forward(tokens));
  }
  SECTION("encoder-decoder: causal = false lifts the decoder's self-attention mask only") {
    const Transformer model = sharp_model(small_config(Architecture::encoder_decoder, Positional::learned), 4);
    const std::vector<int> source = {4, 4, 8, 1};
    CHECK(earlier_rows_identical(model.forward(source, tokens), model.forward(source, changed)));
    ModelActivations kept;
    const Trace trace(kept);
    const Matrix open = model.forward(source, tokens, &kept, false);
    CHECK((open.row(0) - model.forward(source, changed, nullptr, false).row(0)).cwiseAbs().maxCoeff() > 1e-3f);
    CHECK(std::isfinite(trace.get("decoder.layer0.attn.head0.masked")(0, 6)));
    CHECK(std::isfinite(trace.get("encoder.layer0.attn.head0.masked")(0, 3)));
  }
}

TEST_CASE("KV cache: incremental decoding equals a full recompute", "[model][kv_cache]") {
  const std::vector<int> tokens = {1, 5, 2, 7, 3, 3, 9, 12, 0, 4};
  for (Positional positional : {Positional::none, Positional::sinusoidal, Positional::learned,
                                Positional::rope, Positional::alibi}) {
    for (Index kv_heads : {4, 2, 1}) {
      DYNAMIC_SECTION(to_string(positional) << ", " << kv_heads << " kv heads") {
        ModelConfig config = small_config(Architecture::decoder_only, positional);
        config.n_kv_heads = kv_heads;
        const Transformer model = sharp_model(config, 7);
        const Matrix full = model.forward(tokens);
        KVCache cache = model.new_cache();
        // a prompt of three, then one token at a time
        ModelActivations kept;
        Matrix logits = model.forward_cached({tokens.begin(), tokens.begin() + 3}, cache, &kept);
        CHECK_THAT(logits, IsNear(Matrix(full.row(2)), 1e-5));
        CHECK_THAT(kept.logits, IsNear(Matrix(full.topRows(3)), 1e-5));
        for (size_t i = 3; i < tokens.size(); ++i) {
          logits = model.forward_cached({tokens[i]}, cache);
          INFO("step " << i);
          CHECK_THAT(logits, IsNear(Matrix(full.row(static_cast<Index>(i))), 1e-5));
        }
        // 2 · L · n · d_kv · 4 bytes, d_kv = g·d_k
        const Index d_kv = kv_heads * (16 / 4);
        CHECK(cache.length() == 10);
        CHECK(cache.bytes() == 2 * 2 * 10 * d_kv * 4);
      }
    }
  }
}

TEST_CASE("models refuse bad input with a clear message", "[model][errors]") {
  const Transformer model = Transformer::random(small_config(Architecture::decoder_only, Positional::learned), 1);
  CHECK_THROWS_WITH(model.forward({1, 13}), Catch::Contains("token 13 at position 1 is outside the vocabulary"));
  CHECK_THROWS_WITH(model.forward({1, -2}), Catch::Contains("token -2"));
  CHECK_THROWS_WITH(model.forward({}), Catch::Contains("empty"));
  CHECK_THROWS_WITH(model.forward(std::vector<int>(25, 1)), Catch::Contains("n_ctx = 24"));
  CHECK_THROWS_WITH(model.forward({1}, {2}), Catch::Contains("encoder"));
  KVCache cache = model.new_cache();
  model.forward_cached(std::vector<int>(20, 1), cache);
  CHECK_THROWS_WITH(model.forward_cached(std::vector<int>(5, 1), cache), Catch::Contains("n_ctx"));
  // broken parameters are caught when the model is made
  ModelConfig config = small_config(Architecture::decoder_only, Positional::learned);
  ModelParams params = ModelParams::init(config, 2);
  params.decoder.h[1].mlp.c_fc_bias(3) = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH(Transformer(config, params), Catch::Contains("h.1.mlp.c_fc.bias contains a non-finite value"));
  params = ModelParams::init(config, 2);
  params.wpe.resize(10, 16);
  CHECK_THROWS_WITH(Transformer(config, params), Catch::Contains("wpe.weight has the wrong shape"));
  config.d_model = 15;
  CHECK_THROWS_WITH(Transformer::random(config, 1), Catch::Contains("not divisible"));
  // and the model still works
  CHECK(model.forward({1, 2, 3}).allFinite());
}

TEST_CASE("a forward that fails changes nothing, and never hands out a non-finite logit", "[model][errors][kv_cache]") {
  const std::vector<int> prompt = {1, 5, 2};
  SECTION("a step that overflows partway through the stack leaves every layer's cache as it was") {
    // post-LN: a finite but huge embedding passes layer 0 (which caches its keys and values) and
    // overflows its output, which layer 1 refuses
    const ModelConfig config = ModelConfig::Builder(small_config(Architecture::decoder_only, Positional::learned))
                                   .pre_norm(false)
                                   .build();
    ModelParams params = ModelParams::init(config, 3);
    params.wte.row(7).setConstant(3e37f);
    const Transformer model(config, std::move(params));
    KVCache cache = model.new_cache();
    model.forward_cached(prompt, cache);
    const KVCache before = cache;
    CHECK_THROWS_WITH(model.forward_cached({7}, cache), Catch::StartsWith("attention: input contains a non-finite value"));
    REQUIRE(cache.layers.size() == 2);
    for (size_t layer = 0; layer < 2; ++layer) {
      INFO("layer " << layer);
      CHECK(cache.layers[layer].rows() == before.layers[layer].rows());
    }
    // and decoding goes on as if the failed step had not been asked for
    KVCache untouched = model.new_cache();
    model.forward_cached(prompt, untouched);
    CHECK(model.forward_cached({4}, cache) == model.forward_cached({4}, untouched));
  }
  SECTION("a step that fails at any allocation leaves every layer's cache as it was") {
    for (const Positional positional : {Positional::learned, Positional::rope}) {
      INFO(to_string(positional));
      const ModelConfig config = small_config(Architecture::decoder_only, positional);
      const Transformer model(config, ModelParams::init(config, 3));
      KVCache cache = model.new_cache(), reference = model.new_cache();
      model.forward_cached(prompt, cache);
      model.forward_cached(prompt, reference);
      // each step appends a row (the cache's room doubles at some of them)
      for (const int token : {4, 6, 1, 3}) {
        std::vector<Matrix> before;
        for (const KVCacheLayer& layer : cache.layers) before.emplace_back(layer.rows());
        Matrix logits;
        fail_each_allocation([&] { logits = model.forward_cached({token}, cache); }, [&] {
          REQUIRE(cache.layers.size() == before.size());
          for (size_t layer = 0; layer < before.size(); ++layer) CHECK(Matrix(cache.layers[layer].rows()) == before[layer]);
        });
        CHECK(logits == model.forward_cached({token}, reference));
      }
    }
  }
  SECTION("finite weights whose logits overflow: every forward throws, natively as in JavaScript") {
    const ModelConfig config = ModelConfig::Builder(small_config(Architecture::decoder_only, Positional::learned))
                                   .tie_embeddings(false)
                                   .build();
    ModelParams params = ModelParams::init(config, 3);
    params.lm_head.setConstant(3e38f);
    const Transformer model(config, std::move(params));
    const std::string overflowed = "model: the logits are not finite: the activations overflowed";
    CHECK_THROWS_WITH(model.forward(prompt), Catch::StartsWith(overflowed));
    KVCache cache = model.new_cache();
    CHECK_THROWS_WITH(model.forward_cached(prompt, cache), Catch::StartsWith(overflowed));
    CHECK(cache.length() == 0);
  }
  SECTION("a weight made non-finite after the model was checked (blocks read only shapes): the forward still throws") {
    const ModelConfig config = small_config(Architecture::decoder_only, Positional::learned);
    Transformer model(config, ModelParams::init(config, 3));
    model.mutable_params().decoder.h[0].attn.c_attn_weight(0, 0) = std::numeric_limits<float>::quiet_NaN();
    // the NaN reaches the queries, which every attention call checks (n·d values, not d² weights)
    CHECK_THROWS_WITH(model.forward(prompt), Catch::Contains("attention: Q contains a non-finite value"));
    KVCache cache = model.new_cache();
    CHECK_THROWS_WITH(model.forward_cached(prompt, cache), Catch::Contains("non-finite"));
  }
  SECTION("a config whose parameters exceed the limit is refused before anything is allocated") {
    // about 6.5 GB of float parameters from a few numbers
    const ModelConfig huge = ModelConfig::Builder(Architecture::decoder_only, 1000, 64).width(4096, 32).ffn(16384).layers(8).build();
    CHECK(parameter_bytes(huge) > kDefaultMaxParameterBytes);
    const std::string refused = "model config: the parameters need " + std::to_string(parameter_bytes(huge)) + " bytes";
    CHECK_THROWS_WITH(Transformer::random(huge, 1), Catch::StartsWith(refused));
    CHECK_THROWS_WITH(ModelParams::init(huge, 1), Catch::StartsWith(refused));
    // a caller may lower the limit
    const ModelConfig small = small_config(Architecture::decoder_only, Positional::learned);
    CHECK_THROWS_WITH(Transformer::random(small, 1, parameter_bytes(small) - 1), Catch::StartsWith("model config: the parameters need"));
    CHECK_NOTHROW(Transformer::random(small, 1, parameter_bytes(small)));
  }
}
