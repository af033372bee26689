#pragma once
// Conversions between JavaScript values and engine types, and the error boundary: every value
// that crosses is validated here, and every C++ exception leaves as a JS Error with its message.
#include <emscripten/val.h>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "core/mask.hpp"
#include "core/tensor.hpp"
#include "model/trace.hpp"

namespace attnlab::js {

using emscripten::val;

// Longest sequence and widest vector a JS call may ask for; larger requests are refused before
// anything is allocated.
constexpr Index kMaxLength = 8192;
constexpr Index kMaxWidth = 4096;

bool has(const val& options, const char* key);
// options[key] as an integer in [min, max]; absent → fallback, or an error when fallback < min
Index get_index(const val& options, const char* key, Index min, Index max, Index fallback = -1);
// options[key] as a finite number; absent → fallback
double get_number(const val& options, const char* key, double fallback);
bool get_bool(const val& options, const char* key, bool fallback);
// options[key] as a random seed, an integer in [0, 2³²); absent → fallback
std::uint32_t get_seed(const val& options, const char* key, std::uint32_t fallback);
std::string get_string(const val& options, const char* key, const std::string& fallback);
// options[key], a Float32Array or array of numbers holding a row-major (rows,cols) matrix, finite
Matrix get_matrix(const val& options, const char* key, Index rows, Index cols);
// options[key], a Float32Array or array of 1 … max_length finite numbers
RowVector get_vector(const val& options, const char* key, Index max_length);
// options[key], an array of integers within [min, max]
std::vector<int> get_ints(const val& options, const char* key, int min, int max);
// options.mask ("none" | "causal") and options.keyPadding (m flags), for n×m scores
Mask get_mask(const val& options, Index m);

// {rows, cols, data: Float32Array}, a copy owned by JavaScript
val to_js(const ConstMatrixRef& x);
val to_js(const std::vector<int>& values);          // Int32Array
val to_js(const std::vector<std::string>& values);  // array of strings
val float_array(const float* data, Index count);    // Float32Array copy

// options.trace is present and not false
bool wants_trace(const val& options);
// {name: matrix} of the names in `wanted` (an array of strings), or of every name when it is true
val trace_to_js(const Trace& trace, const val& wanted);

// Runs body() and returns its result; an exception becomes a thrown JS Error (after every C++
// object of the call is destroyed), so the module stays usable.
template <class Body>
auto guarded(Body&& body) -> decltype(body()) {
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
