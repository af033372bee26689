#include "model/transformer.hpp"

#include <string>

#include "core/check.hpp"
#include "core/learned_positions.hpp"
#include "core/linear.hpp"
#include "core/sinusoidal.hpp"
#include "model/block.hpp"

namespace attnlab {

Index KVCache::bytes() const {
  Index total = 0;
  for (const KVCacheLayer& layer : layers) total += layer.bytes();
  return total;
}

void KVCache::truncate(Index length) {
  for (KVCacheLayer& layer : layers)
    layer.truncate(length);
}

Transformer::Transformer(ModelConfig config, ModelParams params)
    : config_(std::move(config)), params_(std::move(params)) {
  validate_params(config_, params_);
}

Transformer Transformer::random(const ModelConfig& config, std::uint32_t seed, std::uint64_t max_bytes) {
  return Transformer(config, ModelParams::init(config, seed, max_bytes));
}

Matrix Transformer::embed(const std::vector<int>& tokens, Index pos0, StackActivations* kept) const {
  const Index n = static_cast<Index>(tokens.size());
  require(n >= 1, "model: the token sequence is empty");
  require(pos0 + n <= config_.n_ctx, "model: ", pos0 + n, " positions exceed the model's context of n_ctx = ",
          config_.n_ctx);
  Matrix x(n, config_.d_model);
  for (Index i = 0; i < n; ++i) {
    const int t = tokens[i];
    require(t >= 0 && t < config_.vocab_size,
            "model: token ", t, " at position ", pos0 + i, " is outside the vocabulary (size ", config_.vocab_size,
            ")");
    params_.wte.view().row(t, 0, config_.d_model, x.row(i).data());
  }
  if (kept) kept->embed_tokens = x;
  Matrix positions;
  if (config_.positional == Positional::learned) positions = learned_positions_lookup(params_.wpe, n, pos0);
  if (config_.positional == Positional::sinusoidal)
    positions = sinusoidal_table(pos0 + n, config_.d_model, config_.positional_base).bottomRows(n);
  if (positions.size()) x += positions;
  if (kept) {
    kept->embed_positions = std::move(positions);
    kept->embed_out = x;
  }
  return x;
}

Matrix Transformer::stack_forward(const StackParams& stack, Matrix x, BlockContext ctx, KVCache* cache,
                                  StackActivations* kept) const {
  if (kept) kept->layers.resize(stack.h.size());
  for (size_t i = 0; i < stack.h.size(); ++i) {
    ctx.activations = kept ? &kept->layers[i] : nullptr;
    ctx.cache = cache ? &cache->layers[i] : nullptr;
    x = block_forward(config_, stack.h[i], x, ctx);
  }
  if (config_.final_norm) {
    x = norm_forward(config_, stack.ln_f, x);
    if (kept) kept->ln_f = x;
  }
  return x;
}

Matrix Transformer::lm_head(const Matrix& hidden, ModelActivations* kept) const {
  // logits = h·Eᵀ with E the token embedding (tied) or a separate lm_head
  Matrix logits = linear_forward_transposed(hidden, config_.tie_embeddings ? params_.wte : params_.lm_head);
  // finite weights can still overflow the activations: refuse rather than hand out NaN
  require(logits.allFinite(),
          "model: the logits are not finite: the activations overflowed (the model's weights are too large)");
  if (kept) kept->logits = logits;
  return logits;
}

namespace {

// a stack's output, the LM head's input (or the memory of cross-attention)
const Matrix& stack_output(const ModelConfig& config, const StackActivations& kept) {
  return config.final_norm ? kept.ln_f : kept.layers.back().out;
}

void require_gradient_shapes(const ModelConfig& config, const ModelActivations& kept, const StackActivations& stack,
                             const ConstMatrixRef& dlogits, Index n) {
  require(kept.logits.size() > 0 && !stack.layers.empty(),
          "model backward: needs the activations of the forward pass");
  require_shape(dlogits, n, config.vocab_size, "model backward: dlogits");
  require_shape(dlogits, kept.logits.rows(), kept.logits.cols(),
                "model backward: dlogits (against the logits of the forward pass)");
}

// gradients flow through float weights only: 16-bit ones are kept to run a checkpoint
void require_float_weights(const ModelParams& params) {
  require(params.weight_dtype() == Dtype::f32, "model backward: the weights are kept as ", to_string(params.weight_dtype()),
          " values to run the model, not to train it (load the checkpoint with float weights to train it)");
}

// a decoder-only or encoder-only model's one stack
const StackParams& only_stack(const ModelConfig& config, const ModelParams& params) {
  return config.architecture == Architecture::decoder_only ? params.decoder : params.encoder;
}

}  // namespace

Matrix Transformer::lm_head_backward(const Matrix& hidden, const ConstMatrixRef& dlogits, ModelParams& grads) const {
  // logits = h·Eᵀ
  Matrix& dembedding = config_.tie_embeddings ? grads.wte : grads.lm_head;
  dembedding.noalias() += dlogits.transpose() * hidden;
  return dlogits * (config_.tie_embeddings ? params_.wte : params_.lm_head);
}

Matrix Transformer::stack_backward(const StackParams& stack, StackParams& grads, const StackActivations& kept,
                                   const Matrix* memory, Matrix dx, Matrix* dmemory) const {
  const Index layers = static_cast<Index>(stack.h.size());
  require(static_cast<Index>(kept.layers.size()) == layers,
          "model backward: the activations belong to another model");
  if (config_.final_norm) dx = norm_backward(config_, stack.ln_f, kept.layers.back().out, dx, grads.ln_f);
  for (Index i = layers - 1; i >= 0; --i)
    dx = block_backward(config_, stack.h[i], kept.layers[i], memory, dx, grads.h[i], dmemory);
  return dx;
}

void Transformer::embed_backward(const std::vector<int>& tokens, const ConstMatrixRef& dx, ModelParams& grads) const {
  // x_i = wte[t_i] (+ wpe[i])
  for (size_t i = 0; i < tokens.size(); ++i) grads.wte.row(tokens[i]) += dx.row(static_cast<Index>(i));
  if (config_.positional == Positional::learned) learned_positions_backward(dx, 0, grads.wpe);
}

void Transformer::backward(const std::vector<int>& tokens, const ModelActivations& kept,
                           const ConstMatrixRef& dlogits, ModelParams& grads) const {
  require_float_weights(params_);
  require(config_.architecture != Architecture::encoder_decoder,
          "model backward: an encoder-decoder model needs a source and a target sequence");
  const bool decoder = config_.architecture == Architecture::decoder_only;
  const StackActivations& stack = decoder ? kept.decoder : kept.encoder;
  require_gradient_shapes(config_, kept, stack, dlogits, static_cast<Index>(tokens.size()));
  const Matrix dhidden = lm_head_backward(stack_output(config_, stack), dlogits, grads);
  embed_backward(tokens, stack_backward(only_stack(config_, params_), decoder ? grads.decoder : grads.encoder, stack,
                                        nullptr, dhidden, nullptr), grads);
}

void Transformer::backward(const std::vector<int>& source, const std::vector<int>& target,
                           const ModelActivations& kept, const ConstMatrixRef& dlogits, ModelParams& grads) const {
  require_float_weights(params_);
  require(config_.architecture == Architecture::encoder_decoder,
          "model backward: source and target sequences are for encoder-decoder models");
  require_gradient_shapes(config_, kept, kept.decoder, dlogits, static_cast<Index>(target.size()));
  require(!kept.encoder.layers.empty(), "model backward: needs the activations of the forward pass");
  const Matrix& memory = stack_output(config_, kept.encoder);
  Matrix dmemory = Matrix::Zero(memory.rows(), memory.cols());
  const Matrix dhidden = lm_head_backward(stack_output(config_, kept.decoder), dlogits, grads);
  embed_backward(target, stack_backward(params_.decoder, grads.decoder, kept.decoder, &memory, dhidden, &dmemory),
                 grads);
  embed_backward(source, stack_backward(params_.encoder, grads.encoder, kept.encoder, nullptr, dmemory, nullptr),
                 grads);
}

namespace {

// marks what a forward of this model keeps, before it runs
ModelActivations* prepared(ModelActivations* kept, const ModelConfig& config) {
  if (kept) {
    kept->encoder_decoder = config.architecture == Architecture::encoder_decoder;
    kept->pre_norm = config.pre_norm;
  }
  return kept;
}

BlockContext block_context(const Mask* self_mask, const ModelActivations* kept) {
  BlockContext ctx;
  ctx.self_mask = self_mask;
  if (kept) ctx.detail = kept->detail;
  return ctx;
}

}  // namespace

Matrix Transformer::forward(const std::vector<int>& tokens, ModelActivations* kept, std::optional<bool> causal) const {
  require(config_.architecture != Architecture::encoder_decoder,
          "model: an encoder-decoder model needs a source and a target sequence");
  const bool decoder = config_.architecture == Architecture::decoder_only;
  const Mask mask = causal.value_or(decoder) ? Mask::causal_mask() : Mask::none();
  StackActivations* stack = prepared(kept, config_) ? (decoder ? &kept->decoder : &kept->encoder) : nullptr;
  const Matrix x = embed(tokens, 0, stack);
  return lm_head(stack_forward(only_stack(config_, params_), x, block_context(&mask, kept), nullptr, stack), kept);
}

Matrix Transformer::encode(const std::vector<int>& source, ModelActivations* kept) const {
  require(config_.architecture == Architecture::encoder_decoder,
          "model: encode() is for encoder-decoder models");
  const Mask none = Mask::none();
  StackActivations* stack = prepared(kept, config_) ? &kept->encoder : nullptr;
  return stack_forward(params_.encoder, embed(source, 0, stack), block_context(&none, kept), nullptr, stack);
}

Matrix Transformer::forward(const std::vector<int>& source, const std::vector<int>& target,
                            ModelActivations* kept, std::optional<bool> causal) const {
  const Matrix memory = encode(source, kept);
  const Mask mask = causal.value_or(true) ? Mask::causal_mask() : Mask::none();
  BlockContext ctx = block_context(&mask, kept);
  ctx.memory = &memory;
  StackActivations* stack = kept ? &kept->decoder : nullptr;
  const Matrix x = embed(target, 0, stack);
  return lm_head(stack_forward(params_.decoder, x, ctx, nullptr, stack), kept);
}

KVCache Transformer::new_cache() const {
  KVCache cache;
  cache.layers.resize(static_cast<size_t>(config_.decoder_layers()));
  return cache;
}

Matrix Transformer::forward_cached(const std::vector<int>& tokens, KVCache& cache, ModelActivations* kept) const {
  require(config_.architecture == Architecture::decoder_only,
          "model: the KV cache is for decoder-only models");
  require(cache.layers.size() == params_.decoder.h.size(),
          "model: the KV cache belongs to a model with another number of layers");
  StackActivations* stack = prepared(kept, config_) ? &kept->decoder : nullptr;
  const Index before = cache.length();
  try {
    const Matrix x = embed(tokens, before, stack);
    const Matrix hidden = stack_forward(params_.decoder, x, block_context(nullptr, kept), &cache, stack);
    // generation reads the last position's logits only: a prompt's other rows would cost a third
    // of a GPT-2 prefill; a trace keeps them all
    if (kept) return lm_head(hidden, kept).bottomRows(1);
    return lm_head(hidden.bottomRows(1), nullptr);
  } catch (...) {
    // all or nothing: the layers a failed call reached drop its rows, so every layer keeps one length
    cache.truncate(before);
    throw;
  }
}

}  // namespace attnlab
