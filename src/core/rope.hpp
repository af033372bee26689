#pragma once
// Rotary position embedding (RoPE): positions enter as rotations of query/key pairs.
#include "core/tensor.hpp"

namespace attnlab {

// [x'_{p,2i}, x'_{p,2i+1}] = R(p·θ_i)·[x_{p,2i}, x_{p,2i+1}], θ_i = base^(−2i/d), p = pos0 + row
//   x:(n,d), d even; R(a) = [[cos a, −sin a], [sin a, cos a]]. In place.
// Consequence: (R_m q)·(R_n k) = q·R_{n−m} k, so scores depend only on the offset n − m.
void rope_apply(MatrixRef x, Index pos0, float base = 10000.0f);

// dx = R(p·θ_i)ᵀ·dy, the rotation by −p·θ_i   differentiates rope_apply   dy:(n,d) in place
void rope_apply_transpose(MatrixRef dy, Index pos0, float base = 10000.0f);

// R_p, the block-diagonal rotation that rope_apply applies at position p   → (d,d), d even
Matrix rope_rotation(Index d, Index pos, float base = 10000.0f);

}  // namespace attnlab
