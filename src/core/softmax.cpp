#include "core/softmax.hpp"

#include <cmath>
#include <limits>

#include "core/check.hpp"
#include "core/exp.hpp"

namespace attnlab {
namespace {

// One row, kept out of line: V8 optimises a wasm function between calls, not during one long call.
[[gnu::noinline]] void softmax_row(Scalar* row, Index m) {
  Eigen::Map<Eigen::Matrix<Scalar, 1, Eigen::Dynamic>> r(row, m);
  const Scalar max = r.maxCoeff();
  if (max == -std::numeric_limits<Scalar>::infinity()) {
    r.setZero();
    return;
  }
  r.array() -= max;
  exp_inplace(row, m);
  r *= Scalar(1) / r.sum();
}

}  // namespace

void softmax_rows_forward(const ConstMatrixRef& x, MatrixRef y) {
  if (y.rows() != x.rows() || y.cols() != x.cols())  // shapes written only on failure
    throw_error({"softmax: output shape ", shape_string(y.rows(), y.cols()), " differs from input ",
                 shape_string(x.rows(), x.cols())});
  for (Index i = 0; i < x.rows(); ++i) {
    if (y.row(i).data() != x.row(i).data()) y.row(i) = x.row(i);
    softmax_row(y.row(i).data(), y.cols());
  }
}

void softmax_rows_backward(const ConstMatrixRef& y, const ConstMatrixRef& dy, MatrixRef dx) {
  require(dy.rows() == y.rows() && dy.cols() == y.cols() && dx.rows() == y.rows() &&
              dx.cols() == y.cols(),
          "softmax backward: y, dy and dx must share one shape");
  for (Index i = 0; i < y.rows(); ++i) {
    const Scalar dot = y.row(i).dot(dy.row(i));
    dx.row(i) = (y.row(i).array() * (dy.row(i).array() - dot)).matrix();
  }
}

SoftmaxRowAnalysis softmax_row_analysis(const RowVector& scores, Scalar scale, Scalar temperature) {
  require(scores.size() >= 1, "softmax row: scores is empty");
  require(std::isfinite(scale), "softmax row: scale must be finite");
  require(std::isfinite(temperature) && temperature > 0,
          "softmax row: temperature must be a finite number > 0, got ", temperature);
  const Index m = scores.size();
  const RowVector z = scores * (scale / temperature);
  require_finite(z, "softmax row: scale·scores/temperature");
  SoftmaxRowAnalysis a;
  a.weights.resize(m);
  softmax_rows_forward(z, a.weights);
  for (Index i = 0; i < m; ++i)
    if (a.weights(i) > 0) a.entropy -= static_cast<double>(a.weights(i)) * std::log(static_cast<double>(a.weights(i)));
  a.max_weight = a.weights.maxCoeff();
  // row i of J is dz for dy = e_i: stack m copies of a against the identity
  a.jacobian.resize(m, m);
  softmax_rows_backward(a.weights.replicate(m, 1), Matrix::Identity(m, m), a.jacobian);
  a.jacobian_norm = a.jacobian.cast<double>().norm();
  return a;
}

}  // namespace attnlab
