#include "core/activation.hpp"

#include <algorithm>
#include <cmath>

#include "core/check.hpp"
#include "core/enum_names.hpp"
#include "core/exp.hpp"
#include "core/thread_pool.hpp"

namespace attnlab {

namespace {
constexpr std::pair<const char*, Activation> kActivations[] = {
    {"relu", Activation::relu}, {"gelu", Activation::gelu},
    {"gelu_tanh", Activation::gelu_tanh}, {"swiglu", Activation::swiglu}};
}  // namespace

Activation activation_from_string(const std::string& name) {
  return enum_from_name(name, "activation", kActivations);
}

std::string to_string(Activation activation) { return enum_name(activation, kActivations); }

Matrix relu_forward(const ConstMatrixRef& x) { return x.cwiseMax(Scalar(0)); }

Matrix gelu_forward(const ConstMatrixRef& x) {
  return x.unaryExpr([](Scalar v) { return 0.5f * v * (1.0f + std::erf(v * Scalar(0.70710678118654752))); });
}

namespace {
constexpr Scalar kSqrt2OverPi = Scalar(0.79788456080286536);
constexpr Scalar kCubic = Scalar(0.044715);
}  // namespace

// ½(1 + tanh u) = σ(2u), so y = x / (1 + e^(−2u)): one exponential, which exp_inplace takes four
// at a time (libm's tanhf, one at a time, was a sixth of a GPT-2 prefill), and no 1 + tanh u that
// cancels to 0 for negative x
Matrix gelu_tanh_forward(const ConstMatrixRef& x) {
  constexpr Scalar kLinear = -2 * kSqrt2OverPi, kCubed = -2 * kSqrt2OverPi * kCubic;  // −2u = x·(a + b·x²)
  constexpr Scalar kFarLeft = -20;  // where y < 10⁻³⁰⁰: below it, x·σ(2u) is 0 in floats
  Matrix y(x.rows(), x.cols());
  for (Index r = 0; r < x.rows(); ++r) {
    const Scalar* in = x.row(r).data();
    Scalar* out = y.row(r).data();
    for (Index j = 0; j < x.cols(); ++j) out[j] = in[j] * (kLinear + kCubed * in[j] * in[j]);
    exp_inplace(out, x.cols());  // saturates at e⁸⁸, so far left x itself is capped: y rounds to −0
    for (Index j = 0; j < x.cols(); ++j) out[j] = std::max(in[j], kFarLeft) / (Scalar(1) + out[j]);
  }
  return y;
}

Matrix silu_forward(const ConstMatrixRef& x) {
  return x.unaryExpr([](Scalar v) { return v / (1.0f + std::exp(-v)); });
}

namespace {
// dy ⊙ f'(x), entry by entry
template <class Derivative>
Matrix chain(const ConstMatrixRef& x, const ConstMatrixRef& dy, Derivative derivative) {
  require(dy.rows() == x.rows() && dy.cols() == x.cols(), "activation backward: dy must have x's shape");
  return x.binaryExpr(dy, [&](Scalar v, Scalar g) { return g * derivative(v); });
}
}  // namespace

Matrix relu_backward(const ConstMatrixRef& x, const ConstMatrixRef& dy) {
  return chain(x, dy, [](Scalar v) { return v > 0 ? Scalar(1) : Scalar(0); });
}

Matrix gelu_backward(const ConstMatrixRef& x, const ConstMatrixRef& dy) {
  constexpr Scalar kInvSqrt2Pi = Scalar(0.39894228040143268);  // 1/√(2π)
  return chain(x, dy, [](Scalar v) {
    const Scalar cdf = 0.5f * (1.0f + std::erf(v * Scalar(0.70710678118654752)));
    return cdf + v * kInvSqrt2Pi * std::exp(-0.5f * v * v);
  });
}

Matrix gelu_tanh_backward(const ConstMatrixRef& x, const ConstMatrixRef& dy) {
  return chain(x, dy, [](Scalar v) {
    const Scalar s = 1.0f / (1.0f + std::exp(-2.0f * kSqrt2OverPi * (v + kCubic * v * v * v)));  // σ(2u)
    return s + 2.0f * v * s * (1.0f - s) * kSqrt2OverPi * (1.0f + 3.0f * kCubic * v * v);
  });
}

Matrix silu_backward(const ConstMatrixRef& x, const ConstMatrixRef& dy) {
  return chain(x, dy, [](Scalar v) {
    const Scalar s = 1.0f / (1.0f + std::exp(-v));
    return s * (1.0f + v * (1.0f - s));
  });
}

namespace {
Matrix activation_forward(Activation activation, const ConstMatrixRef& x) {
  switch (activation) {
    case Activation::relu: return relu_forward(x);
    case Activation::gelu: return gelu_forward(x);
    case Activation::gelu_tanh: return gelu_tanh_forward(x);
    case Activation::swiglu: return silu_forward(x);
  }
  throw Error("activation: unknown kind");
}

// entries worth handing to another thread (a few microseconds): a decoded token's hidden layer
// (GPT-2: 3072 tanh) takes tens of microseconds on one
constexpr Index kEntriesWorthSplitting = Index(1) << 11;
}  // namespace

Matrix pointwise_activation(Activation activation, const ConstMatrixRef& x) {
  const Index n = x.rows(), d = x.cols();
  const Index blocks = x.size() >= kEntriesWorthSplitting ? num_threads() : Index(1);
  if (blocks <= 1) return activation_forward(activation, x);
  // entry by entry, so blocks give the same bits on any number of threads: blocks of rows, or of
  // columns (whole vectors) for fewer rows than threads, as a decoded token's one row
  Matrix y(n, d);
  const bool by_rows = n >= blocks;
  parallel_for(blocks, [&](Index block) {
    if (by_rows) {
      const Index r0 = block * n / blocks, r1 = (block + 1) * n / blocks;
      y.middleRows(r0, r1 - r0) = activation_forward(activation, x.middleRows(r0, r1 - r0));
    } else {
      const auto edge = [&](Index b) { return std::min(d, (b * d / blocks + 7) / 8 * 8); };
      const Index c0 = edge(block), c1 = block + 1 == blocks ? d : edge(block + 1);
      if (c1 > c0) y.middleCols(c0, c1 - c0) = activation_forward(activation, x.middleCols(c0, c1 - c0));
    }
  });
  return y;
}

Matrix pointwise_activation_backward(Activation activation, const ConstMatrixRef& x, const ConstMatrixRef& dy) {
  switch (activation) {
    case Activation::relu: return relu_backward(x, dy);
    case Activation::gelu: return gelu_backward(x, dy);
    case Activation::gelu_tanh: return gelu_tanh_backward(x, dy);
    case Activation::swiglu: return silu_backward(x, dy);
  }
  throw Error("activation: unknown kind");
}

}  // namespace attnlab
