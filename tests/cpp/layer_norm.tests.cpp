#include <catch2/catch.hpp>

#include "core/check.hpp"
#include "core/layer_norm.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;
using Catch::Matchers::WithinAbs;

TEST_CASE("layer norm", "[norm][layer_norm]") {
  const FixtureCase f = load_fixture_cases("layers.json").at(0);
  SECTION("the Jacobian of one row matches central differences, and J·1 = 0") {
    const RowVector x = (RowVector(6) << 2.0f, -1.0f, 0.5f, 3.0f, -2.0f, 1.0f).finished();
    const RowVector gamma = (RowVector(6) << 1.0f, 0.5f, 2.0f, 1.0f, -1.0f, 1.5f).finished();
    const RowVector beta = RowVector::Constant(6, 0.3f);
    const Matrix j = layer_norm_jacobian(x, gamma);
    const float h = 1e-3f;
    for (Index c = 0; c < 6; ++c) {
      Matrix xp = x, xm = x;
      xp(0, c) += h;
      xm(0, c) -= h;
      const Matrix column = (layer_norm_forward(xp, gamma, beta) - layer_norm_forward(xm, gamma, beta)) / (2 * h);
      CHECK_THAT(Matrix(j.col(c).transpose()), IsNear(column, 2e-3));
    }
    CHECK_THAT(Matrix(j * RowVector::Ones(6).transpose()), IsNear(Matrix(Matrix::Zero(6, 1)), 1e-5));
  }
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
