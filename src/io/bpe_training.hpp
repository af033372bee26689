#pragma once
// Learning a byte-level BPE vocabulary from text (Sennrich et al., 2016, over bytes as GPT-2's was):
//   words:  GPT-2's pre-tokens of every text, as bytes, each with its count c(w)
//   repeat: (a, b) = argmax over adjacent pieces of Σ_w c(w) · (times a is followed by b in w)
//           (ties: the smaller id of a, then of b: bytes in byte order, merged pieces in the order made)
//           every a b in every word, left to right, becomes the piece ab
//   until the vocabulary holds vocab_size tokens or no pair occurs min_count times.
// The vocabulary: the special tokens (ids 0 … k − 1, kept whole in text), the 256 bytes (k … k + 255,
// GPT-2's byte alphabet), then each merged piece in the order it was learnt; the merges' ranks are
// that order. The result is read back through Tokenizer::from_hf_json, so it is a byte_bpe tokenizer
// like any other: encoding applies the merges lowest rank first, which splits a training word into
// the pieces it was counted in, and decoding joins the bytes again, so any bytes round-trip.
#include <string>
#include <vector>

#include "core/tensor.hpp"
#include "io/tokenizer.hpp"

namespace attnlab {

struct BpeTrainingOptions {
  Index vocab_size = 2048;                  // special tokens + 256 bytes + merged pieces, at most
  std::vector<std::string> special_tokens;  // e.g. Tokenizer::kSpecials, so that [BOS] keeps its id
  Index min_count = 2;                      // a pair seen fewer times is never merged
  // throws attnlab::Error naming the first bad setting
  void validate() const;
};

// the tokenizer learnt from texts (see above); deterministic: the same texts in any order give the
// same tokenizer
Tokenizer train_byte_bpe(const std::vector<std::string>& texts, const BpeTrainingOptions& options);

}  // namespace attnlab
