#include "train/optimizer.hpp"

#include <algorithm>
#include <cmath>

#include "core/check.hpp"

namespace attnlab {
namespace {

Index element_count(const TensorSlot& slot) {
  Index count = 1;
  for (auto s : slot.shape) count *= s;
  return count;
}

// the slots of a parameter set that is only read
std::vector<TensorSlot> read_slots(const ModelConfig& config, const ModelParams& params) {
  return tensor_slots(config, const_cast<ModelParams&>(params));
}

}  // namespace

void AdamWOptions::validate() const {
  require(std::isfinite(beta1) && beta1 >= 0 && beta1 < 1, "AdamW: β₁ must lie in [0, 1)");
  require(std::isfinite(beta2) && beta2 >= 0 && beta2 < 1, "AdamW: β₂ must lie in [0, 1)");
  require(std::isfinite(epsilon) && epsilon > 0, "AdamW: ε must be a positive number");
  require(std::isfinite(weight_decay) && weight_decay >= 0, "AdamW: weight decay must be ≥ 0");
}

AdamW::AdamW(const ModelConfig& config, AdamWOptions options)
    : config_(config), options_(options), m_(ModelParams::zeros(config)), v_(ModelParams::zeros(config)) {
  options_.validate();
}

void AdamW::step(ModelParams& params, const ModelParams& grads, float learning_rate) {
  require(std::isfinite(learning_rate) && learning_rate >= 0, "AdamW: the learning rate must be ≥ 0");
  ++steps_;
  const std::vector<TensorSlot> theta = tensor_slots(config_, params), g = read_slots(config_, grads),
                                m = tensor_slots(config_, m_), v = tensor_slots(config_, v_);
  const double t = static_cast<double>(steps_);
  const Scalar bias1 = static_cast<Scalar>(1 - std::pow(static_cast<double>(options_.beta1), t));
  const Scalar bias2 = static_cast<Scalar>(1 - std::pow(static_cast<double>(options_.beta2), t));
  const Scalar b1 = options_.beta1, b2 = options_.beta2, lr = learning_rate;
  for (size_t i = 0; i < theta.size(); ++i) {
    const Scalar decay = theta[i].shape.size() == 2 ? lr * options_.weight_decay : Scalar(0);
    for (Index j = 0, count = element_count(theta[i]); j < count; ++j) {
      const Scalar grad = g[i].data[j];
      m[i].data[j] = b1 * m[i].data[j] + (1 - b1) * grad;
      v[i].data[j] = b2 * v[i].data[j] + (1 - b2) * grad * grad;
      theta[i].data[j] -= decay * theta[i].data[j];
      theta[i].data[j] -= lr * (m[i].data[j] / bias1) / (std::sqrt(v[i].data[j] / bias2) + options_.epsilon);
    }
  }
}

Scalar clip_gradient_norm(const ModelConfig& config, ModelParams& grads, Scalar max_norm) {
  require(std::isfinite(max_norm) && max_norm > 0, "gradient clipping: the largest norm must be a positive number");
  double sum = 0;
  const std::vector<TensorSlot> slots = tensor_slots(config, grads);
  for (const TensorSlot& slot : slots)
    for (Index j = 0, count = element_count(slot); j < count; ++j)
      sum += static_cast<double>(slot.data[j]) * slot.data[j];
  const Scalar norm = static_cast<Scalar>(std::sqrt(sum));
  if (norm > max_norm) {
    const Scalar scale = max_norm / norm;
    for (const TensorSlot& slot : slots) std::for_each(slot.data, slot.data + element_count(slot), [&](Scalar& x) { x *= scale; });
  }
  return norm;
}

void add_scaled(const ModelConfig& config, ModelParams& params, const ModelParams& delta, Scalar s) {
  const std::vector<TensorSlot> to = tensor_slots(config, params), from = read_slots(config, delta);
  for (size_t i = 0; i < to.size(); ++i)
    for (Index j = 0, count = element_count(to[i]); j < count; ++j) to[i].data[j] += s * from[i].data[j];
}

void set_zero(const ModelConfig& config, ModelParams& params) {
  for (const TensorSlot& slot : tensor_slots(config, params))
    std::fill(slot.data, slot.data + element_count(slot), Scalar(0));
}

}  // namespace attnlab
