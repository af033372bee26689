#pragma once
// The machinery behind Tokenizer's byte_bpe kind: GPT-2's byte alphabet, UTF-8 with replacement
// characters, the pre-tokenizer (GPT-2's split pattern, Digits), merging by rank, and reading and
// writing Hugging Face's tokenizer.json and GPT-2's vocab.json + merges.txt.
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/tensor.hpp"

namespace attnlab {

struct AddedToken {
  std::string content;
  int id;
  bool special;
  bool normalized;  // matched after the tokens that are not (tokenizer.json's two passes)
};

struct BytePairModel {
  enum class Split { each_digit, digit_runs, gpt2 };
  std::vector<Split> splits;      // the pre-tokenizer's steps before ByteLevel, in order
  bool add_prefix_space = false;  // ByteLevel: a space before each piece that lacks one
  bool use_regex = true;          // ByteLevel: GPT-2's split pattern
  bool ignore_merges = false;     // a pre-token that is a vocabulary piece is taken whole
  bool fuse_unk = false;          // written back; no byte is ever unknown
  // written back as read
  nlohmann::json unk_token, pre_tokenizer, post_processor, decoder;

  std::vector<AddedToken> added;  // in the file's order
  // indexes into `added` by the first byte of their content, longest first: [normalized][byte]
  std::array<std::array<std::vector<int>, 256>, 2> added_by_first_byte;
  std::vector<bool> added_only;   // by id: an added token that is not a piece of the model's vocabulary
  std::array<int, 256> byte_ids{};  // the id of each byte's one-character piece
  struct Merge {
    int rank, id;
  };
  std::unordered_map<std::uint64_t, Merge> merges;  // (left id << 32 | right id) → rank and merged id
  std::vector<std::pair<int, int>> merge_pairs;     // the merges in rank order

  // a stretch of text: an added token (added_id ≥ 0) or text between them (added_id = -1)
  struct Segment {
    std::string_view text;
    int added_id;
  };
  // text cut at the added tokens it contains, leftmost-longest
  std::vector<Segment> cut_at_added_tokens(std::string_view text) const;
  // appends the pre-tokens of text between added tokens, as raw bytes
  void pre_tokenize(std::string_view text, std::vector<std::string>& pieces) const;
  // appends the ids of one pre-token (raw bytes), merged lowest rank first, leftmost among equals
  void merge(const std::string& pre_token, const std::unordered_map<std::string, int>& vocab,
             std::vector<int>& ids) const;
};

// what a byte_bpe Tokenizer is made of
struct ByteBpeParts {
  std::vector<std::string> tokens;  // by id: vocabulary pieces and added tokens' contents
  std::unordered_map<std::string, int> ids;
  std::shared_ptr<BytePairModel> model;
  std::vector<std::pair<std::string, int>> special_tokens;  // in id order
};

// the parsed tokenizer.json (an object with a "model" field), checked
ByteBpeParts read_hf_tokenizer(const nlohmann::json& j, std::optional<Index> expected_size);
// GPT-2's vocab.json and merges.txt, checked
ByteBpeParts read_vocab_merges(const std::string& vocab_json, const std::string& merges_txt,
                               std::optional<Index> expected_size);
// tokenizer.json of a byte_bpe tokenizer
std::string write_hf_tokenizer(const BytePairModel& model, const std::vector<std::string>& tokens);

// the character of GPT-2's byte alphabet that stands for byte b, in UTF-8 (a space is "Ġ")
const std::string& byte_piece(unsigned char b);
// appends the bytes a vocabulary piece stands for: each character of GPT-2's byte alphabet as its
// byte, or, when a character lies outside it (an added token such as "<s> x"), the piece's own
// UTF-8, as Hugging Face's ByteLevel decoder does
void append_token_bytes(std::string& bytes, const std::string& piece);
// Appends bytes to out as valid UTF-8, each maximal invalid sequence replaced by U+FFFD (as
// TextDecoder and Rust's from_utf8_lossy do); unless final, a sequence cut off by the end is left
// unread. Returns how many bytes were read.
size_t append_utf8_replacing(std::string& out, std::string_view bytes, bool final);

// the message for a vocabulary of another size than a model's vocab_size, or over the largest one
std::string wrong_vocabulary_size(const std::string& found, std::optional<Index> expected_size, Index most);

}  // namespace attnlab
