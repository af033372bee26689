// The theory page's minimal pre-LN Transformer block (T = 4 positions, d = 8, d_ff = 32, one head,
// tanh-GELU), on the engine: x ← x + Attn(LN₁(x)); x ← x + FFN(LN₂(x)).
#include <iostream>

#include "core/random.hpp"
#include "io/text.hpp"
#include "model/block.hpp"
#include "model/params.hpp"

using namespace attnlab;

int main() {
  // a block on its own: an encoder's, so no mask
  const ModelConfig config = ModelConfig::Builder(Architecture::encoder_only, 1, 4)
                                 .width(8, 1)
                                 .ffn(32)
                                 .positional(Positional::none)
                                 .activation(Activation::gelu_tanh)
                                 .pre_norm(true)
                                 .build();
  const ModelParams params = ModelParams::init(config, 42);

  Rng rng(42);
  Matrix x(4, 8);
  for (Index i = 0; i < x.size(); ++i) x.data()[i] = 0.1f * rng.normal();

  BlockActivations kept;
  BlockContext ctx;
  ctx.activations = &kept;
  const Matrix y = block_forward(config, params.encoder.h[0], x, ctx);
  std::cout << format_matrix("X (input)", x) << format_matrix("LN_1(X)", kept.ln_1)
            << format_matrix("attention weights", kept.attn.heads[0].weights)
            << format_matrix("X + Attn(LN_1(X))", kept.residual_1)
            << format_matrix("GELU hidden (first 8 of 32)", Matrix(kept.mlp.activated.leftCols(8)))
            << format_matrix("block output", y);
  return 0;
}
