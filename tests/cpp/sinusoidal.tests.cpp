#include <catch2/catch.hpp>
#include <cmath>

#include "core/check.hpp"
#include "core/sinusoidal.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;
using Catch::Matchers::WithinAbs;

TEST_CASE("sinusoidal positional encoding", "[positional][sinusoidal]") {
  SECTION("the seminar's formula, entry by entry") {
    const Matrix pe = sinusoidal_table(50, 6);
    for (Index pos : {0, 1, 7, 49})
      for (Index i = 0; i < 3; ++i) {
        const double w = std::pow(10000.0, -2.0 * i / 6.0);
        CHECK_THAT(pe(pos, 2 * i), WithinAbs(std::sin(pos * w), 1e-6));
        CHECK_THAT(pe(pos, 2 * i + 1), WithinAbs(std::cos(pos * w), 1e-6));
      }
    CHECK(pe.cwiseAbs().maxCoeff() <= 1.0f);
  }
  SECTION("odd width ends in a sine; the base is configurable") {
    const Matrix pe = sinusoidal_table(4, 5, 100.0f);
    CHECK_THAT(pe(3, 4), WithinAbs(std::sin(3.0 * std::pow(100.0, -4.0 / 5.0)), 1e-6));
    CHECK_THAT(pe(2, 3), WithinAbs(std::cos(2.0 * std::pow(100.0, -2.0 / 5.0)), 1e-6));
  }
  SECTION("PE(pos+k) = T_k·PE(pos) for every pos and k") {
    const Index d = 16;
    const Matrix pe = sinusoidal_table(64, d);
    for (Index k : {1, 3, 10}) {
      const Matrix t = sinusoidal_shift_matrix(d, k);
      for (Index pos : {0, 5, 20, 40})
        CHECK_THAT(Matrix((t * pe.row(pos).transpose()).transpose()), IsNear(Matrix(pe.row(pos + k)), 2e-6));
      // T_k is a rotation: orthogonal
      CHECK_THAT(Matrix(t * t.transpose()), IsNear(Matrix(Matrix::Identity(d, d)), 1e-6));
    }
    CHECK_THAT(sinusoidal_shift_matrix(d, 0), IsNear(Matrix(Matrix::Identity(d, d)), 0));
  }
  SECTION("sinusoidal_shift rotates one row to the row k further, at any position and base") {
    for (float base : {10000.0f, 100.0f}) {
      const Matrix pe = sinusoidal_table(300, 32, base);
      for (Index pos : {0, 7, 250})
        for (Index k : {0, 1, 9, 49, -7}) {
          if (pos + k < 0) continue;  // the table starts at position 0
          const Matrix moved = sinusoidal_shift(pos, k, 32, base);
          REQUIRE(moved.rows() == 1);
          REQUIRE(moved.cols() == 32);
          CHECK_THAT(moved, IsNear(Matrix(pe.row(pos + k)), 1e-5));
        }
    }
    CHECK_THROWS_WITH(sinusoidal_shift(-1, 2, 8), Catch::Contains("0 or more"));
    CHECK_THROWS_WITH(sinusoidal_shift(3, 2, 7), Catch::Contains("even width"));
  }
  SECTION("PE·PEᵀ depends only on |i − j| and peaks on the diagonal") {
    const Matrix s = position_similarity(sinusoidal_table(12, 8));
    CHECK_THAT(s, IsNear(Matrix(s.transpose()), 1e-6));
    for (Index i = 0; i + 1 < 12; ++i) CHECK_THAT(s(i, i + 1), WithinAbs(s(0, 1), 1e-5));
    for (Index i = 0; i < 12; ++i) {
      CHECK_THAT(s(i, i), WithinAbs(4.0, 1e-5));  // d/2 pairs of sin² + cos²
      for (Index j = 0; j < 12; ++j) CHECK(s(i, j) <= s(i, i) + 1e-5f);
    }
  }
  SECTION("bad sizes and bases are refused with a reason") {
    CHECK_THROWS_WITH(sinusoidal_table(0, 4), Catch::Contains("at least one row"));
    CHECK_THROWS_WITH(sinusoidal_table(1 << 20, 1 << 20), Catch::Contains("too large"));
    CHECK_THROWS_WITH(sinusoidal_table(4, 4, 1.0f), Catch::Contains("base"));
    CHECK_THROWS_WITH(sinusoidal_table(4, 4, std::nanf("")), Catch::Contains("base"));
    CHECK_THROWS_WITH(sinusoidal_shift_matrix(5, 1), Catch::Contains("even width"));
  }
}
