#include "core/linear.hpp"

#include <algorithm>
#include <string>

#include "core/check.hpp"
#include "core/thread_pool.hpp"

namespace attnlab {

namespace {

// at least 32 rows a block: smaller pieces cost more in hand-over than they save
constexpr Index kRowBlock = 32;
// Fewer rows than that (a decoded token) read all of W for little arithmetic: bound by memory, which
// one thread cannot keep busy. Their products go in blocks of W's columns instead, blocks fixed so
// that each output is computed alike on any number of threads.
constexpr Index kColumnBlock = 256;

// y[0, count) = x·W[:, 0, count) for one row x of `in` entries, W's rows `stride` apart: W is read
// once, four rows at a time, each row's slice streamed into y, which stays in cache (a loop the
// compiler turns into SIMD; Eigen's matrix-vector kernel reads the same bytes at half the speed)
void row_times_columns(const Scalar* __restrict x, Index in, const Scalar* __restrict w, Index stride, Index count,
                       Scalar* __restrict y) {
  std::fill(y, y + count, Scalar(0));
  Index i = 0;
  for (; i + 4 <= in; i += 4) {
    const Scalar x0 = x[i], x1 = x[i + 1], x2 = x[i + 2], x3 = x[i + 3];
    const Scalar* w0 = w + i * stride;
    const Scalar *w1 = w0 + stride, *w2 = w1 + stride, *w3 = w2 + stride;
    for (Index j = 0; j < count; ++j) y[j] += x0 * w0[j] + x1 * w1[j] + x2 * w2[j] + x3 * w3[j];
  }
  for (; i < in; ++i) {
    const Scalar xi = x[i];
    const Scalar* wi = w + i * stride;
    for (Index j = 0; j < count; ++j) y[j] += xi * wi[j];
  }
}

// y = x·W (+ b when given) for fewer than kRowBlock rows, blocks of W's columns on the threads
Matrix affine_columns(const ConstMatrixRef& x, const ConstMatrixRef& w, const ConstRowVectorRef* b) {
  Matrix y(x.rows(), w.cols());
  const Index blocks = (w.cols() + kColumnBlock - 1) / kColumnBlock;
  parallel_for(blocks, [&](Index block) {
    const Index c0 = block * kColumnBlock, count = std::min(kColumnBlock, w.cols() - c0);
    for (Index r = 0; r < x.rows(); ++r)
      row_times_columns(x.row(r).data(), x.cols(), w.data() + c0, w.outerStride(), count, y.row(r).data() + c0);
    if (b) y.middleCols(c0, count).rowwise() += b->segment(c0, count);
  });
  return y;
}

// y = x·W (+ b when given), blocks of rows on the threads
Matrix affine_rows(const ConstMatrixRef& x, const ConstMatrixRef& w, const ConstRowVectorRef* b) {
  require(x.cols() == w.rows(), "linear: input width ", x.cols(), " differs from W's ", w.rows(), " rows");
  const Index n = x.rows();
  if (n < kRowBlock && w.cols() >= 2 * kColumnBlock) return affine_columns(x, w, b);
  Matrix y(n, w.cols());
  const Index blocks = std::max<Index>(1, std::min<Index>(num_threads(), n / kRowBlock));
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

Matrix linear_forward_transposed(const ConstMatrixRef& x, const ConstMatrixRef& e) {
  require(x.cols() == e.cols(), "linear: input width ", x.cols(), " differs from E's ", e.cols(), " columns");
  if (e.rows() < 2 * kColumnBlock) return x * e.transpose();
  // blocks of E's rows, the logits of a block of the vocabulary each: a decoded token's few rows
  // are bound by reading E, which one thread cannot keep up with; a prompt's many rows by the
  // arithmetic (a GPT-2 prefill of 128 tokens spends a third of its work here)
  Matrix y(x.rows(), e.rows());
  const Index blocks = (e.rows() + kColumnBlock - 1) / kColumnBlock;
  parallel_for(blocks, [&](Index block) {
    const Index r0 = block * kColumnBlock, count = std::min(kColumnBlock, e.rows() - r0);
    y.middleCols(r0, count).noalias() = x * e.middleRows(r0, count).transpose();
  });
  return y;
}

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
