#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "core/check.hpp"
#include "core/softmax.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;
using Catch::Matchers::WithinAbs;

namespace {

// softmax of one row in double, written independently of the engine
MatrixD reference_softmax(const Matrix& x) {
  MatrixD y(x.rows(), x.cols());
  for (Index i = 0; i < x.rows(); ++i) {
    double max = -std::numeric_limits<double>::infinity(), total = 0;
    for (Index j = 0; j < x.cols(); ++j) max = std::max(max, static_cast<double>(x(i, j)));
    for (Index j = 0; j < x.cols(); ++j) total += std::exp(x(i, j) - max);
    for (Index j = 0; j < x.cols(); ++j) y(i, j) = std::exp(x(i, j) - max) / total;
  }
  return y;
}

Matrix softmax(const Matrix& x) {
  Matrix y(x.rows(), x.cols());
  softmax_rows_forward(x, y);
  return y;
}

}  // namespace

TEST_CASE("softmax forward", "[softmax]") {
  const Matrix x = rows({{0.5f, -1.25f, 3.0f, 0.0f}, {2.0f, 2.0f, 2.0f, 2.0f}, {-7.0f, 4.5f, 1.0f, 0.25f}});
  const float inf = std::numeric_limits<float>::infinity();

  SECTION("agrees with a double-precision reference and rows sum to 1") {
    const Matrix y = softmax(x);
    CHECK_THAT(y, IsNear(reference_softmax(x), 1e-7));
    for (Index i = 0; i < y.rows(); ++i) CHECK_THAT(y.row(i).sum(), WithinAbs(1.0, 1e-6));
    CHECK_THAT(y(1, 0), WithinAbs(0.25, 1e-7));
  }
  SECTION("is invariant to adding a constant to a row") {
    Matrix shifted = x;
    shifted.row(0).array() += 100.0f;
    shifted.row(2).array() -= 37.5f;
    CHECK_THAT(softmax(shifted), IsNear(softmax(x), 1e-6));
  }
  SECTION("logits of 1e4 give no NaN or Inf") {
    const Matrix big = rows({{1e4f, 0.0f, -1e4f}, {1e4f, 1e4f, 9999.0f}});
    const Matrix y = softmax(big);
    CHECK(y.allFinite());
    CHECK_THAT(y, IsNear(rows({{1, 0, 0}, {0.4223188f, 0.4223188f, 0.1553624f}}), 1e-6));
  }
  SECTION("−∞ entries get weight 0 and a fully masked row becomes zeros") {
    const Matrix masked = rows({{1.0f, -inf, 1.0f}, {-inf, -inf, -inf}});
    const Matrix y = softmax(masked);
    CHECK_THAT(y, IsNear(rows({{0.5f, 0.0f, 0.5f}, {0, 0, 0}}), 1e-7));
  }
  SECTION("may run in place") {
    Matrix y = x;
    softmax_rows_forward(y, y);
    CHECK_THAT(y, IsNear(reference_softmax(x), 1e-7));
  }
  SECTION("rejects an output of another shape") {
    Matrix wrong(2, 4);
    CHECK_THROWS_AS(softmax_rows_forward(x, wrong), Error);
  }
}

TEST_CASE("softmax backward", "[softmax][grad]") {
  const Matrix x = rows({{0.3f, -0.8f, 1.1f, 0.05f, -0.4f}, {1.5f, 0.2f, -2.0f, 0.7f, 0.0f}});
  const Matrix dy = rows({{0.9f, -0.3f, 0.4f, -1.2f, 0.6f}, {-0.5f, 1.1f, 0.2f, 0.3f, -0.7f}});
  const Matrix y = softmax(x);
  Matrix dx(x.rows(), x.cols());
  softmax_rows_backward(y, dy, dx);

  SECTION("equals the explicit Jacobian Jᵀ·dy with J_jk = y_j(δ_jk − y_k)") {
    MatrixD expected = MatrixD::Zero(x.rows(), x.cols());
    const MatrixD yd = reference_softmax(x);
    for (Index r = 0; r < x.rows(); ++r)
      for (Index k = 0; k < x.cols(); ++k)
        for (Index j = 0; j < x.cols(); ++j)
          expected(r, k) += dy(r, j) * yd(r, j) * ((j == k ? 1.0 : 0.0) - yd(r, k));
    CHECK_THAT(dx, IsNear(expected, 1e-6));
  }
  SECTION("agrees with central finite differences of L = Σ dy ⊙ softmax(x)") {
    const float h = 1e-2f;
    MatrixD numeric(x.rows(), x.cols());
    for (Index r = 0; r < x.rows(); ++r)
      for (Index c = 0; c < x.cols(); ++c) {
        Matrix plus = x, minus = x;
        plus(r, c) += h;
        minus(r, c) -= h;
        const double lp = softmax(plus).cwiseProduct(dy).cast<double>().sum();
        const double lm = softmax(minus).cwiseProduct(dy).cast<double>().sum();
        numeric(r, c) = (lp - lm) / (2.0 * h);
      }
    CHECK_THAT(dx, IsNear(numeric, 2e-4));
  }
  SECTION("each row of the gradient sums to 0 (softmax ignores shifts)") {
    for (Index r = 0; r < dx.rows(); ++r) CHECK_THAT(dx.row(r).sum(), WithinAbs(0.0, 1e-6));
  }
}

TEST_CASE("softmax row analysis", "[softmax]") {
  const RowVector scores = rows({{2.0f, -1.0f, 0.5f, 0.5f, 3.0f}});
  const SoftmaxRowAnalysis a = softmax_row_analysis(scores, 0.5f, 2.0f);
  const MatrixD expected_weights = reference_softmax(Matrix(scores * 0.25f));

  SECTION("weights are softmax(scale·scores/temperature)") {
    CHECK_THAT(Matrix(a.weights), IsNear(expected_weights, 1e-7));
    CHECK_THAT(a.max_weight, WithinAbs(expected_weights.maxCoeff(), 1e-7));
  }
  SECTION("entropy is −Σ a ln a: 0 for a one-hot row, ln m for a uniform one") {
    double entropy = 0;
    for (Index j = 0; j < 5; ++j) entropy -= expected_weights(0, j) * std::log(expected_weights(0, j));
    CHECK_THAT(a.entropy, WithinAbs(entropy, 1e-6));
    CHECK_THAT(softmax_row_analysis(scores, 0.0f, 1.0f).entropy, WithinAbs(std::log(5.0), 1e-6));
    const SoftmaxRowAnalysis peaked = softmax_row_analysis(scores, 1000.0f, 1.0f);
    CHECK(peaked.entropy == 0.0);
    CHECK(peaked.max_weight == 1.0f);
  }
  SECTION("the Jacobian is a_i(δ_ij − a_j) and its transpose applied to dy is softmax_rows_backward") {
    MatrixD expected(5, 5);
    for (Index i = 0; i < 5; ++i)
      for (Index j = 0; j < 5; ++j)
        expected(i, j) = expected_weights(0, i) * ((i == j ? 1.0 : 0.0) - expected_weights(0, j));
    CHECK_THAT(a.jacobian, IsNear(expected, 1e-7));
    CHECK_THAT(a.jacobian_norm, WithinAbs(expected.norm(), 1e-6));
    const Matrix dy = rows({{0.9f, -0.3f, 0.4f, -1.2f, 0.6f}});
    Matrix dz(1, 5);
    softmax_rows_backward(a.weights, dy, dz);
    CHECK_THAT(Matrix(dy * a.jacobian), IsNear(dz, 1e-7));
  }
  SECTION("agrees with central finite differences of the weights") {
    const double h = 1e-2;
    MatrixD numeric(5, 5);
    for (Index j = 0; j < 5; ++j) {
      // z_j ± h, through scores_j ± h·temperature/scale
      RowVector plus = scores, minus = scores;
      plus(j) += static_cast<float>(h * 4.0);
      minus(j) -= static_cast<float>(h * 4.0);
      const RowVector up = softmax_row_analysis(plus, 0.5f, 2.0f).weights;
      const RowVector down = softmax_row_analysis(minus, 0.5f, 2.0f).weights;
      numeric.col(j) = ((up - down).cast<double>() / (2 * h)).transpose();
    }
    CHECK_THAT(a.jacobian, IsNear(numeric, 2e-4));
  }
  SECTION("refuses a non-positive temperature and scores that overflow") {
    CHECK_THROWS_WITH(softmax_row_analysis(scores, 1.0f, 0.0f), Catch::Contains("temperature"));
    CHECK_THROWS_WITH(softmax_row_analysis(scores, 1e38f, 1e-3f), Catch::Contains("non-finite"));
    CHECK_THROWS_AS(softmax_row_analysis(RowVector(), 1.0f, 1.0f), Error);
  }
}
