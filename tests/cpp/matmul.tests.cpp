#include <catch2/catch.hpp>

#include <limits>

#include "core/matmul.hpp"
#include "core/thread_pool.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {

Matrix packed(const Matrix& a, const WeightView& b, bool transposed) {
  Matrix c(a.rows(), transposed ? b.rows() : b.cols());
  packed_matmul(a, b, transposed, c, false);
  return c;
}

// |entries| ≤ 1 summed over k: float32 keeps each sum within k·2⁻²⁴ of the double one, far inside
constexpr double kTolerance = 1e-5;

}  // namespace

TEST_CASE("packed matrix product", "[matmul][simd][threads]") {
  SECTION("C = A·B near the double product on every edge of the register blocks and the depth slices") {
    // m: whole blocks of 4 rows and 1–3 left; n: whole panels of 8 and part of one; k: under one
    // slice of 256, one and a bit, and several
    for (const Index m : {1, 3, 4, 6, 13})
      for (const Index n : {1, 8, 19})
        for (const Index k : {1, 7, 256, 300, 777}) {
          INFO("m = " << m << ", n = " << n << ", k = " << k);
          const Matrix a = seeded_random(m, k, 1) / static_cast<Scalar>(k), b = seeded_random(k, n, 2);
          const MatrixD exact = a.cast<double>() * b.cast<double>();
          CHECK_THAT(packed(a, b, false), IsNear(exact, kTolerance));
          const Matrix bt = b.transpose();
          CHECK_THAT(packed(a, bt, true), IsNear(exact, kTolerance));
        }
  }
  SECTION("C += A·B adds to what C holds, also on blocks of larger matrices (one head's columns)") {
    const Matrix big_a = seeded_random(21, 90, 3) / 90.0f, big_b = seeded_random(90, 50, 4);
    Matrix big_c = seeded_random(21, 40, 5);
    const Matrix before = big_c;
    const auto a = big_a.middleCols(10, 70);
    const auto b = big_b.block(5, 7, 70, 27);
    packed_matmul(a, b, false, big_c.middleCols(3, 27), true);
    MatrixD expected = before.cast<double>();
    expected.middleCols(3, 27) += a.cast<double>() * b.cast<double>();
    CHECK_THAT(big_c, IsNear(expected, kTolerance));
  }
  SECTION("the same bits on one thread and on several, which split B's columns") {
    // 64 × 300 × 200 multiply-adds: enough to be split
    const Matrix a = seeded_random(64, 300, 6), b = seeded_random(300, 200, 7);
    set_num_threads(1);
    const Matrix one = packed(a, b, false), one_t = packed(a, Matrix(b.transpose()), true);
    set_num_threads(std::min<Index>(max_threads(), 3));
    CHECK(packed(a, b, false) == one);
    CHECK(packed(a, Matrix(b.transpose()), true) == one_t);
    set_num_threads(1);
  }
  SECTION("a non-finite entry of A reaches its own row only (the zeros past B's last column never meet it)") {
    Matrix a = seeded_random(6, 9, 8);
    const Matrix b = seeded_random(9, 11, 9);
    a(2, 4) = std::numeric_limits<Scalar>::infinity();
    a(4, 0) = std::numeric_limits<Scalar>::quiet_NaN();
    const Matrix c = packed(a, b, false);
    CHECK(c.row(4).array().isNaN().all());
    CHECK_FALSE(c.row(2).array().isFinite().any());
    for (const Index r : {0, 1, 3, 5}) CHECK(c.row(r).array().isFinite().all());
  }
  SECTION("with a bias: the bits of the product, then the bias added to every row, on any thread count") {
    for (const Index k : {7, 300}) {  // the bias joins the last depth slice's sums
      INFO("k = " << k);
      const Matrix a = seeded_random(13, k, 16), b = seeded_random(k, 203, 17);  // 13 rows, 25 panels and 3 columns
      const RowVector bias = seeded_random(1, 203, 18);
      Matrix want = packed(a, b, false);
      want.rowwise() += bias;
      for (const Index threads : {Index(1), std::min<Index>(max_threads(), 3)}) {
        set_num_threads(threads);
        Matrix c(13, 203);
        packed_matmul(a, b, false, c, false, bias.data());
        CHECK(c == want);
      }
      set_num_threads(1);
    }
    Matrix c = Matrix::Constant(3, 5, 7.0f);
    const RowVector bias = RowVector::LinSpaced(5, 1, 5);
    packed_matmul(Matrix(3, 0), Matrix(0, 5), false, c, false, bias.data());  // no depth: the bias alone
    CHECK(c == bias.replicate(3, 1));
    CHECK_THROWS_WITH(matmul(Matrix::Ones(3, 4), Matrix(Matrix::Ones(4, 5)), RowVector::Ones(4), c),
                      "matmul: the bias has 4 entries for 5 columns");
  }
  SECTION("no depth: C = 0, or C unchanged when adding") {
    const Matrix a(3, 0), b(0, 5);
    Matrix c = Matrix::Constant(3, 5, 7.0f);
    packed_matmul(a, b, false, c, true);
    CHECK(c == Matrix::Constant(3, 5, 7.0f));
    packed_matmul(a, b, false, c, false);
    CHECK(c == Matrix::Zero(3, 5));
  }
  SECTION("shapes that do not fit are refused") {
    Matrix c(3, 5);
    CHECK_THROWS_WITH(packed_matmul(Matrix::Ones(3, 4), Matrix(Matrix::Ones(5, 5)), false, c, false),
                      Catch::Contains("A (3,4) and B of 5 rows × 5 columns do not give C (3,5)"));
    CHECK_THROWS_WITH(matmul_transposed(Matrix::Ones(3, 4), Matrix(Matrix::Ones(5, 3)), c), Catch::Contains("do not give C"));
  }
}

TEST_CASE("a prepared B: packed once for many products against it", "[matmul][simd]") {
  // a head's keys and values: K (m × d_k) read as Kᵀ, V (m × d_v), against blocks of 13 query rows
  const Matrix keys = seeded_random(300, 20, 12), values = seeded_random(300, 9, 13);
  const Matrix q = seeded_random(13, 20, 14), weights = seeded_random(13, 300, 15) / 300.0f;
  const PackedMatrix packed_keys(keys, true, q.rows()), packed_values(values, false, weights.rows());
  CHECK(packed_keys.depth() == 20);
  CHECK(packed_keys.width() == 300);
  CHECK(packed_values.depth() == 300);
  CHECK(packed_values.width() == 9);
  Matrix scores(13, 300), out(13, 9);
  matmul(q, packed_keys, scores);
  matmul(weights, packed_values, out);
  SECTION("the same bits as the product that packs as it goes") {
    Matrix scores_now(13, 300), out_now(13, 9);
    matmul_transposed(q, keys, scores_now);
    matmul(weights, values, out_now);
    CHECK(scores == scores_now);
    CHECK(out == out_now);
  }
  SECTION("near the double product, also adding to C and for a block of rows") {
    CHECK_THAT(scores, IsNear(MatrixD(q.cast<double>() * keys.cast<double>().transpose()), kTolerance));
    Matrix twice = out;
    matmul(weights.middleRows(4, 5), packed_values, twice.middleRows(4, 5), true);
    MatrixD expected = out.cast<double>();
    expected.middleRows(4, 5) += weights.middleRows(4, 5).cast<double>() * values.cast<double>();
    CHECK_THAT(twice, IsNear(expected, kTolerance));
  }
  SECTION("prepared for one row (a decoded token's query), B is read as it is") {
    const PackedMatrix for_one(keys, true, 1);
    Matrix one(1, 300);
    matmul(q.topRows(1), for_one, one);
    CHECK_THAT(one, IsNear(MatrixD(q.topRows(1).cast<double>() * keys.cast<double>().transpose()), kTolerance));
  }
  SECTION("shapes that do not fit are refused") {
    Matrix wrong(13, 299);
    CHECK_THROWS_WITH(matmul(q, packed_keys, wrong), Catch::Contains("do not give C (13,299)"));
  }
}

TEST_CASE("matmul: the packed kernel on WebAssembly, Eigen's natively", "[matmul][simd]") {
  const Matrix a = seeded_random(37, 70, 10), b = seeded_random(70, 45, 11), bt = b.transpose();
  Matrix c(37, 45), ct(37, 45);
  matmul(a, b, c);
  matmul_transposed(a, bt, ct);
  if (matmul_is_packed()) {
    CHECK(c == packed(a, b, false));
    CHECK(ct == packed(a, bt, true));
  } else {
    CHECK(c == Matrix(a * b));
    CHECK(ct == Matrix(a * bt.transpose()));
  }
#if defined(__EMSCRIPTEN__)
  CHECK(matmul_is_packed());
#else
  CHECK_FALSE(matmul_is_packed());
#endif
}

TEST_CASE("a weight kept in 16 bits: the product's bits are those over its widened floats", "[matmul][simd][threads]") {
  // 300 deep (past one 256-row slice), 21 wide (a ragged last panel), 13 rows (a ragged last block)
  const Matrix a = seeded_random(13, 300, 20);
  const RowVector bias = seeded_random(1, 21, 21);
  for (const Dtype dtype : {Dtype::bf16, Dtype::f16}) {
    DYNAMIC_SECTION(to_string(dtype)) {
      const WeightMatrix w = seeded_half_weight(300, 21, dtype, 22), wt = seeded_half_weight(21, 300, dtype, 23);
      const Matrix floats = w.view().widened(), floats_t = wt.view().widened();
      for (const Index threads : {Index(1), std::min<Index>(max_threads(), 3)}) {
        set_num_threads(threads);
        INFO(threads << " threads");
        CHECK(packed(a, w, false) == packed(a, floats, false));
        CHECK(packed(a, wt, true) == packed(a, floats_t, true));
        Matrix c(13, 21), expected(13, 21);
        packed_matmul(a, w, false, c, false, bias.data());
        packed_matmul(a, floats, false, expected, false, bias.data());
        CHECK(c == expected);
        matmul(a, w, c);
        matmul(a, floats, expected);
        CHECK(c == expected);
        matmul_transposed(a, wt, c);
        matmul_transposed(a, floats_t, expected);
        CHECK(c == expected);
        CHECK_THAT(c, IsNear(MatrixD(a.cast<double>() * floats_t.cast<double>().transpose()), 1e-4));
      }
      set_num_threads(1);
    }
  }
}
