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

// One row of attention weights taken apart: how peaked it is and how it responds to its scores.
struct SoftmaxRowAnalysis {
  RowVector weights;      // (m)   a = softmax(z)
  double entropy = 0;     //       H(a) = −Σ_i a_i ln a_i, in nats (0·ln 0 = 0)
  Scalar max_weight = 0;  //       max_i a_i
  Matrix jacobian;        // (m,m) J_ij = ∂a_i/∂z_j = a_i(δ_ij − a_j)
  double jacobian_norm = 0;  //    ‖J‖_F
};

// a = softmax(z), z = scale·scores/temperature, with its entropy and Jacobian   scores:(m) → a:(m), J:(m,m)
// The Jacobian comes from softmax_rows_backward: its row i is the backward of the one-hot dy = e_i.
SoftmaxRowAnalysis softmax_row_analysis(const RowVector& scores, Scalar scale, Scalar temperature);

}  // namespace attnlab
