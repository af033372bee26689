#pragma once
// Whole models: encoder-only (BERT-style), decoder-only (GPT-style) and encoder-decoder.
#include <cstdint>
#include <optional>
#include <vector>

#include "core/multi_head_attention.hpp"
#include "model/block.hpp"
#include "model/config.hpp"
#include "model/params.hpp"

namespace attnlab {

// What a forward pass keeps of one stack of blocks (the encoder or the decoder), in order.
struct StackActivations {
  Matrix embed_tokens;      // (n,d) the tokens' embedding rows
  Matrix embed_positions;   // (n,d) the learned or sinusoidal positions added (none otherwise)
  Matrix embed_out;         // (n,d) their sum, the first block's input
  std::vector<BlockActivations> layers;
  Matrix ln_f;              // (n,d) the final norm's output, when the model has one
};

// What a forward pass keeps, as typed fields: Transformer::backward reads them, and Trace names
// them for the page. Set `detail` before the forward: every stage of every head (the page), or
// only what the backward reads (training, which reuses one of these for every example).
struct ModelActivations {
  TraceDetail detail = TraceDetail::every_stage;
  bool encoder_decoder = false;  // set by the forward: which stacks hold what
  bool pre_norm = true;
  StackActivations encoder;      // encoder-only models and the encoder of encoder-decoders
  StackActivations decoder;      // decoder-only models and the decoder of encoder-decoders
  Matrix logits;                 // (n, vocab)
};

// Keys and values of every decoder layer for incremental decoding.
struct KVCache {
  std::vector<KVCacheLayer> layers;

  Index length() const { return layers.empty() ? 0 : layers.front().length(); }
  // drops the positions past `length` in every layer
  void truncate(Index length);
  // 2 (K and V) · L · n · g·d_k · sizeof(Scalar): what the cache holds, in bytes
  Index bytes() const;
};

class Transformer {
 public:
  // validates the config and that params has exactly its tensors, all finite
  Transformer(ModelConfig config, ModelParams params);
  // a model with freshly initialised, seeded parameters, refused when they need more than max_bytes
  static Transformer random(const ModelConfig& config, std::uint32_t seed,
                            std::uint64_t max_bytes = kDefaultMaxParameterBytes);

  const ModelConfig& config() const { return config_; }
  const ModelParams& params() const { return params_; }

  // logits = LMHead(ln_f(Blocks(Embed(tokens))))   tokens:(n) → (n, vocab)
  // Every forward throws rather than return a non-finite logit (finite weights can overflow).
  // Self-attention is causal for decoder-only and bidirectional for encoder-only; `causal` overrides
  // the architecture's choice (false lifts a decoder's mask, so positions see the future; true
  // gives an encoder one). Every forward fills `activations`, when given, with what it keeps.
  Matrix forward(const std::vector<int>& tokens, ModelActivations* activations = nullptr,
                 std::optional<bool> causal = std::nullopt) const;

  // encoder-decoder: memory = Encoder(source); logits = LMHead(Decoder(target, memory))
  //   source:(m) target:(n) → (n, vocab); the decoder's self-attention is causal unless `causal`
  //   is false (the encoder always sees the whole source)
  Matrix forward(const std::vector<int>& source, const std::vector<int>& target,
                 ModelActivations* activations = nullptr, std::optional<bool> causal = std::nullopt) const;

  // the encoder's output, ln_f included   source:(m) → (m, d)
  Matrix encode(const std::vector<int>& source, ModelActivations* activations = nullptr) const;

  // decoder-only, incremental: the tokens at positions cache.length() … are appended to the cache;
  // returns the last one's logits (1 × vocab), equal to that row of forward() on the whole
  // sequence (every new token's in activations->logits when kept). A call that throws leaves the
  // cache as it was.
  Matrix forward_cached(const std::vector<int>& tokens, KVCache& cache, ModelActivations* activations = nullptr) const;
  KVCache new_cache() const;

  // Gradients of a loss through the model, given dL/dlogits and the activations of the forward
  // that produced the logits (either detail); differentiates forward() line by line: the LM head,
  // ln_f, the blocks from last to first, the embeddings. Gradients accumulate into grads (see
  // ModelParams::zeros).
  //   tokens:(n) dlogits:(n, vocab)
  void backward(const std::vector<int>& tokens, const ModelActivations& activations, const ConstMatrixRef& dlogits,
                ModelParams& grads) const;
  // encoder-decoder: the decoder, then the encoder through the memory   source:(m) target:(n)
  void backward(const std::vector<int>& source, const std::vector<int>& target, const ModelActivations& activations,
                const ConstMatrixRef& dlogits, ModelParams& grads) const;

  // the parameters for an optimiser to update in place; it must keep every shape
  ModelParams& mutable_params() { return params_; }

 private:
  Matrix embed(const std::vector<int>& tokens, Index pos0, StackActivations* kept) const;
  Matrix stack_forward(const StackParams& stack, Matrix x, BlockContext ctx, KVCache* cache,
                       StackActivations* kept) const;
  Matrix lm_head(const Matrix& hidden, ModelActivations* kept) const;
  Matrix lm_head_backward(const Matrix& hidden, const ConstMatrixRef& dlogits, ModelParams& grads) const;
  Matrix stack_backward(const StackParams& stack, StackParams& grads, const StackActivations& kept,
                        const Matrix* memory, Matrix dx, Matrix* dmemory) const;
  void embed_backward(const std::vector<int>& tokens, const ConstMatrixRef& dx, ModelParams& grads) const;

  ModelConfig config_;
  ModelParams params_;
};

}  // namespace attnlab
