#pragma once
// Scaled dot-product attention, stage by stage, so that every intermediate can be shown.
#include "core/mask.hpp"
#include "core/tensor.hpp"

namespace attnlab {

// Every stage of one attention call, in the order the seminar derives them.
struct AttentionTrace {
  Matrix q;        // (n,d_k) queries
  Matrix k;        // (m,d_k) keys
  Matrix v;        // (m,d_v) values
  Matrix scores;   // (n,m)   QKᵀ
  Scalar scale = 1; //         1/√d_k, or 1 with scaling switched off
  Matrix scaled;   // (n,m)   QKᵀ·scale
  Matrix masked;   // (n,m)   QKᵀ·scale + M
  Matrix weights;  // (n,m)   softmax rows of masked; each row sums to 1 (0 if fully masked)
  Matrix output;   // (n,d_v) weights·V
};

// s = 1/√d_k, or 1 when scaling is off (the "why √d_k" experiment)
Scalar attention_scale(Index d_k, bool scaled);

// throws attnlab::Error unless Q:(n,d_k) K:(m,d_k) V:(m,d_v) with n,m,d_k,d_v ≥ 1, all finite
void validate_attention_inputs(const ConstMatrixRef& q, const ConstMatrixRef& k,
                               const ConstMatrixRef& v);

// scores = QKᵀ   Q:(n,d_k) K:(m,d_k) → (n,m)
void attention_scores(const ConstMatrixRef& q, const ConstMatrixRef& k, MatrixRef scores);

// out = A·V   A:(n,m) V:(m,d_v) → (n,d_v)
void attention_mix(const ConstMatrixRef& weights, const ConstMatrixRef& v, MatrixRef out);

// out = softmax(QKᵀ·s + M)·V   Q:(n,d_k) K:(m,d_k) V:(m,d_v) → weights:(n,m) out:(n,d_v)
// Keeps only the weights; the fast path used inside models.
void attention_forward(const ConstMatrixRef& q, const ConstMatrixRef& k, const ConstMatrixRef& v,
                       const Mask& mask, bool scaled, MatrixRef weights, MatrixRef out);

// dQ += dS·K, dK += dSᵀ·Q, dV += Aᵀ·dOut with dS = softmax_backward(A, dOut·Vᵀ)·s
//   differentiates out = softmax(QKᵀ·s + M)·V of attention_forward, given its weights A:(n,m)
//   Q:(n,d_k) K:(m,d_k) V:(m,d_v) dOut:(n,d_v). Masked entries have A = 0 and so get no gradient.
//   Gradients accumulate: query heads that share a key/value group add into one dK and dV.
void attention_backward(const ConstMatrixRef& q, const ConstMatrixRef& k, const ConstMatrixRef& v,
                        const ConstMatrixRef& weights, Scalar scale, const ConstMatrixRef& dout,
                        MatrixRef dq, MatrixRef dk, MatrixRef dv);

// out = softmax(QKᵀ·s + M)·V   Q:(n,d_k) K:(m,d_k) V:(m,d_v), keeping every stage in the trace
AttentionTrace attention_forward_traced(const ConstMatrixRef& q, const ConstMatrixRef& k,
                                        const ConstMatrixRef& v, const Mask& mask, bool scaled);

// head = softmax((X_q·W_Q)(X_kv·W_K)ᵀ·s + M)·(X_kv·W_V)
//   X_q:(n,d) X_kv:(m,d) W_Q,W_K:(d,d_k) W_V:(d,d_v); one head with its own projections, as in
//   the seminar's worked examples (d_k need not be d/h)
AttentionTrace attention_head_forward_traced(const ConstMatrixRef& x_q, const ConstMatrixRef& x_kv,
                                             const ConstMatrixRef& w_q, const ConstMatrixRef& w_k,
                                             const ConstMatrixRef& w_v, const Mask& mask, bool scaled);

// dX = dQ·W_Qᵀ + dK·W_Kᵀ + dV·W_Vᵀ, with dQ, dK, dV from attention_backward
//   differentiates head = softmax((X·W_Q)(X·W_K)ᵀ·s + M)·(X·W_V) of attention_head_forward_traced
//   as self-attention (X_q = X_kv = X), given that call's trace   dHead:(n,d_v) → dX:(n,d)
Matrix attention_head_backward(const AttentionTrace& trace, const ConstMatrixRef& w_q,
                               const ConstMatrixRef& w_k, const ConstMatrixRef& w_v,
                               const ConstMatrixRef& dhead);

}  // namespace attnlab
