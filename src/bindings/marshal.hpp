#pragma once
// Conversions between JavaScript values and engine types, and the error boundary: every value
// that crosses is validated here, and every C++ exception leaves as a JS Error with its message.
#include <emscripten/val.h>

#include <cstdint>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "core/mask.hpp"
#include "core/rope.hpp"
#include "core/tensor.hpp"
#include "core/weight.hpp"
#include "model/trace.hpp"

namespace attnlab::js {

using emscripten::val;

// Longest sequence and widest vector a JS call may ask for; larger requests are refused before
// anything is allocated.
constexpr Index kMaxLength = 8192;
constexpr Index kMaxWidth = 4096;

// options[key], read through marshal.js: whatever the caller's code throws (a getter, a proxy)
// becomes an attnlab::Error, so the caller's exceptions never cross C++ frames. Every getter below
// reads its key exactly once.
val get(const val& options, const char* key);
// options[key] when the caller gave one (neither undefined nor null): an option that is read
// only when given is read once, here, and converted from the value returned
std::optional<val> optional(const val& options, const char* key);
// options[key] as an integer in [min, max]; absent → fallback, or an error when fallback < min
Index get_index(const val& options, const char* key, Index min, Index max, Index fallback = -1);
// options[key] as a finite number; absent → fallback
double get_number(const val& options, const char* key, double fallback);
bool get_bool(const val& options, const char* key, bool fallback);
// options[key] as a random seed, an integer in [0, 2³²); absent → fallback
std::uint32_t get_seed(const val& options, const char* key, std::uint32_t fallback);
std::string get_string(const val& options, const char* key, const std::string& fallback);
// options.ropePairing (attention) or options.pairing (the RoPE functions): "interleaved" (default) or "rotate_half"
RopePairing get_rope_pairing(const val& options);
// a JS string as UTF-8, each lone UTF-16 surrogate (which has no UTF-8) replaced by U+FFFD
std::string string_from_js(const val& text, const std::string& name);
// the same checks as the getters, for a value already read (named `name` in messages)
double number_from_js(const val& value, const std::string& name);
bool bool_from_js(const val& value, const std::string& name);
Index index_from_js(const val& value, const std::string& name, Index min, Index max);
// JSON.stringify(options[key]), which is required
std::string get_json(const val& options, const char* key);
// options[key], a Float32Array or array of numbers holding a row-major (rows,cols) matrix, finite
Matrix get_matrix(const val& options, const char* key, Index rows, Index cols);
// the same for a value already read (named `name` in messages)
Matrix matrix_from_js(const val& value, const std::string& name, Index rows, Index cols);
// options[key], a Float32Array or array of 1 … max_length finite numbers
RowVector get_vector(const val& options, const char* key, Index max_length);
// options[key], an array of at most kMaxLength integers within [min, max]
std::vector<int> get_ints(const val& options, const char* key, int min, int max);
std::vector<int> ints_from_js(const val& value, const std::string& name, int min, int max);
// options[key], the bytes of a Uint8Array (a real one: its size is known before anything is read)
std::vector<std::uint8_t> get_bytes(const val& options, const char* key);
// options.mask ("none" | "causal") and options.keyPadding (m flags), for n×m scores
Mask get_mask(const val& options, Index m);

// {rows, cols, data: Float32Array}, a copy owned by JavaScript
val to_js(const ConstMatrixRef& x);
val weight_to_js(const WeightView& w);              // the same, widened from 16 bits when kept in them
val to_js(const std::vector<int>& values);          // Int32Array
val to_js(const std::vector<std::string>& values);  // array of strings
val float_array(const float* data, Index count);    // Float32Array copy
val byte_array(const std::vector<std::uint8_t>& bytes);  // Uint8Array copy
// JSON.parse(text) as the module found it (a page that replaced it later changes nothing)
val parse_json(const std::string& text);

// What options.trace asks for: the names it lists, or every name (`names` empty) when it is true.
struct TraceRequest {
  std::optional<std::vector<std::string>> names;
};
// options.trace, read once: nullopt when it is absent or false, otherwise true or an array of at
// most 4096 strings
std::optional<TraceRequest> get_trace(const val& options);
// The tensors a request names, picked from what a forward kept: throws naming one that was not
// recorded, so a call can pick them before it commits to anything.
using PickedTrace = std::vector<std::pair<std::string, const Matrix*>>;
PickedTrace pick_trace(const ModelActivations& activations, const TraceRequest& request);
// {name: matrix} of the picked tensors
val trace_to_js(const PickedTrace& picked);

// A JS Error with this message (a malloc'd C string, freed by the thrower), thrown once no C++
// frame of the call holds memory.
[[noreturn]] void throw_js_error(char* message);
// "attnlab: " + reason as a malloc'd C string, for throw_js_error
char* js_error_message(const std::string& reason);

// Runs body() and returns its result; an exception becomes a thrown JS Error once every C++
// object of the call is destroyed (the message included), so the module stays usable and no
// rejected call leaks memory. `arguments` are the call's JS arguments. With JavaScript-based
// exceptions (the threaded build), a JS exception skips the C++ frames it crosses, Embind's among
// them, so their handles are released here (or the caller's objects would stay referenced for
// ever); with WebAssembly exceptions (the single-thread build) those frames release them.
template <class Body, class... Arguments>
auto guarded(Body&& body, [[maybe_unused]] const Arguments&... arguments) -> decltype(body()) {
  char* message = nullptr;
  try {
    return body();
  } catch (const std::bad_alloc&) {
    message = js_error_message("out of memory (the request is too large)");
  } catch (const std::exception& e) {
    message = js_error_message(e.what());
  }
#ifndef __wasm_exception_handling__
  (emscripten::internal::_emval_decref(arguments.as_handle()), ...);
#endif
  throw_js_error(message);
}

}  // namespace attnlab::js
