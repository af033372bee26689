#include "core/rope.hpp"

#include <cmath>
#include <string>

#include "core/check.hpp"

namespace attnlab {
namespace {

void validate_rope(Index d, float base) {
  require(d >= 2 && d % 2 == 0,
          "RoPE needs an even head width (pairs of coordinates), got ", d);
  require(std::isfinite(base) && base > 1.0f, "RoPE: base must be a finite number above 1");
}

// angle p·θ_i in double so long sequences keep their phase
double rope_angle(Index pos, Index i, Index d, float base) {
  return static_cast<double>(pos) *
         std::pow(static_cast<double>(base), -2.0 * static_cast<double>(i) / static_cast<double>(d));
}

// rotates every pair by +p·θ_i (direction 1) or −p·θ_i (direction −1)
void rotate_pairs(MatrixRef x, Index pos0, float base, int direction) {
  validate_rope(x.cols(), base);
  require(pos0 >= 0, "RoPE: first position must not be negative");
  const Index d = x.cols();
  for (Index r = 0; r < x.rows(); ++r) {
    for (Index i = 0; 2 * i < d; ++i) {
      const double a = rope_angle(pos0 + r, i, d, base);
      const Scalar c = static_cast<Scalar>(std::cos(a)), s = static_cast<Scalar>(direction * std::sin(a));
      const Scalar x0 = x(r, 2 * i), x1 = x(r, 2 * i + 1);
      x(r, 2 * i) = c * x0 - s * x1;
      x(r, 2 * i + 1) = s * x0 + c * x1;
    }
  }
}

}  // namespace

void rope_apply(MatrixRef x, Index pos0, float base) { rotate_pairs(x, pos0, base, 1); }

void rope_apply_transpose(MatrixRef dy, Index pos0, float base) { rotate_pairs(dy, pos0, base, -1); }

Matrix rope_rotation(Index d, Index pos, float base) {
  validate_rope(d, base);
  require_size(d, d, "RoPE rotation");
  Matrix rot = Matrix::Zero(d, d);
  for (Index i = 0; 2 * i < d; ++i) {
    const double a = rope_angle(pos, i, d, base);
    const Scalar c = static_cast<Scalar>(std::cos(a)), s = static_cast<Scalar>(std::sin(a));
    rot(2 * i, 2 * i) = c;
    rot(2 * i, 2 * i + 1) = -s;
    rot(2 * i + 1, 2 * i) = s;
    rot(2 * i + 1, 2 * i + 1) = c;
  }
  return rot;
}

}  // namespace attnlab
