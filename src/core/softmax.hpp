#pragma once
// Row-wise softmax, the normalisation that turns attention scores into weights.
#include "core/tensor.hpp"

namespace attnlab {

// y_ij = exp(x_ij − max_j x_ij) / Σ_j exp(x_ij − max_j x_ij)   x:(n,m) → y:(n,m)
// Max-subtracted, so logits of any finite size are safe; entries of −∞ get weight 0, and a row that
// is −∞ everywhere (every key masked) becomes all zeros rather than NaN. y may alias x.
void softmax_rows_forward(const ConstMatrixRef& x, MatrixRef y);

// dx_ij = y_ij · (dy_ij − Σ_k dy_ik · y_ik)   differentiates y = softmax_rows_forward(x)   y,dy,dx:(n,m)
// This is the Jacobian-vector product of ∂y_j/∂x_i = y_j(δ_ij − y_i), row by row.
void softmax_rows_backward(const ConstMatrixRef& y, const ConstMatrixRef& dy, MatrixRef dx);

}  // namespace attnlab
