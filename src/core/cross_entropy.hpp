#pragma once
// The training loss: cross-entropy between the model's next-token distribution and the target.
#include <vector>

#include "core/tensor.hpp"

namespace attnlab {

// The loss of one sequence, summed rather than averaged so that a batch can share one divisor.
struct CrossEntropy {
  Scalar loss_sum = 0;  // Σ_i −log softmax(z_i)[t_i] over rows with a target
  Index targets = 0;    // how many rows had one
  Index correct = 0;    // rows whose argmax is the target
};

// L = Σ_{i: t_i ≥ 0} −log softmax(z_i)[t_i]   logits z:(n,V) targets t:(n), −1 = no target here
CrossEntropy cross_entropy_forward(const ConstMatrixRef& logits, const std::vector<int>& targets);

// dz_i = (softmax(z_i) − onehot(t_i))·scale for rows with a target, 0 elsewhere
//   differentiates scale·L of cross_entropy_forward (scale = 1/targets of the batch for a mean)
//   logits:(n,V) → (n,V)
Matrix cross_entropy_backward(const ConstMatrixRef& logits, const std::vector<int>& targets, Scalar scale);

}  // namespace attnlab
