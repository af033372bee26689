#include "core/rms_norm.hpp"

#include <cmath>
#include <string>

#include "core/check.hpp"

namespace attnlab {

Matrix rms_norm_forward(const ConstMatrixRef& x, const RowVector& gamma, float eps) {
  require(gamma.size() == x.cols(), "RMS norm: γ needs ", x.cols(), " entries, got ", gamma.size());
  require(std::isfinite(eps) && eps > 0.0f, "RMS norm: ε must be a positive number");
  Matrix y(x.rows(), x.cols());
  for (Index i = 0; i < x.rows(); ++i) {
    const Scalar mean_square = x.row(i).squaredNorm() / static_cast<Scalar>(x.cols());
    y.row(i) = (x.row(i) * (Scalar(1) / std::sqrt(mean_square + eps))).cwiseProduct(gamma);
  }
  return y;
}

Matrix rms_norm_backward(const ConstMatrixRef& x, const RowVector& gamma, const ConstMatrixRef& dy,
                         RowVector& dgamma, float eps) {
  require(dy.rows() == x.rows() && dy.cols() == x.cols(), "RMS norm backward: dy must have x's shape");
  require(gamma.size() == x.cols() && dgamma.size() == x.cols(),
          "RMS norm backward: γ and dγ need ", x.cols(), " entries");
  Matrix dx(x.rows(), x.cols());
  const Scalar d = static_cast<Scalar>(x.cols());
  RowVector g(x.cols());  // one row's scratch, reused row after row
  for (Index i = 0; i < x.rows(); ++i) {
    const Scalar r = Scalar(1) / std::sqrt(x.row(i).squaredNorm() / d + eps);
    g = dy.row(i).cwiseProduct(gamma);
    dgamma += dy.row(i).cwiseProduct(x.row(i)) * r;
    dx.row(i) = g * r - x.row(i) * (r * r * r * g.dot(x.row(i)) / d);
  }
  return dx;
}

Matrix rms_norm_jacobian(const RowVector& x, const RowVector& gamma, float eps) {
  const Index d = x.size();
  // the gradients of γ (and β) are not wanted here; backward accumulates them somewhere
  RowVector dgamma = RowVector::Zero(d);
  const Matrix dy = Matrix::Identity(d, d);
  return rms_norm_backward(x.replicate(d, 1), gamma, dy, dgamma, eps);
}

}  // namespace attnlab
