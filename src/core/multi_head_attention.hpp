#pragma once
// Multi-head attention with its grouped variants (MHA, GQA, MQA), as self- or cross-attention.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/attention.hpp"
#include "core/flash_attention.hpp"
#include "core/mask.hpp"
#include "core/rope.hpp"
#include "core/tensor.hpp"
#include "core/weight.hpp"

namespace attnlab {

struct AttentionConfig {
  Index d_model = 0;         // d
  Index n_heads = 1;         // h; d_k = d_v = d/h
  Index n_kv_heads = 0;      // g; 0 means g = h (MHA), 1 is MQA, anything dividing h is GQA
  bool scaled = true;        // divide scores by √d_k
  bool rope = false;         // rotate each head's queries and keys (self-attention only)
  float rope_base = 10000.0f;
  RopePairing rope_pairing = RopePairing::interleaved;
  bool alibi = false;        // add −m_head·|i − j| to each head's scores (self-attention only)
  // > 0: each head runs flash attention in tiles of flash_rows × flash_cols (no mask but the
  // causal one, no ALiBi); 0: the fused row-block path
  Index flash_rows = 0, flash_cols = 0;

  Index kv_heads() const { return n_kv_heads == 0 ? n_heads : n_kv_heads; }
  Index d_head() const { return d_model / n_heads; }
  Index kv_width() const { return kv_heads() * d_head(); }  // g·d_k
  bool flash() const { return flash_rows > 0; }
  // throws attnlab::Error with the reason when the numbers do not fit together
  void validate() const;
};

// Parameters under GPT-2's checkpoint names (`h.{i}.attn.c_attn`, `h.{i}.attn.c_proj`), stored so
// that y = x·W + b (GPT-2's Conv1D layout). With g < h the K and V column blocks are narrower.
// Whether a call reads every weight to check it is finite. A model's weights were checked when it
// was loaded or made, and training keeps them finite, so its blocks check only shapes: a decoded
// token would otherwise read every attention weight twice.
enum class WeightCheck { finite, shapes };

struct AttentionParams {
  WeightMatrix c_attn_weight;   // (d, d + 2·g·d_k)  columns [W_Q | W_K | W_V]
  RowVector c_attn_bias;  // (d + 2·g·d_k)      [b_Q | b_K | b_V]
  WeightMatrix c_proj_weight;   // (d, d)             W_O
  RowVector c_proj_bias;  // (d)                b_O

  // W ~ N(0, 0.02²), b = 0, seeded (GPT-2's initialisation)
  static AttentionParams init(const AttentionConfig& config, std::uint32_t seed);
  // throws attnlab::Error naming the first tensor of the wrong shape or (WeightCheck::finite) with
  // a non-finite entry
  void validate(const AttentionConfig& config, WeightCheck check = WeightCheck::finite) const;
};

// What a configuration costs, from the numbers alone (a 7B-class layer is never allocated):
// parameters of W_Q, W_K, W_V, W_O and their biases, 2·d² + 2·d·g·d_k + 2·d + 2·g·d_k
std::uint64_t attention_parameters(const AttentionConfig& config);
// 2 (K and V) · n · g·d_k · bytes_per_value: one layer's KV cache after n tokens (KVCacheLayer
// holds exactly this at 4 bytes a value)
std::uint64_t kv_cache_bytes(const AttentionConfig& config, std::uint64_t n, std::uint64_t bytes_per_value);

// What a traced call keeps of each head: every stage (the page shows them), or only the weights
// that the backward pass reads (training).
enum class TraceDetail { every_stage, for_backward };

// Every intermediate of one multi-head call (each head's scores, scaled, masked scores and output
// only with TraceDetail::every_stage, which the caller sets in `detail` before the call).
struct MultiHeadTrace {
  TraceDetail detail = TraceDetail::every_stage;
  Matrix q;                           // (n, h·d_k)  x·W_Q + b_Q (rotated when RoPE is on)
  Matrix k;                           // (m, g·d_k)  keys attended to (cached ones included)
  Matrix v;                           // (m, g·d_v)  values attended to
  std::vector<AttentionTrace> heads;  // h traces, each on its slice of q, k, v
  Matrix concat;                      // (n, d)      [head_1 | … | head_h]
  Matrix output;                      // (n, d)      concat·W_O + b_O
};

// Keys and values of the positions decoded so far, for one layer: incremental decoding projects
// only the new tokens and attends to these. The buffer keeps room for more rows (doubling when
// full), so a decoded token appends one row instead of copying the whole cache.
struct KVCacheLayer {
  Matrix kv;        // (room, 2·g·d_k): rows 0 … length − 1 hold [K | V], keys rotated when RoPE is on
  Index used = 0;   // positions cached

  Index length() const { return used; }
  Index bytes() const { return used * kv.cols() * static_cast<Index>(sizeof(Scalar)); }
  // [K | V] of the cached positions   → (length, 2·g·d_k)
  ConstMatrixRef rows() const { return kv.topRows(used); }
  // appends rows of [K | V] (the buffer doubles when they do not fit)   rows:(k, 2·g·d_k)
  void append(const ConstMatrixRef& more);
  // keeps the first `length` positions
  void truncate(Index length) { used = std::min(used, length); }
};

// Key/value head that query head i reads: ⌊i·g/h⌋ (consecutive query heads share one group)
Index kv_head_of(const AttentionConfig& config, Index head);

// The projections of one call, ready for the heads.
struct ProjectedQKV {
  Matrix q;   // (n, h·d_k)    x·W_Q + b_Q, rotated when RoPE is on
  Matrix kv;  // (m, 2·g·d_k)  [K | V] of every key attended to, without a cache
  const KVCacheLayer* cache = nullptr;  // with one: its rows, cached ones and the new, read in place

  ConstMatrixRef all_kv() const;  // (m, 2·g·d_k)  [K | V] of every key attended to

  ConstMatrixRef queries(const AttentionConfig& config, Index head) const;  // (n, d_k)
  ConstMatrixRef keys(const AttentionConfig& config, Index head) const;     // (m, d_k) of head's group
  ConstMatrixRef values(const AttentionConfig& config, Index head) const;   // (m, d_v) of head's group
};

// Q = x·W_Q + b_Q, [K | V] = x_kv·[W_K | W_V] + [b_K | b_V], then RoPE (queries at positions
// m − n …, new keys after the cached ones); new keys and values are appended to the cache.
// Validates every argument (shapes, finiteness, the mask for n×m).   x:(n,d) x_kv:(m_new,d)
ProjectedQKV project_qkv(const AttentionConfig& config, const AttentionParams& params,
                         const ConstMatrixRef& x, const ConstMatrixRef& x_kv, const Mask& mask,
                         bool self, KVCacheLayer* cache = nullptr, WeightCheck check = WeightCheck::finite);

// M_i = M + B_i: the mask plus head i's ALiBi bias when ALiBi is on   → for (n,m) scores
Mask head_mask(const AttentionConfig& config, const Mask& mask, Index head, Index n, Index m);

// out = concat·W_O + b_O   concat:(n,d) → (n,d)
Matrix output_projection(const AttentionParams& params, const ConstMatrixRef& concat);

// head_i = softmax(Q_i K_gᵀ·s + M_i)·V_g for every head, side by side   → concat:(n, h·d_k)
//   by the fused path or flash attention (config); with a trace, every stage of every head is
//   kept (flash: q, k, v, output, and the tiles' running statistics in flash_tiles when given),
//   or with TraceDetail::for_backward only each head's weights. p comes from project_qkv, which
//   checked its numbers: the heads check shapes only
Matrix attend_heads(const AttentionConfig& config, const ProjectedQKV& p, const Mask& mask,
                    std::vector<AttentionTrace>* trace = nullptr, std::vector<FlashTrace>* flash_tiles = nullptr,
                    TraceDetail detail = TraceDetail::every_stage);

// out = Concat(head_1..head_h)·W_O + b_O, head_i = Attention(x·W_Q^i, x·W_K^{g(i)}, x·W_V^{g(i)})
//   x:(n,d) → (n,d); the trace, when given, receives every stage
Matrix self_attention_forward(const AttentionConfig& config, const AttentionParams& params,
                              const ConstMatrixRef& x, const Mask& mask,
                              MultiHeadTrace* trace = nullptr, WeightCheck check = WeightCheck::finite);

// The same with a causal mask over cache ∪ x, where x holds positions cache.length() … +n−1;
// the new keys and values are appended to the cache   x:(n,d) → (n,d)
Matrix self_attention_forward_cached(const AttentionConfig& config, const AttentionParams& params,
                                     const ConstMatrixRef& x, KVCacheLayer& cache,
                                     MultiHeadTrace* trace = nullptr, WeightCheck check = WeightCheck::finite);

// out = Concat(head_1..head_h)·W_O + b_O, head_i = Attention(x·W_Q^i, mem·W_K^{g(i)}, mem·W_V^{g(i)})
//   x:(n,d) queries, memory:(m,d) keys and values → (n,d)
Matrix cross_attention_forward(const AttentionConfig& config, const AttentionParams& params,
                               const ConstMatrixRef& x, const ConstMatrixRef& memory,
                               const Mask& mask, MultiHeadTrace* trace = nullptr,
                               WeightCheck check = WeightCheck::finite);

// Gradients with respect to the two inputs of one multi-head call (equal for self-attention,
// where the caller adds them).
struct MultiHeadInputGrads {
  Matrix dx;      // (n,d) through the queries
  Matrix dx_kv;   // (m,d) through the keys and values
};

// dx, dx_kv of out = Concat(head_1..head_h)·W_O + b_O with Q = x·W_Q + b_Q, [K | V] = x_kv·[W_K | W_V] + …
//   differentiates self_/cross_attention_forward line by line: the output projection, each head's
//   attention (attention_backward), RoPE (its transpose), then the projections. Reads q, k, v,
//   each head's weights and concat from the forward's trace; no KV cache (training sees whole
//   sequences). x:(n,d) x_kv:(m,d) dout:(n,d); parameter gradients accumulate into grads.
MultiHeadInputGrads multi_head_backward(const AttentionConfig& config, const AttentionParams& params,
                                        const ConstMatrixRef& x, const ConstMatrixRef& x_kv,
                                        const MultiHeadTrace& trace, const ConstMatrixRef& dout,
                                        AttentionParams& grads);

}  // namespace attnlab
