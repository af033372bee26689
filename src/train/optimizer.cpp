#include "train/optimizer.hpp"

#include <algorithm>
#include <cmath>

#include "core/check.hpp"
#include "core/thread_pool.hpp"

namespace attnlab {
namespace {

// the spans of a parameter set that is only read
std::vector<TensorSpan> read_spans(const ModelConfig& config, const ModelParams& params) {
  return tensor_spans(config, const_cast<ModelParams&>(params));
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
  // everything that can fail comes before the first change: a step is taken whole or not at all
  const std::vector<TensorSpan> theta = tensor_spans(config_, params), g = read_spans(config_, grads),
                                m = tensor_spans(config_, m_), v = tensor_spans(config_, v_);
  const double t = static_cast<double>(steps_ + 1);
  const Scalar bias1 = static_cast<Scalar>(1 - std::pow(static_cast<double>(options_.beta1), t));
  const Scalar bias2 = static_cast<Scalar>(1 - std::pow(static_cast<double>(options_.beta2), t));
  const Scalar b1 = options_.beta1, b2 = options_.beta2, lr = learning_rate;
  // every element's update is its own, so the threads share out whole tensors
  parallel_for(static_cast<Index>(theta.size()), [&](Index t) {
    const size_t i = static_cast<size_t>(t);
    const Scalar decay = theta[i].matrix ? lr * options_.weight_decay : Scalar(0);
    for (Index j = 0; j < theta[i].size; ++j) {
      const Scalar grad = g[i].data[j];
      m[i].data[j] = b1 * m[i].data[j] + (1 - b1) * grad;
      v[i].data[j] = b2 * v[i].data[j] + (1 - b2) * grad * grad;
      theta[i].data[j] -= decay * theta[i].data[j];
      theta[i].data[j] -= lr * (m[i].data[j] / bias1) / (std::sqrt(v[i].data[j] / bias2) + options_.epsilon);
    }
  });
  ++steps_;
}

Scalar clip_gradient_norm(const ModelConfig& config, ModelParams& grads, Scalar max_norm) {
  require(std::isfinite(max_norm) && max_norm > 0, "gradient clipping: the largest norm must be a positive number");
  double sum = 0;
  const std::vector<TensorSpan> spans = tensor_spans(config, grads);
  for (const TensorSpan& span : spans)
    for (Index j = 0; j < span.size; ++j) sum += static_cast<double>(span.data[j]) * span.data[j];
  const Scalar norm = static_cast<Scalar>(std::sqrt(sum));
  if (norm > max_norm) {
    const Scalar scale = max_norm / norm;
    for (const TensorSpan& span : spans) std::for_each(span.data, span.data + span.size, [&](Scalar& x) { x *= scale; });
  }
  return norm;
}

void add_gradient(const ModelConfig& config, ModelParams& sum, const ModelParams& part) {
  const std::vector<TensorSpan> to = tensor_spans(config, sum);
  const std::vector<TensorSpan> from = read_spans(config, part);
  parallel_for(static_cast<Index>(to.size()), [&](Index t) {
    const size_t i = static_cast<size_t>(t);
    for (Index j = 0; j < to[i].size; ++j) to[i].data[j] += from[i].data[j];
  });
}

void set_zero(const ModelConfig& config, ModelParams& params) {
  for (const TensorSpan& span : tensor_spans(config, params)) std::fill(span.data, span.data + span.size, Scalar(0));
}

}  // namespace attnlab
