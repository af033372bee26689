#include "core/exp.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace attnlab {
namespace {

// four floats, and four 32-bit masks or integers (a comparison gives −1 where it holds)
using Floats = float __attribute__((vector_size(16)));
using Ints = std::int32_t __attribute__((vector_size(16)));

Floats splat(float x) { return Floats{x, x, x, x}; }
Floats select(Ints mask, Floats yes, Floats no) {
  return reinterpret_cast<Floats>((mask & reinterpret_cast<Ints>(yes)) | (~mask & reinterpret_cast<Ints>(no)));
}

// v < lo ? lo : v, and v > hi ? hi : v, with NaN giving the bound: WebAssembly's pmax and pmin, one
// instruction each on x86, where its max and min (NaN-propagating) are eight
Floats at_least(Floats v, float lo) {
#if defined(__wasm_simd128__)
  return __builtin_wasm_pmax_f32x4(splat(lo), v);
#else
  return select(splat(lo) < v, v, splat(lo));
#endif
}
Floats at_most(Floats v, float hi) {
#if defined(__wasm_simd128__)
  return __builtin_wasm_pmin_f32x4(splat(hi), v);
#else
  return select(v < splat(hi), v, splat(hi));
#endif
}

// exp(x) = 2^k · exp(r),  k = round(x / ln 2),  r = x − k·ln 2 ∈ [−ln2/2, ln2/2];
// exp(r) by a degree-7 minimax polynomial (Cephes expf), 2^k by writing the exponent bits.
Floats exp4(Floats in) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;  // ln 2 split so k·kLn2Hi is exact
  constexpr float kLn2Lo = -2.12194440e-4f;
  constexpr float kRoundMagic = 12582912.0f;  // 1.5·2^23: adding it rounds to an integer
  constexpr std::int32_t kRoundMagicBits = 0x4B400000;
  constexpr float kLowest = -87.0f;
  constexpr float kHighest = 88.0f;
  // NaN fails every comparison and is clamped like any number, then given back
  const Ints nan = in != in;
  const Floats v = at_most(at_least(in, kLowest), kHighest);
  // k + 1.5·2^23 holds k in its low mantissa bits: its bits less the constant's are k itself
  const Floats shifted = v * kLog2e + kRoundMagic;
  const Floats k = shifted - kRoundMagic;
  const Floats r = (v - k * kLn2Hi) - k * kLn2Lo;
  Floats p = splat(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  // v is clamped, so k ∈ [−126, 127] and the biased exponent k + 127 shifts safely
  const Floats scale = reinterpret_cast<Floats>((reinterpret_cast<Ints>(shifted) - kRoundMagicBits + 127) << 23);
  return select(nan, in, select(in < splat(kLowest), splat(0.0f), p * scale));
}

}  // namespace

void exp_inplace(float* x, Index count) {
  Index i = 0;
  for (; i + 4 <= count; i += 4) {
    Floats v;
    std::memcpy(&v, x + i, sizeof v);
    v = exp4(v);
    std::memcpy(x + i, &v, sizeof v);
  }
  if (i == count) return;
  Floats rest = splat(0.0f);  // the last one to three, in a vector of their own
  const std::size_t bytes = static_cast<std::size_t>(count - i) * sizeof(float);
  std::memcpy(&rest, x + i, bytes);
  rest = exp4(rest);
  std::memcpy(x + i, &rest, bytes);
}

void exp_inplace(double* x, Index count) {
  for (Index i = 0; i < count; ++i) x[i] = std::exp(x[i]);
}

}  // namespace attnlab
