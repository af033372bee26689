#include "core/activation.hpp"

#include <cmath>

#include "core/check.hpp"
#include "core/enum_names.hpp"

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

Matrix relu_forward(const ConstMatrixRef& x) { return x.cwiseMax(0.0f); }

Matrix gelu_forward(const ConstMatrixRef& x) {
  return x.unaryExpr([](float v) { return 0.5f * v * (1.0f + std::erf(v * 0.70710678118654752f)); });
}

Matrix gelu_tanh_forward(const ConstMatrixRef& x) {
  constexpr float kSqrt2OverPi = 0.79788456080286536f;
  return x.unaryExpr([](float v) {
    return 0.5f * v * (1.0f + std::tanh(kSqrt2OverPi * (v + 0.044715f * v * v * v)));
  });
}

Matrix silu_forward(const ConstMatrixRef& x) {
  return x.unaryExpr([](float v) { return v / (1.0f + std::exp(-v)); });
}

}  // namespace attnlab
