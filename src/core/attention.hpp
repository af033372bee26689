#pragma once
// Scaled dot-product attention, stage by stage, so that every intermediate can be shown.
#include <string>

#include "core/mask.hpp"
#include "core/matmul.hpp"
#include "core/tensor.hpp"

namespace attnlab {

// The stages of attention in the order the seminar derives them. scores … mix are each head's
// (run_head_stage); project, flash, concat and output belong to multi-head attention.
enum class AttentionStage { start, project, scores, scale, mask, softmax, mix, flash, concat, output };
std::string to_string(AttentionStage stage);

// a head's stages, in order
inline constexpr AttentionStage kHeadStages[] = {AttentionStage::scores, AttentionStage::scale, AttentionStage::mask,
                                                 AttentionStage::softmax, AttentionStage::mix};

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

// What an attention call checks of Q, K and V: their shapes and that every entry is finite, or
// (shapes) their shapes only, where the caller has checked the numbers: the multi-head path checks
// Q and the new keys and values once when it projects them, not every head's slice of the whole
// KV cache again at each decoded token (a pass that grew with the context)
enum class InputCheck { finite, shapes };

// throws attnlab::Error unless Q:(n,d_k) K:(m,d_k) V:(m,d_v) with n,m,d_k,d_v ≥ 1, all finite
void validate_attention_inputs(const ConstMatrixRef& q, const ConstMatrixRef& k,
                               const ConstMatrixRef& v, InputCheck check = InputCheck::finite);

// The stages on any block of query rows; each is written once, here, and every path runs these.
// scores = QKᵀ   Q:(n,d_k) K:(m,d_k) → (n,m); `keys` = PackedMatrix(K, true, n), prepared once for
//   every block of a head's queries
void attention_scores(const ConstMatrixRef& q, const PackedMatrix& keys, MatrixRef scores);
void attention_scores(const ConstMatrixRef& q, const ConstMatrixRef& k, MatrixRef scores);
// scaled = scores·s   (n,m) → (n,m); scaled may alias scores
void attention_scale_scores(const ConstMatrixRef& scores, Scalar scale, MatrixRef scaled);
// masked = scaled + M (Mask::apply), weights = softmax rows (softmax_rows_forward), then
// out = A·V   A:(n,m) V:(m,d_v) → (n,d_v); `values` = PackedMatrix(V, false, n)
void attention_mix(const ConstMatrixRef& weights, const PackedMatrix& values, MatrixRef out);
void attention_mix(const ConstMatrixRef& weights, const ConstMatrixRef& v, MatrixRef out);

// Runs one of a head's stages on t, from the stage before it (q, k, v and scale set first):
//   scores: QKᵀ (n,m)   scale: ·s   mask: + M   softmax: weights (n,m)   mix: weights·V (n,d_v)
// The traced forward runs the five in turn, the stepper one per call.
void run_head_stage(AttentionStage stage, AttentionTrace& t, const Mask& mask);

// Fewer query rows than this stay on one thread: a split would cost more than it saves.
inline constexpr Index kRowsWorthSplitting = 64;

// out = softmax(QKᵀ·s + M)·V   Q:(n,d_k) K:(m,d_k) V:(m,d_v) → out:(n,d_v)
// The fast path: blocks of query rows, each taken through all five stages while its (rows,m)
// scores are in cache, spread over the threads; the (n,m) matrix is never formed. block_rows
// other than 0 (cache-sized) sets the rows per block: ⌈n / threads⌉ forms the whole matrix, as
// the textbook computes it (the benchmark's naive kernel).
void attention_forward(const ConstMatrixRef& q, const ConstMatrixRef& k, const ConstMatrixRef& v,
                       const Mask& mask, bool scaled, MatrixRef out, Index block_rows = 0,
                       InputCheck check = InputCheck::finite);
// query rows per block of the fast path against m keys: a block's (rows, m) scores stay within
// about 64 KB, so they are still in cache from QKᵀ through the softmax to A·V
Index fused_block_rows(Index m);

// dQ += dS·K, dK += dSᵀ·Q, dV += Aᵀ·dOut with dS = softmax_backward(A, dOut·Vᵀ)·s
//   differentiates out = softmax(QKᵀ·s + M)·V of attention_forward, given its weights A:(n,m)
//   Q:(n,d_k) K:(m,d_k) V:(m,d_v) dOut:(n,d_v). Masked entries have A = 0 and so get no gradient.
//   Gradients accumulate: query heads that share a key/value group add into one dK and dV.
void attention_backward(const ConstMatrixRef& q, const ConstMatrixRef& k, const ConstMatrixRef& v,
                        const ConstMatrixRef& weights, Scalar scale, const ConstMatrixRef& dout,
                        MatrixRef dq, MatrixRef dk, MatrixRef dv);

// out = softmax(QKᵀ·s + M)·V   Q:(n,d_k) K:(m,d_k) V:(m,d_v) → out:(n,d_v), weights:(n,m)
// keeping only the weights A, which is all attention_backward reads: the five stages of
// attention_forward run in place on the (n,m) weights, with no copy of Q, K, V or any other stage
void attention_forward_weights(const ConstMatrixRef& q, const ConstMatrixRef& k, const ConstMatrixRef& v,
                               const Mask& mask, bool scaled, MatrixRef out, Matrix& weights,
                               InputCheck check = InputCheck::finite);

// out = softmax(QKᵀ·s + M)·V   Q:(n,d_k) K:(m,d_k) V:(m,d_v), keeping every stage in the trace
// (the five stages of run_head_stage in turn)
AttentionTrace attention_forward_traced(const ConstMatrixRef& q, const ConstMatrixRef& k,
                                        const ConstMatrixRef& v, const Mask& mask, bool scaled,
                                        InputCheck check = InputCheck::finite);

// throws attnlab::Error unless X_q:(n,d) X_kv:(m,d) W_Q,W_K:(d,d_k) W_V:(d,d_v), all finite
void validate_attention_head_inputs(const ConstMatrixRef& x_q, const ConstMatrixRef& x_kv,
                                    const ConstMatrixRef& w_q, const ConstMatrixRef& w_k,
                                    const ConstMatrixRef& w_v);

// head = softmax((X_q·W_Q)(X_kv·W_K)ᵀ·s + M)·(X_kv·W_V)
//   X_q:(n,d) X_kv:(m,d) W_Q,W_K:(d,d_k) W_V:(d,d_v) → (n,d_v); one head with its own
//   projections, as in the seminar's worked examples (d_k need not be d/h); fast path
Matrix attention_head_forward(const ConstMatrixRef& x_q, const ConstMatrixRef& x_kv, const ConstMatrixRef& w_q,
                              const ConstMatrixRef& w_k, const ConstMatrixRef& w_v, const Mask& mask, bool scaled);
// the same, keeping every stage
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
