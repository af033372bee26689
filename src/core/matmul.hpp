#pragma once
// Matrix products C = A·B and C = A·Bᵀ, the arithmetic of every projection, attention and
// feed-forward. WebAssembly builds run the packed kernel below: Eigen's, compiled from SSE into
// SIMD128, runs at 60–70 % of its speed there. Native builds run Eigen's, faster natively and the
// product the shipped models were trained with, bit for bit.
#include <vector>

#include "core/tensor.hpp"
#include "core/weight.hpp"

namespace attnlab {

// true where matmul runs packed_matmul (the WebAssembly builds' float engine)
bool matmul_is_packed();

// C = A·B, or C += A·B when `add`   A:(m,k) B:(k,n) C:(m,n); on WebAssembly blocks of B's columns
//   go to the threads (inside a parallel region, all on the calling thread). B may be a weight of
//   16-bit values (weight.hpp): the same product as over its widened floats, bit for bit.
void matmul(const ConstMatrixRef& a, const WeightView& b, MatrixRef c, bool add = false);

// C = A·B + 1·bias   A:(m,k) B:(k,n) bias:(n) → C:(m,n); the bias added to each finished sum as the
//   columns are written, on their threads (the same bits as C = A·B, then C.rowwise() += bias)
void matmul(const ConstMatrixRef& a, const WeightView& b, const Eigen::Ref<const RowVector>& bias, MatrixRef c);

// C = A·Bᵀ   A:(m,k) B:(n,k) → C:(m,n) (scores Q·Kᵀ, logits x·Eᵀ)
void matmul_transposed(const ConstMatrixRef& a, const WeightView& b, MatrixRef c);

// B, or Bᵀ when `transposed` (then given as (n,k)), prepared once for the `rows` of A that will be
//   multiplied by it (a head's keys and values, which every block of its queries reads): all of its
//   panels packed on WebAssembly, unless so few rows (a decoded token's query) would read it that
//   Eigen's matrix-vector kernels, reading B as it is, cost less; natively a view of B. B must
//   outlive it.
class PackedMatrix {
 public:
  PackedMatrix(const ConstMatrixRef& b, bool transposed, Index rows);
  Index depth() const { return transposed_ ? source_.cols() : source_.rows(); }  // k
  Index width() const { return transposed_ ? source_.rows() : source_.cols(); }  // n

 private:
  friend void matmul(const ConstMatrixRef& a, const PackedMatrix& b, MatrixRef c, bool add);
  ConstMatrixRef source_;
  bool transposed_;
  std::vector<Scalar> panels_;  // depth slice by slice, each slice panel by panel
};

// C = A·B (C += A·B when `add`) against a prepared B   A:(m,k) → C:(m,n); on the calling thread
void matmul(const ConstMatrixRef& a, const PackedMatrix& b, MatrixRef c, bool add = false);

// Products made while one of these lives round each multiply and each add apart, as the SIMD128
//   build's do, also in the relaxed-SIMD build, whose products otherwise fuse the two (one rounding,
//   a last bit apart): a training run then gives the same bits in either WebAssembly engine, and
//   stored runs replay exactly. Scopes nest; one holds for every thread until it ends.
class SeparateRounding {
 public:
  SeparateRounding();
  ~SeparateRounding();
  SeparateRounding(const SeparateRounding&) = delete;
  SeparateRounding& operator=(const SeparateRounding&) = delete;
};

// true where products fuse each multiply-add now: the relaxed-SIMD build, outside SeparateRounding
bool products_fused();

// A probe of the most multiply-adds a thread does: `steps` steps of 12 independent vectors a·b + c,
//   with the products' own multiply_add (fused as products are now); kPeakFlopsPerStep
//   floating-point operations a step. Returns a sum of the results, so that nothing is left out.
constexpr double kPeakFlopsPerStep = 12 * 4 * 2;
Scalar multiply_add_peak(Index steps);

// The packed kernel on any build (natively for its tests): C (+)= A·B (+ 1·bias when given: n
//   entries), or A·Bᵀ when `b_transposed` (B then (n,k)). B is copied in panels of 8 columns × 256
//   rows, each panel swept by every 4 rows of A, whose 4 × 8 sums stay in registers; each C entry
//   sums its products in order of k, so the result is the same however the columns are split over
//   threads.
void packed_matmul(const ConstMatrixRef& a, const WeightView& b, bool b_transposed, MatrixRef c, bool add,
                   const Scalar* bias = nullptr);

}  // namespace attnlab
