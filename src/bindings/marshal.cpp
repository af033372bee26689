#include "bindings/marshal.hpp"

#include <cmath>
#include <vector>

#include "core/check.hpp"

namespace attnlab::js {

bool has(const val& options, const char* key) {
  require(!options.isUndefined() && !options.isNull() && options.typeOf().as<std::string>() == "object",
          "expected an options object");
  const val v = options[key];
  return !v.isUndefined() && !v.isNull();
}

Index get_index(const val& options, const char* key, Index min, Index max, Index fallback) {
  if (!has(options, key)) {
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
  if (!has(options, key)) return fallback;
  const val v = options[key];
  require(v.typeOf().as<std::string>() == "number", std::string(key) + " must be a number");
  const double x = v.as<double>();
  require(std::isfinite(x), std::string(key) + " must be finite");
  return x;
}

std::uint32_t get_seed(const val& options, const char* key, std::uint32_t fallback) {
  if (!has(options, key)) return fallback;
  const double x = get_number(options, key, 0.0);
  require(x == std::floor(x) && x >= 0 && x <= 4294967295.0,
          std::string(key) + " must be a whole number between 0 and 4294967295");
  return static_cast<std::uint32_t>(x);
}

bool get_bool(const val& options, const char* key, bool fallback) {
  if (!has(options, key)) return fallback;
  const val v = options[key];
  require(v.typeOf().as<std::string>() == "boolean", std::string(key) + " must be true or false");
  return v.as<bool>();
}

std::string get_string(const val& options, const char* key, const std::string& fallback) {
  if (!has(options, key)) return fallback;
  const val v = options[key];
  require(v.typeOf().as<std::string>() == "string", std::string(key) + " must be a string");
  return v.as<std::string>();
}

Matrix get_matrix(const val& options, const char* key, Index rows, Index cols) {
  require(has(options, key), std::string(key) + " is required");
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

RowVector get_vector(const val& options, const char* key, Index max_length) {
  require(has(options, key), std::string(key) + " is required");
  const val length = options[key]["length"];
  require(length.typeOf().as<std::string>() == "number",
          std::string(key) + " must be a Float32Array or an array of numbers");
  const double n = length.as<double>();
  require(n >= 1 && n <= static_cast<double>(max_length),
          std::string(key) + " must hold 1 to " + std::to_string(max_length) + " numbers, got " +
              std::to_string(static_cast<long long>(n)));
  return get_matrix(options, key, 1, static_cast<Index>(n));
}

Mask get_mask(const val& options, Index m) {
  const std::string kind = get_string(options, "mask", "none");
  require(kind == "none" || kind == "causal",
          "mask must be \"none\" or \"causal\", got \"" + kind + "\"");
  Mask mask;
  mask.causal = kind == "causal";
  if (has(options, "keyPadding")) {
    const Matrix flags = get_matrix(options, "keyPadding", 1, m);
    for (Index j = 0; j < m; ++j) mask.key_padding.push_back(flags(0, j) != 0.0f);
  }
  return mask;
}

std::vector<int> get_ints(const val& options, const char* key, int min, int max) {
  require(has(options, key), std::string(key) + " is required");
  const val v = options[key];
  require(v["length"].typeOf().as<std::string>() == "number", std::string(key) + " must be an array of integers");
  const Index length = v["length"].as<Index>();
  require(length <= kMaxLength, std::string(key) + " has " + std::to_string(length) +
                                    " entries, more than the limit of " + std::to_string(kMaxLength));
  const std::vector<double> values = emscripten::convertJSArrayToNumberVector<double>(v);
  std::vector<int> ints;
  for (size_t i = 0; i < values.size(); ++i) {
    const double x = values[i];
    require(std::isfinite(x) && x == std::floor(x), std::string(key) + "[" + std::to_string(i) + "] is not an integer");
    require(x >= min && x <= max, std::string(key) + "[" + std::to_string(i) + "] = " +
                                      std::to_string(static_cast<long long>(x)) + " is outside " +
                                      std::to_string(min) + "…" + std::to_string(max));
    ints.push_back(static_cast<int>(x));
  }
  return ints;
}

val float_array(const float* data, Index count) {
  const val view(emscripten::typed_memory_view(static_cast<size_t>(count), data));
  return val::global("Float32Array").new_(view);
}

val to_js(const std::vector<int>& values) {
  const val view(emscripten::typed_memory_view(values.size(), values.data()));
  return val::global("Int32Array").new_(view);
}

val to_js(const std::vector<std::string>& values) {
  val out = val::array();
  for (const std::string& s : values) out.call<void>("push", val(s));
  return out;
}

val to_js(const ConstMatrixRef& x) {
  const Matrix dense = x;  // contiguous copy; float_array copies it again into JS memory
  val out = val::object();
  out.set("rows", val(static_cast<double>(dense.rows())));
  out.set("cols", val(static_cast<double>(dense.cols())));
  out.set("data", float_array(dense.data(), dense.size()));
  return out;
}

bool wants_trace(const val& options) {
  return has(options, "trace") &&
         !(options["trace"].typeOf().as<std::string>() == "boolean" && !options["trace"].as<bool>());
}

val trace_to_js(const Trace& trace, const val& wanted) {
  val entries = val::object();
  if (!wanted.isArray()) {
    for (const std::string& name : trace.names()) entries.set(name, to_js(trace.get(name)));
    return entries;
  }
  const Index count = wanted["length"].as<Index>();
  require(count <= 4096, "trace: at most 4096 names");
  for (Index i = 0; i < count; ++i) {
    require(wanted[i].typeOf().as<std::string>() == "string", "trace names must be strings");
    const std::string name = wanted[i].as<std::string>();
    entries.set(name, to_js(trace.get(name)));
  }
  return entries;
}

}  // namespace attnlab::js
