#pragma once
// Text ↔ token ids: word-level (words and punctuation marks) or character-level (Unicode code
// points). The vocabulary is data, saved with a model; six special tokens come first.
#include <array>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/tensor.hpp"
#include "model/config.hpp"

namespace attnlab {

enum class TokenizerKind { word, character };

class Tokenizer {
 public:
  static constexpr int kPad = 0, kUnk = 1, kBos = 2, kEos = 3, kMask = 4, kSep = 5;
  static constexpr std::array<const char*, 6> kSpecials = {"[PAD]", "[UNK]", "[BOS]", "[EOS]", "[MASK]", "[SEP]"};

  // the specials, then every distinct piece of the corpus in first-seen order
  static Tokenizer build(TokenizerKind kind, const std::vector<std::string>& corpus, bool lowercase = false);
  // an existing vocabulary; throws attnlab::Error unless it starts with the specials in order and
  // has no empty or repeated entries
  Tokenizer(TokenizerKind kind, std::vector<std::string> tokens, bool lowercase);

  // the pieces of text: words (letters, digits, apostrophes, any non-ASCII) and single punctuation
  // marks for word-level, code points for character-level; special tokens written as "[MASK]" etc.
  // stay whole; never fails, invalid UTF-8 bytes become pieces of their own
  std::vector<std::string> split(const std::string& text) const;
  // ids of the pieces; a piece outside the vocabulary is [UNK]
  std::vector<int> encode(const std::string& text) const;
  // text of the ids (words spaced, punctuation attached); throws for an id outside the vocabulary
  std::string decode(const std::vector<int>& ids) const;

  Index size() const { return static_cast<Index>(tokens_.size()); }
  TokenizerKind kind() const { return kind_; }
  bool lowercase() const { return lowercase_; }
  const std::string& token(int id) const;
  // the id of a piece, or kUnk
  int id(const std::string& piece) const;

  // {"kind": "word"|"character", "lowercase": bool, "tokens": [...]}
  std::string to_json() const;
  // throws attnlab::Error with the reason for malformed JSON, an unknown or repeated field, or a
  // bad vocabulary; with expected_size (a model's vocab_size) also for a vocabulary of another
  // size, found while parsing: a huge vocabulary is refused without being read to the end
  static Tokenizer from_json(const std::string& json, std::optional<Index> expected_size = std::nullopt);

  // largest vocabulary, as a model's vocab_size allows
  static constexpr Index kMaxSize = ModelConfig::kMaxVocabSize;

 private:
  TokenizerKind kind_;
  bool lowercase_;
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int> ids_;
};

}  // namespace attnlab
