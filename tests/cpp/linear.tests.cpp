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
  SECTION("a weight kept in 16 bits gives the bits of its widened floats, on every path") {
    for (const Dtype dtype : {Dtype::bf16, Dtype::f16}) {
      INFO(to_string(dtype));
      const WeightMatrix wide = seeded_half_weight(203, 530, dtype, 30), narrow = seeded_half_weight(20, 33, dtype, 31),
                         e = seeded_half_weight(600, 37, dtype, 32), small_e = seeded_half_weight(40, 20, dtype, 33);
      const Matrix few = Matrix::Random(3, 203), wide_floats = wide.view().widened();
      const RowVector bias = RowVector::Random(530);
      for (const Index threads : {Index(1), std::min<Index>(max_threads(), 3)}) {
        set_num_threads(threads);
        INFO(threads << " threads");
        CHECK(linear_forward(few, wide, bias) == linear_forward(few, wide_floats, bias));             // slabs
        CHECK(linear_forward(x, narrow, b) == linear_forward(x, narrow.view().widened(), b));         // products
        CHECK(linear_forward(x, wide.view().middle_rows(0, 20)) == linear_forward(x, Matrix(wide_floats.topRows(20))));
        const Matrix two = Matrix::Random(2, 37), many = Matrix::Random(40, 37);
        CHECK(linear_forward_transposed(two, e) == linear_forward_transposed(two, e.view().widened()));    // lanes
        CHECK(linear_forward_transposed(many, e) == linear_forward_transposed(many, e.view().widened()));  // products
        CHECK(linear_forward_transposed(x, small_e) == linear_forward_transposed(x, small_e.view().widened()));
      }
      set_num_threads(1);
    }
  }
  SECTION("mismatched shapes are refused") {
    CHECK_THROWS_WITH(linear_forward(x, Matrix(Matrix::Ones(19, 33)), b), Catch::Contains("input width 20"));
    CHECK_THROWS_WITH(linear_forward(x, w, RowVector::Ones(32)), Catch::Contains("bias has 32 entries"));
  }
}
