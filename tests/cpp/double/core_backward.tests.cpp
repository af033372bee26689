// Every kernel's backward pass against central finite differences of its forward, in double.
#include <catch2/catch.hpp>

#include "core/activation.hpp"
#include "core/attention.hpp"
#include "core/cross_entropy.hpp"
#include "core/feed_forward.hpp"
#include "core/layer_norm.hpp"
#include "core/learned_positions.hpp"
#include "core/linear.hpp"
#include "core/multi_head_attention.hpp"
#include "core/rms_norm.hpp"
#include "core/rnn.hpp"
#include "core/rope.hpp"
#include "core/softmax.hpp"
#include "gradient_check.hpp"

using namespace attnlab;
using attnlab::test::check_gradient;
using attnlab::test::projected;
using attnlab::test::random_matrix;

TEST_CASE("softmax backward", "[gradients]") {
  Rng rng(1);
  Matrix x = random_matrix(4, 6, rng, 2.0);
  const Matrix r = random_matrix(4, 6, rng);
  Matrix y(4, 6), dx(4, 6);
  softmax_rows_forward(x, y);
  softmax_rows_backward(y, r, dx);
  check_gradient("x", x, dx, [&] {
    Matrix out(4, 6);
    softmax_rows_forward(x, out);
    return projected(out, r);
  });
}

TEST_CASE("norm backward", "[gradients]") {
  Rng rng(2);
  Matrix x = random_matrix(5, 7, rng, 1.5);
  RowVector gamma = random_matrix(1, 7, rng, 0.3).array() + 1.0;
  RowVector beta = random_matrix(1, 7, rng, 0.3);
  const Matrix r = random_matrix(5, 7, rng);

  SECTION("layer norm: x, γ, β") {
    RowVector dgamma = RowVector::Zero(7), dbeta = RowVector::Zero(7);
    const Matrix dx = layer_norm_backward(x, gamma, r, dgamma, dbeta);
    const auto loss = [&] { return projected(layer_norm_forward(x, gamma, beta), r); };
    check_gradient("x", x, dx, loss);
    check_gradient("γ", gamma, dgamma, loss);
    check_gradient("β", beta, dbeta, loss);
  }
  SECTION("RMS norm: x, γ") {
    RowVector dgamma = RowVector::Zero(7);
    const Matrix dx = rms_norm_backward(x, gamma, r, dgamma);
    const auto loss = [&] { return projected(rms_norm_forward(x, gamma), r); };
    check_gradient("x", x, dx, loss);
    check_gradient("γ", gamma, dgamma, loss);
  }
  SECTION("gradients accumulate") {
    RowVector dgamma = RowVector::Ones(7), dbeta = RowVector::Ones(7);
    RowVector fresh_gamma = RowVector::Zero(7), fresh_beta = RowVector::Zero(7);
    layer_norm_backward(x, gamma, r, dgamma, dbeta);
    layer_norm_backward(x, gamma, r, fresh_gamma, fresh_beta);
    CHECK((dgamma.array() - 1.0 - fresh_gamma.array()).abs().maxCoeff() < 1e-12);
    CHECK((dbeta.array() - 1.0 - fresh_beta.array()).abs().maxCoeff() < 1e-12);
  }
}

TEST_CASE("activation backward", "[gradients]") {
  Rng rng(3);
  Matrix x = random_matrix(3, 8, rng, 2.0);
  // keep ReLU's kink out of reach of the finite difference
  for (Index i = 0; i < x.size(); ++i)
    if (std::abs(x.data()[i]) < 0.01) x.data()[i] = 0.5;
  const Matrix r = random_matrix(3, 8, rng);
  check_gradient("relu", x, relu_backward(x, r), [&] { return projected(relu_forward(x), r); });
  check_gradient("gelu", x, gelu_backward(x, r), [&] { return projected(gelu_forward(x), r); });
  check_gradient("gelu_tanh", x, gelu_tanh_backward(x, r), [&] { return projected(gelu_tanh_forward(x), r); });
  check_gradient("silu", x, silu_backward(x, r), [&] { return projected(silu_forward(x), r); });
}

TEST_CASE("linear backward", "[gradients]") {
  Rng rng(4);
  Matrix x = random_matrix(6, 5, rng), w = random_matrix(5, 3, rng);
  RowVector b = random_matrix(1, 3, rng);
  const Matrix r = random_matrix(6, 3, rng);
  Matrix dw = Matrix::Zero(5, 3);
  RowVector db = RowVector::Zero(3);
  const Matrix dx = linear_backward(x, w, r, dw, db);
  const auto loss = [&] { return projected(linear_forward(x, w, b), r); };
  check_gradient("x", x, dx, loss);
  check_gradient("W", w, dw, loss);
  check_gradient("b", b, db, loss);
}

TEST_CASE("attention backward", "[gradients]") {
  Rng rng(5);
  const Index n = 4, m = 6, dk = 3, dv = 5;
  Matrix q = random_matrix(n, dk, rng), k = random_matrix(m, dk, rng), v = random_matrix(m, dv, rng);
  const Matrix r = random_matrix(n, dv, rng);
  Mask mask;
  bool scaled = true;
  SECTION("no mask") {}
  SECTION("causal, queries at the last n positions") { mask = Mask::causal_mask(); }
  SECTION("key padding") { mask = Mask::key_padding_mask({0, 1, 0, 0, 1, 0}); }
  SECTION("additive, with a hidden key") {
    mask.additive = random_matrix(n, m, rng);
    mask.additive(2, 3) = -std::numeric_limits<Scalar>::infinity();
  }
  SECTION("a fully masked row gets no gradient") {
    mask.additive = Matrix::Zero(n, m);
    mask.additive.row(1).setConstant(-std::numeric_limits<Scalar>::infinity());
  }
  SECTION("without the 1/√d_k scale") { scaled = false; }
  const AttentionTrace forward = attention_forward_traced(q, k, v, mask, scaled);
  Matrix dq = Matrix::Zero(n, dk), dk_ = Matrix::Zero(m, dk), dv_ = Matrix::Zero(m, dv);
  attention_backward(q, k, v, forward.weights, forward.scale, r, dq, dk_, dv_);
  const auto loss = [&] {
    Matrix o(n, dv);
    attention_forward(q, k, v, mask, scaled, o);
    return projected(o, r);
  };
  check_gradient("Q", q, dq, loss);
  check_gradient("K", k, dk_, loss);
  check_gradient("V", v, dv_, loss);
}

TEST_CASE("positional backward", "[gradients]") {
  Rng rng(6);
  SECTION("RoPE: the transpose rotation") {
    Matrix x = random_matrix(5, 6, rng);
    const Matrix r = random_matrix(5, 6, rng);
    Matrix dx = r;
    rope_apply_transpose(dx, 3, 100.0f);
    check_gradient("x", x, dx, [&] {
      Matrix y = x;
      rope_apply(y, 3, 100.0f);
      return projected(y, r);
    });
  }
  SECTION("learned positions: rows pos0 … of wpe") {
    Matrix wpe = random_matrix(8, 4, rng);
    const Matrix r = random_matrix(3, 4, rng);
    Matrix dwpe = Matrix::Zero(8, 4);
    learned_positions_backward(r, 2, dwpe);
    check_gradient("wpe", wpe, dwpe, [&] { return projected(learned_positions_lookup(wpe, 3, 2), r); });
    CHECK(dwpe.topRows(2).isZero());
  }
}

TEST_CASE("cross-entropy backward", "[gradients]") {
  Rng rng(7);
  Matrix logits = random_matrix(5, 9, rng, 3.0);
  const std::vector<int> targets = {3, -1, 0, 8, -1};
  const CrossEntropy ce = cross_entropy_forward(logits, targets);
  CHECK(ce.targets == 3);
  const Matrix dlogits = cross_entropy_backward(logits, targets, 1.0 / 3.0);
  CHECK(dlogits.row(1).isZero());
  check_gradient("logits", logits, dlogits, [&] { return cross_entropy_forward(logits, targets).loss_sum / 3.0; });
}

TEST_CASE("feed-forward backward", "[gradients]") {
  Rng rng(8);
  const Activation activation = GENERATE(Activation::relu, Activation::gelu, Activation::gelu_tanh, Activation::swiglu);
  FeedForwardParams p = FeedForwardParams::init(4, 7, activation, 9);
  for (Matrix* w : {&p.c_fc_weight, &p.c_gate_weight, &p.c_proj_weight}) *w *= 25.0;
  p.c_fc_bias = random_matrix(1, 7, rng, 0.3);
  if (activation == Activation::swiglu) p.c_gate_bias = random_matrix(1, 7, rng, 0.3);
  p.c_proj_bias = random_matrix(1, 4, rng, 0.3);
  Matrix x = random_matrix(5, 4, rng);
  const Matrix r = random_matrix(5, 4, rng);
  FeedForwardTrace trace;
  feed_forward(p, activation, x, &trace);
  FeedForwardParams g = FeedForwardParams::init(4, 7, activation, 0);
  for (Matrix* w : {&g.c_fc_weight, &g.c_gate_weight, &g.c_proj_weight}) w->setZero();
  const Matrix dx = feed_forward_backward(p, activation, x, trace, r, g);
  const auto loss = [&] { return projected(feed_forward(p, activation, x), r); };
  INFO("activation " << to_string(activation));
  check_gradient("x", x, dx, loss);
  check_gradient("c_fc.weight", p.c_fc_weight, g.c_fc_weight, loss);
  check_gradient("c_fc.bias", p.c_fc_bias, g.c_fc_bias, loss);
  check_gradient("c_proj.weight", p.c_proj_weight, g.c_proj_weight, loss);
  check_gradient("c_proj.bias", p.c_proj_bias, g.c_proj_bias, loss);
  if (activation == Activation::swiglu) {
    check_gradient("c_gate.weight", p.c_gate_weight, g.c_gate_weight, loss);
    check_gradient("c_gate.bias", p.c_gate_bias, g.c_gate_bias, loss);
  }
}

TEST_CASE("multi-head attention backward", "[gradients]") {
  Rng rng(10);
  AttentionConfig config;
  config.d_model = 8;
  config.n_heads = 4;
  Mask mask;
  bool self = true;
  SECTION("MHA, bidirectional") {}
  SECTION("MHA, causal") { mask = Mask::causal_mask(); }
  SECTION("GQA (2 groups), causal") {
    config.n_kv_heads = 2;
    mask = Mask::causal_mask();
  }
  SECTION("MQA with RoPE") {
    config.n_kv_heads = 1;
    config.rope = true;
    config.rope_base = 50.0f;
  }
  SECTION("ALiBi, causal") {
    config.alibi = true;
    mask = Mask::causal_mask();
  }
  SECTION("without the 1/√d_k scale") { config.scaled = false; }
  SECTION("cross-attention with source padding") {
    self = false;
    mask = Mask::key_padding_mask({0, 0, 0, 0, 0, 1, 1});
  }
  AttentionParams p = AttentionParams::init(config, 11);
  p.c_attn_weight *= 30.0;
  p.c_proj_weight *= 30.0;
  p.c_attn_bias = random_matrix(1, p.c_attn_bias.size(), rng, 0.3);
  p.c_proj_bias = random_matrix(1, 8, rng, 0.3);
  Matrix x = random_matrix(5, 8, rng), memory = random_matrix(7, 8, rng);
  const Matrix r = random_matrix(5, 8, rng);
  const auto run = [&](MultiHeadTrace* trace) {
    return self ? self_attention_forward(config, p, x, mask, trace)
                : cross_attention_forward(config, p, x, memory, mask, trace);
  };
  MultiHeadTrace trace;
  run(&trace);
  AttentionParams g = AttentionParams::init(config, 0);
  g.c_attn_weight.setZero();
  g.c_proj_weight.setZero();
  const MultiHeadInputGrads dx = multi_head_backward(config, p, x, self ? x : memory, trace, r, g);
  const auto loss = [&] { return projected(run(nullptr), r); };
  if (self) {
    check_gradient("x", x, Matrix(dx.dx + dx.dx_kv), loss);
  } else {
    check_gradient("x", x, dx.dx, loss);
    check_gradient("memory", memory, dx.dx_kv, loss);
  }
  check_gradient("c_attn.weight", p.c_attn_weight, g.c_attn_weight, loss);
  check_gradient("c_attn.bias", p.c_attn_bias, g.c_attn_bias, loss);
  check_gradient("c_proj.weight", p.c_proj_weight, g.c_proj_weight, loss);
  check_gradient("c_proj.bias", p.c_proj_bias, g.c_proj_bias, loss);
}

TEST_CASE("softmax row Jacobian", "[gradients]") {
  Rng rng(21);
  RowVector scores = random_matrix(1, 6, rng, 2.0);
  const Matrix jacobian = softmax_row_analysis(scores, 1, 1).jacobian;
  for (Index i = 0; i < 6; ++i) {
    DYNAMIC_SECTION("∂a_" << i << "/∂z") {
      check_gradient("z", scores, RowVector(jacobian.row(i)),
                     [&] { return softmax_row_analysis(scores, 1, 1).weights(i); });
    }
  }
}

TEST_CASE("tanh RNN backward", "[gradients]") {
  Rng rng(22);
  const Index T = 5, D = 3, H = 4;
  Matrix x = random_matrix(T, D, rng);
  RowVector h0 = random_matrix(1, H, rng, 0.5);
  RnnParams params{random_matrix(H, H, rng, 0.6), random_matrix(H, D, rng, 0.6), random_matrix(1, H, rng, 0.3)};
  const Matrix r = random_matrix(T, H, rng);
  const Matrix h = rnn_forward(params, x, h0);
  RnnParams grads = RnnParams::zeros(H, D);
  const RnnInputGradients inputs = rnn_backward(params, x, h0, h, r, grads);
  const auto loss = [&] { return projected(rnn_forward(params, x, h0), r); };
  check_gradient("x", x, inputs.dx, loss);
  check_gradient("h_0", h0, inputs.dh0, loss);
  check_gradient("W_hh", params.w_hh, grads.w_hh, loss);
  check_gradient("W_xh", params.w_xh, grads.w_xh, loss);
  check_gradient("b", params.b, grads.b, loss);

  SECTION("the state Jacobian ‖∂h_t/∂h_0‖_F") {
    // with h_0 as the first row, rnn_state_jacobian_norms measures ∂h_t/∂h_0
    Matrix states(T + 1, H);
    states << h0, h;
    const RowVector norms = rnn_state_jacobian_norms(params, states);
    for (Index t = 1; t <= T; ++t) {
      Matrix numeric(H, H);
      for (Index j = 0; j < H; ++j) {
        const double step = 1e-6;
        RowVector plus = h0, minus = h0;
        plus(j) += step;
        minus(j) -= step;
        numeric.col(j) = ((rnn_forward(params, x, plus).row(t - 1) - rnn_forward(params, x, minus).row(t - 1)) /
                          (2 * step)).transpose();
      }
      INFO("t = " << t);
      CHECK(std::abs(norms(t) - numeric.norm()) < 1e-6 * numeric.norm());
    }
  }
}

TEST_CASE("attention head backward", "[gradients]") {
  Rng rng(23);
  const Index n = 5, d = 4, dk = 3, dv = 2;
  Matrix x = random_matrix(n, d, rng);
  const Matrix w_q = random_matrix(d, dk, rng), w_k = random_matrix(d, dk, rng), w_v = random_matrix(d, dv, rng);
  const Matrix r = random_matrix(n, dv, rng);
  Mask mask;
  SECTION("causal") { mask = Mask::causal_mask(); }
  SECTION("no mask") {}
  const AttentionTrace trace = attention_head_forward_traced(x, x, w_q, w_k, w_v, mask, true);
  check_gradient("X", x, attention_head_backward(trace, w_q, w_k, w_v, r), [&] {
    return projected(attention_head_forward_traced(x, x, w_q, w_k, w_v, mask, true).output, r);
  });
}
