#include <catch2/catch.hpp>

#include "core/check.hpp"
#include "model/block.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {

// A one-layer model config shaped like the fixture's layer.
ModelConfig layer_config(const FixtureCase& f, Architecture architecture) {
  return ModelConfig::Builder(architecture, 4, 16)
      .width(f.get<Index>("d_model"), f.get<Index>("n_heads"))
      .ffn(f.get<Index>("d_ff"))
      .layers(1)
      .positional(Positional::none)
      .activation(activation_from_string(f.get<std::string>("activation")))
      .pre_norm(f.get<bool>("pre_norm"))
      .build();
}

}  // namespace

TEST_CASE("encoder and decoder layers match PyTorch", "[block][oracle]") {
  for (const FixtureCase& f : load_fixture_cases("layers.json")) {
    if (f.kind == "encoder_layer") {
      DYNAMIC_SECTION(f.name) {
        const ModelConfig config = layer_config(f, Architecture::encoder_only);
        ModelParams params = ModelParams::init(config, 1);
        load_slots(tensor_slots(config, params), f, "h.0.");
        BlockActivations kept;
        BlockContext ctx;
        ctx.activations = &kept;
        const Matrix y = block_forward(config, params.encoder.h[0], f.tensor("x"), ctx);
        CHECK_THAT(y, IsNear(f.tensor("y"), 1e-5));
        CHECK_THAT(kept.out, IsNear(y, 0));
        CHECK_THAT(kept.in, IsNear(f.tensor("x"), 0));
        CHECK(kept.attn.heads.size() == static_cast<size_t>(config.n_heads));
        CHECK(kept.attn.heads[1].scaled.rows() == y.rows());  // every stage, by default
        for (const Matrix* m : {&kept.ln_1, &kept.attn.q, &kept.attn.output, &kept.residual_1, &kept.ln_2,
                                &kept.mlp.hidden, &kept.mlp.activated, &kept.mlp.output, &kept.residual_2})
          CHECK(m->rows() == y.rows());
      }
    }
    if (f.kind == "decoder_layer") {
      DYNAMIC_SECTION(f.name) {
        const ModelConfig config = layer_config(f, Architecture::encoder_decoder);
        ModelParams params = ModelParams::init(config, 1);
        load_slots(tensor_slots(config, params), f, "decoder.h.0.");
        const Matrix memory = f.tensor("memory");
        const Mask causal = Mask::causal_mask();
        BlockActivations kept;
        BlockContext ctx;
        ctx.self_mask = &causal;
        ctx.memory = &memory;
        ctx.activations = &kept;
        const Matrix y = block_forward(config, params.decoder.h[0], f.tensor("x"), ctx);
        CHECK_THAT(y, IsNear(f.tensor("y"), 1e-5));
        // cross-attention weights: one row per target position, one column per memory position
        CHECK(kept.cross.heads[3].weights.rows() == 4);
        CHECK(kept.cross.heads[3].weights.cols() == 6);
        CHECK(kept.attn.heads[0].weights(0, 1) == 0.0f);
      }
    }
  }
}

TEST_CASE("pre-LN and post-LN differ only in where the norm sits", "[block]") {
  ModelConfig config =
      ModelConfig::Builder(Architecture::encoder_only, 4, 8).width(8, 2).ffn(16).norm(Norm::rms_norm).build();
  const ModelParams params = ModelParams::init(config, 9);
  std::srand(2);
  const Matrix x = Matrix::Random(3, 8);
  BlockContext ctx;
  BlockActivations kept;
  ctx.activations = &kept;
  const Matrix pre = block_forward(config, params.encoder.h[0], x, ctx);
  // pre-LN: the residual stream passes through untouched, so out = residual_1 + mlp.out
  CHECK_THAT(pre, IsNear(Matrix(kept.residual_1 + kept.mlp.output), 1e-6));
  CHECK_THAT(kept.residual_1, IsNear(Matrix(x + kept.attn.output), 1e-6));

  config.pre_norm = false;
  const Matrix post = block_forward(config, params.encoder.h[0], x, ctx);
  // post-LN: the output is a normalised vector; with γ = 1 its root mean square is 1
  for (Index i = 0; i < 3; ++i) CHECK(std::abs(post.row(i).squaredNorm() / 8.0f - 1.0f) < 1e-4f);
  CHECK_THAT(kept.ln_2, IsNear(post, 0));
}
