#include <catch2/catch.hpp>
#include <limits>

#include "core/check.hpp"
#include "core/thread_pool.hpp"

using namespace attnlab;

TEST_CASE("all_finite and require_finite", "[check]") {
  constexpr Scalar kInf = std::numeric_limits<Scalar>::infinity();
  const Scalar odd[] = {kInf, -kInf, std::numeric_limits<Scalar>::quiet_NaN(), -std::numeric_limits<Scalar>::quiet_NaN(),
                        std::numeric_limits<Scalar>::signaling_NaN()};
  // 7 × 37: rows longer than a vector, with a ragged end
  Matrix x = Matrix::Random(7, 37) * Scalar(1e3);
  SECTION("every finite float passes: the largest, the smallest, subnormals, −0") {
    x(0, 0) = std::numeric_limits<Scalar>::max();
    x(1, 36) = std::numeric_limits<Scalar>::lowest();
    x(2, 5) = std::numeric_limits<Scalar>::denorm_min();
    x(3, 6) = -Scalar(0);
    CHECK(all_finite(x));
    CHECK_NOTHROW(require_finite(x, "x"));
    CHECK(all_finite(Matrix(0, 3)));
  }
  SECTION("±Inf or any NaN anywhere fails, and the message says where") {
    for (const Scalar bad : odd) {
      for (const auto& [i, j] : {std::pair<Index, Index>{0, 0}, {3, 17}, {6, 36}, {6, 32}}) {
        Matrix y = x;
        y(i, j) = bad;
        INFO("(" << i << "," << j << ") = " << bad);
        CHECK_FALSE(all_finite(y));
        CHECK_THROWS_WITH(require_finite(y, "x"), "x contains a non-finite value at (" + std::to_string(i) + "," +
                                                     std::to_string(j) + ")");
      }
    }
  }
  SECTION("a large matrix, read in blocks of rows on the threads, finds one bad entry wherever it is") {
    const Matrix big = Matrix::Random(300, 301);  // ≥ 2¹⁶ entries: split
    for (const Index threads : {Index(1), std::min<Index>(max_threads(), 3)}) {
      set_num_threads(threads);
      CHECK(all_finite(big));
      for (const auto& [i, j] : {std::pair<Index, Index>{0, 0}, {149, 300}, {150, 0}, {299, 300}}) {
        Matrix y = big;
        y(i, j) = odd[2];
        INFO(threads << " threads, (" << i << "," << j << ")");
        CHECK_FALSE(all_finite(y));
      }
    }
    set_num_threads(1);
  }
  SECTION("a block reads only its own entries (rows a stride apart)") {
    x(0, 0) = kInf;     // outside the block
    x(5, 30) = kInf;    // outside the block
    CHECK(all_finite(x.block(1, 1, 4, 28)));
    x(4, 28) = odd[2];  // its last entry
    CHECK_FALSE(all_finite(x.block(1, 1, 4, 28)));
  }
}
