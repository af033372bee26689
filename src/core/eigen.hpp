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
#pragma push_macro("__asm__")
#define __asm__(...)
#include <Eigen/Dense>
#pragma pop_macro("__asm__")
#else
#include <Eigen/Dense>
#endif
