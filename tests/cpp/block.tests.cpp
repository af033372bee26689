#include <catch2/catch.hpp>

#include "core/check.hpp"
#include "model/block.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {

// A one-layer model config shaped like the fixture's layer.
ModelConfig layer_config(const FixtureCase& f, Architecture architecture) {
  ModelConfig c;
  c.architecture = architecture;
  c.vocab_size = 4;
  c.n_ctx = 16;
  c.d_model = f.get<Index>("d_model");
  c.n_heads = f.get<Index>("n_heads");
  c.d_ff = f.get<Index>("d_ff");
  c.n_layers = 1;
  c.n_decoder_layers = 1;
  c.positional = Positional::none;
  c.activation = activation_from_string(f.get<std::string>("activation"));
  c.pre_norm = f.get<bool>("pre_norm");
  return c;
}

}  // namespace

TEST_CASE("encoder and decoder layers match PyTorch", "[block][oracle]") {
  for (const FixtureCase& f : load_fixture_cases("layers.json")) {
    if (f.kind == "encoder_layer") {
      DYNAMIC_SECTION(f.name) {
        const ModelConfig config = layer_config(f, Architecture::encoder_only);
        ModelParams params = ModelParams::init(config, 1);
        load_slots(tensor_slots(config, params), f, "h.0.");
        Trace trace;
        BlockContext ctx;
        ctx.trace = &trace;
        ctx.prefix = "layer0.";
        const Matrix y = block_forward(config, params.encoder.h[0], f.tensor("x"), ctx);
        CHECK_THAT(y, IsNear(f.tensor("y"), 1e-5));
        CHECK_THAT(trace.get("layer0.out"), IsNear(y, 0));
        for (const char* name : {"layer0.in", "layer0.ln_1", "layer0.attn.q", "layer0.attn.head1.weights",
                                 "layer0.attn.out", "layer0.residual_1", "layer0.ln_2", "layer0.mlp.hidden",
                                 "layer0.mlp.act", "layer0.mlp.out", "layer0.residual_2"})
          CHECK(trace.contains(name));
      }
    }
    if (f.kind == "decoder_layer") {
      DYNAMIC_SECTION(f.name) {
        const ModelConfig config = layer_config(f, Architecture::encoder_decoder);
        ModelParams params = ModelParams::init(config, 1);
        load_slots(tensor_slots(config, params), f, "decoder.h.0.");
        const Matrix memory = f.tensor("memory");
        const Mask causal = Mask::causal_mask();
        Trace trace;
        BlockContext ctx;
        ctx.self_mask = &causal;
        ctx.memory = &memory;
        ctx.trace = &trace;
        const Matrix y = block_forward(config, params.decoder.h[0], f.tensor("x"), ctx);
        CHECK_THAT(y, IsNear(f.tensor("y"), 1e-5));
        // cross-attention weights: one row per target position, one column per memory position
        CHECK(trace.get("cross.head3.weights").rows() == 4);
        CHECK(trace.get("cross.head3.weights").cols() == 6);
        CHECK(trace.get("attn.head0.weights")(0, 1) == 0.0f);
      }
    }
  }
}

TEST_CASE("pre-LN and post-LN differ only in where the norm sits", "[block]") {
  ModelConfig config;
  config.architecture = Architecture::encoder_only;
  config.vocab_size = 4;
  config.n_ctx = 8;
  config.d_model = 8;
  config.n_heads = 2;
  config.d_ff = 16;
  config.norm = Norm::rms_norm;
  const ModelParams params = ModelParams::init(config, 9);
  std::srand(2);
  const Matrix x = Matrix::Random(3, 8);
  BlockContext ctx;
  Trace trace;
  ctx.trace = &trace;
  const Matrix pre = block_forward(config, params.encoder.h[0], x, ctx);
  // pre-LN: the residual stream passes through untouched, so out = residual_1 + mlp.out
  CHECK_THAT(pre, IsNear(Matrix(trace.get("residual_1") + trace.get("mlp.out")), 1e-6));
  CHECK_THAT(trace.get("residual_1"), IsNear(Matrix(x + trace.get("attn.out")), 1e-6));

  config.pre_norm = false;
  const Matrix post = block_forward(config, params.encoder.h[0], x, ctx);
  // post-LN: the output is a normalised vector; with γ = 1 its root mean square is 1
  for (Index i = 0; i < 3; ++i) CHECK(std::abs(post.row(i).squaredNorm() / 8.0f - 1.0f) < 1e-4f);
  CHECK_THAT(trace.get("ln_2"), IsNear(post, 0));
}
