#pragma once
// Fixed sinusoidal positional encoding and the two facts the seminar proves about it.
#include "core/tensor.hpp"

namespace attnlab {

// PE(pos,2i) = sin(pos·ω_i), PE(pos,2i+1) = cos(pos·ω_i), ω_i = base^(−2i/d)   → (n,d)
// For odd d the last column is a sine. The seminar uses base = 10000.
Matrix sinusoidal_table(Index n, Index d, float base = 10000.0f);

// S = PE·PEᵀ   PE:(n,d) → (n,n); S_ij depends (for this encoding) only on |i − j|
Matrix position_similarity(const ConstMatrixRef& pe);

// T_k, block-diagonal with [[cos kω_i, sin kω_i], [−sin kω_i, cos kω_i]]   → (d,d), d even
// Satisfies PE(pos+k) = T_k·PE(pos) for every pos: a shift by k is one fixed linear map.
Matrix sinusoidal_shift_matrix(Index d, Index k, float base = 10000.0f);

// (T_k·PE(pos)ᵀ)ᵀ   → (1,d), d even: position pos moved by k through the rotation alone, computed
// from row pos of the table; it equals row pos+k up to rounding
Matrix sinusoidal_shift(Index pos, Index k, Index d, float base = 10000.0f);

}  // namespace attnlab
