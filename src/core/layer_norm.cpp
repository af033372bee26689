#include "core/layer_norm.hpp"

#include <cmath>
#include <string>

#include "core/check.hpp"

namespace attnlab {

Matrix layer_norm_forward(const ConstMatrixRef& x, const RowVector& gamma, const RowVector& beta,
                          float eps) {
  require(gamma.size() == x.cols() && beta.size() == x.cols(),
          "layer norm: γ and β need ", x.cols(), " entries, got ", gamma.size(), " and ", beta.size());
  require(std::isfinite(eps) && eps > 0.0f, "layer norm: ε must be a positive number");
  Matrix y(x.rows(), x.cols());
  RowVector centred(x.cols());  // one row's scratch, reused row after row
  for (Index i = 0; i < x.rows(); ++i) {
    const Scalar mean = x.row(i).mean();
    centred = x.row(i).array() - mean;
    const Scalar variance = centred.squaredNorm() / static_cast<Scalar>(x.cols());
    y.row(i) = (centred * (Scalar(1) / std::sqrt(variance + eps))).cwiseProduct(gamma) + beta;
  }
  return y;
}

Matrix layer_norm_backward(const ConstMatrixRef& x, const RowVector& gamma, const ConstMatrixRef& dy,
                           RowVector& dgamma, RowVector& dbeta, float eps) {
  require(dy.rows() == x.rows() && dy.cols() == x.cols(), "layer norm backward: dy must have x's shape");
  require(gamma.size() == x.cols() && dgamma.size() == x.cols() && dbeta.size() == x.cols(),
          "layer norm backward: γ, dγ and dβ need ", x.cols(), " entries");
  Matrix dx(x.rows(), x.cols());
  const Scalar d = static_cast<Scalar>(x.cols());
  RowVector centred(x.cols()), normed(x.cols()), dnormed(x.cols());  // one row's scratch, reused
  for (Index i = 0; i < x.rows(); ++i) {
    const Scalar mean = x.row(i).mean();
    centred = x.row(i).array() - mean;
    const Scalar rstd = Scalar(1) / std::sqrt(centred.squaredNorm() / d + eps);
    normed = centred * rstd;
    dnormed = dy.row(i).cwiseProduct(gamma);
    dgamma += dy.row(i).cwiseProduct(normed);
    dbeta += dy.row(i);
    const Scalar mean_dnormed = dnormed.mean(), mean_dnormed_normed = dnormed.dot(normed) / d;
    dx.row(i) = ((dnormed.array() - mean_dnormed - normed.array() * mean_dnormed_normed) * rstd).matrix();
  }
  return dx;
}

Matrix layer_norm_jacobian(const RowVector& x, const RowVector& gamma, float eps) {
  const Index d = x.size();
  // the gradients of γ (and β) are not wanted here; backward accumulates them somewhere
  RowVector dgamma = RowVector::Zero(d);
  RowVector dbeta = RowVector::Zero(d);
  const Matrix dy = Matrix::Identity(d, d);
  return layer_norm_backward(x.replicate(d, 1), gamma, dy, dgamma, dbeta, eps);
}

}  // namespace attnlab
