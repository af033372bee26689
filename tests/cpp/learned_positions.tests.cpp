#include <catch2/catch.hpp>
#include <cmath>

#include "core/check.hpp"
#include "core/learned_positions.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;
using Catch::Matchers::WithinAbs;

TEST_CASE("learned position table", "[positional][learned]") {
  const Matrix wpe = learned_positions_init(64, 32, 7);
  SECTION("initialisation is seeded and N(0, 0.02²)") {
    CHECK_THAT(learned_positions_init(64, 32, 7), IsNear(wpe, 0));
    CHECK_FALSE(learned_positions_init(64, 32, 8).isApprox(wpe));
    const double mean = wpe.cast<double>().mean();
    const double var = (wpe.cast<double>().array() - mean).square().mean();
    CHECK_THAT(mean, WithinAbs(0.0, 0.002));
    CHECK_THAT(std::sqrt(var), WithinAbs(0.02, 0.002));
  }
  SECTION("lookup returns rows pos0 … pos0+n−1") {
    CHECK_THAT(learned_positions_lookup(wpe, 3, 10), IsNear(Matrix(wpe.middleRows(10, 3)), 0));
  }
  SECTION("positions past n_ctx are an error") {
    CHECK_THROWS_WITH(learned_positions_lookup(wpe, 5, 62), Catch::Contains("n_ctx"));
    CHECK_THROWS_AS(learned_positions_lookup(wpe, 0, 0), Error);
  }
}
