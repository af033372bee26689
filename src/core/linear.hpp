#pragma once
// The affine map every projection uses, with its rows spread over the threads.
#include "core/tensor.hpp"
#include "core/weight.hpp"

namespace attnlab {

using ConstRowVectorRef = Eigen::Ref<const RowVector>;
using RowVectorRef = Eigen::Ref<RowVector>;

// y = x·W + b   x:(n,in) W:(in,out) b:(out) → (n,out); through matmul, on the threads in blocks of
//   W's columns (WebAssembly) or of x's rows (natively), or for fewer than 32 rows (a decoded
//   token), in slabs of W's rows. W may hold 16-bit values (weight.hpp), widened as they are read:
//   the same bits as over its widened floats.
Matrix linear_forward(const ConstMatrixRef& x, const WeightView& w, const ConstRowVectorRef& b);

// y = x·W   x:(n,in) W:(in,out) → (n,out); the same without a bias (a head's W_Q, W_K, W_V)
Matrix linear_forward(const ConstMatrixRef& x, const WeightView& w);

// y = x·Eᵀ   x:(n,d) E:(v,d) → (n,v); the language-model head over the embedding (or lm_head), in
//   blocks of E's rows on the threads
Matrix linear_forward_transposed(const ConstMatrixRef& x, const WeightView& e);

// dx = dy·Wᵀ   differentiates y = x·W + b of linear_forward   x:(n,in) W:(in,out) dy:(n,out) → (n,in)
//   dW += xᵀ·dy, db += Σ_rows dy; dW and db may be column blocks of a larger gradient
Matrix linear_backward(const ConstMatrixRef& x, const ConstMatrixRef& w, const ConstMatrixRef& dy,
                       MatrixRef dw, RowVectorRef db);

}  // namespace attnlab
