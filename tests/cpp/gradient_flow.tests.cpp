#include <catch2/catch.hpp>
#include <cmath>

#include "core/check.hpp"
#include "model/gradient_flow.hpp"

using namespace attnlab;
using Catch::Matchers::WithinAbs;

TEST_CASE("gradient flow: an RNN against one attention head", "[gradient_flow]") {
  GradientFlowOptions options;
  options.length = 64;
  options.seed = 3;
  const GradientFlow flow = gradient_flow(options);
  const Index T = 64;

  SECTION("shapes: T states of width H and T norms each") {
    CHECK(flow.states.rows() == T);
    CHECK(flow.states.cols() == 16);
    CHECK(flow.jacobian_norms.size() == T);
    CHECK(flow.rnn_gradient_norms.size() == T);
    CHECK(flow.attention_gradient_norms.size() == T);
    CHECK_THAT(flow.jacobian_norms(0), WithinAbs(4.0, 1e-6));  // ‖I‖_F = √16
  }
  SECTION("through the RNN the gradient to x_1 vanishes; through attention it does not") {
    const double rnn_ratio = flow.rnn_gradient_norms(0) / flow.rnn_gradient_norms(T - 1);
    const double attention_ratio = flow.attention_gradient_norms(0) / flow.attention_gradient_norms(T - 1);
    INFO("‖∂L/∂x_1‖/‖∂L/∂x_T‖: RNN " << rnn_ratio << ", attention " << attention_ratio);
    CHECK(rnn_ratio < 1e-6);
    // x_T is also the query, so it gets more; the key/value path to x_1 is only diluted by its share of 1/T
    CHECK(attention_ratio > 1e-3);
    CHECK(flow.jacobian_norms(T - 1) < 1e-6 * flow.jacobian_norms(0));
  }
  SECTION("the RNN's gradient decays with distance, attention's does not, whatever the seed") {
    // geometric means of ‖∂L/∂x_t‖ over the first 16 positions and over 16 positions just before T
    const auto early_over_late = [](const RowVector& norms) {
      const Eigen::ArrayXd logs = norms.cast<double>().transpose().array().log();
      return std::exp(logs.head(16).mean() - logs.segment(47, 16).mean());
    };
    for (std::uint32_t seed = 0; seed < 8; ++seed) {
      GradientFlowOptions seeded = options;
      seeded.seed = seed;
      const GradientFlow f = gradient_flow(seeded);
      INFO("seed " << seed);
      CHECK(early_over_late(f.rnn_gradient_norms) < 1e-6);
      CHECK(early_over_late(f.attention_gradient_norms) > 0.1);
      CHECK(early_over_late(f.attention_gradient_norms) < 10);
    }
  }
  SECTION("the state Jacobian shrinks at least as fast as scale^(t−1): tanh' ≤ 1 and W_hh/scale is orthogonal") {
    for (float scale : {0.5f, 1.0f}) {
      GradientFlowOptions scaled = options;
      scaled.recurrent_scale = scale;
      const RowVector norms = gradient_flow(scaled).jacobian_norms;
      for (Index t = 0; t < T; ++t) CHECK(norms(t) <= std::pow(scale, t) * 4.0 * (1 + 1e-5));
    }
  }
  SECTION("is deterministic for a seed") {
    const GradientFlow again = gradient_flow(options);
    CHECK(again.states == flow.states);
    CHECK(again.rnn_gradient_norms == flow.rnn_gradient_norms);
    CHECK(again.attention_gradient_norms == flow.attention_gradient_norms);
    GradientFlowOptions other = options;
    other.seed = 4;
    CHECK(gradient_flow(other).states != flow.states);
  }
  SECTION("refuses sizes it cannot run") {
    GradientFlowOptions bad = options;
    bad.length = 1;
    CHECK_THROWS_WITH(gradient_flow(bad), Catch::Contains("length must be at least 2"));
    bad = options;
    bad.recurrent_scale = 0;
    CHECK_THROWS_WITH(gradient_flow(bad), Catch::Contains("recurrentScale"));
  }
}
