#pragma once
// Four-lane multiply-adds, the step of every product's inner loop: fused into one instruction (one
// rounding) in the relaxed-SIMD build while products fuse (products_fused()), else a multiply and
// an add, as the SIMD128 build always does. The packed product and the decoding slabs share them.
#include <type_traits>

#include "core/tensor.hpp"

namespace attnlab {

using Vec = Scalar __attribute__((vector_size(4 * sizeof(Scalar))));

#if defined(__wasm_relaxed_simd__)
constexpr bool kCanFuse = sizeof(Scalar) == 4;
#else
constexpr bool kCanFuse = false;
#endif

// a·b + c   a, b, c: four lanes; one fused instruction when `fused`, else a multiply and an add
template <bool fused, class Lanes>
Lanes multiply_add(Lanes a, Lanes b, Lanes c) {
#if defined(__wasm_relaxed_simd__)
  if constexpr (fused) return Lanes(__builtin_wasm_fma_f32x4(__f32x4(a), __f32x4(b), __f32x4(c)));
#endif
  static_assert(!fused || kCanFuse, "only the relaxed-SIMD build fuses");
  return a * b + c;
}

// body(std::true_type) where `fused` asks for fused multiply-adds and the build has them, else
//   body(std::false_type): a kernel's two instantiations, chosen in one place
template <class Body>
decltype(auto) with_rounding(bool fused, Body&& body) {
  if constexpr (kCanFuse)
    if (fused) return body(std::true_type{});
  return body(std::false_type{});
}

}  // namespace attnlab
