#pragma once
// Plain-text rendering of matrices, for the example programs and command-line tools.
#include <string>

#include "core/tensor.hpp"

namespace attnlab {

// "name (r×c)" followed by one line per row, fixed-point with `decimals` digits, −∞ as "-inf"
std::string format_matrix(const std::string& name, const ConstMatrixRef& x, int decimals = 4);

}  // namespace attnlab
