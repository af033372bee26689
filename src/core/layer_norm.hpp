#pragma once
// Layer normalisation: each position's features standardised, then scaled and shifted.
#include "core/tensor.hpp"

namespace attnlab {

// y = γ ⊙ (x − μ)/√(σ² + ε) + β, μ and σ² over each row   x:(n,d) γ,β:(d) → (n,d)
Matrix layer_norm_forward(const ConstMatrixRef& x, const RowVector& gamma, const RowVector& beta,
                          float eps = 1e-5f);

// dx = (γ ⊙ dy − mean(γ ⊙ dy) − x̂·mean(γ ⊙ dy ⊙ x̂)) / √(σ² + ε), x̂ = (x − μ)/√(σ² + ε)
//   differentiates y = γ ⊙ x̂ + β of layer_norm_forward   x,dy:(n,d) → dx:(n,d)
//   dγ += Σ_rows dy ⊙ x̂ and dβ += Σ_rows dy (gradients accumulate, as everywhere in training)
Matrix layer_norm_backward(const ConstMatrixRef& x, const RowVector& gamma, const ConstMatrixRef& dy,
                           RowVector& dgamma, RowVector& dbeta, float eps = 1e-5f);

// J_ij = ∂y_i/∂x_j of one row of layer_norm_forward   x,γ:(d) → (d,d)
//   row i is layer_norm_backward with dy = e_i; J·1 = 0 (adding a constant to x changes nothing)
Matrix layer_norm_jacobian(const RowVector& x, const RowVector& gamma, float eps = 1e-5f);

}  // namespace attnlab
