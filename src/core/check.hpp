#pragma once
// Argument validation: every public entry point checks its inputs and throws attnlab::Error with a
// message that names the argument and what was wrong, so callers (C++, JS, the page) can show it.
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/tensor.hpp"

namespace attnlab {

class Error : public std::invalid_argument {
 public:
  // what() is read as a C string: a NUL from the input (a key, a token) is written as "\0" so that
  // the rest of the message is not cut off
  explicit Error(const std::string& message) : std::invalid_argument(visible_nul(message)) {}

 private:
  static std::string visible_nul(std::string text) {
    for (size_t at = text.find('\0'); at != std::string::npos; at = text.find('\0', at + 2)) text.replace(at, 1, "\\0");
    return text;
  }
};

// One piece of an error message: text, or a number written out only when the message is built.
class MessagePart {
 public:
  MessagePart(const char* text) : text_(text) {}
  MessagePart(const std::string& text) : text_(text) {}
  MessagePart(std::string_view text) : text_(text) {}
  template <class Integer, std::enable_if_t<std::is_integral_v<Integer> && !std::is_same_v<Integer, bool> &&
                                                !std::is_same_v<Integer, char>, int> = 0>
  MessagePart(Integer n) {
    // unsigned values stay unsigned: a 64-bit size of 2⁶⁴−1 reads as that, not as −1
    if constexpr (std::is_signed_v<Integer>) {
      kind_ = Kind::integer;
      integer_ = n;
    } else {
      kind_ = Kind::unsigned_integer;
      unsigned_ = n;
    }
  }
  MessagePart(double x) : kind_(Kind::real), real_(x) {}

  void append_to(std::string& message) const;

 private:
  enum class Kind { text, integer, unsigned_integer, real };
  Kind kind_ = Kind::text;
  std::string_view text_;
  long long integer_ = 0;
  unsigned long long unsigned_ = 0;
  double real_ = 0;
};

// throws attnlab::Error with the parts joined into one message
[[noreturn]] void throw_error(std::initializer_list<MessagePart> parts);

// throws attnlab::Error unless condition holds, its message the parts joined: text and numbers,
// as in require(n >= 1, "attention: n = ", n, " is too small"). The message is built only when
// thrown, so a check that passes allocates nothing.
template <class... Parts>
inline void require(bool condition, const Parts&... parts) {
  if (!condition) throw_error({MessagePart(parts)...});
}

inline std::string shape_string(Index rows, Index cols) {
  return "(" + std::to_string(rows) + "," + std::to_string(cols) + ")";
}

// shape check: x must be (rows, cols)
inline void require_shape(const ConstMatrixRef& x, Index rows, Index cols, std::string_view name) {
  if (x.rows() != rows || x.cols() != cols)
    throw_error({name, " has shape ", shape_string(x.rows(), x.cols()), ", expected ", shape_string(rows, cols)});
}

// Whether every entry is finite: row by row, by the bits of each float (the largest magnitude's
// exponent is all ones only for ±Inf and NaN), in a loop the compiler vectorises; a large matrix's
// rows in blocks on the threads. Defined in check.cpp, compiled for speed: an inline copy from a
// file compiled for size (the bindings) could be the one the linker keeps. (Eigen's allFinite()
// goes column by column, one entry at a time.)
bool all_finite(const ConstMatrixRef& x);

// every entry finite (no NaN, no ±Inf); one pass over every entry: keep it off hot paths
void require_finite(const ConstMatrixRef& x, std::string_view name);

// Largest matrix an entry point will allocate (64 Mi floats, 256 MiB): an absurd size is refused
// with a message instead of exhausting memory.
constexpr Index kMaxElements = Index(1) << 26;

// rows ≥ 1, cols ≥ 1 and rows·cols within kMaxElements
inline void require_size(Index rows, Index cols, std::string_view name) {
  if (rows < 1 || cols < 1)
    throw_error({name, " must have at least one row and one column, got ", shape_string(rows, cols)});
  if (rows > kMaxElements / cols)
    throw_error({name, " of shape ", shape_string(rows, cols), " is too large (limit ", kMaxElements, " elements)"});
}

}  // namespace attnlab
