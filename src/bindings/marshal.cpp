#include "bindings/marshal.hpp"

#include <cmath>
#include <vector>

#include "core/check.hpp"

namespace attnlab::js {

namespace {

bool present(const val& options, const char* key) {
  require(options.isUndefined() == false && options.isNull() == false && options.typeOf().as<std::string>() == "object",
          "expected an options object");
  const val v = options[key];
  return !v.isUndefined() && !v.isNull();
}

}  // namespace

Index get_index(const val& options, const char* key, Index min, Index max, Index fallback) {
  if (!present(options, key)) {
    require(fallback >= min, std::string(key) + " is required");
    return fallback;
  }
  const val v = options[key];
  require(v.typeOf().as<std::string>() == "number", std::string(key) + " must be a number");
  const double x = v.as<double>();
  require(std::isfinite(x) && x == std::floor(x),
          std::string(key) + " must be a whole number, got " + std::to_string(x));
  require(x >= static_cast<double>(min) && x <= static_cast<double>(max),
          std::string(key) + " must be between " + std::to_string(min) + " and " +
              std::to_string(max) + ", got " + std::to_string(static_cast<long long>(x)));
  return static_cast<Index>(x);
}

double get_number(const val& options, const char* key, double fallback) {
  if (!present(options, key)) return fallback;
  const val v = options[key];
  require(v.typeOf().as<std::string>() == "number", std::string(key) + " must be a number");
  const double x = v.as<double>();
  require(std::isfinite(x), std::string(key) + " must be finite");
  return x;
}

bool get_bool(const val& options, const char* key, bool fallback) {
  if (!present(options, key)) return fallback;
  const val v = options[key];
  require(v.typeOf().as<std::string>() == "boolean", std::string(key) + " must be true or false");
  return v.as<bool>();
}

std::string get_string(const val& options, const char* key, const std::string& fallback) {
  if (!present(options, key)) return fallback;
  const val v = options[key];
  require(v.typeOf().as<std::string>() == "string", std::string(key) + " must be a string");
  return v.as<std::string>();
}

Matrix get_matrix(const val& options, const char* key, Index rows, Index cols) {
  require(present(options, key), std::string(key) + " is required");
  require_size(rows, cols, key);
  const val v = options[key];
  require(v["length"].typeOf().as<std::string>() == "number",
          std::string(key) + " must be a Float32Array or an array of numbers");
  const Index length = v["length"].as<Index>();
  require(length == rows * cols, std::string(key) + " has " + std::to_string(length) +
                                     " numbers, expected " + std::to_string(rows) + "×" +
                                     std::to_string(cols) + " = " + std::to_string(rows * cols));
  const std::vector<float> values = emscripten::convertJSArrayToNumberVector<float>(v);
  Matrix m(rows, cols);
  std::copy(values.begin(), values.end(), m.data());
  require_finite(m, key);
  return m;
}

Mask get_mask(const val& options, Index m) {
  const std::string kind = get_string(options, "mask", "none");
  require(kind == "none" || kind == "causal",
          "mask must be \"none\" or \"causal\", got \"" + kind + "\"");
  Mask mask;
  mask.causal = kind == "causal";
  if (present(options, "keyPadding")) {
    const Matrix flags = get_matrix(options, "keyPadding", 1, m);
    for (Index j = 0; j < m; ++j) mask.key_padding.push_back(flags(0, j) != 0.0f);
  }
  return mask;
}

val to_js(const ConstMatrixRef& x) {
  const Matrix dense = x;  // contiguous copy; the typed-array view below is copied again into JS
  val out = val::object();
  out.set("rows", val(static_cast<double>(dense.rows())));
  out.set("cols", val(static_cast<double>(dense.cols())));
  const val view(emscripten::typed_memory_view(static_cast<size_t>(dense.size()), dense.data()));
  out.set("data", val::global("Float32Array").new_(view));
  return out;
}

}  // namespace attnlab::js
