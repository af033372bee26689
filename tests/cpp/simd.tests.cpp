#include <catch2/catch.hpp>

#include "core/tensor.hpp"

// Fails when a build silently loses vectorisation (e.g. a WebAssembly build without SIMD, where
// Eigen would fall back to scalar code). tests/js/wasm-simd.mjs also inspects the compiled module.
TEST_CASE("the build vectorises", "[simd]") {
#if defined(__EMSCRIPTEN__)
#if !defined(__wasm_simd128__)
  FAIL("WebAssembly build without -msimd128");
#endif
#endif
#if !defined(EIGEN_VECTORIZE)
  FAIL("Eigen is not vectorising (EIGEN_VECTORIZE undefined)");
#else
  CHECK(Eigen::internal::packet_traits<float>::Vectorizable);
  CHECK(Eigen::internal::packet_traits<float>::size >= 4);
  SUCCEED(Eigen::SimdInstructionSetsInUse());
#endif
}
