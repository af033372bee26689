#include "bindings/marshal.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/check.hpp"

// marshal.js; each returns a new handle to {value} or {error}
using emscripten::EM_VAL;
extern "C" {
EM_VAL attnlab_js_property(EM_VAL object, const char* key);
EM_VAL attnlab_js_json(EM_VAL object, const char* key);
EM_VAL attnlab_js_well_formed(EM_VAL text);
EM_VAL attnlab_js_numbers(EM_VAL source, void* target, double capacity, int element_bytes);
EM_VAL attnlab_js_bytes(EM_VAL source, std::uint8_t* target, double capacity);
EM_VAL attnlab_js_typed_copy(const void* data, double count, int kind);
EM_VAL attnlab_js_parse_json(const char* text);
[[noreturn]] void attnlab_js_throw(char* message);
}

namespace attnlab::js {

namespace {

// the value of a marshal.js outcome, or an attnlab::Error "<name> <reason>"
val value_of(EM_VAL outcome, const std::string& name) {
  const val result = val::take_ownership(outcome);
  const val error = result["error"];
  if (!error.isUndefined()) throw Error(name + " " + error.as<std::string>());
  return result["value"];
}

bool absent(const val& v) { return v.isUndefined() || v.isNull(); }

std::string type_of(const val& v) { return v.typeOf().as<std::string>(); }

// copies the numbers of source into capacity entries of target (float or double); returns the
// source's length, read once (nothing is copied when it exceeds capacity: the caller refuses it)
template <class Number>
std::int64_t copy_numbers(const val& source, const std::string& name, Number* target, Index capacity) {
  static_assert(std::is_same_v<Number, float> || std::is_same_v<Number, double>);
  const val length = value_of(attnlab_js_numbers(source.as_handle(), target, static_cast<double>(capacity),
                                                 static_cast<int>(sizeof(Number))),
                              name);
  return static_cast<std::int64_t>(length.as<double>());  // a safe integer (marshal.js checks)
}

}  // namespace

val get(const val& options, const char* key) {
  require(!absent(options) && type_of(options) == "object", "expected an options object");
  return value_of(attnlab_js_property(options.as_handle(), key), key);
}

std::optional<val> optional(const val& options, const char* key) {
  val v = get(options, key);
  if (absent(v)) return std::nullopt;
  return v;
}

Index index_from_js(const val& value, const std::string& name, Index min, Index max) {
  require(type_of(value) == "number", name, " must be a number");
  const double x = value.as<double>();
  require(std::isfinite(x) && x == std::floor(x), name, " must be a whole number, got ", x);
  require(x >= static_cast<double>(min) && x <= static_cast<double>(max),
          name, " must be between ", min, " and ", max, ", got ", x);
  return static_cast<Index>(x);
}

Index get_index(const val& options, const char* key, Index min, Index max, Index fallback) {
  const val v = get(options, key);
  if (absent(v)) {
    require(fallback >= min, std::string(key), " is required");
    return fallback;
  }
  return index_from_js(v, key, min, max);
}

double number_from_js(const val& value, const std::string& name) {
  require(type_of(value) == "number", name, " must be a number");
  const double x = value.as<double>();
  require(std::isfinite(x), name, " must be finite");
  return x;
}

double get_number(const val& options, const char* key, double fallback) {
  const val v = get(options, key);
  return absent(v) ? fallback : number_from_js(v, key);
}

std::uint32_t get_seed(const val& options, const char* key, std::uint32_t fallback) {
  const double x = get_number(options, key, fallback);
  require(x == std::floor(x) && x >= 0 && x <= 4294967295.0,
          std::string(key), " must be a whole number between 0 and 4294967295");
  return static_cast<std::uint32_t>(x);
}

bool bool_from_js(const val& value, const std::string& name) {
  require(type_of(value) == "boolean", name, " must be true or false");
  return value.as<bool>();
}

bool get_bool(const val& options, const char* key, bool fallback) {
  const val v = get(options, key);
  return absent(v) ? fallback : bool_from_js(v, key);
}

std::string string_from_js(const val& text, const std::string& name) {
  require(type_of(text) == "string", name, " must be a string");
  return val::take_ownership(attnlab_js_well_formed(text.as_handle())).as<std::string>();
}

std::string get_string(const val& options, const char* key, const std::string& fallback) {
  const val v = get(options, key);
  return absent(v) ? fallback : string_from_js(v, key);
}

RopePairing get_rope_pairing(const val& options) {
  if (const std::optional<val> pairing = optional(options, "ropePairing"))
    return rope_pairing_from_string(string_from_js(*pairing, "ropePairing"));
  return rope_pairing_from_string(get_string(options, "pairing", "interleaved"));
}

std::string get_json(const val& options, const char* key) {
  // marshal.js reads the value once and says null when it is absent
  const val text = value_of(attnlab_js_json(options.as_handle(), key), key);
  require(!text.isNull(), std::string(key), " is required");
  require(type_of(text) == "string", std::string(key), " cannot be written as JSON");
  return text.as<std::string>();
}

Matrix matrix_from_js(const val& value, const std::string& name, Index rows, Index cols) {
  require_size(rows, cols, name);
  Matrix m(rows, cols);
  const std::int64_t length = copy_numbers(value, name, m.data(), m.size());
  require(length == m.size(), name, " has ", length, " numbers, expected ", rows, "×", cols, " = ", m.size());
  require_finite(m, name);
  return m;
}

Matrix get_matrix(const val& options, const char* key, Index rows, Index cols) {
  const val v = get(options, key);
  require(!absent(v), std::string(key), " is required");
  return matrix_from_js(v, key, rows, cols);
}

RowVector get_vector(const val& options, const char* key, Index max_length) {
  const val v = get(options, key);
  require(!absent(v), std::string(key), " is required");
  // copied into room for the longest, which also reads the length: once, inside marshal.js
  RowVector room(max_length);
  const std::int64_t length = copy_numbers(v, key, room.data(), max_length);
  require(length >= 1 && length <= max_length, std::string(key), " must hold 1 to ", max_length, " numbers, got ", length);
  RowVector x = room.head(length);
  require_finite(x, key);
  return x;
}

Mask get_mask(const val& options, Index m) {
  const std::string kind = get_string(options, "mask", "none");
  require(kind == "none" || kind == "causal",
          "mask must be \"none\" or \"causal\", got \"", kind, "\"");
  Mask mask;
  mask.causal = kind == "causal";
  if (const std::optional<val> padding = optional(options, "keyPadding")) {
    const Matrix flags = matrix_from_js(*padding, "keyPadding", 1, m);
    for (Index j = 0; j < m; ++j) mask.key_padding.push_back(flags(0, j) != 0.0f);
  }
  return mask;
}

std::vector<int> ints_from_js(const val& value, const std::string& name, int min, int max) {
  std::vector<double> values(static_cast<size_t>(kMaxLength));
  const std::int64_t length = copy_numbers(value, name, values.data(), kMaxLength);
  require(length <= kMaxLength, name, " has ", length, " entries, more than the limit of ", kMaxLength);
  std::vector<int> ints;
  for (std::int64_t i = 0; i < length; ++i) {
    const double x = values[static_cast<size_t>(i)];
    require(std::isfinite(x) && x == std::floor(x), name, "[", i, "] is not an integer");
    require(x >= min && x <= max, name, "[", i, "] = ", x, " is outside ", min, "…", max);
    ints.push_back(static_cast<int>(x));
  }
  return ints;
}

std::vector<int> get_ints(const val& options, const char* key, int min, int max) {
  const val v = get(options, key);
  require(!absent(v), std::string(key), " is required");
  return ints_from_js(v, key, min, max);
}

std::vector<std::uint8_t> get_bytes(const val& options, const char* key) {
  const val v = get(options, key);
  require(!absent(v), std::string(key), " is required");
  // the length first, then the copy: no JS code can run in between to change it
  const auto length = static_cast<size_t>(value_of(attnlab_js_bytes(v.as_handle(), nullptr, 0), key).as<double>());
  std::vector<std::uint8_t> bytes(length);
  if (length > 0) value_of(attnlab_js_bytes(v.as_handle(), bytes.data(), static_cast<double>(length)), key);
  return bytes;
}

// the kinds of attnlab_js_typed_copy
enum TypedArrayKind : int { kFloat32 = 0, kInt32 = 1, kUint8 = 2 };

val float_array(const float* data, Index count) {
  return val::take_ownership(attnlab_js_typed_copy(data, static_cast<double>(count), kFloat32));
}

val to_js(const std::vector<int>& values) {
  return val::take_ownership(attnlab_js_typed_copy(values.data(), static_cast<double>(values.size()), kInt32));
}

val byte_array(const std::vector<std::uint8_t>& bytes) {
  return val::take_ownership(attnlab_js_typed_copy(bytes.data(), static_cast<double>(bytes.size()), kUint8));
}

val parse_json(const std::string& text) {
  return val::take_ownership(attnlab_js_parse_json(text.c_str()));
}

val to_js(const std::vector<std::string>& values) {
  val out = val::array();
  for (size_t i = 0; i < values.size(); ++i) out.set(i, values[i]);
  return out;
}

val to_js(const ConstMatrixRef& x) {
  val out = val::object();
  out.set("rows", val(static_cast<double>(x.rows())));
  out.set("cols", val(static_cast<double>(x.cols())));
  if (x.outerStride() == x.cols()) {
    out.set("data", float_array(x.data(), x.size()));  // contiguous: one copy, into JS memory
  } else {
    const Matrix dense = x;
    out.set("data", float_array(dense.data(), dense.size()));
  }
  return out;
}

val weight_to_js(const WeightView& w) { return w.is_float() ? to_js(w.floats()) : to_js(w.widened()); }

std::optional<TraceRequest> get_trace(const val& options) {
  const val wanted = get(options, "trace");
  if (absent(wanted) || (type_of(wanted) == "boolean" && !wanted.as<bool>())) return std::nullopt;
  if (type_of(wanted) == "boolean") return TraceRequest{};
  require(type_of(wanted) == "object", "trace must be true, false or an array of names");
  std::vector<std::string> names;
  const Index count = get_index(wanted, "length", 0, 4096);
  for (Index i = 0; i < count; ++i) {
    const std::string index = std::to_string(i);
    names.push_back(string_from_js(get(wanted, index.c_str()), "trace[" + index + "]"));
  }
  return TraceRequest{std::move(names)};
}

PickedTrace pick_trace(const ModelActivations& activations, const TraceRequest& request) {
  const Trace trace(activations);
  if (!request.names) return trace.entries();
  PickedTrace picked;
  for (const std::string& name : *request.names) picked.emplace_back(name, &trace.get(name));
  return picked;
}

val trace_to_js(const PickedTrace& picked) {
  val entries = val::object();
  for (const auto& [name, x] : picked) entries.set(name, to_js(*x));
  return entries;
}

char* js_error_message(const std::string& reason) {
  const std::string message = "attnlab: " + reason;
  char* owned = static_cast<char*>(std::malloc(message.size() + 1));
  if (owned) std::memcpy(owned, message.c_str(), message.size() + 1);
  return owned;  // null when out of memory: throw_js_error then says so
}

void throw_js_error(char* message) { attnlab_js_throw(message); }

}  // namespace attnlab::js
