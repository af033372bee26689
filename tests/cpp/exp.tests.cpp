#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "core/exp.hpp"

using namespace attnlab;
using Catch::Matchers::WithinRel;

TEST_CASE("exp_inplace matches std::exp", "[exp][simd]") {
  SECTION("relative error stays below 3e-7 across the float range") {
    std::vector<float> x;
    for (float v = -86.9f; v <= 87.9f; v += 0.0137f) x.push_back(v);
    std::vector<float> y = x;
    exp_inplace(y.data(), static_cast<Index>(y.size()));
    double worst = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const double expected = std::exp(static_cast<double>(x[i]));
      worst = std::max(worst, std::abs(y[i] - expected) / expected);
    }
    CHECK(worst < 3e-7);
  }
  SECTION("exact at 0 and at small integers") {
    std::vector<float> y = {0.0f, 1.0f, -1.0f, 2.0f};
    exp_inplace(y.data(), 4);
    CHECK(y[0] == 1.0f);
    CHECK_THAT(y[1], WithinRel(2.718281828f, 1e-7f));
    CHECK_THAT(y[2], WithinRel(0.367879441f, 1e-7f));
    CHECK_THAT(y[3], WithinRel(7.389056099f, 1e-7f));
  }
  SECTION("−∞ and very negative arguments give exactly 0; large ones stay finite") {
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> y = {-inf, -1e30f, -88.0f, 1e4f, inf};
    exp_inplace(y.data(), 5);
    CHECK(y[0] == 0.0f);
    CHECK(y[1] == 0.0f);
    CHECK(y[2] == 0.0f);
    CHECK(std::isfinite(y[3]));
    CHECK(std::isfinite(y[4]));
    CHECK(y[3] > 1e38f);
  }
  SECTION("NaN stays NaN and its neighbours are unaffected (no NaN→int conversion: UBSan-clean)") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> y = {1.0f, nan, 0.0f, -nan, 88.5f, 3.4e38f, -3.4e38f, 2.0f};
    exp_inplace(y.data(), static_cast<Index>(y.size()));
    CHECK_THAT(y[0], WithinRel(2.718281828f, 1e-7f));
    CHECK(std::isnan(y[1]));
    CHECK(y[2] == 1.0f);
    CHECK(std::isnan(y[3]));
    CHECK(y[4] == y[5]);  // saturated at exp(88)
    CHECK(std::isfinite(y[5]));
    CHECK(y[6] == 0.0f);
    CHECK_THAT(y[7], WithinRel(7.389056099f, 1e-7f));
  }
}
