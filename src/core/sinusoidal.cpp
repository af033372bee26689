#include "core/sinusoidal.hpp"

#include <cmath>

#include "core/check.hpp"

namespace attnlab {
namespace {

void validate_base(float base) {
  require(std::isfinite(base) && base > 1.0f,
          "positional encoding: base must be a finite number above 1");
}

// ω_i = base^(−2i/d), in double so large positions keep their phase
double frequency(Index i, Index d, float base) {
  return std::pow(static_cast<double>(base), -2.0 * static_cast<double>(i) / static_cast<double>(d));
}

// rows first, first + 1, … first + n − 1 of the table
Matrix sinusoidal_rows(Index first, Index n, Index d, float base) {
  Matrix pe(n, d);
  for (Index i = 0; 2 * i < d; ++i) {
    const double w = frequency(i, d, base);
    for (Index r = 0; r < n; ++r) {
      const double angle = static_cast<double>(first + r) * w;
      pe(r, 2 * i) = static_cast<Scalar>(std::sin(angle));
      if (2 * i + 1 < d) pe(r, 2 * i + 1) = static_cast<Scalar>(std::cos(angle));
    }
  }
  return pe;
}

}  // namespace

Matrix sinusoidal_table(Index n, Index d, float base) {
  require_size(n, d, "sinusoidal table");
  validate_base(base);
  return sinusoidal_rows(0, n, d, base);
}

Matrix position_similarity(const ConstMatrixRef& pe) {
  require_size(pe.rows(), pe.cols(), "position similarity input");
  require_size(pe.rows(), pe.rows(), "position similarity");
  require_finite(pe, "position similarity input");
  return pe * pe.transpose();
}

Matrix sinusoidal_shift_matrix(Index d, Index k, float base) {
  require_size(d, d, "shift matrix T_k");
  require(d % 2 == 0, "shift matrix T_k needs an even width d (sine/cosine pairs), got d = ", d);
  validate_base(base);
  Matrix t = Matrix::Zero(d, d);
  for (Index i = 0; 2 * i < d; ++i) {
    const double angle = static_cast<double>(k) * frequency(i, d, base);
    const Scalar c = static_cast<Scalar>(std::cos(angle)), s = static_cast<Scalar>(std::sin(angle));
    // sin(a+b) = sin a·cos b + cos a·sin b;  cos(a+b) = cos a·cos b − sin a·sin b
    t(2 * i, 2 * i) = c;
    t(2 * i, 2 * i + 1) = s;
    t(2 * i + 1, 2 * i) = -s;
    t(2 * i + 1, 2 * i + 1) = c;
  }
  return t;
}

Matrix sinusoidal_shift(Index pos, Index k, Index d, float base) {
  require(pos >= 0, "sinusoidal shift: the position must be 0 or more, got ", pos);
  const Matrix t = sinusoidal_shift_matrix(d, k, base);
  return (t * sinusoidal_rows(pos, 1, d, base).transpose()).transpose();
}

}  // namespace attnlab
