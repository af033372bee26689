#include "model/transformer.hpp"

#include <string>

#include "core/check.hpp"
#include "core/learned_positions.hpp"
#include "core/sinusoidal.hpp"
#include "model/block.hpp"

namespace attnlab {

Index KVCache::bytes() const {
  Index total = 0;
  for (const KVCacheLayer& layer : layers) total += layer.bytes();
  return total;
}

Transformer::Transformer(ModelConfig config, ModelParams params)
    : config_(std::move(config)), params_(std::move(params)) {
  validate_params(config_, params_);
}

Transformer Transformer::random(const ModelConfig& config, std::uint32_t seed) {
  return Transformer(config, ModelParams::init(config, seed));
}

Matrix Transformer::embed(const std::vector<int>& tokens, Index pos0, Trace* trace,
                          const std::string& prefix) const {
  const Index n = static_cast<Index>(tokens.size());
  require(n >= 1, "model: the token sequence is empty");
  require(pos0 + n <= config_.n_ctx, "model: " + std::to_string(pos0 + n) +
                                         " positions exceed the model's context of n_ctx = " +
                                         std::to_string(config_.n_ctx));
  Matrix x(n, config_.d_model);
  for (Index i = 0; i < n; ++i) {
    const int t = tokens[i];
    require(t >= 0 && t < config_.vocab_size,
            "model: token " + std::to_string(t) + " at position " + std::to_string(pos0 + i) +
                " is outside the vocabulary (size " + std::to_string(config_.vocab_size) + ")");
    x.row(i) = params_.wte.row(t);
  }
  if (trace) trace->record(prefix + "embed.tokens", x);
  Matrix positions;
  if (config_.positional == Positional::learned) positions = learned_positions_lookup(params_.wpe, n, pos0);
  if (config_.positional == Positional::sinusoidal)
    positions = sinusoidal_table(pos0 + n, config_.d_model, config_.positional_base).bottomRows(n);
  if (positions.size()) {
    x += positions;
    if (trace) trace->record(prefix + "embed.positions", positions);
  }
  if (trace) trace->record(prefix + "embed.out", x);
  return x;
}

Matrix Transformer::stack_forward(const StackParams& stack, Matrix x, BlockContext ctx,
                                  KVCache* cache, const std::string& prefix) const {
  for (size_t i = 0; i < stack.h.size(); ++i) {
    ctx.prefix = prefix + "layer" + std::to_string(i) + ".";
    ctx.cache = cache ? &cache->layers[i] : nullptr;
    x = block_forward(config_, stack.h[i], x, ctx);
  }
  if (config_.final_norm) {
    x = norm_forward(config_, stack.ln_f, x);
    if (ctx.trace) ctx.trace->record(prefix + "ln_f", x);
  }
  return x;
}

Matrix Transformer::lm_head(const Matrix& hidden, Trace* trace) const {
  // logits = h·Eᵀ with E the token embedding (tied) or a separate lm_head
  Matrix logits = hidden * (config_.tie_embeddings ? params_.wte : params_.lm_head).transpose();
  if (trace) trace->record("logits", logits);
  return logits;
}

Matrix Transformer::forward(const std::vector<int>& tokens, Trace* trace) const {
  require(config_.architecture != Architecture::encoder_decoder,
          "model: an encoder-decoder model needs a source and a target sequence");
  const bool decoder = config_.architecture == Architecture::decoder_only;
  const Mask mask = decoder ? Mask::causal_mask() : Mask::none();
  BlockContext ctx;
  ctx.self_mask = &mask;
  ctx.trace = trace;
  const Matrix x = embed(tokens, 0, trace, "");
  return lm_head(stack_forward(decoder ? params_.decoder : params_.encoder, x, ctx, nullptr, ""), trace);
}

Matrix Transformer::encode(const std::vector<int>& source, Trace* trace) const {
  require(config_.architecture == Architecture::encoder_decoder,
          "model: encode() is for encoder-decoder models");
  const Mask none = Mask::none();
  BlockContext ctx;
  ctx.self_mask = &none;
  ctx.trace = trace;
  return stack_forward(params_.encoder, embed(source, 0, trace, "encoder."), ctx, nullptr, "encoder.");
}

Matrix Transformer::forward(const std::vector<int>& source, const std::vector<int>& target,
                            Trace* trace) const {
  const Matrix memory = encode(source, trace);
  const Mask causal = Mask::causal_mask();
  BlockContext ctx;
  ctx.self_mask = &causal;
  ctx.memory = &memory;
  ctx.trace = trace;
  const Matrix x = embed(target, 0, trace, "decoder.");
  return lm_head(stack_forward(params_.decoder, x, ctx, nullptr, "decoder."), trace);
}

KVCache Transformer::new_cache() const {
  KVCache cache;
  cache.layers.resize(static_cast<size_t>(config_.decoder_layers()));
  return cache;
}

Matrix Transformer::forward_cached(const std::vector<int>& tokens, KVCache& cache, Trace* trace) const {
  require(config_.architecture == Architecture::decoder_only,
          "model: the KV cache is for decoder-only models");
  require(cache.layers.size() == params_.decoder.h.size(),
          "model: the KV cache belongs to a model with another number of layers");
  BlockContext ctx;
  ctx.trace = trace;
  const Matrix x = embed(tokens, cache.length(), trace, "");
  return lm_head(stack_forward(params_.decoder, x, ctx, &cache, ""), trace);
}

}  // namespace attnlab
