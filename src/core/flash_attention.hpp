#pragma once
// FlashAttention's idea on a CPU: exact attention computed tile by tile with an online softmax,
// so the n×m score matrix is never formed.
#include <vector>

#include "core/attention.hpp"
#include "core/tensor.hpp"

namespace attnlab {

// The running statistics after one tile, for showing how the online softmax converges.
struct FlashTileStep {
  Index query_block = 0;   // tile row (queries query_block·B_r …)
  Index key_block = 0;     // tile column (keys key_block·B_c …)
  RowVector running_max;   // (rows of the query block) m after this tile
  RowVector running_sum;   // (rows of the query block) ℓ after this tile
};

struct FlashTrace {
  Index block_rows = 0, block_cols = 0;
  std::vector<FlashTileStep> steps;  // in computation order
};

// out = softmax(QKᵀ·s + M)·V, M causal or none, computed per (B_r × B_c) tile:
//   S = Q_i·K_jᵀ·s;  m' = max(m, rowmax S);  ℓ' = e^(m−m')·ℓ + rowsum e^(S−m');
//   O' = e^(m−m')·O + e^(S−m')·V_j;  finally out = O / ℓ
//   Q:(n,d_k) K:(m,d_k) V:(m,d_v) → (n,d_v); extra memory O(B_r·B_c + B_r·d_v), never O(n·m).
// Causal queries sit at the last n of the m key positions; fully masked rows give zeros.
Matrix flash_attention_forward(const ConstMatrixRef& q, const ConstMatrixRef& k, const ConstMatrixRef& v,
                               bool causal, bool scaled, Index block_rows = 64, Index block_cols = 64,
                               FlashTrace* trace = nullptr, InputCheck check = InputCheck::finite);

}  // namespace attnlab
