#include "core/check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace attnlab {

void MessagePart::append_to(std::string& message) const {
  switch (kind_) {
    case Kind::text: message += text_; break;
    case Kind::integer: message += std::to_string(integer_); break;
    case Kind::unsigned_integer: message += std::to_string(unsigned_); break;
    case Kind::real: {
      // the shorter of 15 and 17 significant digits that reads back as the same number ("1025", "0.1")
      char text[32];
      std::snprintf(text, sizeof text, "%.15g", real_);
      if (std::strtod(text, nullptr) != real_) std::snprintf(text, sizeof text, "%.17g", real_);
      message += text;
      break;
    }
  }
}

void throw_error(std::initializer_list<MessagePart> parts) {
  std::string message;
  for (const MessagePart& part : parts) part.append_to(message);
  throw Error(message);
}

bool all_finite(const ConstMatrixRef& x) {
  using Bits = std::conditional_t<sizeof(Scalar) == 4, std::uint32_t, std::uint64_t>;
  constexpr Bits magnitude = sizeof(Scalar) == 4 ? Bits(0x7fffffffu) : Bits(0x7fffffffffffffffull);
  constexpr Bits infinity = sizeof(Scalar) == 4 ? Bits(0x7f800000u) : Bits(0x7ff0000000000000ull);
  const Index rows = x.rows(), cols = x.cols();
  for (Index i = 0; i < rows; ++i) {
    const Scalar* row = x.row(i).data();
    Bits largest = 0;  // an unsigned max over each row's magnitudes: vector instructions
    for (Index j = 0; j < cols; ++j) {
      Bits bits;
      std::memcpy(&bits, row + j, sizeof bits);
      largest = std::max(largest, Bits(bits & magnitude));
    }
    if (largest >= infinity) return false;
  }
  return true;
}

void require_finite(const ConstMatrixRef& x, std::string_view name) {
  if (all_finite(x)) return;
  for (Index i = 0; i < x.rows(); ++i)  // only to say where
    for (Index j = 0; j < x.cols(); ++j)
      if (!std::isfinite(x(i, j))) throw_error({name, " contains a non-finite value at (", i, ",", j, ")"});
}

}  // namespace attnlab
