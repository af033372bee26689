#include "core/check.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "core/thread_pool.hpp"

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

namespace {

// rows [first, last) of x finite: an unsigned max over each row's magnitudes (vector instructions)
bool rows_finite(const ConstMatrixRef& x, Index first, Index last) {
  using Bits = std::conditional_t<sizeof(Scalar) == 4, std::uint32_t, std::uint64_t>;
  constexpr Bits magnitude = sizeof(Scalar) == 4 ? Bits(0x7fffffffu) : Bits(0x7fffffffffffffffull);
  constexpr Bits infinity = sizeof(Scalar) == 4 ? Bits(0x7f800000u) : Bits(0x7ff0000000000000ull);
  const Index cols = x.cols();
  for (Index i = first; i < last; ++i) {
    const Scalar* row = x.row(i).data();
    Bits largest = 0;
    for (Index j = 0; j < cols; ++j) {
      Bits bits;
      std::memcpy(&bits, row + j, sizeof bits);
      largest = std::max(largest, Bits(bits & magnitude));
    }
    if (largest >= infinity) return false;
  }
  return true;
}

// entries worth reading on the other threads too: a layer's weights, a prompt's queries (one
// thread reads them slower than the memory delivers)
constexpr Index kEntriesWorthCheckingApart = Index(1) << 16;

}  // namespace

bool all_finite(const ConstMatrixRef& x) {
  const Index rows = x.rows();
  const Index blocks = x.size() >= kEntriesWorthCheckingApart ? std::min(num_threads(), rows) : Index(1);
  if (blocks <= 1) return rows_finite(x, 0, rows);
  std::atomic<bool> finite{true};
  parallel_for(blocks, [&](Index block) {
    if (!rows_finite(x, block * rows / blocks, (block + 1) * rows / blocks)) finite.store(false, std::memory_order_relaxed);
  });
  return finite.load();
}

void require_finite(const ConstMatrixRef& x, std::string_view name) {
  if (all_finite(x)) return;
  for (Index i = 0; i < x.rows(); ++i)  // only to say where
    for (Index j = 0; j < x.cols(); ++j)
      if (!std::isfinite(x(i, j))) throw_error({name, " contains a non-finite value at (", i, ",", j, ")"});
}

}  // namespace attnlab
