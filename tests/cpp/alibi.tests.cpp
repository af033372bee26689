#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "core/alibi.hpp"
#include "core/check.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

TEST_CASE("ALiBi slopes and biases", "[positional][alibi]") {
  SECTION("8 heads: 2^-1 … 2^-8") {
    const std::vector<float> slopes = alibi_slopes(8);
    REQUIRE(slopes.size() == 8);
    for (int j = 0; j < 8; ++j) CHECK(slopes[j] == std::ldexp(1.0f, -(j + 1)));
  }
  SECTION("4 heads: 2^-2, 2^-4, 2^-6, 2^-8") {
    CHECK(alibi_slopes(4) == std::vector<float>{0.25f, 0.0625f, 0.015625f, 0.00390625f});
  }
  SECTION("6 heads: the 4-head slopes, then every other 8-head slope") {
    CHECK(alibi_slopes(6) == std::vector<float>{0.25f, 0.0625f, 0.015625f, 0.00390625f, 0.5f, 0.125f});
  }
  SECTION("bias is −m·|i − j|, with queries at the last positions when n < m") {
    CHECK_THAT(alibi_bias(0.5f, 3, 3), IsNear(rows({{0, -0.5f, -1}, {-0.5f, 0, -0.5f}, {-1, -0.5f, 0}}), 0));
    CHECK_THAT(alibi_bias(0.25f, 1, 4), IsNear(rows({{-0.75f, -0.5f, -0.25f, 0}}), 0));
  }
  SECTION("bad arguments are refused") {
    CHECK_THROWS_AS(alibi_slopes(0), Error);
    CHECK_THROWS_AS(alibi_bias(std::nanf(""), 2, 2), Error);
    CHECK_THROWS_AS(alibi_bias(0.5f, 0, 2), Error);
  }
}
