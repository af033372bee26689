#pragma once
// Tensor aliases and the shape legend used in every signature comment.
//   n    query positions (rows of Q, of the output)
//   m    key/value positions (rows of K and V; m = n for self-attention)
//   d    d_model, the residual-stream width
//   d_k  query/key width of one head;  d_v  value width of one head
//   h    query heads;  g  key/value heads (g = h: MHA, g = 1: MQA, 1 < g < h: GQA)
// All matrices are row-major, one row per position, as in the seminar's X ∈ ℝ^{n×d}. Their scalar
// is float32; the same sources also build with ATTNLAB_SCALAR=double, which is how the gradient
// checks compare every backward pass with finite differences free of float rounding.
#include "core/eigen.hpp"

#ifndef ATTNLAB_SCALAR
#define ATTNLAB_SCALAR float
#endif

namespace attnlab {

using Index = Eigen::Index;
using Scalar = ATTNLAB_SCALAR;
using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVector = Eigen::Matrix<Scalar, 1, Eigen::Dynamic>;
// Views that also accept column blocks of a row-major matrix (one head's slice of Q, say).
using MatrixRef = Eigen::Ref<Matrix, 0, Eigen::OuterStride<>>;
using ConstMatrixRef = Eigen::Ref<const Matrix, 0, Eigen::OuterStride<>>;

}  // namespace attnlab
