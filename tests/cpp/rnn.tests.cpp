#include <catch2/catch.hpp>
#include <cmath>

#include "core/check.hpp"
#include "core/rnn.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;
using Catch::Matchers::WithinAbs;

namespace {

RnnParams fixture_params(const FixtureCase& f) {
  return {f.tensor("w_hh"), f.tensor("w_xh"), f.tensor("b")};
}

}  // namespace

TEST_CASE("tanh RNN matches torch.nn.RNN", "[rnn][oracle]") {
  for (const FixtureCase& f : load_fixture_cases("rnn.json")) {
    SECTION(f.name) {
      const RnnParams params = fixture_params(f);
      const Matrix x = f.tensor("x");
      const RowVector h0 = f.tensor("h0");
      const Matrix states = rnn_forward(params, x, h0);
      CHECK_THAT(states, IsNear(f.tensor("states"), 1e-5));

      // autograd's gradients of L = ½‖h_T‖²
      Matrix dh = Matrix::Zero(states.rows(), states.cols());
      dh.row(states.rows() - 1) = states.row(states.rows() - 1);
      RnnParams grads = RnnParams::zeros(params.hidden(), params.input());
      const RnnInputGradients inputs = rnn_backward(params, x, h0, states, dh, grads);
      CHECK_THAT(inputs.dx, IsNear(f.tensor("grad.x"), 1e-5));
      CHECK_THAT(Matrix(inputs.dh0), IsNear(f.tensor("grad.h0"), 1e-5));
      CHECK_THAT(grads.w_hh, IsNear(f.tensor("grad.w_hh"), 1e-5));
      CHECK_THAT(grads.w_xh, IsNear(f.tensor("grad.w_xh"), 1e-5));
      CHECK_THAT(Matrix(grads.b), IsNear(f.tensor("grad.b"), 1e-5));
    }
  }
}

TEST_CASE("tanh RNN", "[rnn]") {
  const RnnParams params{rows({{0.5f, -0.2f}, {0.1f, 0.9f}}), rows({{1.0f, 0.0f, -1.0f}, {0.3f, 0.2f, 0.1f}}),
                         rows({{0.05f, -0.1f}})};
  const Matrix x = rows({{1.0f, 2.0f, 0.5f}, {-1.0f, 0.0f, 0.25f}});
  const RowVector h0 = rows({{0.2f, -0.4f}});

  SECTION("each step is tanh(W_hh·h_{t−1} + W_xh·x_t + b), written out") {
    const Matrix h = rnn_forward(params, x, h0);
    const double a0 = std::tanh(0.5 * 0.2 + -0.2 * -0.4 + 1.0 - 0.5 + 0.05);
    const double a1 = std::tanh(0.1 * 0.2 + 0.9 * -0.4 + 0.3 + 0.4 + 0.05 - 0.1);
    CHECK_THAT(h(0, 0), WithinAbs(a0, 1e-6));
    CHECK_THAT(h(0, 1), WithinAbs(a1, 1e-6));
    CHECK_THAT(h(1, 0), WithinAbs(std::tanh(0.5 * a0 - 0.2 * a1 - 1.0 - 0.25 + 0.05), 1e-6));
  }
  SECTION("the state Jacobian's norm starts at ‖I‖_F and multiplies diag(1 − h_t²)·W_hh") {
    const Matrix h = rnn_forward(params, x, h0);
    const RowVector norms = rnn_state_jacobian_norms(params, h);
    REQUIRE(norms.size() == 2);
    CHECK_THAT(norms(0), WithinAbs(std::sqrt(2.0), 1e-6));
    const Matrix step = (1 - h.row(1).array().square()).matrix().asDiagonal() * params.w_hh;
    CHECK_THAT(norms(1), WithinAbs(step.norm(), 1e-6));
  }
  SECTION("gradients accumulate") {
    const Matrix h = rnn_forward(params, x, h0);
    const Matrix dh = rows({{0.3f, -0.7f}, {1.0f, 0.5f}});
    RnnParams once = RnnParams::zeros(2, 3), twice = RnnParams::zeros(2, 3);
    rnn_backward(params, x, h0, h, dh, once);
    rnn_backward(params, x, h0, h, dh, twice);
    rnn_backward(params, x, h0, h, dh, twice);
    CHECK_THAT(twice.w_hh, IsNear(Matrix(2 * once.w_hh), 1e-6));
    CHECK_THAT(twice.w_xh, IsNear(Matrix(2 * once.w_xh), 1e-6));
  }
  SECTION("refuses inputs that do not fit") {
    CHECK_THROWS_WITH(rnn_forward(params, rows({{1.0f, 2.0f}}), h0), Catch::Contains("x_t has width 2"));
    CHECK_THROWS_WITH(rnn_forward(params, x, rows({{1.0f}})), Catch::Contains("h_0 has 1 entries"));
    RnnParams bad = params;
    bad.w_hh(0, 1) = NAN;
    CHECK_THROWS_WITH(rnn_forward(bad, x, h0), Catch::Contains("W_hh contains a non-finite value"));
    CHECK_THROWS_AS(rnn_forward(params, Matrix(0, 3), h0), Error);
  }
}
