#include "core/layer_norm.hpp"

#include <cmath>
#include <string>

#include "core/check.hpp"

namespace attnlab {

Matrix layer_norm_forward(const ConstMatrixRef& x, const RowVector& gamma, const RowVector& beta,
                          float eps) {
  require(gamma.size() == x.cols() && beta.size() == x.cols(),
          "layer norm: γ and β need " + std::to_string(x.cols()) + " entries, got " +
              std::to_string(gamma.size()) + " and " + std::to_string(beta.size()));
  require(std::isfinite(eps) && eps > 0.0f, "layer norm: ε must be a positive number");
  Matrix y(x.rows(), x.cols());
  for (Index i = 0; i < x.rows(); ++i) {
    const float mean = x.row(i).mean();
    const RowVector centred = x.row(i).array() - mean;
    const float variance = centred.squaredNorm() / static_cast<float>(x.cols());
    y.row(i) = (centred * (1.0f / std::sqrt(variance + eps))).cwiseProduct(gamma) + beta;
  }
  return y;
}

}  // namespace attnlab
