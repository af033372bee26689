#include "model/generate.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/check.hpp"
#include "core/softmax.hpp"

namespace attnlab {
namespace {

// ids in order of decreasing value, equal values lower id first   values:(vocab) → vocab ids
std::vector<Index> most_likely_first(const RowVector& values) {
  std::vector<Index> order(static_cast<size_t>(values.size()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) { return values(a) > values(b); });
  return order;
}

// p cut to its nucleus: the most likely tokens up to the first at which their running sum reaches
// top_p, the rest 0, renormalised   p:(vocab) → (vocab)
void keep_nucleus(RowVector& p, float top_p) {
  const std::vector<Index> order = most_likely_first(p);
  double kept = 0;
  size_t count = 0;
  while (count < order.size() && kept < top_p) kept += p(order[count++]);
  for (size_t i = count; i < order.size(); ++i) p(order[i]) = 0;
  p /= p.sum();
}

// the checks both generation loops share
void validate_generation(const Transformer& model, const std::vector<int>& prompt, Index max_new,
                         const SamplingOptions& options) {
  require(!prompt.empty(), "generate: the prompt is empty");
  require(static_cast<Index>(prompt.size()) <= model.config().n_ctx,
          "generate: the prompt has ", prompt.size(), " tokens, more than the context n_ctx = ",
          model.config().n_ctx);
  require(max_new >= 0, "generate: max_new must not be negative");
  validate_sampling(options, model.config().vocab_size);
}

}  // namespace

void validate_sampling(const SamplingOptions& options, Index vocab) {
  require(std::isfinite(options.temperature) && options.temperature >= 0.0f,
          "sampling: temperature must be a finite number ≥ 0 (0 is greedy), got ", options.temperature);
  if (options.top_k)
    require(*options.top_k >= 1 && *options.top_k <= vocab,
            "sampling: top_k must be between 1 and the vocabulary size ", vocab, ", got ", *options.top_k);
  if (options.top_p)
    require(std::isfinite(*options.top_p) && *options.top_p > 0.0f && *options.top_p <= 1.0f,
            "sampling: top_p must lie in (0, 1] (1 keeps every token), got ", *options.top_p);
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
    const std::vector<Index> order = most_likely_first(logits);
    for (size_t i = static_cast<size_t>(*options.top_k); i < order.size(); ++i)
      scaled(order[i]) = -std::numeric_limits<Scalar>::infinity();
  }
  RowVector p(vocab);
  softmax_rows_forward(scaled, p);
  if (options.top_p && *options.top_p < 1.0f) keep_nucleus(p, *options.top_p);
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
  validate_generation(model, prompt, max_new, options);
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

std::vector<int> generate(const Transformer& model, const std::vector<int>& source, const std::vector<int>& prompt,
                          Index max_new, const SamplingOptions& options, int stop) {
  require(model.config().architecture == Architecture::encoder_decoder,
          "generate: a source sequence is for encoder-decoder models");
  validate_generation(model, prompt, max_new, options);
  Rng rng(options.seed);
  std::vector<int> tokens = prompt;
  const Index limit = model.config().n_ctx;
  for (Index step = 0; step < max_new && static_cast<Index>(tokens.size()) < limit; ++step) {
    const Matrix logits = model.forward(source, tokens);
    tokens.push_back(sample_token(logits.row(logits.rows() - 1), options, rng));
    if (tokens.back() == stop) break;
  }
  return tokens;
}

}  // namespace attnlab
