#pragma once
// RMS normalisation: layer norm without centring or shift (LLaMA and friends).
#include "core/tensor.hpp"

namespace attnlab {

// y = γ ⊙ x / √(mean(x²) + ε), per row   x:(n,d) γ:(d) → (n,d)
Matrix rms_norm_forward(const ConstMatrixRef& x, const RowVector& gamma, float eps = 1e-5f);

// dx = r·(γ ⊙ dy) − x·r³·mean(γ ⊙ dy ⊙ x), r = 1/√(mean(x²) + ε)
//   differentiates y = γ ⊙ x·r of rms_norm_forward   x,dy:(n,d) → dx:(n,d); dγ += Σ_rows dy ⊙ x·r
Matrix rms_norm_backward(const ConstMatrixRef& x, const RowVector& gamma, const ConstMatrixRef& dy,
                         RowVector& dgamma, float eps = 1e-5f);

// J_ij = ∂y_i/∂x_j of one row of rms_norm_forward   x,γ:(d) → (d,d)
//   row i is rms_norm_backward with dy = e_i; J·x ≈ 0 (scaling x changes nothing, up to ε)
Matrix rms_norm_jacobian(const RowVector& x, const RowVector& gamma, float eps = 1e-5f);

}  // namespace attnlab
