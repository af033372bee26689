#pragma once
// Argument validation: every public entry point checks its inputs and throws attnlab::Error with a
// message that names the argument and what was wrong, so callers (C++, JS, the page) can show it.
#include <stdexcept>
#include <string>

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

inline void require(bool condition, const std::string& message) {
  if (!condition) throw Error(message);
}

inline std::string shape_string(Index rows, Index cols) {
  return "(" + std::to_string(rows) + "," + std::to_string(cols) + ")";
}

// shape check: x must be (rows, cols)
inline void require_shape(const ConstMatrixRef& x, Index rows, Index cols, const std::string& name) {
  require(x.rows() == rows && x.cols() == cols,
          name + " has shape " + shape_string(x.rows(), x.cols()) + ", expected " +
              shape_string(rows, cols));
}

// every entry finite (no NaN, no ±Inf)
inline void require_finite(const ConstMatrixRef& x, const std::string& name) {
  for (Index i = 0; i < x.rows(); ++i)
    for (Index j = 0; j < x.cols(); ++j)
      if (!std::isfinite(x(i, j)))
        throw Error(name + " contains a non-finite value at (" + std::to_string(i) + "," +
                    std::to_string(j) + ")");
}

// Largest matrix an entry point will allocate (64 Mi floats, 256 MiB): an absurd size is refused
// with a message instead of exhausting memory.
constexpr Index kMaxElements = Index(1) << 26;

// rows ≥ 1, cols ≥ 1 and rows·cols within kMaxElements
inline void require_size(Index rows, Index cols, const std::string& name) {
  require(rows >= 1 && cols >= 1,
          name + " must have at least one row and one column, got " + shape_string(rows, cols));
  require(rows <= kMaxElements / cols,
          name + " of shape " + shape_string(rows, cols) + " is too large (limit " +
              std::to_string(kMaxElements) + " elements)");
}

}  // namespace attnlab
