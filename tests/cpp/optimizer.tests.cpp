#include <catch2/catch.hpp>

#include "core/check.hpp"
#include "core/thread_pool.hpp"
#include "support.hpp"
#include "train/optimizer.hpp"
#include "train/schedule.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {

// the smallest model whose tensors include a matrix (wte, 3×4) and a vector (ln_f.weight, 4)
ModelConfig two_tensor_config() {
  return ModelConfig::Builder(Architecture::decoder_only, 3, 2)
      .width(4, 1)
      .ffn(4)
      .positional(Positional::none)
      .norm(Norm::rms_norm)
      .build();
}

}  // namespace

TEST_CASE("AdamW matches torch.optim.AdamW", "[optimizer][oracle]") {
  const FixtureCase f = load_fixture_cases("training.json").back();
  REQUIRE(f.kind == "adamw");
  const ModelConfig config = two_tensor_config();
  ModelParams params = ModelParams::zeros(config);
  params.wte = f.tensor("w");
  params.decoder.ln_f.weight = f.tensor("b");
  AdamWOptions options;
  options.beta1 = f.get<float>("beta1");
  options.beta2 = f.get<float>("beta2");
  options.epsilon = f.get<float>("epsilon");
  options.weight_decay = f.get<float>("weight_decay");
  AdamW adamw(config, options);
  const std::vector<float> rates = f.get<std::vector<float>>("learning_rates");
  for (size_t step = 0; step < rates.size(); ++step) {
    ModelParams grads = ModelParams::zeros(config);
    grads.wte = f.tensor("grad" + std::to_string(step) + ".w");
    grads.decoder.ln_f.weight = f.tensor("grad" + std::to_string(step) + ".b");
    adamw.step(params, grads, rates[step]);
    INFO("step " << step);
    CHECK_THAT(params.wte, IsNear(f.tensor("step" + std::to_string(step) + ".w"), 1e-6));
    CHECK_THAT(Matrix(params.decoder.ln_f.weight), IsNear(f.tensor("step" + std::to_string(step) + ".b"), 1e-6));
  }
  CHECK(adamw.steps() == 3);
}

TEST_CASE("AdamW refuses bad settings", "[optimizer]") {
  AdamWOptions bad;
  bad.beta2 = 1.0f;
  CHECK_THROWS_WITH(AdamW(two_tensor_config(), bad), Catch::Contains("β₂"));
  AdamW adamw(two_tensor_config(), AdamWOptions{});
  ModelParams params = ModelParams::zeros(two_tensor_config());
  CHECK_THROWS_WITH(adamw.step(params, params, std::nanf("")), Catch::Contains("learning rate"));
}

TEST_CASE("gradient clipping", "[optimizer]") {
  const ModelConfig config = two_tensor_config();
  ModelParams grads = ModelParams::zeros(config);
  grads.wte(0, 0) = 3.0f;
  grads.decoder.ln_f.weight(1) = 4.0f;  // ‖g‖ = 5 across tensors

  SECTION("a norm above the limit is scaled down to it, direction kept") {
    CHECK_THAT(clip_gradient_norm(config, grads, 1.0f), Catch::Matchers::WithinRel(5.0f, 1e-6f));
    CHECK_THAT(grads.wte(0, 0), Catch::Matchers::WithinRel(0.6f, 1e-6f));
    CHECK_THAT(grads.decoder.ln_f.weight(1), Catch::Matchers::WithinRel(0.8f, 1e-6f));
  }
  SECTION("a norm within the limit is left alone") {
    CHECK_THAT(clip_gradient_norm(config, grads, 10.0f), Catch::Matchers::WithinRel(5.0f, 1e-6f));
    CHECK(grads.wte(0, 0) == 3.0f);
  }
  SECTION("the limit must be positive") { CHECK_THROWS_AS(clip_gradient_norm(config, grads, 0.0f), Error); }
}

TEST_CASE("a batch's gradient is the sum of its parts'", "[optimizer][threads]") {
  const ModelConfig config = two_tensor_config();
  // float addition is not associative: (1e8 + 1) − 1e8 = 0 in float32, while 1e8 − 1e8 + 1 = 1, so the
  // result shows that the parts were added in their order
  std::vector<ModelParams> parts(3, ModelParams::zeros(config));
  const float values[3] = {1e8f, 1.0f, -1e8f};
  for (size_t p = 0; p < parts.size(); ++p)
    for (const TensorSpan& span : tensor_spans(config, parts[p]))
      for (Index j = 0; j < span.size; ++j) span.data[j] = values[p] * static_cast<float>(j + 1);
  const Index threads = num_threads();
  for (Index t : {Index(1), max_threads()}) {
    set_num_threads(t);
    ModelParams sum = ModelParams::zeros(config);
    for (const ModelParams& part : parts) add_gradient(config, sum, part);
    for (const TensorSpan& span : tensor_spans(config, sum))
      for (Index j = 0; j < span.size; ++j) {
        const float expected = ((0.0f + values[0] * static_cast<float>(j + 1)) + values[1] * static_cast<float>(j + 1)) +
                               values[2] * static_cast<float>(j + 1);
        CHECK(span.data[j] == expected);
      }
  }
  set_num_threads(threads);
}
