#pragma once
// Turning logits into tokens: greedy, temperature, top-k and top-p (nucleus) sampling, and the
// generation loops: a decoder-only model feeds each new token back through the KV cache, an
// encoder-decoder runs its decoder on the output so far against the encoded source.
#include <cstdint>
#include <optional>
#include <vector>

#include "core/random.hpp"
#include "core/tensor.hpp"
#include "model/transformer.hpp"

namespace attnlab {

struct SamplingOptions {
  float temperature = 1.0f;          // 0 means greedy (argmax); must be finite and ≥ 0
  std::optional<Index> top_k;        // keep only the k most likely tokens; 1 ≤ k ≤ vocab
  std::optional<float> top_p;        // then only the most likely tokens whose mass reaches p; 0 < p ≤ 1
  std::uint32_t seed = 0;            // the random stream of a generation
};

// throws attnlab::Error unless temperature is finite and ≥ 0, 1 ≤ top_k ≤ vocab and 0 < top_p ≤ 1
void validate_sampling(const SamplingOptions& options, Index vocab);

// p = softmax(logits / T) restricted to the top-k logits (others 0); T = 0 puts all mass on the
// argmax. With top_p, p is then cut to its nucleus: the fewest most likely tokens (ties: lower id
// first) whose probabilities sum to at least top_p, renormalised   logits:(vocab) → (vocab)
RowVector next_token_probabilities(const RowVector& logits, const SamplingOptions& options);

// the argmax for T = 0, otherwise a draw from next_token_probabilities
int sample_token(const RowVector& logits, const SamplingOptions& options, Rng& rng);

// prompt followed by up to max_new tokens, each sampled from the last position's logits and fed
// back through the KV cache; stops after `stop` when it is given (≥ 0), and at n_ctx tokens
std::vector<int> generate(const Transformer& model, const std::vector<int>& prompt, Index max_new,
                          const SamplingOptions& options, int stop = -1);

// encoder-decoder: the decoder's prompt followed by up to max_new tokens, each sampled from the last
// position of forward(source, tokens so far); the same stops as above
std::vector<int> generate(const Transformer& model, const std::vector<int>& source, const std::vector<int>& prompt,
                          Index max_new, const SamplingOptions& options, int stop = -1);

}  // namespace attnlab
