// Blocks and whole models: every parameter's gradient against central finite differences of the
// loss, in double, across architectures, norms, activations and positional schemes.
#include <catch2/catch.hpp>

#include "core/cross_entropy.hpp"
#include "gradient_check.hpp"
#include "model/block.hpp"
#include "model/transformer.hpp"

using namespace attnlab;
using attnlab::test::check_gradient;
using attnlab::test::projected;
using attnlab::test::random_matrix;

namespace {

// a two-layer model of width 8 in two heads, for each test to vary and build
ModelConfig::Builder tiny_config(Architecture architecture) {
  return ModelConfig::Builder(architecture, 11, 8).width(8, 2).ffn(12).layers(2);
}

// every weight scaled up and every bias and gain moved off its initial value, so that no term of
// the backward pass is multiplied by a near-zero and escapes the check
ModelParams lively_params(const ModelConfig& config, std::uint32_t seed) {
  ModelParams p = ModelParams::init(config, seed);
  Rng rng(seed + 1);
  for (TensorSlot& slot : tensor_slots(config, p)) {
    Index count = 1;
    for (auto s : slot.shape) count *= s;
    const bool matrix = slot.shape.size() == 2;
    for (Index i = 0; i < count; ++i)
      slot.data[i] = matrix ? slot.data[i] * 25.0 : slot.data[i] + rng.normal(0.0f, 0.3f);
  }
  return p;
}

void check_all_parameters(const ModelConfig& config, Transformer& model, const ModelParams& grads,
                          const std::function<double()>& loss) {
  ModelParams& params = model.mutable_params();
  ModelParams& g = const_cast<ModelParams&>(grads);  // slots are only read
  const std::vector<TensorSlot> theta = tensor_slots(config, params), dtheta = tensor_slots(config, g);
  REQUIRE(theta.size() == dtheta.size());
  for (size_t i = 0; i < theta.size(); ++i) {
    Index count = 1;
    for (auto s : theta[i].shape) count *= s;
    const double worst = attnlab::test::worst_gradient_error(theta[i].data, dtheta[i].data, count, loss);
    INFO("gradient of " << theta[i].name << ": worst relative difference " << worst);
    CHECK(worst < 1e-6);
  }
}

}  // namespace

TEST_CASE("block backward", "[gradients]") {
  Rng rng(20);
  const bool pre_norm = GENERATE(true, false);
  const Norm norm = GENERATE(Norm::layer_norm, Norm::rms_norm, Norm::none);
  const bool cross = GENERATE(false, true);
  const bool residual = GENERATE(true, false);
  const ModelConfig config =
      tiny_config(Architecture::encoder_decoder).pre_norm(pre_norm).norm(norm).residual(residual).build();
  const ModelParams init = lively_params(config, 21);
  BlockParams p = init.decoder.h[0];
  BlockParams g = ModelParams::zeros(config).decoder.h[0];
  Matrix x = random_matrix(5, 8, rng), memory = random_matrix(6, 8, rng);
  const Matrix r = random_matrix(5, 8, rng);
  const Mask causal = Mask::causal_mask();
  const TraceDetail detail = GENERATE(TraceDetail::every_stage, TraceDetail::for_backward);
  const auto run = [&](BlockActivations* kept) {
    BlockContext ctx;
    ctx.self_mask = &causal;
    ctx.memory = cross ? &memory : nullptr;
    ctx.activations = kept;
    ctx.detail = detail;
    return block_forward(config, p, x, ctx);
  };
  BlockActivations kept;
  run(&kept);
  Matrix dmemory = Matrix::Zero(6, 8);
  const Matrix dx = block_backward(config, p, kept, cross ? &memory : nullptr, r, g, &dmemory);
  const auto loss = [&] { return projected(run(nullptr), r); };
  INFO((config.pre_norm ? "pre-" : "post-") << to_string(config.norm) << (cross ? " with cross-attention" : "")
                                            << (config.residual ? "" : ", no residual connections")
                                            << (detail == TraceDetail::for_backward ? ", weights only" : ""));
  check_gradient("x", x, dx, loss);
  if (cross) check_gradient("memory", memory, dmemory, loss);
  check_gradient("ln_1.weight", p.ln_1.weight, g.ln_1.weight, loss);
  check_gradient("attn.c_attn.weight", p.attn.c_attn_weight, g.attn.c_attn_weight, loss);
  check_gradient("mlp.c_fc.weight", p.mlp.c_fc_weight, g.mlp.c_fc_weight, loss);
  check_gradient("ln_2.weight", p.ln_2.weight, g.ln_2.weight, loss);
  if (cross) check_gradient("crossattention.c_attn.weight", p.crossattention.c_attn_weight, g.crossattention.c_attn_weight, loss);
}

TEST_CASE("model backward: every parameter", "[gradients]") {
  ModelConfig config;
  SECTION("GPT-2 shape: learned positions, pre-LN, tanh-GELU, tied head") {
    config = tiny_config(Architecture::decoder_only).activation(Activation::gelu_tanh).build();
  }
  SECTION("LLaMA shape: RoPE, RMSNorm, SwiGLU, GQA, untied head") {
    config = tiny_config(Architecture::decoder_only)
                 .width(8, 4)
                 .kv_heads(2)
                 .positional(Positional::rope)
                 .norm(Norm::rms_norm)
                 .activation(Activation::swiglu)
                 .tie_embeddings(false)
                 .build();
  }
  SECTION("ALiBi, post-LN, ReLU, no final norm") {
    config = tiny_config(Architecture::decoder_only)
                 .positional(Positional::alibi)
                 .pre_norm(false)
                 .final_norm(false)
                 .activation(Activation::relu)
                 .build();
  }
  SECTION("encoder-only, sinusoidal, exact GELU") {
    config = tiny_config(Architecture::encoder_only).positional(Positional::sinusoidal).build();
  }
  SECTION("encoder-decoder, learned positions") { config = tiny_config(Architecture::encoder_decoder).build(); }
  INFO(to_string(config.architecture) << ", " << to_string(config.positional));
  Transformer model(config, lively_params(config, 30));
  const std::vector<int> source = {3, 9, 4, 1, 10}, tokens = {2, 7, 7, 1, 5, 10};
  const std::vector<int> targets = {7, 7, -1, 5, 10, 3};
  const bool seq2seq = config.architecture == Architecture::encoder_decoder;
  const auto logits_of = [&](ModelActivations* kept) {
    return seq2seq ? model.forward(source, tokens, kept) : model.forward(tokens, kept);
  };
  ModelActivations kept;
  kept.detail = TraceDetail::for_backward;  // as training keeps them
  const Matrix logits = logits_of(&kept);
  const double count = static_cast<double>(cross_entropy_forward(logits, targets).targets);
  const Matrix dlogits = cross_entropy_backward(logits, targets, 1.0 / count);
  ModelParams grads = ModelParams::zeros(config);
  if (seq2seq)
    model.backward(source, tokens, kept, dlogits, grads);
  else
    model.backward(tokens, kept, dlogits, grads);
  check_all_parameters(config, model, grads, [&] { return cross_entropy_forward(logits_of(nullptr), targets).loss_sum / count; });
}

TEST_CASE("model backward refuses what it cannot use", "[gradients]") {
  const ModelConfig config = tiny_config(Architecture::decoder_only).build();
  const Transformer model(config, ModelParams::init(config, 1));
  ModelParams grads = ModelParams::zeros(config);
  ModelActivations kept;
  const std::vector<int> tokens = {1, 2, 3};
  CHECK_THROWS_WITH(model.backward(tokens, kept, Matrix::Zero(3, 11), grads), Catch::Contains("activations of the forward"));
  model.forward(tokens, &kept);
  CHECK_THROWS_WITH(model.backward(tokens, kept, Matrix::Zero(2, 11), grads), Catch::Contains("dlogits"));
  CHECK_THROWS_WITH(model.backward({1, 2}, kept, Matrix::Zero(2, 11), grads), Catch::Contains("dlogits"));
}
