#include "core/exp.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace attnlab {
namespace {

inline float float_from_bits(std::int32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace

// exp(x) = 2^k · exp(r),  k = round(x / ln 2),  r = x − k·ln 2 ∈ [−ln2/2, ln2/2];
// exp(r) by a degree-7 minimax polynomial (Cephes expf), 2^k by writing the exponent bits.
void exp_inplace(float* x, Index count) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;  // ln 2 split so k·kLn2Hi is exact
  constexpr float kLn2Lo = -2.12194440e-4f;
  constexpr float kRoundMagic = 12582912.0f;  // 1.5·2^23: adding it rounds to an integer
  constexpr float kLowest = -87.0f;
  constexpr float kHighest = 88.0f;
  for (Index i = 0; i < count; ++i) {
    const float in = x[i];
    // NaN fails every comparison: compute with 0 instead (no NaN→int conversion) and give NaN back
    const bool nan = in != in;
    float v = in < kLowest ? kLowest : in;
    v = v > kHighest ? kHighest : v;
    v = nan ? 0.0f : v;
    const float k = (v * kLog2e + kRoundMagic) - kRoundMagic;
    const float r = (v - k * kLn2Hi) - k * kLn2Lo;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    // v is finite and clamped, so k ∈ [−126, 127] and the biased exponent k + 127 shifts safely
    const float scale = float_from_bits((static_cast<std::int32_t>(k) + 127) << 23);
    const float y = p * scale;
    x[i] = nan ? in : in < kLowest ? 0.0f : y;
  }
}

void exp_inplace(double* x, Index count) {
  for (Index i = 0; i < count; ++i) x[i] = std::exp(x[i]);
}

}  // namespace attnlab
