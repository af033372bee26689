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
