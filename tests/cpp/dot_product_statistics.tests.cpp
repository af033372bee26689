#include <catch2/catch.hpp>
#include <cmath>

#include "core/check.hpp"
#include "core/dot_product_statistics.hpp"

using namespace attnlab;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

TEST_CASE("dot-product statistics", "[dot_product_statistics]") {
  SECTION("Var[q·k] = d_k and Var[q·k/√d_k] = 1 within sampling error") {
    // with 40,000 pairs the sample variance's relative standard error is √(2/N)·… ≈ 1 %
    for (Index d_k : {4, 64, 256}) {
      const DotProductStatistics s = dot_product_statistics(d_k, 40000, 8, 11);
      INFO("d_k = " << d_k);
      CHECK_THAT(s.variance, WithinRel(static_cast<double>(d_k), 0.04));
      CHECK_THAT(s.scaled_variance, WithinRel(1.0, 0.04));
      CHECK_THAT(s.scaled_variance, WithinRel(s.variance / static_cast<double>(d_k), 1e-6));
      CHECK_THAT(s.mean, WithinAbs(0.0, 4 * std::sqrt(d_k / 40000.0)));
    }
  }
  SECTION("one query's raw scores spread like √d_k") {
    const DotProductStatistics s = dot_product_statistics(512, 1, 2000, 3);
    REQUIRE(s.scores.size() == 2000);
    const double mean = s.scores.cast<double>().mean();
    const double variance = (s.scores.cast<double>().array() - mean).square().mean();
    // the keys share one query, so their scores are N(0, ‖q‖²) with ‖q‖² ≈ 512 ± 32
    CHECK_THAT(variance, WithinRel(512.0, 0.2));
  }
  SECTION("is deterministic for a seed and changes with it") {
    const DotProductStatistics a = dot_product_statistics(16, 100, 8, 5), b = dot_product_statistics(16, 100, 8, 5);
    const DotProductStatistics c = dot_product_statistics(16, 100, 8, 6);
    CHECK(a.variance == b.variance);
    CHECK(a.scores == b.scores);
    CHECK(a.variance != c.variance);
  }
  SECTION("one sample has no spread") {
    CHECK(dot_product_statistics(8, 1, 1, 0).variance == 0.0);
  }
  SECTION("refuses empty sizes") {
    CHECK_THROWS_AS(dot_product_statistics(0, 10, 8, 0), Error);
    CHECK_THROWS_AS(dot_product_statistics(8, 0, 8, 0), Error);
    CHECK_THROWS_AS(dot_product_statistics(8, 10, 0, 0), Error);
  }
}
