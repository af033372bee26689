#pragma once
// Attention masks: which keys a query may see, as an additive term M on the scaled scores.
#include <cstdint>
#include <vector>

#include "core/tensor.hpp"

namespace attnlab {

// M = M_causal + M_padding + M_additive, any subset of the three.   M:(n,m)
//   causal:      M_ij = −∞ where key j lies after query i. Queries are the last n of the m key
//                positions (i sits at position m − n + i), which covers self-attention (n = m)
//                and incremental decoding with a cache (n < m).
//   key_padding: M_ij = −∞ for every key j marked as padding (m flags).
//   additive:    an arbitrary (n,m) matrix added as it is (−∞ entries hide a key).
struct Mask {
  bool causal = false;
  std::vector<std::uint8_t> key_padding;  // (m) 1 = padding, empty = none
  Matrix additive;                        // (n,m), empty = none
  Index first_query_position = -1;        // causal: key position of query 0; −1 means m − n

  static Mask none() { return {}; }
  static Mask causal_mask() {
    Mask mask;
    mask.causal = true;
    return mask;
  }
  static Mask key_padding_mask(std::vector<std::uint8_t> is_padding) {
    Mask mask;
    mask.key_padding = std::move(is_padding);
    return mask;
  }
  static Mask additive_mask(Matrix m) {
    Mask mask;
    mask.additive = std::move(m);
    return mask;
  }

  bool empty() const { return !causal && key_padding.empty() && additive.size() == 0; }

  // throws attnlab::Error unless the mask fits n queries and m keys
  void validate(Index n, Index m) const;

  // scores ← scores + M   scores:(n,m)
  void apply(MatrixRef scores) const;

  // M as a matrix of 0 and −∞ (plus the additive part)   → (n,m)
  Matrix materialize(Index n, Index m) const;

  // the mask of query rows r0 … r0+rows−1 alone, for scores of n queries and m keys
  Mask row_block(Index r0, Index rows, Index n, Index m) const;
};

}  // namespace attnlab
