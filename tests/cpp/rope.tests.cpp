#include <catch2/catch.hpp>

#include "core/check.hpp"
#include "core/rope.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;
using Catch::Matchers::WithinAbs;

TEST_CASE("rotary position embedding", "[positional][rope]") {
  const Matrix q = rows({{0.3f, -1.2f, 0.8f, 0.5f, -0.1f, 2.0f}});
  const Matrix k = rows({{1.1f, 0.4f, -0.7f, 0.9f, 0.6f, -0.3f}});
  auto at = [](Matrix x, Index pos) {
    rope_apply(x, pos);
    return x;
  };

  SECTION("preserves norms") {
    for (Index pos : {0, 1, 17, 1000}) CHECK_THAT(at(q, pos).norm(), WithinAbs(q.norm(), 1e-5));
  }
  SECTION("q_m·k_n depends only on n − m and equals q·R_{n−m}·k") {
    for (Index m : {0, 3, 11})
      for (Index n : {0, 2, 9}) {
        const float score = at(q, m).row(0).dot(at(k, n).row(0));
        CHECK_THAT(score, WithinAbs(at(q, m + 40).row(0).dot(at(k, n + 40).row(0)), 2e-5));
        const Index offset = n - m;
        const Matrix rel = offset >= 0 ? rope_rotation(6, offset) : Matrix(rope_rotation(6, -offset).transpose());
        CHECK_THAT(score, WithinAbs(q.row(0).dot((rel * k.transpose()).col(0)), 2e-5));
      }
  }
  SECTION("position 0 is the identity; rope_apply is multiplication by R_p") {
    CHECK_THAT(at(q, 0), IsNear(q, 0));
    const Matrix r = rope_rotation(6, 5, 500.0f);
    Matrix rotated = q;
    rope_apply(rotated, 5, 500.0f);
    CHECK_THAT(rotated, IsNear(Matrix((r * q.transpose()).transpose()), 1e-6));
  }
  SECTION("rows take consecutive positions from pos0") {
    Matrix two(2, 6);
    two << q, q;
    rope_apply(two, 7);
    CHECK_THAT(Matrix(two.row(1)), IsNear(at(q, 8), 1e-6));
  }
  SECTION("odd widths and bad bases are refused") {
    Matrix odd = Matrix::Ones(2, 5);
    CHECK_THROWS_WITH(rope_apply(odd, 0), Catch::Contains("even head width"));
    Matrix even = Matrix::Ones(2, 4);
    CHECK_THROWS_WITH(rope_apply(even, 0, 0.5f), Catch::Contains("base"));
    CHECK_THROWS_WITH(rope_apply(even, -1), Catch::Contains("negative"));
  }
}

TEST_CASE("RoPE pairs (i, i + d/2) as Hugging Face's Llama code rotates them", "[positional][rope]") {
  const Matrix x = rows({{0.3f, -1.2f, 0.8f, 0.5f, -0.1f, 2.0f}, {1.1f, 0.4f, -0.7f, 0.9f, 0.6f, -0.3f}});
  // the permutation taking interleaved coordinates (2i, 2i+1) to halves (i, i + d/2)
  const auto to_halves = [](const Matrix& m) {
    Matrix out(m.rows(), m.cols());
    const Index half = m.cols() / 2;
    for (Index i = 0; i < half; ++i) {
      out.col(i) = m.col(2 * i);
      out.col(i + half) = m.col(2 * i + 1);
    }
    return out;
  };
  SECTION("the same rotation on permuted coordinates") {
    Matrix interleaved = x, halves = to_halves(x);
    rope_apply(interleaved, 3, 500.0f);
    rope_apply(halves, 3, 500.0f, RopePairing::rotate_half);
    CHECK_THAT(halves, IsNear(to_halves(interleaved), 1e-6));
  }
  SECTION("q·cos + rotate_half(q)·sin, written out for d = 4 at position 2") {
    Matrix q = rows({{1.0f, 2.0f, 3.0f, 4.0f}});
    rope_apply(q, 2, 100.0f, RopePairing::rotate_half);
    const double a0 = 2.0, a1 = 2.0 / 10.0;  // p·θ_i with θ_i = 100^(−2i/4)
    CHECK_THAT(q(0, 0), WithinAbs(1 * std::cos(a0) - 3 * std::sin(a0), 1e-6));
    CHECK_THAT(q(0, 1), WithinAbs(2 * std::cos(a1) - 4 * std::sin(a1), 1e-6));
    CHECK_THAT(q(0, 2), WithinAbs(3 * std::cos(a0) + 1 * std::sin(a0), 1e-6));
    CHECK_THAT(q(0, 3), WithinAbs(4 * std::cos(a1) + 2 * std::sin(a1), 1e-6));
  }
  SECTION("the transpose undoes it, and R_p is the matrix it applies") {
    const Matrix first = x.topRows(1);
    Matrix y = first;
    rope_apply(y, 9, 10000.0f, RopePairing::rotate_half);
    const Matrix r = rope_rotation(6, 9, 10000.0f, RopePairing::rotate_half);
    CHECK_THAT(y, IsNear(Matrix((r * first.transpose()).transpose()), 1e-6));
    rope_apply_transpose(y, 9, 10000.0f, RopePairing::rotate_half);
    CHECK_THAT(y, IsNear(first, 1e-6));
  }
  SECTION("named in configs") {
    CHECK(rope_pairing_from_string("rotate_half") == RopePairing::rotate_half);
    CHECK(to_string(RopePairing::interleaved) == "interleaved");
    CHECK_THROWS_WITH(rope_pairing_from_string("halves"), Catch::Contains("expected interleaved, rotate_half"));
  }
}
