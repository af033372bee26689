#pragma once
// Weights kept in a checkpoint's 16-bit floats. BF16 is binary32's upper half; F16 (IEEE binary16)
// has 5 exponent and 10 mantissa bits. Either widens to float exactly, so products that widen each
// value as they read it give the same bits as products over the widened matrix, from half the
// memory and half the bytes a decoded token reads.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/tensor.hpp"

namespace attnlab {

enum class Dtype { f32, f16, bf16 };
std::size_t dtype_bytes(Dtype dtype);
std::string to_string(Dtype dtype);  // as safetensors headers write it: "F32", "F16", "BF16"

// x = the binary32 with h's bits on top   h: BF16
inline float widen_bf16(std::uint16_t h) {
  const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
  float x;
  std::memcpy(&x, &bits, 4);
  return x;
}

// x = h   h: F16 (IEEE binary16), exact for every value, and branch-free so that loops over it
//   vectorise: h placed in a binary32's top bits and shifted right 3 (arithmetically: the sign
//   stays on top, its copies masked off) puts the exponent and mantissa in binary32's places,
//   reading 2¹¹² too small for normal and subnormal values alike; one multiply by 2¹¹² (exact)
//   rescales them. An all-ones exponent (±∞, NaN) keeps all ones, and the payload.
inline float widen_f16(std::uint16_t h) {
  const std::int32_t placed = static_cast<std::int32_t>(static_cast<std::uint32_t>(h) << 16) >> 3;
  const std::uint32_t bits = static_cast<std::uint32_t>(placed) & 0x8FFFE000u;
  float scaled;
  std::memcpy(&scaled, &bits, 4);
  scaled *= 0x1p112f;
  std::uint32_t out;
  std::memcpy(&out, &scaled, 4);
  out = (h & 0x7C00u) == 0x7C00u ? bits | 0x70000000u : out;
  float x;
  std::memcpy(&x, &out, 4);
  return x;
}

// What a weight of type D holds in memory, and one of its values as a float (templates for the
//   loops that read weights, so that each compiles to straight SIMD for its type)
template <Dtype D>
using Element = std::conditional_t<D == Dtype::f32, Scalar, std::uint16_t>;
template <Dtype D>
inline Scalar widened(Element<D> value) {
  if constexpr (D == Dtype::bf16) return widen_bf16(value);
  else if constexpr (D == Dtype::f16) return widen_f16(value);
  else return value;
}

// h widened from `dtype` (F16 or BF16), one value
inline float widen_16(Dtype dtype, std::uint16_t h) { return dtype == Dtype::bf16 ? widen_bf16(h) : widen_f16(h); }

// Eight 16-bit values of type D, widened by one 128-bit load into two four-lane vectors: `even`
// holds p[0], p[2], p[4], p[6] and `odd` p[1], p[3], p[5], p[7], each taken from its half of a
// 32-bit lane (two or three instructions a vector, where widening lane by lane takes more). For
// the products' inner loops, which read a model's weights: F16 values must be finite there (a
// model's are, checked when it is made), as ±∞ and NaN would not keep their all-ones exponent.
using Floats4 = float __attribute__((vector_size(16)));
struct EightColumns {
  Floats4 even, odd;
};
template <Dtype D>
inline EightColumns widen_eight(const std::uint16_t* p) {
  using Words = std::uint32_t __attribute__((vector_size(16)));
  using SignedWords = std::int32_t __attribute__((vector_size(16)));
  Words words;
  std::memcpy(&words, p, sizeof words);  // p[2k] in lane k's low half, p[2k + 1] in its high half
  if constexpr (D == Dtype::bf16) {
    return {Floats4(words << 16), Floats4(words & 0xFFFF0000u)};
  } else {
    static_assert(D == Dtype::f16);
    // as widen_f16: the value in the top half, shifted right 3 with its sign, copies masked off
    const Words low = Words(SignedWords(words << 16) >> 3) & 0x8FFFE000u, high = Words(SignedWords(words) >> 3) & 0x8FFFE000u;
    return {Floats4(low) * 0x1p112f, Floats4(high) * 0x1p112f};
  }
}

// Eight consecutive values of a weight's row as two four-lane vectors: floats as they lie, 16-bit
// values widened apart into even and odd ones (widen_eight); take_columns and put_columns read and
// write eight floats (a product's outputs, a packed panel's row) in that same order
template <Dtype D>
constexpr bool kEvenOdd = D != Dtype::f32;
template <Dtype D>
EightColumns eight_columns(const Element<D>* w) {
  if constexpr (kEvenOdd<D>) {
    return widen_eight<D>(w);
  } else {
    EightColumns v;
    std::memcpy(&v.even, w, sizeof v.even);
    std::memcpy(&v.odd, w + 4, sizeof v.odd);
    return v;
  }
}
template <Dtype D>
EightColumns take_columns(const float* y) {
  Floats4 low, high;
  std::memcpy(&low, y, sizeof low);
  std::memcpy(&high, y + 4, sizeof high);
  if constexpr (kEvenOdd<D>) return {__builtin_shufflevector(low, high, 0, 2, 4, 6), __builtin_shufflevector(low, high, 1, 3, 5, 7)};
  else return {low, high};
}
template <Dtype D>
void put_columns(const EightColumns& v, float* y) {
  Floats4 low = v.even, high = v.odd;
  if constexpr (kEvenOdd<D>) {
    low = __builtin_shufflevector(v.even, v.odd, 0, 4, 1, 5);
    high = __builtin_shufflevector(v.even, v.odd, 2, 6, 3, 7);
  }
  std::memcpy(y, &low, sizeof low);
  std::memcpy(y + 4, &high, sizeof high);
}

// out[i] = in[i] widened from `dtype` (F16 or BF16)   count values → count floats
void widen(Dtype dtype, const std::uint16_t* in, Index count, float* out);

// true when the 16-bit value is finite (neither an infinity nor NaN)
inline bool finite_16(Dtype dtype, std::uint16_t h) {
  return dtype == Dtype::bf16 ? (h & 0x7F80u) != 0x7F80u : (h & 0x7C00u) != 0x7C00u;
}

class WeightMatrix;

// A read-only (rows, cols) weight matrix, row-major with rows `stride` values apart, of floats or
// of 16-bit values that products widen as they read them. Float matrices, their row-major blocks
// and views convert to it as they are; a WeightMatrix to its view().
class WeightView {
 public:
  template <class Derived>
  WeightView(const Eigen::DenseBase<Derived>& floats)  // NOLINT: a float matrix is a weight as it is
      : data_(floats.derived().data()), dtype_(Dtype::f32), rows_(floats.rows()), cols_(floats.cols()),
        stride_(floats.derived().outerStride()) {
    static_assert(bool(Derived::Flags & Eigen::DirectAccessBit) && bool(Derived::Flags & Eigen::RowMajorBit) &&
                      Derived::InnerStrideAtCompileTime == 1,
                  "a weight is read from a row-major float matrix in memory");
  }
  WeightView(const WeightMatrix& weight);  // NOLINT: its view()
  WeightView(const std::uint16_t* halves, Dtype dtype, Index rows, Index cols, Index stride)
      : data_(halves), dtype_(dtype), rows_(rows), cols_(cols), stride_(stride) {}

  Index rows() const { return rows_; }
  Index cols() const { return cols_; }
  Index stride() const { return stride_; }  // values from one row to the next
  Dtype dtype() const { return dtype_; }
  bool is_float() const { return dtype_ == Dtype::f32; }  // Scalars (double in the gradient checks' build)
  const Scalar* float_data() const { return static_cast<const Scalar*>(data_); }        // is_float()
  const std::uint16_t* half_data() const { return static_cast<const std::uint16_t*>(data_); }  // !is_float()

  Eigen::Map<const Matrix, 0, Eigen::OuterStride<>> floats() const;  // is_float(): the matrix itself
  Matrix widened() const;                                            // a float copy

  // body(std::integral_constant<Dtype, D>, const Element<D>* data) for this view's type D
  template <class Body>
  decltype(auto) with_elements(Body&& body) const {
    switch (dtype_) {
      case Dtype::bf16: return body(std::integral_constant<Dtype, Dtype::bf16>{}, half_data());
      case Dtype::f16: return body(std::integral_constant<Dtype, Dtype::f16>{}, half_data());
      case Dtype::f32: break;
    }
    return body(std::integral_constant<Dtype, Dtype::f32>{}, float_data());
  }

  WeightView middle_cols(Index first, Index count) const;
  WeightView left_cols(Index count) const { return middle_cols(0, count); }
  WeightView right_cols(Index count) const { return middle_cols(cols_ - count, count); }
  WeightView middle_rows(Index first, Index count) const;

  // out[0, count) = row i's entries [first, first + count), widened
  void row(Index i, Index first, Index count, Scalar* out) const;

 private:
  const void* data_;
  Dtype dtype_;
  Index rows_, cols_, stride_;
};

// A weight matrix as parameters hold it: the float Matrix it is, or, for a model loaded from a
// 16-bit checkpoint to be run (not trained), that checkpoint's values, the Matrix itself then
// empty. Forward passes read it through view(); backward passes and optimisers, which need
// floats, run only on float weights (trainers refuse the rest).
class WeightMatrix : public Matrix {
 public:
  WeightMatrix() = default;
  template <class Other>
  WeightMatrix(const Eigen::MatrixBase<Other>& other) : Matrix(other) {}  // NOLINT: as Matrix converts
  WeightMatrix(Matrix&& other) : Matrix(std::move(other)) {}  // NOLINT
  template <class Other>
  WeightMatrix& operator=(const Eigen::MatrixBase<Other>& other) {
    Matrix::operator=(other);
    drop_halves();
    return *this;
  }
  WeightMatrix& operator=(Matrix&& other) {
    Matrix::operator=(std::move(other));
    drop_halves();
    return *this;
  }

  bool is_half() const { return dtype_ != Dtype::f32; }
  Dtype dtype() const { return dtype_; }
  Index weight_rows() const { return is_half() ? half_rows_ : rows(); }
  Index weight_cols() const { return is_half() ? half_cols_ : cols(); }
  WeightView view() const;

  // becomes a (rows, cols) matrix of `dtype` values, all zero (F16 or BF16; the floats freed)
  void store_half(Dtype dtype, Index rows, Index cols);
  std::uint16_t* half_data() { return halves_.data(); }
  const std::uint16_t* half_data() const { return halves_.data(); }

 private:
  void drop_halves();
  std::vector<std::uint16_t> halves_;
  Dtype dtype_ = Dtype::f32;
  Index half_rows_ = 0, half_cols_ = 0;
};

// throws attnlab::Error unless w is (rows, cols) and, when `finite`, every value is finite; `name`
//   names it in the message
void require_weight(const WeightView& w, Index rows, Index cols, std::string_view name, bool finite);

}  // namespace attnlab
