#include "model/generate.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/check.hpp"
#include "core/softmax.hpp"

namespace attnlab {

void validate_sampling(const SamplingOptions& options, Index vocab) {
  require(std::isfinite(options.temperature) && options.temperature >= 0.0f,
          "sampling: temperature must be a finite number ≥ 0 (0 is greedy), got " +
              std::to_string(options.temperature));
  if (options.top_k)
    require(*options.top_k >= 1 && *options.top_k <= vocab,
            "sampling: top_k must be between 1 and the vocabulary size " + std::to_string(vocab) +
                ", got " + std::to_string(*options.top_k));
}

RowVector next_token_probabilities(const RowVector& logits, const SamplingOptions& options) {
  const Index vocab = logits.size();
  require(vocab >= 1, "sampling: no logits");
  require_finite(logits, "sampling: logits");
  validate_sampling(options, vocab);
  Index best = 0;
  const Scalar highest = logits.maxCoeff(&best);
  if (options.temperature == 0.0f) {
    RowVector p = RowVector::Zero(vocab);
    p(best) = 1.0f;
    return p;
  }
  // shifted by the largest logit first: every quotient is then ≤ 0, so a tiny temperature sends
  // the others to −∞ (probability 0) instead of overflowing to +∞ and making the softmax NaN
  RowVector scaled = (logits.array() - highest).matrix() / options.temperature;
  if (options.top_k && *options.top_k < vocab) {
    // the k-th largest logit is the threshold; ties at the threshold keep the lowest ids
    std::vector<Index> order(static_cast<size_t>(vocab));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) { return logits(a) > logits(b); });
    for (size_t i = static_cast<size_t>(*options.top_k); i < order.size(); ++i)
      scaled(order[i]) = -std::numeric_limits<Scalar>::infinity();
  }
  RowVector p(vocab);
  softmax_rows_forward(scaled, p);
  return p;
}

int sample_token(const RowVector& logits, const SamplingOptions& options, Rng& rng) {
  const RowVector p = next_token_probabilities(logits, options);
  if (options.temperature == 0.0f) {
    Index best = 0;
    p.maxCoeff(&best);
    return static_cast<int>(best);
  }
  const Scalar u = rng.uniform() * p.sum();
  Scalar cumulative = 0;
  Index last_possible = 0;
  for (Index i = 0; i < p.size(); ++i) {
    if (p(i) <= 0.0f) continue;
    cumulative += p(i);
    last_possible = i;
    if (u < cumulative) return static_cast<int>(i);
  }
  return static_cast<int>(last_possible);  // rounding left u just above the total
}

std::vector<int> generate(const Transformer& model, const std::vector<int>& prompt, Index max_new,
                          const SamplingOptions& options, int stop) {
  require(!prompt.empty(), "generate: the prompt is empty");
  require(max_new >= 0, "generate: max_new must not be negative");
  validate_sampling(options, model.config().vocab_size);
  Rng rng(options.seed);
  KVCache cache = model.new_cache();
  std::vector<int> tokens = prompt;
  Matrix logits = model.forward_cached(prompt, cache);
  // the result never outgrows the context, so it can always be run through the model again
  const Index limit = model.config().n_ctx;
  for (Index step = 0; step < max_new && static_cast<Index>(tokens.size()) < limit; ++step) {
    const int next = sample_token(logits.row(logits.rows() - 1), options, rng);
    tokens.push_back(next);
    if (next == stop || static_cast<Index>(tokens.size()) == limit) break;
    logits = model.forward_cached({next}, cache);
  }
  return tokens;
}

}  // namespace attnlab
