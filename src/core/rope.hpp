#pragma once
// Rotary position embedding (RoPE): positions enter as rotations of query/key pairs.
#include <string>

#include "core/tensor.hpp"

namespace attnlab {

// Which coordinates form the i-th rotated pair: (2i, 2i+1) as in the RoPE paper, or (i, i + d/2)
// as Hugging Face's Llama code rotates them ("rotate_half"). The angles are the same; a model
// trained with one pairing gives different scores under the other.
enum class RopePairing { interleaved, rotate_half };

// [x'_{p,a}, x'_{p,b}] = R(p·θ_i)·[x_{p,a}, x_{p,b}] for the i-th pair (a, b), θ_i = base^(−2i/d),
//   p = pos0 + row   x:(n,d), d even; R(a) = [[cos a, −sin a], [sin a, cos a]]. In place.
// Consequence: (R_m q)·(R_n k) = q·R_{n−m} k, so scores depend only on the offset n − m.
void rope_apply(MatrixRef x, Index pos0, float base = 10000.0f, RopePairing pairing = RopePairing::interleaved);

// dx = R(p·θ_i)ᵀ·dy, the rotation by −p·θ_i   differentiates rope_apply   dy:(n,d) in place
void rope_apply_transpose(MatrixRef dy, Index pos0, float base = 10000.0f,
                          RopePairing pairing = RopePairing::interleaved);

// R_p, the rotation that rope_apply applies at position p   → (d,d), d even; block-diagonal
// for interleaved pairs
Matrix rope_rotation(Index d, Index pos, float base = 10000.0f, RopePairing pairing = RopePairing::interleaved);

// "interleaved" | "rotate_half" → RopePairing; anything else is an error naming the choices
RopePairing rope_pairing_from_string(const std::string& name);
std::string to_string(RopePairing pairing);

}  // namespace attnlab
