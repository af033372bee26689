#pragma once
// Central finite differences for the double-precision build: every backward pass is compared with
//   ∂L/∂θ_i ≈ (L(θ + h·e_i) − L(θ − h·e_i)) / 2h
// entry by entry. In double, truncation (~h²) and rounding (~ε/h) errors stay near 1e-10, so an
// agreement to 1e-6 leaves no room for a wrong term.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "core/random.hpp"
#include "core/tensor.hpp"

namespace attnlab::test {

static_assert(sizeof(Scalar) == 8, "the gradient checks need the double-precision build");

inline Matrix random_matrix(Index rows, Index cols, Rng& rng, double std = 1.0) {
  Matrix m(rows, cols);
  for (Index i = 0; i < m.size(); ++i) m.data()[i] = rng.normal(0.0f, static_cast<float>(std));
  return m;
}

// L(y) = Σ y ⊙ R for a fixed random R: its dL/dy is R, so any dy the backward needs is R itself.
inline double projected(const Matrix& y, const Matrix& r) { return y.cwiseProduct(r).sum(); }

// The largest |analytic − numeric| / (1e-3 + |numeric|) over the `count` entries at theta, with
// loss() re-evaluated around each entry (which is restored afterwards).
template <class Loss>
double worst_gradient_error(Scalar* theta, const Scalar* analytic, Index count, Loss&& loss) {
  constexpr double h = 1e-5;
  double worst = 0;
  for (Index i = 0; i < count; ++i) {
    const Scalar saved = theta[i];
    theta[i] = saved + h;
    const double plus = loss();
    theta[i] = saved - h;
    const double minus = loss();
    theta[i] = saved;
    const double numeric = (plus - minus) / (2 * h);
    worst = std::max(worst, std::abs(analytic[i] - numeric) / (1e-3 + std::abs(numeric)));
  }
  return worst;
}

// CHECKs that `analytic` is dL/dθ for every entry of θ (a matrix or vector of the same size)
template <class Param, class Grad, class Loss>
void check_gradient(const std::string& name, Param& theta, const Grad& analytic, Loss&& loss) {
  REQUIRE(theta.size() == analytic.size());
  const double worst = worst_gradient_error(theta.data(), analytic.data(), theta.size(), loss);
  INFO("gradient of " << name << ": worst relative difference " << worst);
  CHECK(worst < 1e-6);
}

}  // namespace attnlab::test
