#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "core/check.hpp"
#include "core/softmax_overflow.hpp"
#include "support.hpp"

using namespace attnlab;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

Float32Row row(std::initializer_list<float> values) {
  Float32Row r(static_cast<Index>(values.size()));
  Index j = 0;
  for (const float v : values) r(j++) = v;
  return r;
}

// softmax in double, max subtracted, written independently of the engine
std::vector<double> reference_softmax(const Float32Row& z) {
  const double max = z.cast<double>().maxCoeff();
  double total = 0;
  for (Index j = 0; j < z.size(); ++j) total += std::exp(z(j) - max);
  std::vector<double> a;
  for (Index j = 0; j < z.size(); ++j) a.push_back(std::exp(z(j) - max) / total);
  return a;
}

}  // namespace

TEST_CASE("the naive softmax overflows float32 where the max-subtracted one stays exact", "[softmax]") {
  const float inf = std::numeric_limits<float>::infinity();
  const double ln_float_max = std::log(static_cast<double>(std::numeric_limits<float>::max()));

  SECTION("below ln(FLT_MAX) the naive form is finite and equals the engine's") {
    for (const Float32Row& z : {row({88.0f, 80.0f, 1.0f, -5.0f}), row({0.5f, -1.25f, 3.0f, 0.0f}), row({-80.0f, -79.5f, -85.0f})}) {
      const SoftmaxTerms naive = naive_softmax(z), stable = max_subtracted_softmax(z);
      const std::vector<double> expected = reference_softmax(z);
      REQUIRE(naive.exps.allFinite());
      REQUIRE(std::isfinite(naive.sum));
      CHECK(naive.shift == 0.0f);
      for (Index j = 0; j < z.size(); ++j) {
        CHECK_THAT(naive.exps(j), WithinRel(std::exp(static_cast<double>(z(j))), 1e-6));
        CHECK_THAT(naive.weights(j), WithinAbs(expected[j], 1e-6));
        CHECK_THAT(naive.weights(j), WithinAbs(stable.weights(j), 1e-6));
      }
    }
  }
  SECTION("the last float below ln(FLT_MAX) is exp-able, the next one is +∞") {
    float below = static_cast<float>(ln_float_max);
    if (below > ln_float_max) below = std::nextafter(below, 0.0f);
    const float above = std::nextafter(below, inf);
    CHECK_THAT(below, WithinAbs(88.7228, 1e-4));
    const SoftmaxTerms last = naive_softmax(row({below, 0.0f}));
    CHECK(std::isfinite(last.exps(0)));
    CHECK_THAT(last.weights(0), WithinAbs(1.0, 1e-7));
    const SoftmaxTerms over = naive_softmax(row({above, 0.0f}));
    CHECK(over.exps(0) == inf);
    CHECK(std::isnan(over.weights(0)));
  }
  SECTION("beyond it: exp = ∞, the sum ∞, and ∞/∞ = NaN; the engine's form is finite") {
    const Float32Row z = row({90.0f, 85.5f, 1.0f});
    const SoftmaxTerms naive = naive_softmax(z), stable = max_subtracted_softmax(z);
    CHECK(naive.exps(0) == inf);
    CHECK(std::isfinite(naive.exps(1)));
    CHECK(naive.sum == inf);
    CHECK(std::isnan(naive.weights(0)));
    CHECK(naive.weights(1) == 0.0f);  // finite / ∞
    CHECK(naive.weights(2) == 0.0f);
    REQUIRE(stable.weights.allFinite());
    const std::vector<double> expected = reference_softmax(z);
    for (Index j = 0; j < z.size(); ++j) CHECK_THAT(stable.weights(j), WithinAbs(expected[j], 1e-7));
    CHECK(stable.shift == 90.0f);
    CHECK(stable.exps(0) == 1.0f);  // exp(max − max) = exp(0)
    CHECK(stable.sum >= 1.0f);
    CHECK(stable.sum <= 3.0f);
  }
  SECTION("the sum can overflow before any term: weights of 0 that sum to 0, and no NaN to warn") {
    const SoftmaxTerms naive = naive_softmax(row({88.5f, 88.5f}));
    CHECK(naive.exps.allFinite());
    CHECK(naive.sum == inf);
    CHECK(naive.weights(0) == 0.0f);
    CHECK(naive.weights(1) == 0.0f);
    CHECK_THAT(max_subtracted_softmax(row({88.5f, 88.5f})).weights(0), WithinAbs(0.5, 1e-7));
  }
  SECTION("far below 0 every term underflows: 0/0 = NaN") {
    const Float32Row z = row({-110.0f, -120.0f});
    const SoftmaxTerms naive = naive_softmax(z), stable = max_subtracted_softmax(z);
    CHECK(naive.sum == 0.0f);
    CHECK(std::isnan(naive.weights(0)));
    CHECK(std::isnan(naive.weights(1)));
    CHECK_THAT(stable.weights(0), WithinAbs(reference_softmax(z)[0], 1e-7));
  }
  SECTION("the max-subtracted form is exact: softmax([1000, 1000]) = [0.5, 0.5]") {
    const SoftmaxTerms stable = max_subtracted_softmax(row({1000.0f, 1000.0f}));
    CHECK(stable.shift == 1000.0f);
    CHECK(stable.exps(0) == 1.0f);
    CHECK(stable.exps(1) == 1.0f);
    CHECK(stable.sum == 2.0f);
    CHECK(stable.weights(0) == 0.5f);
    CHECK(stable.weights(1) == 0.5f);
    const SoftmaxTerms naive = naive_softmax(row({1000.0f, 1000.0f}));
    CHECK(std::isnan(naive.weights(0)));
    CHECK(std::isnan(naive.weights(1)));
  }
}

TEST_CASE("softmax forms scale the scores in float32 and refuse non-finite logits", "[softmax]") {
  RowVector scores(3);
  scores << 10.0f, 9.5f, 8.0f;
  const SoftmaxForms f = softmax_forms(scores, 9.0f);
  CHECK(f.logits(0) == 90.0f);
  CHECK(f.logits(1) == 85.5f);
  CHECK(std::isnan(f.naive.weights(0)));
  CHECK(f.max_subtracted.weights.allFinite());
  CHECK_THAT(f.max_subtracted.weights.sum(), WithinAbs(1.0, 1e-6));
  // at scale 8 the largest logit is 80: both forms agree
  const SoftmaxForms g = softmax_forms(scores, 8.0f);
  for (Index j = 0; j < 3; ++j) CHECK_THAT(g.naive.weights(j), WithinAbs(g.max_subtracted.weights(j), 1e-6));

  CHECK_THROWS_WITH(softmax_forms(RowVector(), 1.0f), Catch::Contains("scores is empty"));
  CHECK_THROWS_WITH(softmax_forms(scores, std::numeric_limits<Scalar>::infinity()), Catch::Contains("scale must be finite"));
  CHECK_THROWS_WITH(softmax_forms(scores, 1e38f), Catch::Contains("overflows float32"));
  scores(1) = std::numeric_limits<Scalar>::quiet_NaN();
  CHECK_THROWS_WITH(softmax_forms(scores, 1.0f), Catch::Contains("non-finite value at (0,1)"));
}

TEST_CASE("exp overflows above ln of a format's largest finite number", "[softmax]") {
  CHECK(exp_overflow_threshold(23, 127) == std::log(static_cast<double>(std::numeric_limits<float>::max())));
  CHECK(exp_overflow_threshold(52, 1023) == std::log(std::numeric_limits<double>::max()));
  CHECK(exp_overflow_threshold(10, 15) == std::log(65504.0));  // float16's largest, 0x7bff
  CHECK_THAT(exp_overflow_threshold(23, 127), WithinAbs(88.7228, 1e-4));
  CHECK_THAT(exp_overflow_threshold(10, 15), WithinAbs(11.0898, 1e-4));
  CHECK_THROWS_AS(exp_overflow_threshold(0, 127), Error);
}
