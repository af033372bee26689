#include "io/bpe_training.hpp"

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <queue>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/check.hpp"
#include "io/byte_bpe.hpp"

namespace attnlab {
namespace {

using nlohmann::json;

std::uint64_t pair_key(int left, int right) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(left)) << 32) | static_cast<std::uint32_t>(right);
}
int left_of(std::uint64_t key) { return static_cast<int>(key >> 32); }
int right_of(std::uint64_t key) { return static_cast<int>(key & 0xFFFFFFFFu); }

// The distinct pre-tokens of the texts, as byte pieces, with their counts; in byte order, so that
// nothing after depends on the texts' order or on a hash table's
struct Words {
  std::vector<std::vector<int>> pieces;
  std::vector<Index> counts;
};

Words count_words(const std::vector<std::string>& texts, int first_byte_id) {
  const BytePairModel gpt2;  // GPT-2's split pattern alone, as a tokenizer of the result splits text
  std::unordered_map<std::string, Index> counts;
  std::vector<std::string> pre_tokens;
  for (const std::string& text : texts) {
    pre_tokens.clear();
    gpt2.pre_tokenize(text, pre_tokens);
    for (const std::string& pre_token : pre_tokens) ++counts[pre_token];
  }
  std::vector<std::pair<std::string, Index>> sorted(counts.begin(), counts.end());
  std::sort(sorted.begin(), sorted.end());
  Words words;
  for (const auto& [bytes, count] : sorted) {
    std::vector<int> ids;
    for (unsigned char b : bytes) ids.push_back(first_byte_id + b);
    words.pieces.push_back(std::move(ids));
    words.counts.push_back(count);
  }
  return words;
}

// The pairs' counts, the words each pair may occur in, and the best pair, found through a queue
// whose stale entries (a count that has changed since) are skipped when they come up
class PairCounts {
 public:
  void add(const std::vector<int>& word, Index count, int word_index) {
    for (size_t i = 0; i + 1 < word.size(); ++i) {
      const std::uint64_t key = pair_key(word[i], word[i + 1]);
      counts_[key] += count;
      words_[key].push_back(word_index);
      changed_.insert(key);
    }
  }
  void remove(const std::vector<int>& word, Index count) {
    for (size_t i = 0; i + 1 < word.size(); ++i) {
      const std::uint64_t key = pair_key(word[i], word[i + 1]);
      counts_[key] -= count;
      changed_.insert(key);
    }
  }
  // the most frequent pair and its count (count 0: none left)
  std::pair<std::uint64_t, Index> best() {
    for (std::uint64_t key : changed_) queue_.push({counts_[key], -left_of(key), -right_of(key)});
    changed_.clear();
    while (!queue_.empty()) {
      const auto [count, minus_left, minus_right] = queue_.top();
      const std::uint64_t key = pair_key(-minus_left, -minus_right);
      if (counts_[key] == count) return {key, count};
      queue_.pop();
    }
    return {0, 0};
  }
  // the words the pair may occur in (each once, in order), forgotten
  std::vector<int> take_words(std::uint64_t key) {
    std::vector<int> found = std::move(words_[key]);
    words_.erase(key);
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    return found;
  }

 private:
  std::unordered_map<std::uint64_t, Index> counts_;
  std::unordered_map<std::uint64_t, std::vector<int>> words_;
  std::set<std::uint64_t> changed_;  // ordered: the queue is filled the same way every time
  // (count, −left, −right): the largest count, then the smallest ids, on top
  std::priority_queue<std::tuple<Index, int, int>> queue_;
};

// every left right in word, left to right, becomes merged; whether there was one
bool merge_in(std::vector<int>& word, int left, int right, int merged) {
  size_t out = 0;
  bool found = false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (i + 1 < word.size() && word[i] == left && word[i + 1] == right) {
      word[out++] = merged;
      ++i;
      found = true;
    } else {
      word[out++] = word[i];
    }
  }
  word.resize(out);
  return found;
}

}  // namespace

void BpeTrainingOptions::validate() const {
  std::set<std::string> seen;
  for (const std::string& token : special_tokens)
    require(!token.empty() && seen.insert(token).second, "BPE training: the special tokens must be distinct and not empty");
  const Index least = static_cast<Index>(special_tokens.size()) + 256;
  require(vocab_size >= least && vocab_size <= Tokenizer::kMaxSize, "BPE training: the vocabulary must hold between ",
          least, " (the special tokens and the 256 bytes) and ", Tokenizer::kMaxSize, " tokens, not ", vocab_size);
  require(min_count >= 1, "BPE training: the least count of a merged pair must be at least 1");
}

Tokenizer train_byte_bpe(const std::vector<std::string>& texts, const BpeTrainingOptions& options) {
  options.validate();
  const int first_byte = static_cast<int>(options.special_tokens.size());
  std::vector<std::string> pieces(options.special_tokens);  // by id, in the byte alphabet
  for (int b = 0; b < 256; ++b) pieces.push_back(byte_piece(static_cast<unsigned char>(b)));
  std::unordered_map<std::string, int> ids;
  for (size_t id = static_cast<size_t>(first_byte); id < pieces.size(); ++id) ids.emplace(pieces[id], static_cast<int>(id));

  Words words = count_words(texts, first_byte);
  PairCounts pairs;
  for (size_t w = 0; w < words.pieces.size(); ++w) pairs.add(words.pieces[w], words.counts[w], static_cast<int>(w));
  std::vector<std::pair<int, int>> merges;
  while (static_cast<Index>(pieces.size()) < options.vocab_size) {
    const auto [key, count] = pairs.best();
    if (count < options.min_count) break;
    const int left = left_of(key), right = right_of(key);
    // two merges can make the same piece ("ab" "c" and "a" "bc"): both then name its one id
    const std::string joined = pieces[static_cast<size_t>(left)] + pieces[static_cast<size_t>(right)];
    const auto [at, fresh] = ids.emplace(joined, static_cast<int>(pieces.size()));
    if (fresh) pieces.push_back(joined);
    merges.emplace_back(left, right);
    for (int w : pairs.take_words(key)) {
      std::vector<int>& word = words.pieces[static_cast<size_t>(w)];
      const Index c = words.counts[static_cast<size_t>(w)];
      std::vector<int> merged = word;
      if (!merge_in(merged, left, right, at->second)) continue;
      pairs.remove(word, c);
      word = std::move(merged);
      pairs.add(word, c, w);
    }
  }

  json vocab = json::object();
  for (size_t id = static_cast<size_t>(first_byte); id < pieces.size(); ++id) vocab[pieces[id]] = id;
  json merge_list = json::array();
  for (const auto& [left, right] : merges)
    merge_list.push_back({pieces[static_cast<size_t>(left)], pieces[static_cast<size_t>(right)]});
  json added = json::array();
  for (size_t id = 0; id < options.special_tokens.size(); ++id)
    added.push_back({{"id", id}, {"content", options.special_tokens[id]}, {"single_word", false}, {"lstrip", false},
                     {"rstrip", false}, {"normalized", false}, {"special", true}});
  const json byte_level = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", true}};
  const json tokenizer = {
      {"version", "1.0"}, {"truncation", nullptr}, {"padding", nullptr}, {"added_tokens", added},
      {"normalizer", nullptr}, {"pre_tokenizer", byte_level}, {"post_processor", nullptr}, {"decoder", byte_level},
      {"model", {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr}, {"continuing_subword_prefix", nullptr},
                 {"end_of_word_suffix", nullptr}, {"fuse_unk", false}, {"byte_fallback", false},
                 {"ignore_merges", false}, {"vocab", vocab}, {"merges", merge_list}}}};
  return Tokenizer::from_hf_json(tokenizer.dump());
}

}  // namespace attnlab
