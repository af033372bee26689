#pragma once
// The one place Eigen is included. Under Emscripten, Eigen's SSE path is compiled to wasm SIMD
// (-msimd128 -msse4.1); its GEBP kernel carries an empty register-allocation hint
// `__asm__("" : "+x,m"(a))` that wasm cannot express. The hint is a no-op, so it is disabled here
// only while Eigen itself is read.
#include <cmath>
#include <cstdlib>
#include <new>

#if defined(__EMSCRIPTEN__)
#include <immintrin.h>
#if defined(__wasm_relaxed_simd__)
// The relaxed-SIMD build (-mrelaxed-simd) gives Eigen the fused multiply-add of x86's FMA, as
// f32x4/f64x2 relaxed_madd: its matrix-product kernel then needs one instruction a step, not two.
// Clang 14 writes these with the proposal's early opcodes; scripts/relaxed-simd.mjs rewrites them
// to the standard ones after linking.
#ifndef __FMA__
#define __FMA__ 1
#endif
static inline __m128 _mm_fmadd_ps(__m128 a, __m128 b, __m128 c) {  // a·b + c
  return (__m128)__builtin_wasm_fma_f32x4((__f32x4)a, (__f32x4)b, (__f32x4)c);
}
static inline __m128d _mm_fmadd_pd(__m128d a, __m128d b, __m128d c) {  // a·b + c
  return (__m128d)__builtin_wasm_fma_f64x2((__f64x2)a, (__f64x2)b, (__f64x2)c);
}
#endif
#pragma push_macro("__asm__")
#define __asm__(...)
#include <Eigen/Dense>
#pragma pop_macro("__asm__")
#else
#include <Eigen/Dense>
#endif
