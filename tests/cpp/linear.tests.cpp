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
  SECTION("a few rows against a wide W (a decoded token): slabs of W's rows, the same bits on any number of threads") {
    // 203 of W's rows: three slabs of 64 and one of 11, which ends in rows taken one at a time
    const Matrix few = Matrix::Random(3, 203), wide = Matrix::Random(203, 530);
    const RowVector bias = RowVector::Random(530);
    const MatrixD exact = (few.cast<double>() * wide.cast<double>()).rowwise() + bias.cast<double>();
    const Matrix one = linear_forward(few, wide, bias);
    CHECK_THAT(one, IsNear(exact, 1e-5));
    set_num_threads(std::min<Index>(max_threads(), 3));
    CHECK(linear_forward(few, wide, bias) == one);
    set_num_threads(1);
  }
  SECTION("a few rows against a long E (a decoded token's logits): dot products in lanes, the same bits on any number of threads") {
    // 37 columns: four lanes' worth and five left over
    const Matrix few = Matrix::Random(2, 37), e = Matrix::Random(600, 37);
    const MatrixD exact = few.cast<double>() * e.cast<double>().transpose();
    const Matrix one = linear_forward_transposed(few, e);
    CHECK_THAT(one, IsNear(exact, 1e-5));
    set_num_threads(std::min<Index>(max_threads(), 3));
    CHECK(linear_forward_transposed(few, e) == one);
    set_num_threads(1);
  }
  SECTION("mismatched shapes are refused") {
    CHECK_THROWS_WITH(linear_forward(x, Matrix::Ones(19, 33), b), Catch::Contains("input width 20"));
    CHECK_THROWS_WITH(linear_forward(x, w, RowVector::Ones(32)), Catch::Contains("bias has 32 entries"));
  }
}
