#include "core/softmax_overflow.hpp"

#include <cmath>

#include "core/check.hpp"
#include "core/exp.hpp"
#include "core/softmax.hpp"

namespace attnlab {

SoftmaxTerms naive_softmax(const Float32Row& z) {
  SoftmaxTerms t;
  // the C library's expf, which overflows to +∞ as the textbook formula does: the engine's own
  // exp_inplace clamps its argument at 88, since the softmax only ever gives it z − max ≤ 0
  t.exps = z.unaryExpr([](float v) { return std::exp(v); });
  t.sum = t.exps.sum();
  t.weights = t.exps / t.sum;
  return t;
}

SoftmaxTerms max_subtracted_softmax(const Float32Row& z) {
  SoftmaxTerms t;
  t.shift = z.maxCoeff();
  t.exps = z.array() - t.shift;
  exp_inplace(t.exps.data(), t.exps.size());
  t.sum = t.exps.sum();
  // the weights from the softmax attention calls, not from the terms above
  RowVector weights = z.cast<Scalar>();
  softmax_rows_forward(weights, weights);
  t.weights = weights.cast<float>();
  return t;
}

SoftmaxForms softmax_forms(const RowVector& scores, Scalar scale) {
  require(scores.size() >= 1, "softmax forms: scores is empty");
  require(std::isfinite(scale), "softmax forms: scale must be finite");
  require_finite(scores, "softmax forms: scores");
  SoftmaxForms f;
  f.logits = (scores * scale).cast<float>();
  require(f.logits.allFinite(), "softmax forms: scale·scores overflows float32 (the logits themselves must be finite)");
  f.naive = naive_softmax(f.logits);
  f.max_subtracted = max_subtracted_softmax(f.logits);
  return f;
}

double exp_overflow_threshold(int fraction_bits, int max_exponent) {
  require(fraction_bits >= 1 && fraction_bits <= 52 && max_exponent >= 1 && max_exponent <= 1023,
          "exp overflow threshold: a format needs 1 … 52 fraction bits and a largest exponent of 1 … 1023");
  const double largest = std::ldexp(2.0 - std::ldexp(1.0, -fraction_bits), max_exponent);
  return std::log(largest);
}

}  // namespace attnlab
