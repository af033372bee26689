#pragma once
// RMS normalisation: layer norm without centring or shift (LLaMA and friends).
#include "core/tensor.hpp"

namespace attnlab {

// y = γ ⊙ x / √(mean(x²) + ε), per row   x:(n,d) γ:(d) → (n,d)
Matrix rms_norm_forward(const ConstMatrixRef& x, const RowVector& gamma, float eps = 1e-5f);

}  // namespace attnlab
