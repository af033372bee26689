#pragma once
// AdamW and gradient-norm clipping over every tensor of a model.
#include "model/config.hpp"
#include "model/params.hpp"

namespace attnlab {

struct AdamWOptions {
  float beta1 = 0.9f;         // decay of the first moment (mean of gradients)
  float beta2 = 0.99f;        // decay of the second moment (mean of squared gradients)
  float epsilon = 1e-8f;
  float weight_decay = 0.01f; // λ, applied to matrices (weights, embeddings), not to biases or gains
  // throws attnlab::Error unless 0 ≤ β < 1, ε > 0, λ ≥ 0, all finite
  void validate() const;
};

class AdamW {
 public:
  AdamW(const ModelConfig& config, AdamWOptions options);

  // t ← t+1;  θ ← θ − η·λ·θ (matrices only);  m ← β₁m + (1−β₁)g;  v ← β₂v + (1−β₂)g²;
  // θ ← θ − η·(m/(1−β₁ᵗ)) / (√(v/(1−β₂ᵗ)) + ε)   (PyTorch's AdamW), for every tensor at once
  void step(ModelParams& params, const ModelParams& grads, float learning_rate);
  Index steps() const { return steps_; }

 private:
  ModelConfig config_;
  AdamWOptions options_;
  ModelParams m_, v_;
  Index steps_ = 0;
};

// ‖g‖ = √(Σ over every tensor of Σ g²); when ‖g‖ > max_norm every gradient is scaled by
// max_norm/‖g‖. Returns ‖g‖ before clipping.
Scalar clip_gradient_norm(const ModelConfig& config, ModelParams& grads, Scalar max_norm);

// g_i += part_i for every tensor: a batch's gradient from its parts', added one part at a time in
// part order, so any thread count gives the same bits; threads share out whole tensors.
void add_gradient(const ModelConfig& config, ModelParams& sum, const ModelParams& part);
// θ_i = 0 for every tensor
void set_zero(const ModelConfig& config, ModelParams& params);

}  // namespace attnlab
