#include "core/linear.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

#include "core/check.hpp"
#include "core/matmul.hpp"
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

// 16-bit weights: the columns [0, columns of whole eights) of one pass of sixteen rows, in vectors
// (the compiler's own vectorisation widens each value apart, at several times the cost). Every
// output sums as eight_rows and the pass below do, lane by lane: the same bits. Returns the first
// column left; floats (which the compiler vectorises well) and the double build leave them all.
template <Dtype D>
Index sixteen_rows_in_eights(const Scalar* __restrict x, const Element<D>* __restrict w, Index stride, Index count,
                             Scalar* __restrict y, bool first) {
  if constexpr (D == Dtype::f32 || !std::is_same_v<Scalar, float>) {
    return 0;
  } else {
    const auto eight = [&](const Scalar* xs, const std::uint16_t* rows) {  // eight_rows, for eight columns
      WidenedEight r[8];
      for (Index k = 0; k < 8; ++k) r[k] = widen_eight<D>(rows + k * stride);
      const auto sum = [&](Floats4 WidenedEight::*half) {
        const auto term = [&](Index k) { return float(xs[k]) * r[k].*half; };
        return (term(0) + term(1) + term(2) + term(3)) + (term(4) + term(5) + term(6) + term(7));
      };
      return WidenedEight{sum(&WidenedEight::even), sum(&WidenedEight::odd)};
    };
    Index j = 0;
    for (; j + 8 <= count; j += 8) {
      const WidenedEight a = eight(x, w + j), b = eight(x + 8, w + 8 * stride + j);
      Floats4 even = a.even, odd = a.odd;
      if (!first) {  // y's columns apart as the weights are: even and odd
        Floats4 low, high;
        std::memcpy(&low, y + j, sizeof low);
        std::memcpy(&high, y + j + 4, sizeof high);
        even = __builtin_shufflevector(low, high, 0, 2, 4, 6) + a.even;
        odd = __builtin_shufflevector(low, high, 1, 3, 5, 7) + a.odd;
      }
      even += b.even;
      odd += b.odd;
      const Floats4 low = __builtin_shufflevector(even, odd, 0, 4, 1, 5), high = __builtin_shufflevector(even, odd, 2, 6, 3, 7);
      std::memcpy(y + j, &low, sizeof low);
      std::memcpy(y + j + 4, &high, sizeof high);
    }
    return j;
  }
}

// y[0, count) = x·W[:, 0, count) for one row x of `in` entries, W's rows `stride` apart: W is read
// once, sixteen rows a pass, each row streamed into y, which stays in cache; each output adds its
// rows' products eight at a time, in order (a loop the compiler turns into SIMD; Eigen's
// matrix-vector kernel reads the same bytes at half the speed, eight rows a pass at 0.85 of it)
template <Dtype D>
void row_times_columns(const Scalar* __restrict x, Index in, const Element<D>* __restrict w, Index stride, Index count,
                       Scalar* __restrict y) {
  Index i = 0;
  if (in >= 16) {  // the first pass writes y
    for (Index j = sixteen_rows_in_eights<D>(x, w, stride, count, y, true); j < count; ++j)
      y[j] = eight_rows<D>(x, w, stride, j) + eight_rows<D>(x + 8, w + 8 * stride, stride, j);
    i = 16;
  } else {
    std::fill(y, y + count, Scalar(0));
  }
  for (; i + 16 <= in; i += 16) {
    const Element<D>* w0 = w + i * stride;
    for (Index j = sixteen_rows_in_eights<D>(x + i, w0, stride, count, y, false); j < count; ++j)
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
template <Dtype D>
Scalar dot_lanes(const Scalar* __restrict a, const Element<D>* __restrict b, Index n) {
  Scalar lanes[kLanes] = {};
  Index k = 0;
  if constexpr (D != Dtype::f32 && std::is_same_v<Scalar, float>) {  // 16-bit b: its lanes even and odd apart
    Floats4 even{}, odd{};
    for (; k + kLanes <= n; k += kLanes) {
      Floats4 low, high;
      std::memcpy(&low, a + k, sizeof low);
      std::memcpy(&high, a + k + 4, sizeof high);
      const WidenedEight w = widen_eight<D>(b + k);
      even += __builtin_shufflevector(low, high, 0, 2, 4, 6) * w.even;
      odd += __builtin_shufflevector(low, high, 1, 3, 5, 7) * w.odd;
    }
    for (Index l = 0; l < kLanes / 2; ++l) {
      lanes[2 * l] = even[l];
      lanes[2 * l + 1] = odd[l];
    }
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
  w.with_elements([&](auto type, const auto* data) {
    constexpr Dtype D = decltype(type)::value;
    parallel_for(slabs, [&](Index slab) {
      const Index i0 = slab * kRowSlab, rows = std::min(kRowSlab, w.rows() - i0);
      for (Index r = 0; r < n; ++r)
        row_times_columns<D>(x.row(r).data() + i0, rows, data + i0 * w.stride(), w.stride(), w.cols(), partial.row(slab * n + r).data());
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
  const bool few = x.rows() < kRowBlock;
  parallel_for(blocks, [&](Index block) {
    const Index r0 = block * kColumnBlock, count = std::min(kColumnBlock, e.rows() - r0);
    if (!few) {
      matmul_transposed(x, e.middle_rows(r0, count), y.middleCols(r0, count));
      return;
    }
    e.with_elements([&](auto type, const auto* data) {
      for (Index r = 0; r < x.rows(); ++r)
        for (Index v = r0; v < r0 + count; ++v)
          y(r, v) = dot_lanes<decltype(type)::value>(x.row(r).data(), data + v * e.stride(), x.cols());
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
