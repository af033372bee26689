#pragma once
// Pointwise non-linearities of the feed-forward network.
#include <string>

#include "core/tensor.hpp"

namespace attnlab {

enum class Activation {
  relu,       // max(0, x)
  gelu,       // x·Φ(x) = x·½(1 + erf(x/√2)), the exact form
  gelu_tanh,  // x·½(1 + tanh(√(2/π)(x + 0.044715x³))), GPT-2's approximation
  swiglu,     // Swish(x·W_gate) ⊙ (x·W_up), Swish(z) = z·σ(z); gated, see feed_forward.hpp
};

// "relu" | "gelu" | "gelu_tanh" | "swiglu" → Activation; anything else is an error naming the choices
Activation activation_from_string(const std::string& name);
std::string to_string(Activation activation);

// y = max(0, x)   x:(n,k) → (n,k)
Matrix relu_forward(const ConstMatrixRef& x);
// y = x·½(1 + erf(x/√2))   x:(n,k) → (n,k)
Matrix gelu_forward(const ConstMatrixRef& x);
// y = x·½(1 + tanh u) = x·σ(2u), u = √(2/π)(x + 0.044715x³)   x:(n,k) → (n,k)
Matrix gelu_tanh_forward(const ConstMatrixRef& x);
// y = x·σ(x) (Swish/SiLU)   x:(n,k) → (n,k)
Matrix silu_forward(const ConstMatrixRef& x);

// dx = dy ⊙ [x > 0]   differentiates relu_forward   x,dy:(n,k) → (n,k)
Matrix relu_backward(const ConstMatrixRef& x, const ConstMatrixRef& dy);
// dx = dy ⊙ (Φ(x) + x·φ(x))   differentiates gelu_forward   x,dy:(n,k) → (n,k)
Matrix gelu_backward(const ConstMatrixRef& x, const ConstMatrixRef& dy);
// dx = dy ⊙ (σ(2u) + 2x·σ(2u)(1 − σ(2u))·√(2/π)(1 + 3·0.044715x²)), u = √(2/π)(x + 0.044715x³)
//   differentiates gelu_tanh_forward   x,dy:(n,k) → (n,k)
Matrix gelu_tanh_backward(const ConstMatrixRef& x, const ConstMatrixRef& dy);
// dx = dy ⊙ σ(x)(1 + x(1 − σ(x)))   differentiates silu_forward   x,dy:(n,k) → (n,k)
Matrix silu_backward(const ConstMatrixRef& x, const ConstMatrixRef& dy);

// y = σ(x) for the element-wise non-linearity of an activation: ReLU, GELU, tanh-GELU, and for
// SwiGLU the Swish of its gate   x:(n,k) → (n,k)
Matrix pointwise_activation(Activation activation, const ConstMatrixRef& x);

// dx = dy ⊙ σ′(x)   differentiates pointwise_activation   x,dy:(n,k) → (n,k)
Matrix pointwise_activation_backward(Activation activation, const ConstMatrixRef& x, const ConstMatrixRef& dy);

}  // namespace attnlab
