#include <catch2/catch.hpp>

#include "core/check.hpp"
#include "core/layer_norm.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;
using Catch::Matchers::WithinAbs;

TEST_CASE("layer norm", "[norm][layer_norm]") {
  const FixtureCase f = load_fixture_cases("layers.json").at(0);
  SECTION("matches torch.nn.LayerNorm") {
    CHECK_THAT(layer_norm_forward(f.tensor("x"), f.tensor("layer_norm.weight"), f.tensor("layer_norm.bias")),
               IsNear(f.tensor("layer_norm"), 1e-5));
  }
  SECTION("with γ = 1 and β = 0 every row has mean 0 and variance 1") {
    const Matrix x = f.tensor("x");
    const Matrix y = layer_norm_forward(x, RowVector::Ones(9), RowVector::Zero(9), 1e-12f);
    for (Index i = 0; i < y.rows(); ++i) {
      CHECK_THAT(y.row(i).mean(), WithinAbs(0.0, 1e-6));
      CHECK_THAT(y.row(i).squaredNorm() / 9.0, WithinAbs(1.0, 1e-5));
    }
  }
  SECTION("a constant row stays finite thanks to ε") {
    const Matrix y = layer_norm_forward(Matrix::Constant(2, 4, 3.0f), RowVector::Ones(4), RowVector::Zero(4));
    CHECK(y.isZero(0));
  }
  SECTION("wrong parameter sizes are refused") {
    CHECK_THROWS_AS(layer_norm_forward(Matrix::Ones(2, 4), RowVector::Ones(3), RowVector::Zero(4)), Error);
    CHECK_THROWS_AS(layer_norm_forward(Matrix::Ones(2, 4), RowVector::Ones(4), RowVector::Zero(4), 0.0f), Error);
  }
}
