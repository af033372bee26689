#include <catch2/catch.hpp>
#include <cmath>
#include <map>

#include "core/check.hpp"
#include "model/generate.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;
using Catch::Matchers::WithinAbs;

TEST_CASE("next-token probabilities", "[generate]") {
  RowVector logits(5);
  logits << 1.0f, 3.0f, -1.0f, 2.0f, 0.5f;
  SECTION("temperature divides the logits before the softmax") {
    SamplingOptions o;
    o.temperature = 2.0f;
    const RowVector p = next_token_probabilities(logits, o);
    double total = 0;
    for (Index i = 0; i < 5; ++i) total += std::exp(logits(i) / 2.0);
    CHECK_THAT(p(1), WithinAbs(std::exp(1.5) / total, 1e-6));
    CHECK_THAT(p.sum(), WithinAbs(1.0, 1e-6));
  }
  SECTION("T = 0 is greedy: all mass on the argmax") {
    SamplingOptions o;
    o.temperature = 0.0f;
    CHECK_THAT(Matrix(next_token_probabilities(logits, o)), IsNear(rows({{0, 1, 0, 0, 0}}), 0));
  }
  SECTION("top-k keeps the k most likely tokens, renormalised") {
    SamplingOptions o;
    o.top_k = 2;
    const RowVector p = next_token_probabilities(logits, o);
    CHECK(p(0) == 0.0f);
    CHECK(p(2) == 0.0f);
    CHECK_THAT(p(1), WithinAbs(std::exp(3.0) / (std::exp(3.0) + std::exp(2.0)), 1e-6));
  }
  SECTION("extreme temperatures give finite probabilities: tiny is greedy, huge is uniform") {
    SamplingOptions o;
    for (const float t : {1e-40f, std::numeric_limits<float>::denorm_min(), 1e-30f}) {
      o.temperature = t;
      CHECK_THAT(Matrix(next_token_probabilities(logits, o)), IsNear(rows({{0, 1, 0, 0, 0}}), 0));
    }
    o.temperature = std::numeric_limits<float>::max();
    CHECK_THAT(Matrix(next_token_probabilities(logits, o)), IsNear(rows({{0.2f, 0.2f, 0.2f, 0.2f, 0.2f}}), 1e-6));
    RowVector extreme(3);
    extreme << -3e38f, 3e38f, 0.0f;
    o.temperature = 1e-30f;
    CHECK_THAT(Matrix(next_token_probabilities(extreme, o)), IsNear(rows({{0, 1, 0}}), 0));
  }
  SECTION("bad options are refused") {
    SamplingOptions o;
    o.temperature = -1.0f;
    CHECK_THROWS_WITH(next_token_probabilities(logits, o), Catch::Contains("temperature"));
    o.temperature = std::numeric_limits<float>::infinity();
    CHECK_THROWS_WITH(next_token_probabilities(logits, o), Catch::Contains("temperature"));
    o.temperature = 1.0f;
    o.top_k = 0;
    CHECK_THROWS_WITH(next_token_probabilities(logits, o), Catch::Contains("top_k"));
    o.top_k = 6;
    CHECK_THROWS_WITH(next_token_probabilities(logits, o), Catch::Contains("top_k"));
  }
}

TEST_CASE("sampling follows the distribution and is reproducible", "[generate]") {
  RowVector logits(3);
  logits << 0.0f, std::log(3.0f), -100.0f;  // p ≈ (0.25, 0.75, 0)
  SamplingOptions o;
  Rng rng(11);
  std::map<int, int> counts;
  for (int i = 0; i < 20000; ++i) counts[sample_token(logits, o, rng)]++;
  CHECK_THAT(counts[1] / 20000.0, WithinAbs(0.75, 0.015));
  CHECK(counts[2] == 0);
}

TEST_CASE("generation with the KV cache", "[generate][kv_cache]") {
  ModelConfig c;
  c.vocab_size = 9;
  c.n_ctx = 16;
  c.d_model = 8;
  c.n_heads = 2;
  c.d_ff = 16;
  c.n_layers = 2;
  const Transformer model = Transformer::random(c, 5);
  SamplingOptions greedy;
  greedy.temperature = 0.0f;
  SECTION("greedy decoding picks the argmax of a full recompute at every step") {
    const std::vector<int> out = generate(model, {1, 2}, 6, greedy);
    REQUIRE(out.size() == 8);
    for (size_t i = 2; i < out.size(); ++i) {
      const Matrix logits = model.forward({out.begin(), out.begin() + static_cast<long>(i)});
      Index best = 0;
      logits.row(logits.rows() - 1).maxCoeff(&best);
      CHECK(out[i] == best);
    }
  }
  SECTION("the same seed gives the same text; it stops at the stop token and at n_ctx") {
    SamplingOptions o;
    o.seed = 3;
    o.temperature = 1.5f;
    CHECK(generate(model, {1}, 10, o) == generate(model, {1}, 10, o));
    const std::vector<int> out = generate(model, {1}, 10, greedy, generate(model, {1}, 1, greedy)[1]);
    CHECK(out.size() == 2);
    CHECK(generate(model, {1, 2, 3}, 100, o).size() == 16);
  }
}
