#pragma once
// The functions JavaScript calls: each takes one options object, validates it through the
// marshalling helpers and returns plain objects of typed arrays. Documented in web/src/engine/attnlab.d.mts.
#include <emscripten/val.h>

namespace attnlab::js {

// {build, version, simd, threads}
emscripten::val build_info();

// one attention head with its own projections, every stage traced
//   {x:(n·d), n, d, wQ, wK:(d·dK), wV:(d·dV), dK, dV, memory?:(m·d), m?, mask?, keyPadding?, scaled?}
emscripten::val attention_head(const emscripten::val& options);

// {n, d, base?} → PE:(n,d)
emscripten::val sinusoidal_table(const emscripten::val& options);

// {pe:(n·d), n, d} → PE·PEᵀ:(n,n)
emscripten::val position_similarity(const emscripten::val& options);

// {d, k, base?} → T_k:(d,d)
emscripten::val sinusoidal_shift_matrix(const emscripten::val& options);

}  // namespace attnlab::js
