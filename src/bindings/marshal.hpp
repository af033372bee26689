#pragma once
// Conversions between JavaScript values and engine types, and the error boundary: every value
// that crosses is validated here, and every C++ exception leaves as a JS Error with its message.
#include <emscripten/val.h>

#include <exception>
#include <string>

#include "core/mask.hpp"
#include "core/tensor.hpp"

namespace attnlab::js {

using emscripten::val;

// options[key] as an integer in [min, max]; absent → fallback, or an error when fallback < min
Index get_index(const val& options, const char* key, Index min, Index max, Index fallback = -1);
// options[key] as a finite number; absent → fallback
double get_number(const val& options, const char* key, double fallback);
// options[key] as a boolean; absent → fallback
bool get_bool(const val& options, const char* key, bool fallback);
// options[key] as a string; absent → fallback
std::string get_string(const val& options, const char* key, const std::string& fallback);

// options[key], a Float32Array or array of numbers holding a row-major (rows,cols) matrix
Matrix get_matrix(const val& options, const char* key, Index rows, Index cols);

// options.mask: "none" | "causal", plus options.keyPadding: m flags (1 = padding), for n×m scores
Mask get_mask(const val& options, Index m);

// {rows, cols, data: Float32Array}, a copy owned by JavaScript
val to_js(const ConstMatrixRef& x);

// Runs body(); an exception becomes a thrown JS Error, so the module stays usable.
template <class Body>
val guarded(Body&& body) {
  std::string message;
  try {
    return body();
  } catch (const std::bad_alloc&) {
    message = "attnlab: out of memory (the request is too large)";
  } catch (const std::exception& e) {
    message = std::string("attnlab: ") + e.what();
  }
  val::global("Error").new_(message).throw_();
}

}  // namespace attnlab::js
