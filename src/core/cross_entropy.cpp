#include "core/cross_entropy.hpp"

#include <cmath>
#include <string>

#include "core/check.hpp"
#include "core/softmax.hpp"

namespace attnlab {
namespace {

void validate_targets(const ConstMatrixRef& logits, const std::vector<int>& targets) {
  require(static_cast<Index>(targets.size()) == logits.rows(),
          "cross-entropy: ", targets.size(), " targets for ", logits.rows(), " rows of logits");
  for (size_t i = 0; i < targets.size(); ++i)
    require(targets[i] >= -1 && targets[i] < logits.cols(),
            "cross-entropy: target ", targets[i], " at row ", i, " is outside the vocabulary (size ", logits.cols(),
            ")");
  require_finite(logits, "cross-entropy: logits");
}

}  // namespace

CrossEntropy cross_entropy_forward(const ConstMatrixRef& logits, const std::vector<int>& targets) {
  validate_targets(logits, targets);
  CrossEntropy result;
  for (Index i = 0; i < logits.rows(); ++i) {
    const int t = targets[static_cast<size_t>(i)];
    if (t < 0) continue;
    Index best = 0;
    const Scalar max = logits.row(i).maxCoeff(&best);
    // log Σ exp(z) = max + log Σ exp(z − max)
    const Scalar log_sum = max + std::log((logits.row(i).array() - max).exp().sum());
    result.loss_sum += log_sum - logits(i, t);
    result.targets += 1;
    result.correct += best == t ? 1 : 0;
  }
  return result;
}

Matrix cross_entropy_backward(const ConstMatrixRef& logits, const std::vector<int>& targets, Scalar scale) {
  validate_targets(logits, targets);
  Matrix dlogits = Matrix::Zero(logits.rows(), logits.cols());
  for (Index i = 0; i < logits.rows(); ++i) {
    const int t = targets[static_cast<size_t>(i)];
    if (t < 0) continue;
    softmax_rows_forward(logits.row(i), dlogits.row(i));
    dlogits(i, t) -= 1;
    dlogits.row(i) *= scale;
  }
  return dlogits;
}

}  // namespace attnlab
