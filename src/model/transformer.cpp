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

namespace {

// the name under which a stack's output (the LM head's input) was traced
std::string stack_output_name(const ModelConfig& config, Index layers, const std::string& prefix) {
  return config.final_norm ? prefix + "ln_f" : prefix + "layer" + std::to_string(layers - 1) + ".out";
}

void require_gradient_shapes(const ModelConfig& config, const Trace& trace, const ConstMatrixRef& dlogits,
                             Index n) {
  require(trace.contains("logits"), "model backward: needs the trace of the forward pass");
  require_shape(dlogits, n, config.vocab_size, "model backward: dlogits");
  require_shape(dlogits, trace.get("logits").rows(), trace.get("logits").cols(),
                "model backward: dlogits (against the traced logits)");
}

}  // namespace

Matrix Transformer::lm_head_backward(const Trace& trace, const StackParams& stack, const std::string& prefix,
                                     const ConstMatrixRef& dlogits, ModelParams& grads) const {
  const Matrix& hidden = trace.get(stack_output_name(config_, static_cast<Index>(stack.h.size()), prefix));
  // logits = h·Eᵀ
  Matrix& dembedding = config_.tie_embeddings ? grads.wte : grads.lm_head;
  dembedding.noalias() += dlogits.transpose() * hidden;
  return dlogits * (config_.tie_embeddings ? params_.wte : params_.lm_head);
}

Matrix Transformer::stack_backward(const StackParams& stack, StackParams& grads, const Trace& trace,
                                   const std::string& prefix, const Matrix* memory, Matrix dx,
                                   Matrix* dmemory) const {
  const Index layers = static_cast<Index>(stack.h.size());
  if (config_.final_norm)
    dx = norm_backward(config_, stack.ln_f, trace.get(prefix + "layer" + std::to_string(layers - 1) + ".out"),
                       dx, grads.ln_f);
  for (Index i = layers - 1; i >= 0; --i)
    dx = block_backward(config_, stack.h[i], trace, prefix + "layer" + std::to_string(i) + ".", memory, dx,
                        grads.h[i], dmemory);
  return dx;
}

void Transformer::embed_backward(const std::vector<int>& tokens, const ConstMatrixRef& dx, ModelParams& grads) const {
  // x_i = wte[t_i] (+ wpe[i])
  for (size_t i = 0; i < tokens.size(); ++i) grads.wte.row(tokens[i]) += dx.row(static_cast<Index>(i));
  if (config_.positional == Positional::learned) learned_positions_backward(dx, 0, grads.wpe);
}

void Transformer::backward(const std::vector<int>& tokens, const Trace& trace, const ConstMatrixRef& dlogits,
                           ModelParams& grads) const {
  require(config_.architecture != Architecture::encoder_decoder,
          "model backward: an encoder-decoder model needs a source and a target sequence");
  require_gradient_shapes(config_, trace, dlogits, static_cast<Index>(tokens.size()));
  const bool decoder = config_.architecture == Architecture::decoder_only;
  const StackParams& stack = decoder ? params_.decoder : params_.encoder;
  const Matrix dhidden = lm_head_backward(trace, stack, "", dlogits, grads);
  embed_backward(tokens, stack_backward(stack, decoder ? grads.decoder : grads.encoder, trace, "", nullptr,
                                        dhidden, nullptr), grads);
}

void Transformer::backward(const std::vector<int>& source, const std::vector<int>& target, const Trace& trace,
                           const ConstMatrixRef& dlogits, ModelParams& grads) const {
  require(config_.architecture == Architecture::encoder_decoder,
          "model backward: source and target sequences are for encoder-decoder models");
  require_gradient_shapes(config_, trace, dlogits, static_cast<Index>(target.size()));
  const Index encoder_layers = static_cast<Index>(params_.encoder.h.size());
  const Matrix& memory = trace.get(stack_output_name(config_, encoder_layers, "encoder."));
  Matrix dmemory = Matrix::Zero(memory.rows(), memory.cols());
  const Matrix dhidden = lm_head_backward(trace, params_.decoder, "decoder.", dlogits, grads);
  embed_backward(target, stack_backward(params_.decoder, grads.decoder, trace, "decoder.", &memory, dhidden,
                                        &dmemory), grads);
  embed_backward(source, stack_backward(params_.encoder, grads.encoder, trace, "encoder.", nullptr, dmemory,
                                        nullptr), grads);
}

Matrix Transformer::forward(const std::vector<int>& tokens, Trace* trace, std::optional<bool> causal) const {
  require(config_.architecture != Architecture::encoder_decoder,
          "model: an encoder-decoder model needs a source and a target sequence");
  const bool decoder = config_.architecture == Architecture::decoder_only;
  const Mask mask = causal.value_or(decoder) ? Mask::causal_mask() : Mask::none();
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
                            Trace* trace, std::optional<bool> causal) const {
  const Matrix memory = encode(source, trace);
  const Mask mask = causal.value_or(true) ? Mask::causal_mask() : Mask::none();
  BlockContext ctx;
  ctx.self_mask = &mask;
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
