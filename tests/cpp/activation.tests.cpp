#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "core/activation.hpp"
#include "core/check.hpp"
#include "core/thread_pool.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;
using Catch::Matchers::WithinAbs;

TEST_CASE("activations", "[activation]") {
  const FixtureCase f = load_fixture_cases("layers.json").at(0);
  const Matrix x = f.tensor("x");
  SECTION("match torch") {
    CHECK_THAT(relu_forward(x), IsNear(f.tensor("relu"), 0));
    CHECK_THAT(gelu_forward(x), IsNear(f.tensor("gelu"), 1e-6));
    CHECK_THAT(gelu_tanh_forward(x), IsNear(f.tensor("gelu_tanh"), 1e-6));
    CHECK_THAT(silu_forward(x), IsNear(f.tensor("silu"), 1e-6));
  }
  SECTION("the dispatch by kind: each curve and its derivative match torch's autograd") {
    const Matrix ones = Matrix::Ones(x.rows(), x.cols());
    const std::pair<Activation, const char*> kinds[] = {
        {Activation::relu, "relu"}, {Activation::gelu, "gelu"}, {Activation::gelu_tanh, "gelu_tanh"}, {Activation::swiglu, "silu"}};
    for (const auto& [kind, name] : kinds) {
      INFO(name);
      CHECK_THAT(pointwise_activation(kind, x), IsNear(f.tensor(name), 1e-6));
      CHECK_THAT(pointwise_activation_backward(kind, x, ones), IsNear(f.tensor(std::string(name) + ".derivative"), 1e-6));
    }
  }
  SECTION("GELU is x·Φ(x): Φ(1) = 0.841345, and the tanh form stays within 1e-3 of it") {
    CHECK_THAT(gelu_forward(Matrix::Constant(1, 1, 1.0f))(0, 0), WithinAbs(0.8413447, 1e-6));
    const Matrix grid = RowVector::LinSpaced(601, -6.0f, 6.0f);
    CHECK((gelu_forward(grid) - gelu_tanh_forward(grid)).cwiseAbs().maxCoeff() < 1e-3f);
  }
  SECTION("the tanh form as x·σ(2u): within float rounding of the curve in double, tails included") {
    // u is rounded to float before its exponential, which multiplies that error by |2u| far left;
    // the reference is x·σ(2u) in double too, since ½x(1 + tanh u) cancels to 0 there even in double
    const Matrix grid = RowVector::LinSpaced(4001, -40.0f, 40.0f);
    const Matrix y = gelu_tanh_forward(grid);
    for (Index j = 0; j < grid.cols(); ++j) {
      const double v = grid(0, j), u = 0.79788456080286536 * (v + 0.044715 * v * v * v);
      const double want = v / (1 + std::exp(-2 * u));
      if (std::abs(u) < 5) CHECK_THAT(want, WithinAbs(0.5 * v * (1 + std::tanh(u)), 1e-15));
      INFO("x = " << v);
      CHECK_THAT(double(y(0, j)), WithinAbs(want, 2e-7 * (2 + 2 * std::abs(u)) * std::abs(want) + 1e-30));
    }
    CHECK(y(0, 0) <= 0.0f);  // x·σ(2u) keeps its sign and stays finite far left (no 1 + tanh u = 0)
    Matrix odd(1, 4);
    odd << std::numeric_limits<Scalar>::quiet_NaN(), Scalar(1e20), Scalar(-1e20), Scalar(-1e30);
    const Matrix y_odd = gelu_tanh_forward(odd);
    CHECK(std::isnan(y_odd(0, 0)));
    CHECK(y_odd(0, 1) == Scalar(1e20));
    CHECK((y_odd(0, 2) <= 0 && y_odd(0, 2) > Scalar(-1e-15)));
    for (const Index j : {2, 3}) CHECK((y_odd(0, j) <= 0 && y_odd(0, j) > Scalar(-1e-36)));  // −0 but for e⁸⁸'s saturation
  }
  SECTION("names round-trip and an unknown name lists the choices") {
    for (Activation a : {Activation::relu, Activation::gelu, Activation::gelu_tanh, Activation::swiglu})
      CHECK(activation_from_string(to_string(a)) == a);
    CHECK_THROWS_WITH(activation_from_string("tanh"), Catch::Contains("expected relu, gelu, gelu_tanh, swiglu"));
  }
}

TEST_CASE("activations of a large hidden layer split over the threads", "[activation][threads]") {
  // 70 × 300 entries: split into blocks of rows; one row of 3001 (a decoded token's hidden layer):
  // into blocks of columns, the last one ragged
  const Matrix x = seeded_random(70, 300, 4, 5.0f), token = seeded_random(1, 3001, 5, 5.0f);
  for (Activation a : {Activation::relu, Activation::gelu, Activation::gelu_tanh, Activation::swiglu}) {
    INFO(to_string(a));
    set_num_threads(1);
    const Matrix one = pointwise_activation(a, x), one_token = pointwise_activation(a, token);
    set_num_threads(std::min<Index>(max_threads(), 3));
    CHECK(pointwise_activation(a, x) == one);
    CHECK(one.row(69) == pointwise_activation(a, x.bottomRows(1)));
    CHECK(pointwise_activation(a, token) == one_token);
    CHECK(one_token.rightCols(9) == pointwise_activation(a, token.rightCols(9)));  // entry by entry
  }
  set_num_threads(1);
}
