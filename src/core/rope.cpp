#include "core/rope.hpp"

#include <cmath>
#include <string>

#include "core/check.hpp"
#include "core/enum_names.hpp"

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

// the coordinates (a, b) of the i-th pair of a d-wide head
std::pair<Index, Index> pair_of(Index i, Index d, RopePairing pairing) {
  return pairing == RopePairing::interleaved ? std::pair{2 * i, 2 * i + 1} : std::pair{i, i + d / 2};
}

// rotates every pair by +p·θ_i (direction 1) or −p·θ_i (direction −1)
void rotate_pairs(MatrixRef x, Index pos0, float base, RopePairing pairing, int direction) {
  validate_rope(x.cols(), base);
  require(pos0 >= 0, "RoPE: first position must not be negative");
  const Index d = x.cols();
  for (Index r = 0; r < x.rows(); ++r) {
    for (Index i = 0; 2 * i < d; ++i) {
      const double a = rope_angle(pos0 + r, i, d, base);
      const Scalar c = static_cast<Scalar>(std::cos(a)), s = static_cast<Scalar>(direction * std::sin(a));
      const auto [a0, a1] = pair_of(i, d, pairing);
      const Scalar x0 = x(r, a0), x1 = x(r, a1);
      x(r, a0) = c * x0 - s * x1;
      x(r, a1) = s * x0 + c * x1;
    }
  }
}

}  // namespace

void rope_apply(MatrixRef x, Index pos0, float base, RopePairing pairing) { rotate_pairs(x, pos0, base, pairing, 1); }

void rope_apply_transpose(MatrixRef dy, Index pos0, float base, RopePairing pairing) {
  rotate_pairs(dy, pos0, base, pairing, -1);
}

Matrix rope_rotation(Index d, Index pos, float base, RopePairing pairing) {
  validate_rope(d, base);
  require_size(d, d, "RoPE rotation");
  Matrix rot = Matrix::Zero(d, d);
  for (Index i = 0; 2 * i < d; ++i) {
    const double a = rope_angle(pos, i, d, base);
    const Scalar c = static_cast<Scalar>(std::cos(a)), s = static_cast<Scalar>(std::sin(a));
    const auto [a0, a1] = pair_of(i, d, pairing);
    rot(a0, a0) = c;
    rot(a0, a1) = -s;
    rot(a1, a0) = s;
    rot(a1, a1) = c;
  }
  return rot;
}

namespace {
constexpr std::pair<const char*, RopePairing> kPairings[] = {{"interleaved", RopePairing::interleaved},
                                                             {"rotate_half", RopePairing::rotate_half}};
}  // namespace

RopePairing rope_pairing_from_string(const std::string& name) { return enum_from_name(name, "RoPE pairing", kPairings); }
std::string to_string(RopePairing pairing) { return enum_name(pairing, kPairings); }

}  // namespace attnlab
