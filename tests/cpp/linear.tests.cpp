#include <catch2/catch.hpp>

#include "core/check.hpp"
#include "core/linear.hpp"
#include "core/thread_pool.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

TEST_CASE("linear map", "[linear][threads]") {
  std::srand(8);
  const Matrix x = Matrix::Random(150, 20), w = Matrix::Random(20, 33);
  const RowVector b = RowVector::Random(33);
  const MatrixD expected = (x.cast<double>() * w.cast<double>()).rowwise() + b.cast<double>();
  SECTION("y = x·W + b on one thread and split over several") {
    CHECK_THAT(linear_forward(x, w, b), IsNear(expected, 1e-5));
    set_num_threads(std::min<Index>(max_threads(), 3));
    CHECK_THAT(linear_forward(x, w, b), IsNear(expected, 1e-5));
    CHECK_THAT(linear_forward(x.topRows(5), w, b), IsNear(MatrixD(expected.topRows(5)), 1e-5));
    set_num_threads(1);
  }
  SECTION("mismatched shapes are refused") {
    CHECK_THROWS_WITH(linear_forward(x, Matrix::Ones(19, 33), b), Catch::Contains("input width 20"));
    CHECK_THROWS_WITH(linear_forward(x, w, RowVector::Ones(32)), Catch::Contains("bias has 32 entries"));
  }
}
