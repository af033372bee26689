#include "core/rms_norm.hpp"

#include <cmath>
#include <string>

#include "core/check.hpp"

namespace attnlab {

Matrix rms_norm_forward(const ConstMatrixRef& x, const RowVector& gamma, float eps) {
  require(gamma.size() == x.cols(), "RMS norm: γ needs " + std::to_string(x.cols()) +
                                        " entries, got " + std::to_string(gamma.size()));
  require(std::isfinite(eps) && eps > 0.0f, "RMS norm: ε must be a positive number");
  Matrix y(x.rows(), x.cols());
  for (Index i = 0; i < x.rows(); ++i) {
    const float mean_square = x.row(i).squaredNorm() / static_cast<float>(x.cols());
    y.row(i) = (x.row(i) * (1.0f / std::sqrt(mean_square + eps))).cwiseProduct(gamma);
  }
  return y;
}

}  // namespace attnlab
