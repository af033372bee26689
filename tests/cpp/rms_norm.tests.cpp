#include <catch2/catch.hpp>

#include "core/check.hpp"
#include "core/rms_norm.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;
using Catch::Matchers::WithinAbs;

TEST_CASE("RMS norm", "[norm][rms_norm]") {
  const FixtureCase f = load_fixture_cases("layers.json").at(0);
  SECTION("the Jacobian of one row matches central differences, and J·x ≈ 0") {
    const RowVector x = (RowVector(6) << 2.0f, -1.0f, 0.5f, 3.0f, -2.0f, 1.0f).finished();
    const RowVector gamma = (RowVector(6) << 1.0f, 0.5f, 2.0f, 1.0f, -1.0f, 1.5f).finished();
    const Matrix j = rms_norm_jacobian(x, gamma);
    const float h = 1e-3f;
    for (Index c = 0; c < 6; ++c) {
      Matrix xp = x, xm = x;
      xp(0, c) += h;
      xm(0, c) -= h;
      const Matrix column = (rms_norm_forward(xp, gamma) - rms_norm_forward(xm, gamma)) / (2 * h);
      CHECK_THAT(Matrix(j.col(c).transpose()), IsNear(column, 2e-3));
    }
    // scaling x leaves y unchanged (but for ε): the Jacobian sends x itself to about 0
    CHECK_THAT(Matrix(j * x.transpose()), IsNear(Matrix(Matrix::Zero(6, 1)), 1e-4));
  }
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
