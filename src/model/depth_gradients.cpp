#include "model/depth_gradients.hpp"

#include <cmath>
#include <string>

#include "core/check.hpp"
#include "core/mask.hpp"
#include "core/random.hpp"
#include "model/block.hpp"
#include "model/params.hpp"

namespace attnlab {
namespace {

constexpr Index kHeadWidth = 16;

// √(Σ ‖t‖²) over the tensors of block l in a gradient set
double block_norm(const ModelConfig& config, ModelParams& grads, Index l) {
  const std::string prefix = "h." + std::to_string(l) + ".";
  double sum = 0;
  for (const TensorSlot& slot : tensor_slots(config, grads)) {
    if (slot.name.compare(0, prefix.size(), prefix) != 0) continue;
    std::int64_t count = 1;
    for (auto extent : slot.shape) count *= extent;
    for (std::int64_t i = 0; i < count; ++i) sum += double(slot.data[i]) * double(slot.data[i]);
  }
  return std::sqrt(sum);
}

}  // namespace

DepthGradients depth_gradients(const DepthGradientOptions& o) {
  require(o.layers >= 1 && o.layers <= 96, "depth gradients: layers must be 1 … 96, got ", o.layers);
  require(o.d_model >= kHeadWidth && o.d_model <= 512 && o.d_model % kHeadWidth == 0,
          "depth gradients: d_model must be a multiple of 16 in 16 … 512, got ", o.d_model);
  require(o.length >= 1 && o.length <= 512, "depth gradients: length must be 1 … 512, got ", o.length);

  const ModelConfig config = ModelConfig::Builder(Architecture::decoder_only, /*vocab_size=*/1, o.length)
                                 .width(o.d_model, o.d_model / kHeadWidth)
                                 .ffn(4 * o.d_model)
                                 .layers(o.layers)
                                 .norm(o.norm)
                                 .pre_norm(o.pre_norm)
                                 .residual(o.residual)
                                 .final_norm(false)
                                 .build();
  const ModelParams params = ModelParams::init(config, o.seed);
  ModelParams grads = ModelParams::zeros(config);

  Rng rng(o.seed ^ 0x5bd1e995u);
  Matrix x = draw_normal(o.length, o.d_model, rng);
  const Matrix pull = draw_normal(o.length, o.d_model, rng);

  DepthGradients out;
  out.input_gradient_norms.resize(o.layers + 1);
  out.parameter_gradient_norms.resize(o.layers);
  out.activation_norms.resize(o.layers + 1);
  const Mask causal = Mask::causal_mask();
  std::vector<BlockActivations> kept(static_cast<size_t>(o.layers));
  for (Index l = 0; l < o.layers; ++l) {
    out.activation_norms(l) = x.norm();
    BlockContext ctx;
    ctx.self_mask = &causal;
    ctx.activations = &kept[static_cast<size_t>(l)];
    ctx.detail = TraceDetail::for_backward;
    x = block_forward(config, params.decoder.h[l], x, ctx);
  }
  out.activation_norms(o.layers) = x.norm();

  Matrix dx = pull;  // ∂ℒ/∂x_L
  out.input_gradient_norms(o.layers) = dx.norm();
  for (Index l = o.layers - 1; l >= 0; --l) {
    dx = block_backward(config, params.decoder.h[l], kept[static_cast<size_t>(l)], nullptr, dx, grads.decoder.h[l]);
    out.input_gradient_norms(l) = dx.norm();
    out.parameter_gradient_norms(l) = static_cast<Scalar>(block_norm(config, grads, l));
  }
  return out;
}

}  // namespace attnlab
