#pragma once
// Text ↔ token ids, in three kinds. The vocabulary is data, saved with a model.
// - word: words (letters, digits, apostrophes) and single punctuation marks; the six special
//   tokens [PAD] … [SEP] come first. Saved as {"kind": "word", "tokens": [...]}.
// - character: Unicode code points, with the same six specials first.
// - byte_bpe: byte-level BPE as GPT-2 and Llama-architecture models such as SmolLM2 use it, read
//   from Hugging Face's tokenizer.json (or GPT-2's vocab.json + merges.txt) and saved as
//   tokenizer.json. Text is cut at added tokens (kept whole), split by GPT-2's pattern into
//   pre-tokens, each pre-token's UTF-8 bytes written in GPT-2's printable byte alphabet (a space
//   is "Ġ") and merged pair by pair, lowest merge rank first. Any byte string encodes; decoding
//   joins the bytes again. Only what these models use is implemented, and a tokenizer.json
//   asking for anything else (another model type, a normalizer, a SentencePiece pre-tokenizer,
//   byte fallback, dropout, …) is refused by name rather than read as a different tokenizer.
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/tensor.hpp"
#include "model/config.hpp"

namespace attnlab {

enum class TokenizerKind { word, character, byte_bpe };

struct BytePairModel;  // merges, added tokens and pre-tokenizer of a byte_bpe tokenizer
struct ByteBpeParts;

class Tokenizer {
 public:
  static constexpr int kPad = 0, kUnk = 1, kBos = 2, kEos = 3, kMask = 4, kSep = 5;
  static constexpr std::array<const char*, 6> kSpecials = {"[PAD]", "[UNK]", "[BOS]", "[EOS]", "[MASK]", "[SEP]"};

  // the specials, then every distinct piece of the corpus in first-seen order (word and character)
  static Tokenizer build(TokenizerKind kind, const std::vector<std::string>& corpus, bool lowercase = false);
  // an existing vocabulary (word and character); throws attnlab::Error unless it starts with the
  // specials in order and has no empty or repeated entries
  Tokenizer(TokenizerKind kind, std::vector<std::string> tokens, bool lowercase);

  // A byte-level BPE tokenizer from the text of Hugging Face's tokenizer.json: model "BPE" (vocab,
  // merges as "a b" or ["a", "b"]), added_tokens, pre_tokenizer ByteLevel or a Sequence of Digits,
  // Split (GPT-2's pattern) and a final ByteLevel, decoder ByteLevel, no normalizer, a
  // post_processor that adds no tokens. Throws attnlab::Error for malformed JSON, anything not
  // implemented (named), merges naming or making pieces outside the vocabulary, repeated pieces,
  // ids or merges, ids that leave holes, a vocabulary lacking one of the 256 bytes, and more than
  // kMaxSize tokens or (with expected_size, a model's vocab_size) more than expected_size, found
  // while parsing.
  static Tokenizer from_hf_json(const std::string& tokenizer_json, std::optional<Index> expected_size = std::nullopt);
  // The same from GPT-2's vocab.json ({"piece": id, …}) and merges.txt (one "a b" a line, after an
  // optional "#version: …" line), with GPT-2's pre-tokenizer; "<|endoftext|>", when in the
  // vocabulary, is its special token, as in GPT-2's tokenizer files.
  static Tokenizer from_vocab_merges(const std::string& vocab_json, const std::string& merges_txt,
                                     std::optional<Index> expected_size = std::nullopt);

  // the pieces of text: words (letters, digits, apostrophes, any non-ASCII) and single punctuation
  // marks for word-level, code points for character-level, special tokens written as "[MASK]" etc.
  // staying whole; byte-level BPE's vocabulary pieces ("Ġthe"), added tokens staying whole. Never
  // fails; invalid UTF-8 bytes become pieces of their own (word, character) or are encoded as
  // the bytes they are (byte_bpe).
  std::vector<std::string> split(const std::string& text) const;
  // ids of the pieces; a piece outside the vocabulary is [UNK] (word, character)
  std::vector<int> encode(const std::string& text) const;
  // text of the ids (words spaced, punctuation attached; byte-level BPE: the bytes joined, where
  // they do not form UTF-8 each maximal invalid sequence is U+FFFD); throws for an id outside the
  // vocabulary
  std::string decode(const std::vector<int>& ids) const;

  Index size() const { return static_cast<Index>(tokens_.size()); }
  TokenizerKind kind() const { return kind_; }
  bool lowercase() const { return lowercase_; }
  const std::string& token(int id) const;
  // the id of a piece, or kUnk (word, character); byte-level BPE throws for a piece outside the
  // vocabulary
  int id(const std::string& piece) const;
  // byte-level BPE: the added tokens marked special, (content, id) in id order; empty for the word
  // and character kinds, whose specials are kPad … kSep
  const std::vector<std::pair<std::string, int>>& special_tokens() const { return special_tokens_; }

  // {"kind": "word"|"character", "lowercase": bool, "tokens": [...]}, or byte-level BPE's
  // tokenizer.json
  std::string to_json() const;
  // throws attnlab::Error with the reason for malformed JSON, an unknown or repeated field, or a
  // bad vocabulary; with expected_size (a model's vocab_size) also for a vocabulary of another
  // size, found while parsing: a huge vocabulary is refused without being read to the end. A
  // Hugging Face tokenizer.json (an object with a "model" field) is read by from_hf_json, where a
  // vocabulary smaller than expected_size is allowed (models often round their vocab_size up).
  static Tokenizer from_json(const std::string& json, std::optional<Index> expected_size = std::nullopt);

  // largest vocabulary, as a model's vocab_size allows
  static constexpr Index kMaxSize = ModelConfig::kMaxVocabSize;

 private:
  friend class TextStream;
  explicit Tokenizer(ByteBpeParts&& parts);
  // appends what id stands for to text: its bytes (byte_bpe), or its piece with the space decode
  // puts before it (first: nothing before it yet)
  void append_piece(std::string& text, int id, bool first) const;
  std::vector<int> encode_bytes(const std::string& text) const;

  TokenizerKind kind_;
  bool lowercase_;
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int> ids_;
  std::shared_ptr<const BytePairModel> bpe_;  // shared by copies: it is never changed
  std::vector<std::pair<std::string, int>> special_tokens_;
};

// Decodes ids one at a time, as a generation produces them: each push returns the text complete so
// far, holding back the bytes of a character that a later token may complete, so that a stream
// never shows a broken character. What push and finish return, joined, is decode of all the ids.
class TextStream {
 public:
  // the tokenizer must outlive the stream
  explicit TextStream(const Tokenizer& tokenizer) : tokenizer_(tokenizer) {}
  // the text that id completes; throws for an id outside the vocabulary
  std::string push(int id);
  // what is held back, a dangling partial character as U+FFFD; the stream then starts afresh
  std::string finish();

 private:
  const Tokenizer& tokenizer_;
  std::string pending_;  // bytes not yet returned
  bool first_ = true;
};

}  // namespace attnlab
