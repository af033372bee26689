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
    o.top_k.reset();
    for (const float p : {0.0f, -0.5f, 1.0001f, std::numeric_limits<float>::quiet_NaN(),
                          std::numeric_limits<float>::infinity()}) {
      o.top_p = p;
      CHECK_THROWS_WITH(next_token_probabilities(logits, o), Catch::Contains("top_p must lie in (0, 1]"));
    }
  }
}

TEST_CASE("top-p keeps the nucleus", "[generate]") {
  SECTION("p = 1 changes nothing, alone or after temperature and top-k") {
    RowVector logits(5);
    logits << 1.0f, 3.0f, -1.0f, 2.0f, 0.5f;
    for (const float t : {0.5f, 1.0f, 3.0f})
      for (const std::optional<Index> k : {std::optional<Index>(), std::optional<Index>(3)}) {
        SamplingOptions o;
        o.temperature = t;
        o.top_k = k;
        const RowVector all = next_token_probabilities(logits, o);
        o.top_p = 1.0f;
        CHECK(next_token_probabilities(logits, o) == all);
      }
  }
  SECTION("by hand: p = (0.1, 0.5, 0.2, 0.2); 0.6 keeps 0.5 and the tie's lower id, renormalised") {
    RowVector logits(4);
    logits << std::log(0.1f), std::log(0.5f), std::log(0.2f), std::log(0.2f);
    SamplingOptions o;
    o.top_p = 0.6f;
    CHECK_THAT(Matrix(next_token_probabilities(logits, o)), IsNear(rows({{0, 0.5f / 0.7f, 0.2f / 0.7f, 0}}), 1e-6));
    o.top_p = 0.4f;  // the most likely token alone reaches it
    CHECK_THAT(Matrix(next_token_probabilities(logits, o)), IsNear(rows({{0, 1, 0, 0}}), 0));
    o.top_p = 0.95f;  // needs all four
    CHECK_THAT(Matrix(next_token_probabilities(logits, o)), IsNear(rows({{0.1f, 0.5f, 0.2f, 0.2f}}), 1e-6));
  }
  SECTION("the kept tokens are the most likely, hold at least p, and would fall below p without the least of them") {
    Rng rng(21);
    for (int trial = 0; trial < 200; ++trial) {
      RowVector logits(12);
      for (Index i = 0; i < logits.size(); ++i) logits(i) = 3.0f * rng.normal();
      SamplingOptions o;
      o.temperature = 0.5f + 2.0f * rng.uniform();
      if (trial % 2) o.top_k = 1 + static_cast<Index>(rng.below(12));
      const RowVector full = next_token_probabilities(logits, o);
      const float p = 0.05f + 0.9f * rng.uniform();
      o.top_p = p;
      const RowVector nucleus = next_token_probabilities(logits, o);
      double kept = 0, least_kept = 1, most_dropped = 0;
      for (Index i = 0; i < logits.size(); ++i) {
        if (nucleus(i) > 0) {
          kept += full(i);
          least_kept = std::min<double>(least_kept, full(i));
        } else {
          most_dropped = std::max<double>(most_dropped, full(i));
        }
      }
      INFO("trial " << trial << ", p = " << p);
      CHECK(kept >= p - 1e-6);
      CHECK(kept - least_kept < p + 1e-6);
      CHECK(least_kept >= most_dropped);
      for (Index i = 0; i < logits.size(); ++i)
        if (nucleus(i) > 0) CHECK_THAT(nucleus(i), WithinAbs(full(i) / kept, 1e-6));
    }
  }
  SECTION("sampling draws only from the nucleus") {
    RowVector logits(4);
    logits << std::log(0.1f), std::log(0.5f), std::log(0.2f), std::log(0.2f);
    SamplingOptions o;
    o.top_p = 0.6f;
    Rng rng(5);
    std::map<int, int> counts;
    for (int i = 0; i < 5000; ++i) counts[sample_token(logits, o, rng)]++;
    CHECK(counts[0] + counts[3] == 0);
    CHECK_THAT(counts[1] / 5000.0, WithinAbs(5.0 / 7.0, 0.03));
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
  const ModelConfig c = ModelConfig::Builder(Architecture::decoder_only, 9, 16).width(8, 2).ffn(16).layers(2).build();
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

TEST_CASE("generation for an encoder-decoder", "[generate]") {
  const ModelConfig c = ModelConfig::Builder(Architecture::encoder_decoder, 9, 8).width(8, 2).ffn(16).layers(2).build();
  const Transformer model = Transformer::random(c, 6);
  const std::vector<int> source = {4, 7, 5, 6};
  SamplingOptions greedy;
  greedy.temperature = 0.0f;
  SECTION("greedy decoding equals an explicit loop of argmaxes over forward(source, target)") {
    const std::vector<int> out = generate(model, source, {2}, 5, greedy);
    REQUIRE(out.size() == 6);
    std::vector<int> target = {2};
    while (target.size() < out.size()) {
      const Matrix logits = model.forward(source, target);
      Index best = 0;
      logits.row(logits.rows() - 1).maxCoeff(&best);
      target.push_back(static_cast<int>(best));
    }
    CHECK(out == target);
  }
  SECTION("the same seed gives the same output; it stops at the stop token and at n_ctx") {
    SamplingOptions o;
    o.seed = 9;
    o.temperature = 1.5f;
    o.top_p = 0.9f;
    CHECK(generate(model, source, {2}, 6, o) == generate(model, source, {2}, 6, o));
    const int first = generate(model, source, {2}, 1, greedy)[1];
    CHECK(generate(model, source, {2}, 6, greedy, first).size() == 2);
    CHECK(generate(model, source, {2, 3}, 100, o).size() == 8);
    CHECK(generate(model, source, {2}, 0, o) == std::vector<int>{2});
  }
  SECTION("bad calls are refused") {
    CHECK_THROWS_WITH(generate(model, source, {}, 3, greedy), Catch::Contains("prompt is empty"));
    CHECK_THROWS_WITH(generate(model, source, std::vector<int>(9, 2), 3, greedy), Catch::Contains("more than the context"));
    CHECK_THROWS_WITH(generate(model, {}, {2}, 3, greedy), Catch::Contains("empty"));
    CHECK_THROWS_WITH(generate(model, {2}, 3, greedy), Catch::Contains("decoder-only"));
    ModelConfig decoder = c;
    decoder.architecture = Architecture::decoder_only;
    CHECK_THROWS_WITH(generate(Transformer::random(decoder, 1), source, {2}, 3, greedy),
                      Catch::Contains("for encoder-decoder models"));
  }
}
