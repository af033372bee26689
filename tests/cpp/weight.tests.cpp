#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "core/check.hpp"
#include "core/weight.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {

// binary16 by its definition: (−1)^s · 2^(e−15) · (1 + m/2¹⁰), or 2⁻¹⁴ · m/2¹⁰ when e = 0
double f16_by_definition(std::uint16_t h) {
  const int sign = h >> 15, exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  if (exponent == 0x1F) return mantissa ? std::nan("") : (sign ? -INFINITY : INFINITY);
  const double magnitude = exponent ? std::ldexp(1.0 + mantissa / 1024.0, exponent - 15) : std::ldexp(mantissa / 1024.0, -14);
  return sign ? -magnitude : magnitude;
}

std::uint32_t bits_of(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}

// the nearest BF16 of x (round half to even), as a checkpoint holds it
std::uint16_t to_bf16(float x) {
  const std::uint32_t b = bits_of(x);
  return static_cast<std::uint16_t>((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);
}

}  // namespace

TEST_CASE("16-bit floats widen exactly", "[weight][simd]") {
  SECTION("F16: every one of the 65 536 values, subnormals, ±0, ±∞ and NaN payloads included") {
    std::vector<std::uint16_t> all(65536);
    for (std::size_t h = 0; h < all.size(); ++h) all[h] = static_cast<std::uint16_t>(h);
    std::vector<float> widened_all(all.size());
    widen(Dtype::f16, all.data(), static_cast<Index>(all.size()), widened_all.data());  // the vectorised loop
    for (std::size_t h = 0; h < all.size(); ++h) {
      const auto value = static_cast<std::uint16_t>(h);
      const float x = widen_f16(value);
      INFO("h = " << h);
      REQUIRE(bits_of(widened_all[h]) == bits_of(x));
      const double expected = f16_by_definition(value);
      if (std::isnan(expected)) {
        REQUIRE(std::isnan(x));
        CHECK((bits_of(x) & 0x007FFFFFu) == static_cast<std::uint32_t>(value & 0x3FF) << 13);  // the payload kept
        CHECK((bits_of(x) >> 31) == static_cast<std::uint32_t>(value >> 15));
      } else {
        REQUIRE(static_cast<double>(x) == expected);
        REQUIRE(std::signbit(x) == std::signbit(expected));
      }
      CHECK(finite_16(Dtype::f16, value) == std::isfinite(expected));
    }
  }
  SECTION("BF16: the upper half of binary32") {
    for (float x : {0.0f, -0.0f, 1.0f, -2.5f, 3.0e38f, 1e-40f, INFINITY, -INFINITY}) {
      const std::uint16_t h = to_bf16(x);
      CHECK(bits_of(widen_bf16(h)) == static_cast<std::uint32_t>(h) << 16);
      CHECK(finite_16(Dtype::bf16, h) == std::isfinite(x));
    }
    CHECK(std::isnan(widen_bf16(0x7FC1)));
    CHECK_FALSE(finite_16(Dtype::bf16, 0x7FC1));
    std::uint16_t values[37];
    float out[37];
    for (int i = 0; i < 37; ++i) values[i] = to_bf16(static_cast<float>(i) * -0.37f);
    widen(Dtype::bf16, values, 37, out);
    for (int i = 0; i < 37; ++i) CHECK(bits_of(out[i]) == static_cast<std::uint32_t>(values[i]) << 16);
  }
}

TEST_CASE("a weight kept in 16 bits, viewed as products read it", "[weight]") {
  std::srand(3);
  const Matrix floats = Matrix::Random(5, 7);
  WeightMatrix w;
  w.store_half(Dtype::bf16, 5, 7);
  for (Index i = 0; i < floats.size(); ++i) w.half_data()[i] = to_bf16(floats.data()[i]);
  const WeightView view = w;
  SECTION("its shape, its widened numbers, and blocks of its rows and columns") {
    CHECK(w.is_half());
    CHECK(w.size() == 0);  // the float part holds nothing
    CHECK((view.rows() == 5 && view.cols() == 7 && view.dtype() == Dtype::bf16));
    const Matrix all = view.widened();
    for (Index i = 0; i < 5; ++i)
      for (Index j = 0; j < 7; ++j) CHECK(all(i, j) == widen_bf16(w.half_data()[i * 7 + j]));
    CHECK(view.middle_cols(2, 3).widened() == all.middleCols(2, 3));
    CHECK(view.right_cols(2).middle_rows(1, 3).widened() == all.block(1, 5, 3, 2));
    Scalar row[4];
    view.row(4, 3, 4, row);
    CHECK(Eigen::Map<RowVector>(row, 4) == all.block(4, 3, 1, 4));
    CHECK_THROWS_WITH(view.middle_cols(5, 3), "weights: columns [5, 8) of a matrix of 7");
    CHECK_THROWS_WITH(view.floats(), "weights: a BF16 matrix read as floats");
  }
  SECTION("a float matrix is a weight as it is, and assigning floats drops the 16-bit values") {
    const WeightView of_floats = floats;
    CHECK(of_floats.is_float());
    CHECK(of_floats.float_data() == floats.data());
    CHECK(of_floats.middle_cols(1, 2).floats() == floats.middleCols(1, 2));
    w = floats;
    CHECK_FALSE(w.is_half());
    CHECK(w.view().floats() == floats);
  }
  SECTION("shape and finiteness checks name the weight and the entry") {
    CHECK_NOTHROW(require_weight(w, 5, 7, "w", true));
    CHECK_THROWS_WITH(require_weight(w, 7, 5, "w", false), "w has shape (5,7), expected (7,5)");
    w.half_data()[2 * 7 + 6] = 0x7F80;  // BF16 +∞
    CHECK_NOTHROW(require_weight(w, 5, 7, "w", false));
    CHECK_THROWS_WITH(require_weight(w, 5, 7, "w", true), "w contains a non-finite value at (2,6)");
    const Matrix bad = Matrix::Constant(2, 2, NAN);
    CHECK_THROWS_WITH(require_weight(bad, 2, 2, "v", true), Catch::Contains("v contains a non-finite value"));
  }
}
