#include "core/weight.hpp"

#include <algorithm>

#include "core/check.hpp"

namespace attnlab {

std::size_t dtype_bytes(Dtype dtype) { return dtype == Dtype::f32 ? 4 : 2; }

std::string to_string(Dtype dtype) {
  switch (dtype) {
    case Dtype::f32: return "F32";
    case Dtype::f16: return "F16";
    case Dtype::bf16: return "BF16";
  }
  return "?";
}

void widen(Dtype dtype, const std::uint16_t* in, Index count, float* out) {
  if (dtype == Dtype::bf16)
    for (Index i = 0; i < count; ++i) out[i] = widen_bf16(in[i]);
  else
    for (Index i = 0; i < count; ++i) out[i] = widen_f16(in[i]);
}

Eigen::Map<const Matrix, 0, Eigen::OuterStride<>> WeightView::floats() const {
  require(is_float(), "weights: a ", to_string(dtype_), " matrix read as floats");
  return {float_data(), rows_, cols_, Eigen::OuterStride<>(stride_)};
}

Matrix WeightView::widened() const {
  if (is_float()) return floats();
  Matrix out(rows_, cols_);
  for (Index i = 0; i < rows_; ++i) row(i, 0, cols_, out.row(i).data());
  return out;
}

WeightView WeightView::middle_cols(Index first, Index count) const {
  require(first >= 0 && count >= 0 && first + count <= cols_, "weights: columns [", first, ", ", first + count,
          ") of a matrix of ", cols_);
  WeightView v = *this;
  v.data_ = static_cast<const char*>(data_) + first * (is_float() ? sizeof(Scalar) : 2);
  v.cols_ = count;
  return v;
}

WeightView WeightView::middle_rows(Index first, Index count) const {
  require(first >= 0 && count >= 0 && first + count <= rows_, "weights: rows [", first, ", ", first + count,
          ") of a matrix of ", rows_);
  WeightView v = *this;
  v.data_ = static_cast<const char*>(data_) + first * stride_ * (is_float() ? sizeof(Scalar) : 2);
  v.rows_ = count;
  return v;
}

void WeightView::row(Index i, Index first, Index count, Scalar* out) const {
  if (is_float()) {
    std::copy(float_data() + i * stride_ + first, float_data() + i * stride_ + first + count, out);
    return;
  }
  const std::uint16_t* in = half_data() + i * stride_ + first;
  if constexpr (sizeof(Scalar) == sizeof(float)) {
    widen(dtype_, in, count, reinterpret_cast<float*>(out));
  } else {
    for (Index j = 0; j < count; ++j) out[j] = widen_16(dtype_, in[j]);
  }
}

WeightView::WeightView(const WeightMatrix& weight) : WeightView(weight.view()) {}

WeightView WeightMatrix::view() const {
  if (!is_half()) return WeightView(static_cast<const Matrix&>(*this));
  return {halves_.data(), dtype_, half_rows_, half_cols_, half_cols_};
}

void WeightMatrix::store_half(Dtype dtype, Index rows, Index cols) {
  require(dtype != Dtype::f32, "weights: store_half needs F16 or BF16");
  Matrix::resize(0, 0);
  halves_.assign(static_cast<std::size_t>(rows * cols), 0);
  dtype_ = dtype;
  half_rows_ = rows;
  half_cols_ = cols;
}

void WeightMatrix::drop_halves() {
  halves_ = {};
  dtype_ = Dtype::f32;
  half_rows_ = half_cols_ = 0;
}

void require_weight(const WeightView& w, Index rows, Index cols, std::string_view name, bool finite) {
  if (w.rows() != rows || w.cols() != cols)
    throw_error({name, " has shape ", shape_string(w.rows(), w.cols()), ", expected ", shape_string(rows, cols)});
  if (!finite) return;
  if (w.is_float()) return require_finite(w.floats(), name);
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j)
      if (!finite_16(w.dtype(), w.half_data()[i * w.stride() + j]))
        throw_error({name, " contains a non-finite value at (", std::to_string(i), ",", std::to_string(j), ")"});
}

}  // namespace attnlab
