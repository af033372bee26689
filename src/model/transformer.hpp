#pragma once
// Whole models: encoder-only (BERT-style), decoder-only (GPT-style) and encoder-decoder.
#include <cstdint>
#include <vector>

#include "core/multi_head_attention.hpp"
#include "model/block.hpp"
#include "model/config.hpp"
#include "model/params.hpp"
#include "model/trace.hpp"

namespace attnlab {

// Keys and values of every decoder layer for incremental decoding.
struct KVCache {
  std::vector<KVCacheLayer> layers;

  Index length() const { return layers.empty() ? 0 : layers.front().length(); }
  // 2 (K and V) · L · n · g·d_k · sizeof(float): what the cache holds, in bytes
  Index bytes() const;
};

class Transformer {
 public:
  // validates the config and that params has exactly its tensors, all finite
  Transformer(ModelConfig config, ModelParams params);
  // a model with freshly initialised, seeded parameters
  static Transformer random(const ModelConfig& config, std::uint32_t seed);

  const ModelConfig& config() const { return config_; }
  const ModelParams& params() const { return params_; }

  // logits = LMHead(ln_f(Blocks(Embed(tokens))))   tokens:(n) → (n, vocab)
  // causal for decoder-only, bidirectional for encoder-only
  Matrix forward(const std::vector<int>& tokens, Trace* trace = nullptr) const;

  // encoder-decoder: memory = Encoder(source); logits = LMHead(Decoder(target, memory))
  //   source:(m) target:(n) → (n, vocab)
  Matrix forward(const std::vector<int>& source, const std::vector<int>& target,
                 Trace* trace = nullptr) const;

  // the encoder's output, ln_f included   source:(m) → (m, d)
  Matrix encode(const std::vector<int>& source, Trace* trace = nullptr) const;

  // decoder-only, incremental: logits for tokens at positions cache.length() …, which are
  // appended to the cache; equals the matching rows of forward() on the whole sequence
  Matrix forward_cached(const std::vector<int>& tokens, KVCache& cache, Trace* trace = nullptr) const;
  KVCache new_cache() const;

 private:
  Matrix embed(const std::vector<int>& tokens, Index pos0, Trace* trace, const std::string& prefix) const;
  Matrix stack_forward(const StackParams& stack, Matrix x, BlockContext ctx, KVCache* cache,
                       const std::string& prefix) const;
  Matrix lm_head(const Matrix& hidden, Trace* trace) const;

  ModelConfig config_;
  ModelParams params_;
};

}  // namespace attnlab
