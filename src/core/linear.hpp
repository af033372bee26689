#pragma once
// The affine map every projection uses, with its rows spread over the threads.
#include "core/tensor.hpp"

namespace attnlab {

using ConstRowVectorRef = Eigen::Ref<const RowVector>;

// y = x·W + b   x:(n,in) W:(in,out) b:(out) → (n,out); blocks of rows run in parallel
Matrix linear_forward(const ConstMatrixRef& x, const ConstMatrixRef& w, const ConstRowVectorRef& b);

}  // namespace attnlab
