#include <catch2/catch.hpp>

#include "core/check.hpp"
#include "model/depth_gradients.hpp"

using namespace attnlab;
using Catch::Matchers::WithinRel;

namespace {

DepthGradients run(Norm norm, bool pre_norm, bool residual) {
  DepthGradientOptions o;
  o.norm = norm;
  o.pre_norm = pre_norm;
  o.residual = residual;
  o.seed = 3;
  return depth_gradients(o);
}

// ‖∂ℒ/∂x_0‖ / ‖∂ℒ/∂x_L‖: how much of the pull from above reaches the first layer
float reach(const DepthGradients& g) { return g.input_gradient_norms(0) / g.input_gradient_norms(g.input_gradient_norms.size() - 1); }

}  // namespace

TEST_CASE("depth gradients", "[depth_gradients]") {
  SECTION("one norm per layer, finite and positive") {
    const DepthGradients g = run(Norm::layer_norm, true, true);
    REQUIRE(g.input_gradient_norms.size() == 13);
    REQUIRE(g.parameter_gradient_norms.size() == 12);
    REQUIRE(g.activation_norms.size() == 13);
    CHECK(g.input_gradient_norms.allFinite());
    CHECK(g.parameter_gradient_norms.minCoeff() > 0);
    // the pull from above is R ~ N(0, 1) of 16×64: its norm is about √1024 = 32
    CHECK_THAT(g.input_gradient_norms(12), WithinRel(32.0f, 0.1f));
  }

  SECTION("with residuals the identity path carries the gradient to the first layer, whatever the norm") {
    for (Norm norm : {Norm::layer_norm, Norm::none}) {
      for (bool pre : {true, false}) {
        INFO(to_string(norm) << (pre ? " pre" : " post"));
        CHECK(reach(run(norm, pre, true)) > 0.5f);
        CHECK(reach(run(norm, pre, true)) < 2.0f);
      }
    }
  }

  SECTION("without residuals or norms the first layers get orders of magnitude less, layer after layer") {
    const DepthGradients with = run(Norm::none, true, true), without = run(Norm::none, true, false);
    // each sub-layer scales by about 0.02·√d: thirty orders of magnitude over twelve layers
    CHECK(without.input_gradient_norms(0) < 1e-3f * with.input_gradient_norms(0));
    CHECK(without.parameter_gradient_norms(0) < 1e-20f * without.parameter_gradient_norms(11));
    for (Index l = 0; l < 11; ++l) CHECK(without.parameter_gradient_norms(l) < without.parameter_gradient_norms(l + 1));
  }

  SECTION("without residuals, a LayerNorm in every sub-layer rescales what the sub-layer shrank") {
    // at initialisation: LN's 1/σ undoes the small Jacobian of f, so nothing vanishes
    const DepthGradients pre = run(Norm::layer_norm, true, false);
    CHECK(pre.parameter_gradient_norms(0) > 0.1f * pre.parameter_gradient_norms(11));
    CHECK(pre.activation_norms(6) < 0.1f * pre.activation_norms(0));  // the stream itself shrinks
  }

  SECTION("the seed decides everything") {
    const DepthGradients a = run(Norm::layer_norm, false, true), b = run(Norm::layer_norm, false, true);
    CHECK(a.parameter_gradient_norms == b.parameter_gradient_norms);
  }

  SECTION("sizes out of range are refused with the reason") {
    DepthGradientOptions o;
    o.layers = 0;
    CHECK_THROWS_WITH(depth_gradients(o), Catch::Contains("layers must be 1 … 96"));
    o.layers = 4;
    o.d_model = 40;
    CHECK_THROWS_WITH(depth_gradients(o), Catch::Contains("multiple of 16"));
    o.d_model = 64;
    o.length = 100000;
    CHECK_THROWS_WITH(depth_gradients(o), Catch::Contains("length must be"));
  }
}
