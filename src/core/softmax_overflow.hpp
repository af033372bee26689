#pragma once
// Why the softmax subtracts the row's maximum: the textbook form exp(z_i)/Σ_j exp(z_j) overflows
// float32 once a logit passes ln(FLT_MAX) ≈ 88.72, while the engine's max-subtracted form stays
// exact. Both are computed here in float32 (in every build of the engine: float32's range is the
// lesson) for the deck's overflow slide. The naive form is a teaching counter-example: nothing in
// the engine computes attention with it.
#include "core/tensor.hpp"

namespace attnlab {

using Float32Row = Eigen::Matrix<float, 1, Eigen::Dynamic>;

// The terms of one softmax row, a_i = exp(z_i − c) / Σ_j exp(z_j − c).
struct SoftmaxTerms {
  float shift = 0;     //     c, subtracted from every logit first: 0 (naive) or max_j z_j
  Float32Row exps;     // (m) e_i = exp(z_i − c)
  float sum = 0;       //     s = Σ_j e_j, summed in float32
  Float32Row weights;  // (m) a_i = e_i / s
};

// e_i = exp(z_i), s = Σ_j e_j, a_i = e_i / s in float32, no maximum subtracted   z:(m) → e,a:(m)
// The counter-example: non-finite results are returned, not refused. exp(z_i) = +∞ once z_i > ln(FLT_MAX),
// then s = +∞ and a_i = ∞/∞ = NaN (a finite e_i gives e_i/∞ = 0); s alone overflows when terms
// near FLT_MAX add up; and when every z_i is below about −103.97 every e_i underflows to 0 and
// a_i = 0/0 = NaN.
SoftmaxTerms naive_softmax(const Float32Row& z);

// e_i = exp(z_i − max_j z_j), s = Σ_j e_j, a = softmax_rows_forward(z)   z:(m) → e,a:(m)
// The engine's own softmax with its terms: the largest e_i is exp(0) = 1, so 1 ≤ s ≤ m, nothing
// overflows, and a is unchanged because the factor exp(−max) cancels between e_i and s.
SoftmaxTerms max_subtracted_softmax(const Float32Row& z);

// Both forms of softmax(z) for z = scale·scores, rounded to float32.
struct SoftmaxForms {
  Float32Row logits;  // (m) z
  SoftmaxTerms naive;
  SoftmaxTerms max_subtracted;
};

// z = scale·scores → both forms   scores:(m) → z:(m)
// scores and z must be finite (a logit that is already ±∞ is another problem than the sum's overflow).
SoftmaxForms softmax_forms(const RowVector& scores, Scalar scale);

// ln((2 − 2^−p)·2^e_max): the natural log of the largest finite number of a binary floating-point
// format with p fraction bits and largest exponent e_max, above which exp overflows. float32
// (p = 23, e_max = 127): ln(3.4028235e38) ≈ 88.72; float16 (p = 10, e_max = 15): ln 65504 ≈ 11.09.
double exp_overflow_threshold(int fraction_bits, int max_exponent);

}  // namespace attnlab
