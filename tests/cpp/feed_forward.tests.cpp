#include <catch2/catch.hpp>

#include "core/activation.hpp"
#include "core/check.hpp"
#include "core/feed_forward.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

TEST_CASE("feed-forward network", "[ffn]") {
  std::srand(4);
  const Matrix x = Matrix::Random(3, 6);
  SECTION("FFN(x) = σ(x·W₁ + b₁)·W₂ + b₂ for each activation, with the trace holding each step") {
    for (Activation a : {Activation::relu, Activation::gelu, Activation::gelu_tanh}) {
      FeedForwardParams p = FeedForwardParams::init(6, 10, a, 3);
      p.c_fc_bias.setRandom();
      p.c_proj_bias.setRandom();
      FeedForwardTrace t;
      const Matrix y = feed_forward(p, a, x, &t);
      const Matrix hidden = (x * p.c_fc_weight).rowwise() + p.c_fc_bias;
      const Matrix act = a == Activation::relu ? relu_forward(hidden)
                         : a == Activation::gelu ? gelu_forward(hidden) : gelu_tanh_forward(hidden);
      CHECK_THAT(t.hidden, IsNear(hidden, 1e-6));
      CHECK_THAT(t.activated, IsNear(act, 1e-6));
      CHECK_THAT(y, IsNear(Matrix((act * p.c_proj_weight).rowwise() + p.c_proj_bias), 1e-6));
      CHECK_THAT(t.output, IsNear(y, 0));
    }
  }
  SECTION("SwiGLU gates the up projection with Swish of the gate projection") {
    const FeedForwardParams p = FeedForwardParams::init(6, 8, Activation::swiglu, 5);
    FeedForwardTrace t;
    const Matrix y = feed_forward(p, Activation::swiglu, x, &t);
    const Matrix gate = x * p.c_gate_weight, up = x * p.c_fc_weight;
    CHECK_THAT(t.activated, IsNear(Matrix(silu_forward(gate).cwiseProduct(up)), 1e-7));
    CHECK_THAT(y, IsNear(Matrix(t.activated * p.c_proj_weight), 1e-7));
  }
  SECTION("the parameter count is the number of values init() draws") {
    for (Activation a : {Activation::relu, Activation::swiglu}) {
      const FeedForwardParams p = FeedForwardParams::init(6, 10, a, 1);
      const Index drawn = p.c_fc_weight.size() + p.c_fc_bias.size() + p.c_gate_weight.size() +
                          p.c_gate_bias.size() + p.c_proj_weight.size() + p.c_proj_bias.size();
      CHECK(feed_forward_parameters(6, 10, a) == drawn);
    }
    // GPT-2 small: d = 768, d_ff = 3072 → 4,722,432 per block
    CHECK(feed_forward_parameters(768, 3072, Activation::gelu_tanh) == 4722432);
  }
  SECTION("an input of the wrong width is refused") {
    const FeedForwardParams p = FeedForwardParams::init(6, 10, Activation::relu, 1);
    CHECK_THROWS_WITH(feed_forward(p, Activation::relu, Matrix::Ones(2, 5)), Catch::Contains("input width 5"));
  }
}
