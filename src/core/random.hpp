#pragma once
// Seeded random numbers that are identical on every platform: std::mt19937 is fully specified,
// but the standard distributions are not (libstdc++ and Emscripten's libc++ differ), so the
// distributions are written out here.
#include <cmath>
#include <cstdint>
#include <random>

#include "core/tensor.hpp"

namespace attnlab {

class Rng {
 public:
  explicit Rng(std::uint32_t seed) : engine_(seed) {}

  // u ~ U[0,1), 24 random bits
  float uniform() { return static_cast<float>(engine_() >> 8) * (1.0f / 16777216.0f); }

  // i ~ U{0, …, n−1}, n ≥ 1, without modulo bias (rejection of the incomplete last block)
  std::uint32_t below(std::uint32_t n) {
    const std::uint32_t limit = 0xFFFFFFFFu - 0xFFFFFFFFu % n;
    std::uint32_t r;
    do r = engine_(); while (r >= limit);
    return r % n;
  }

  // z ~ N(mean, std²) by Box–Muller
  float normal(float mean = 0.0f, float std = 1.0f) {
    const double u1 = (static_cast<double>(engine_() >> 8) + 1.0) / 16777217.0;  // (0,1]
    const double u2 = static_cast<double>(engine_() >> 8) / 16777216.0;
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    return mean + std * static_cast<float>(z);
  }

 private:
  std::mt19937 engine_;
};

// (rows, cols) of independent N(0, std²) draws, row by row
inline Matrix draw_normal(Index rows, Index cols, Rng& rng, float std = 1.0f) {
  Matrix m(rows, cols);
  for (Index i = 0; i < m.size(); ++i) m.data()[i] = rng.normal(0.0f, std);
  return m;
}

}  // namespace attnlab
