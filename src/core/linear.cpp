#include "core/linear.hpp"

#include <algorithm>
#include <string>

#include "core/check.hpp"
#include "core/thread_pool.hpp"

namespace attnlab {

namespace {

// y = x·W (+ b when given), blocks of rows on the threads
Matrix affine_rows(const ConstMatrixRef& x, const ConstMatrixRef& w, const ConstRowVectorRef* b) {
  require(x.cols() == w.rows(), "linear: input width ", x.cols(), " differs from W's ", w.rows(), " rows");
  const Index n = x.rows();
  Matrix y(n, w.cols());
  // at least 32 rows a block: smaller pieces cost more in hand-over than they save
  const Index blocks = std::max<Index>(1, std::min<Index>(num_threads(), n / 32));
  const Index rows = (n + blocks - 1) / blocks;
  parallel_for(blocks, [&](Index block) {
    const Index r0 = block * rows, count = std::min(rows, n - r0);
    if (count <= 0) return;
    y.middleRows(r0, count).noalias() = x.middleRows(r0, count) * w;
    if (b) y.middleRows(r0, count).rowwise() += *b;
  });
  return y;
}

}  // namespace

Matrix linear_forward(const ConstMatrixRef& x, const ConstMatrixRef& w, const ConstRowVectorRef& b) {
  require(b.size() == w.cols(), "linear: bias has ", b.size(), " entries for ", w.cols(), " outputs");
  return affine_rows(x, w, &b);
}

Matrix linear_forward(const ConstMatrixRef& x, const ConstMatrixRef& w) { return affine_rows(x, w, nullptr); }

Matrix linear_backward(const ConstMatrixRef& x, const ConstMatrixRef& w, const ConstMatrixRef& dy,
                       MatrixRef dw, RowVectorRef db) {
  if (dy.rows() != x.rows() || dy.cols() != w.cols() || x.cols() != w.rows())  // shapes written only on failure
    throw_error({"linear backward: x ", shape_string(x.rows(), x.cols()), ", W ", shape_string(w.rows(), w.cols()),
                 " and dy ", shape_string(dy.rows(), dy.cols()), " do not fit y = x·W + b"});
  require_shape(dw, w.rows(), w.cols(), "linear backward: dW");
  require(db.size() == w.cols(), "linear backward: db needs ", w.cols(), " entries");
  dw.noalias() += x.transpose() * dy;
  db += dy.colwise().sum();
  return dy * w.transpose();
}

}  // namespace attnlab
