#pragma once
// Layer normalisation: each position's features standardised, then scaled and shifted.
#include "core/tensor.hpp"

namespace attnlab {

// y = γ ⊙ (x − μ)/√(σ² + ε) + β, μ and σ² over each row   x:(n,d) γ,β:(d) → (n,d)
Matrix layer_norm_forward(const ConstMatrixRef& x, const RowVector& gamma, const RowVector& beta,
                          float eps = 1e-5f);

}  // namespace attnlab
