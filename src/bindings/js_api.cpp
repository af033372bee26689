#include "bindings/js_api.hpp"

#include "bindings/marshal.hpp"
#include "core/attention.hpp"
#include "core/check.hpp"
#include "core/sinusoidal.hpp"

namespace attnlab::js {

namespace {
// Widths and lengths the page may ask for; anything larger is refused before allocating.
constexpr Index kMaxLength = 8192;
constexpr Index kMaxWidth = 4096;
}  // namespace

val build_info() {
  return guarded([] {
    val info = val::object();
#if defined(__EMSCRIPTEN_PTHREADS__)
    info.set("build", std::string("simd-threads"));
    info.set("threads", true);
#else
    info.set("build", std::string("simd"));
    info.set("threads", false);
#endif
#if defined(__wasm_simd128__)
    info.set("simd", true);
#else
    info.set("simd", false);
#endif
    info.set("version", std::string(ATTNLAB_VERSION));
    return info;
  });
}

val attention_head(const val& options) {
  return guarded([&] {
    const Index n = get_index(options, "n", 1, kMaxLength);
    const Index d = get_index(options, "d", 1, kMaxWidth);
    const Index dk = get_index(options, "dK", 1, kMaxWidth);
    const Index dv = get_index(options, "dV", 1, kMaxWidth);
    const bool cross = !options["memory"].isUndefined();
    const Index m = cross ? get_index(options, "m", 1, kMaxLength) : n;
    const Matrix x = get_matrix(options, "x", n, d);
    const Matrix memory = cross ? get_matrix(options, "memory", m, d) : x;
    const AttentionTrace t = attention_head_forward_traced(
        x, memory, get_matrix(options, "wQ", d, dk), get_matrix(options, "wK", d, dk),
        get_matrix(options, "wV", d, dv), get_mask(options, m), get_bool(options, "scaled", true));
    val out = val::object();
    out.set("q", to_js(t.q));
    out.set("k", to_js(t.k));
    out.set("v", to_js(t.v));
    out.set("scores", to_js(t.scores));
    out.set("scale", val(t.scale));
    out.set("scaled", to_js(t.scaled));
    out.set("masked", to_js(t.masked));
    out.set("weights", to_js(t.weights));
    out.set("output", to_js(t.output));
    return out;
  });
}

val sinusoidal_table(const val& options) {
  return guarded([&] {
    const Index n = get_index(options, "n", 1, kMaxLength);
    const Index d = get_index(options, "d", 1, kMaxWidth);
    return to_js(attnlab::sinusoidal_table(n, d, static_cast<float>(get_number(options, "base", 10000.0))));
  });
}

val position_similarity(const val& options) {
  return guarded([&] {
    const Index n = get_index(options, "n", 1, kMaxLength);
    const Index d = get_index(options, "d", 1, kMaxWidth);
    return to_js(attnlab::position_similarity(get_matrix(options, "pe", n, d)));
  });
}

val sinusoidal_shift_matrix(const val& options) {
  return guarded([&] {
    const Index d = get_index(options, "d", 2, kMaxWidth);
    const Index k = get_index(options, "k", -kMaxLength, kMaxLength);
    return to_js(attnlab::sinusoidal_shift_matrix(d, k, static_cast<float>(get_number(options, "base", 10000.0))));
  });
}

}  // namespace attnlab::js
