#include "core/linear.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

#include "core/check.hpp"
#include "core/matmul.hpp"
#include "core/multiply_add.hpp"
#include "core/thread_pool.hpp"

namespace attnlab {

namespace {

// at least 32 rows a block: smaller pieces cost more in hand-over than they save
constexpr Index kRowBlock = 32;
// Fewer rows than that (a decoded token) read all of W for little arithmetic: bound by memory, which
// one thread cannot keep busy. Their products go in slabs of W's rows instead, each streamed once
// from start to end into a partial sum of its own, the partials then added in order: slabs fixed,
// so that each output is computed alike on any number of threads.
constexpr Index kRowSlab = 64;
// (and a W this narrow is not worth the hand-over)
constexpr Index kColumnBlock = 256;

// x_0·W_0[j] + … + x_7·W_7[j] over eight rows W_r = w + r·stride (widened from type D), in the order
// every build and thread count keeps: two fours added
template <Dtype D>
inline Scalar eight_rows(const Scalar* __restrict x, const Element<D>* __restrict w, Index stride, Index j) {
  const auto at = [&](Index r) { return widened<D>(w[r * stride + j]); };
  return (x[0] * at(0) + x[1] * at(1) + x[2] * at(2) + x[3] * at(3)) + (x[4] * at(4) + x[5] * at(5) + x[6] * at(6) + x[7] * at(7));
}

// The columns [0, whole eights) of one pass of sixteen rows, in vectors: for 16-bit weights (the
// compiler's own vectorisation widens each value apart, at several times the cost) and for fused
// multiply-adds. Unfused, every output sums as eight_rows and the pass below do, lane by lane (the
// same bits); fused, each eight rows are one chain x_0·W_0, then a multiply-add a row. Returns the
// first column left; unfused floats (which the compiler vectorises well) and the double build
// leave them all.
template <Dtype D, bool fused>
Index sixteen_rows_in_eights(const Scalar* __restrict x, const Element<D>* __restrict w, Index stride, Index count,
                             Scalar* __restrict y, bool first) {
  if constexpr ((D == Dtype::f32 && !fused) || !std::is_same_v<Scalar, float>) {
    return 0;
  } else {
    const auto eight = [&](const Scalar* xs, const Element<D>* rows) {  // eight_rows, for eight columns
      EightColumns r[8];
      for (Index k = 0; k < 8; ++k) r[k] = eight_columns<D>(rows + k * stride);
      const auto sum = [&](Floats4 EightColumns::*half) {
        const auto term = [&](Index k) { return float(xs[k]) * r[k].*half; };
        if constexpr (fused) {
          Floats4 chain = term(0);
          for (Index k = 1; k < 8; ++k) chain = multiply_add<fused>(Floats4{} + float(xs[k]), r[k].*half, chain);
          return chain;
        } else {
          return (term(0) + term(1) + term(2) + term(3)) + (term(4) + term(5) + term(6) + term(7));
        }
      };
      return EightColumns{sum(&EightColumns::even), sum(&EightColumns::odd)};
    };
    Index j = 0;
    for (; j + 8 <= count; j += 8) {
      const EightColumns a = eight(x, w + j), b = eight(x + 8, w + 8 * stride + j);
      EightColumns out = a;
      if (!first) {
        const EightColumns before = take_columns<D>(y + j);
        out = {before.even + a.even, before.odd + a.odd};
      }
      put_columns<D>({out.even + b.even, out.odd + b.odd}, y + j);
    }
    return j;
  }
}

// y[0, count) = x·W[:, 0, count) for one row x of `in` entries, W's rows `stride` apart: W is read
// once, sixteen rows a pass, each row streamed into y, which stays in cache; each output adds its
// rows' products eight at a time, in order (a loop the compiler turns into SIMD; Eigen's
// matrix-vector kernel reads the same bytes at half the speed, eight rows a pass at 0.85 of it)
template <Dtype D, bool fused>
void row_times_columns(const Scalar* __restrict x, Index in, const Element<D>* __restrict w, Index stride, Index count,
                       Scalar* __restrict y) {
  Index i = 0;
  if (in >= 16) {  // the first pass writes y
    for (Index j = sixteen_rows_in_eights<D, fused>(x, w, stride, count, y, true); j < count; ++j)
      y[j] = eight_rows<D>(x, w, stride, j) + eight_rows<D>(x + 8, w + 8 * stride, stride, j);
    i = 16;
  } else {
    std::fill(y, y + count, Scalar(0));
  }
  for (; i + 16 <= in; i += 16) {
    const Element<D>* w0 = w + i * stride;
    for (Index j = sixteen_rows_in_eights<D, fused>(x + i, w0, stride, count, y, false); j < count; ++j)
      y[j] = (y[j] + eight_rows<D>(x + i, w0, stride, j)) + eight_rows<D>(x + i + 8, w0 + 8 * stride, stride, j);
  }
  for (; i + 8 <= in; i += 8)
    for (Index j = 0; j < count; ++j) y[j] += eight_rows<D>(x + i, w + i * stride, stride, j);
  for (; i < in; ++i) {
    const Scalar xi = x[i];
    const Element<D>* wi = w + i * stride;
    for (Index j = 0; j < count; ++j) y[j] += xi * widened<D>(wi[j]);
  }
}

// a·b over n entries (b widened from type D), in kLanes running sums added at the end: the compiler
// keeps the lanes in SIMD registers (one running sum could not be split without changing the
// result), and a row of E streams through once
constexpr Index kLanes = 8;
template <Dtype D, bool fused>
Scalar dot_lanes(const Scalar* __restrict a, const Element<D>* __restrict b, Index n) {
  Scalar lanes[kLanes] = {};
  Index k = 0;
  // 16-bit b, or fused multiply-adds: the lanes in two vectors (for 16 bits, even and odd apart)
  if constexpr ((D != Dtype::f32 || fused) && std::is_same_v<Scalar, float>) {
    EightColumns sums{};
    for (; k + kLanes <= n; k += kLanes) {
      const EightColumns x = take_columns<D>(a + k), w = eight_columns<D>(b + k);
      sums.even = multiply_add<fused>(x.even, w.even, sums.even);
      sums.odd = multiply_add<fused>(x.odd, w.odd, sums.odd);
    }
    float in_order[kLanes];
    put_columns<D>(sums, in_order);
    std::copy(in_order, in_order + kLanes, lanes);
  }
  for (; k + kLanes <= n; k += kLanes)
    for (Index l = 0; l < kLanes; ++l) lanes[l] += a[k + l] * widened<D>(b[k + l]);
  Scalar sum = 0;
  for (Index l = 0; l < kLanes; ++l) sum += lanes[l];
  for (; k < n; ++k) sum += a[k] * widened<D>(b[k]);
  return sum;
}

// y = x·W (+ b when given) for fewer than kRowBlock rows: slabs of W's rows on the threads
Matrix affine_slabs(const ConstMatrixRef& x, const WeightView& w, const ConstRowVectorRef* b) {
  const Index slabs = (w.rows() + kRowSlab - 1) / kRowSlab, n = x.rows();
  Matrix partial(slabs * n, w.cols());  // every entry written by its slab
  const bool fused = products_fused();  // read once: every slab rounds alike
  w.with_elements([&](auto type, const auto* data) {
    constexpr Dtype D = decltype(type)::value;
    parallel_for(slabs, [&](Index slab) {
      const Index i0 = slab * kRowSlab, rows = std::min(kRowSlab, w.rows() - i0);
      with_rounding(fused, [&](auto fuse) {
        for (Index r = 0; r < n; ++r)
          row_times_columns<D, decltype(fuse)::value>(x.row(r).data() + i0, rows, data + i0 * w.stride(), w.stride(), w.cols(),
                                                      partial.row(slab * n + r).data());
      });
    });
  });
  Matrix y = partial.topRows(n);
  for (Index slab = 1; slab < slabs; ++slab) y += partial.middleRows(slab * n, n);
  if (b) y.rowwise() += *b;
  return y;
}

// y = x·W (+ b when given), blocks of rows on the threads
Matrix affine_rows(const ConstMatrixRef& x, const WeightView& w, const ConstRowVectorRef* b) {
  require(x.cols() == w.rows(), "linear: input width ", x.cols(), " differs from W's ", w.rows(), " rows");
  const Index n = x.rows();
  if (n < kRowBlock && w.cols() >= 2 * kColumnBlock) return affine_slabs(x, w, b);
  Matrix y(n, w.cols());
  if (matmul_is_packed()) {  // W's columns split over the threads, each packing only its own (and adding b)
    if (b) matmul(x, w, *b, y);
    else matmul(x, w, y);
    return y;
  }
  const Matrix widened_w = w.is_float() ? Matrix() : w.widened();  // natively, for Eigen's product
  const WeightView floats = w.is_float() ? w : WeightView(widened_w);
  const Index blocks = std::max<Index>(1, std::min<Index>(num_threads(), n / kRowBlock));
  const Index rows = (n + blocks - 1) / blocks;
  parallel_for(blocks, [&](Index block) {
    const Index r0 = block * rows, count = std::min(rows, n - r0);
    if (count <= 0) return;
    matmul(x.middleRows(r0, count), floats, y.middleRows(r0, count));
    if (b) y.middleRows(r0, count).rowwise() += *b;
  });
  return y;
}

}  // namespace

Matrix linear_forward(const ConstMatrixRef& x, const WeightView& w, const ConstRowVectorRef& b) {
  require(b.size() == w.cols(), "linear: bias has ", b.size(), " entries for ", w.cols(), " outputs");
  return affine_rows(x, w, &b);
}

Matrix linear_forward(const ConstMatrixRef& x, const WeightView& w) { return affine_rows(x, w, nullptr); }

Matrix linear_forward_transposed(const ConstMatrixRef& x, const WeightView& e) {
  require(x.cols() == e.cols(), "linear: input width ", x.cols(), " differs from E's ", e.cols(), " columns");
  if (e.rows() < 2 * kColumnBlock) {
    Matrix y(x.rows(), e.rows());
    matmul_transposed(x, e, y);
    return y;
  }
  // blocks of E's rows, the logits of a block of the vocabulary each: a decoded token's few rows
  // are bound by reading E, which one thread cannot keep up with; a prompt's many rows by the
  // arithmetic (a GPT-2 prefill of 128 tokens spends a third of its work here)
  Matrix y(x.rows(), e.rows());
  const Index blocks = (e.rows() + kColumnBlock - 1) / kColumnBlock;
  const bool few = x.rows() < kRowBlock, fused = products_fused();
  parallel_for(blocks, [&](Index block) {
    const Index r0 = block * kColumnBlock, count = std::min(kColumnBlock, e.rows() - r0);
    if (!few) {
      matmul_transposed(x, e.middle_rows(r0, count), y.middleCols(r0, count));
      return;
    }
    e.with_elements([&](auto type, const auto* data) {
      with_rounding(fused, [&](auto fuse) {
        for (Index r = 0; r < x.rows(); ++r)
          for (Index v = r0; v < r0 + count; ++v)
            y(r, v) = dot_lanes<decltype(type)::value, decltype(fuse)::value>(x.row(r).data(), data + v * e.stride(), x.cols());
      });
    });
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
