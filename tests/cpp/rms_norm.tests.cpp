#include <catch2/catch.hpp>

#include "core/check.hpp"
#include "core/rms_norm.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;
using Catch::Matchers::WithinAbs;

TEST_CASE("RMS norm", "[norm][rms_norm]") {
  const FixtureCase f = load_fixture_cases("layers.json").at(0);
  SECTION("matches the formula computed in torch") {
    CHECK_THAT(rms_norm_forward(f.tensor("x"), f.tensor("rms_norm.weight")), IsNear(f.tensor("rms_norm"), 1e-5));
  }
  SECTION("with γ = 1 every row has root mean square 1 and keeps its direction") {
    const Matrix x = f.tensor("x");
    const Matrix y = rms_norm_forward(x, RowVector::Ones(9), 1e-12f);
    for (Index i = 0; i < y.rows(); ++i) {
      CHECK_THAT(y.row(i).squaredNorm() / 9.0, WithinAbs(1.0, 1e-5));
      CHECK_THAT(y.row(i).dot(x.row(i)) / x.row(i).norm() / y.row(i).norm(), WithinAbs(1.0, 1e-6));
    }
  }
  SECTION("a γ of the wrong size is refused") {
    CHECK_THROWS_AS(rms_norm_forward(Matrix::Ones(2, 4), RowVector::Ones(5)), Error);
  }
}
