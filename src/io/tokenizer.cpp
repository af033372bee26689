#include "io/tokenizer.hpp"

#include <nlohmann/json.hpp>

#include "core/check.hpp"
#include "io/byte_bpe.hpp"
#include "io/strict_json.hpp"

namespace attnlab {

namespace {

bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool is_word_byte(unsigned char c) { return std::isalnum(c) || c == '\'' || c == '_' || c >= 0x80; }

// length of the UTF-8 sequence starting at text[i], or 1 for an invalid byte
size_t code_point_length(const std::string& text, size_t i) {
  const unsigned char c = static_cast<unsigned char>(text[i]);
  const size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
  if (i + n > text.size()) return 1;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(text[i + k]) >> 6) != 0x2) return 1;
  return n;
}

// the special token written at text[i], if any
const char* special_at(const std::string& text, size_t i) {
  if (text[i] != '[') return nullptr;
  for (const char* s : Tokenizer::kSpecials)
    if (text.compare(i, std::char_traits<char>::length(s), s) == 0) return s;
  return nullptr;
}

std::string lower_ascii(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

}  // namespace

Tokenizer::Tokenizer(TokenizerKind kind, std::vector<std::string> tokens, bool lowercase)
    : kind_(kind), lowercase_(lowercase), tokens_(std::move(tokens)) {
  require(kind != TokenizerKind::byte_bpe, "tokenizer: a byte-level BPE tokenizer is read from its tokenizer.json");
  require(tokens_.size() >= kSpecials.size(), "tokenizer: the vocabulary must start with the six special tokens");
  require(tokens_.size() <= static_cast<size_t>(kMaxSize),
          "tokenizer: the vocabulary has more than ", kMaxSize, " tokens");
  for (size_t i = 0; i < kSpecials.size(); ++i)
    require(tokens_[i] == kSpecials[i], std::string("tokenizer: entry "), i, " must be ", kSpecials[i], ", found \"",
            tokens_[i], "\"");
  for (size_t i = 0; i < tokens_.size(); ++i) {
    require(!tokens_[i].empty(), "tokenizer: entry ", i, " is empty");
    require(ids_.emplace(tokens_[i], static_cast<int>(i)).second,
            "tokenizer: \"", tokens_[i], "\" appears twice in the vocabulary");
  }
}

Tokenizer::Tokenizer(ByteBpeParts&& parts)
    : kind_(TokenizerKind::byte_bpe),
      lowercase_(false),
      tokens_(std::move(parts.tokens)),
      ids_(std::move(parts.ids)),
      bpe_(std::move(parts.model)),
      special_tokens_(std::move(parts.special_tokens)) {}

Tokenizer Tokenizer::build(TokenizerKind kind, const std::vector<std::string>& corpus, bool lowercase) {
  Tokenizer empty(kind, {kSpecials.begin(), kSpecials.end()}, lowercase);
  std::vector<std::string> tokens(kSpecials.begin(), kSpecials.end());
  std::unordered_map<std::string, int> seen(empty.ids_);
  for (const std::string& text : corpus)
    for (const std::string& piece : empty.split(text))
      if (seen.emplace(piece, static_cast<int>(tokens.size())).second) tokens.push_back(piece);
  return Tokenizer(kind, std::move(tokens), lowercase);
}

std::vector<std::string> Tokenizer::split(const std::string& raw) const {
  std::vector<std::string> pieces;
  if (kind_ == TokenizerKind::byte_bpe) {
    for (int id : encode_bytes(raw)) pieces.push_back(tokens_[static_cast<size_t>(id)]);
    return pieces;
  }
  const std::string text = lowercase_ ? lower_ascii(raw) : raw;
  size_t i = 0;
  while (i < text.size()) {
    if (const char* special = special_at(raw, i)) {  // specials are matched before lower-casing
      pieces.emplace_back(special);
      i += std::char_traits<char>::length(special);
      continue;
    }
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (kind_ == TokenizerKind::character) {
      const size_t n = code_point_length(text, i);
      pieces.push_back(text.substr(i, n));
      i += n;
    } else if (is_space(c)) {
      ++i;
    } else if (is_word_byte(c)) {
      size_t j = i;
      while (j < text.size() && is_word_byte(static_cast<unsigned char>(text[j])) && !special_at(raw, j)) ++j;
      pieces.push_back(text.substr(i, j - i));
      i = j;
    } else {
      pieces.push_back(text.substr(i, 1));
      ++i;
    }
  }
  return pieces;
}

std::vector<int> Tokenizer::encode(const std::string& text) const {
  if (kind_ == TokenizerKind::byte_bpe) return encode_bytes(text);
  std::vector<int> ids;
  for (const std::string& piece : split(text)) ids.push_back(id(piece));
  return ids;
}

std::vector<int> Tokenizer::encode_bytes(const std::string& text) const {
  const BytePairModel& model = *bpe_;
  std::vector<int> ids;
  // a text repeats most of its words: each distinct pre-token is merged once
  std::unordered_map<std::string, std::vector<int>> merged;
  std::vector<std::string> pre_tokens;
  for (const BytePairModel::Segment& segment : model.cut_at_added_tokens(text)) {
    if (segment.added_id >= 0) {
      ids.push_back(segment.added_id);
      continue;
    }
    pre_tokens.clear();
    model.pre_tokenize(segment.text, pre_tokens);
    for (const std::string& pre_token : pre_tokens) {
      const auto [at, fresh] = merged.try_emplace(pre_token);
      if (fresh) model.merge(pre_token, ids_, at->second);
      ids.insert(ids.end(), at->second.begin(), at->second.end());
    }
  }
  return ids;
}

void Tokenizer::append_piece(std::string& text, int id, bool first) const {
  const std::string& piece = token(id);
  if (kind_ == TokenizerKind::byte_bpe) {
    append_token_bytes(text, piece);
    return;
  }
  const bool attach = kind_ == TokenizerKind::character || first ||
                      (piece.size() == 1 && std::string(".,!?;:)").find(piece[0]) != std::string::npos);
  if (!attach) text += ' ';
  text += piece;
}

std::string Tokenizer::decode(const std::vector<int>& ids) const {
  std::string text;
  for (int id : ids) append_piece(text, id, text.empty());
  if (kind_ != TokenizerKind::byte_bpe) return text;
  std::string valid;
  append_utf8_replacing(valid, text, true);
  return valid;
}

const std::string& Tokenizer::token(int id) const {
  require(id >= 0 && static_cast<size_t>(id) < tokens_.size(),
          "tokenizer: id ", id, " is outside the vocabulary (size ", tokens_.size(), ")");
  return tokens_[static_cast<size_t>(id)];
}

int Tokenizer::id(const std::string& piece) const {
  const auto found = ids_.find(piece);
  if (found != ids_.end()) return found->second;
  require(kind_ != TokenizerKind::byte_bpe, "tokenizer: \"", piece, "\" is not in the vocabulary");
  return kUnk;
}

std::string Tokenizer::to_json() const {
  if (kind_ == TokenizerKind::byte_bpe) return write_hf_tokenizer(*bpe_, tokens_);
  nlohmann::json j;
  j["kind"] = kind_ == TokenizerKind::word ? "word" : "character";
  j["lowercase"] = lowercase_;
  j["tokens"] = tokens_;
  // invalid UTF-8 inside a token (possible for character pieces) is replaced rather than thrown on
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

// Parses a vocabulary's JSON, counting its tokens as they are read ("tokens" of the word and
// character kinds; model.vocab and added_tokens of a tokenizer.json): more than `most` is refused
// before the rest is read.
nlohmann::json parse_counting_tokens(const std::string& text, const std::string& what,
                                     std::optional<Index> expected_size, Index most) {
  using nlohmann::json;
  std::string field, model_field;
  Index tokens = 0, added = 0;
  const JsonWatch count = [&](int depth, json::parse_event_t event, const json& parsed) {
    if (event == json::parse_event_t::key && depth == 1) field = parsed.get<std::string>();
    if (event == json::parse_event_t::key && depth == 2 && field == "model") model_field = parsed.get<std::string>();
    const bool entry = depth == 2 && (event == json::parse_event_t::value || event == json::parse_event_t::array_start ||
                                      event == json::parse_event_t::object_start);
    const bool piece = depth == 3 && event == json::parse_event_t::key && field == "model" && model_field == "vocab";
    if (((field == "tokens" && entry) || piece) && ++tokens > most)
      throw Error(wrong_vocabulary_size("more than " + std::to_string(most), expected_size, most));
    if (field == "added_tokens" && entry && ++added > most)
      throw Error(wrong_vocabulary_size("more than " + std::to_string(most), expected_size, most));
  };
  return parse_strict_json(text, what, count);
}

}  // namespace

Tokenizer Tokenizer::from_hf_json(const std::string& text, std::optional<Index> expected_size) {
  const nlohmann::json j =
      parse_counting_tokens(text, "tokenizer.json", expected_size, expected_size.value_or(kMaxSize));
  require(j.is_object() && j.contains("model"), "tokenizer.json: the tokenizer needs a \"model\"");
  return Tokenizer(read_hf_tokenizer(j, expected_size));
}

Tokenizer Tokenizer::from_vocab_merges(const std::string& vocab_json, const std::string& merges_txt,
                                       std::optional<Index> expected_size) {
  return Tokenizer(read_vocab_merges(vocab_json, merges_txt, expected_size));
}

Tokenizer Tokenizer::from_json(const std::string& text, std::optional<Index> expected_size) {
  using nlohmann::json;
  const Index most = expected_size.value_or(kMaxSize);
  const json j = parse_counting_tokens(text, "tokenizer: the vocabulary", expected_size, most);
  if (j.is_object() && j.contains("model")) return Tokenizer(read_hf_tokenizer(j, expected_size));
  require(j.is_object() && j.contains("kind") && j["kind"].is_string() && j.contains("tokens") &&
              j["tokens"].is_array(),
          "tokenizer: the vocabulary JSON needs \"kind\" and a \"tokens\" array");
  for (const auto& item : j.items())
    require(item.key() == "kind" || item.key() == "lowercase" || item.key() == "tokens",
            "tokenizer: unknown field \"", item.key(), "\" in the vocabulary");
  const std::string kind = j["kind"];
  require(kind == "word" || kind == "character", "tokenizer: kind must be \"word\" or \"character\", got \"", kind,
          "\"");
  require(!j.contains("lowercase") || j["lowercase"].is_boolean(), "tokenizer: \"lowercase\" must be true or false");
  std::vector<std::string> tokens;
  for (const auto& t : j["tokens"]) {
    require(t.is_string(), "tokenizer: every token must be a string");
    tokens.push_back(t.get<std::string>());
  }
  if (expected_size)
    require(static_cast<Index>(tokens.size()) == most, wrong_vocabulary_size(std::to_string(tokens.size()), expected_size, most));
  const bool lowercase = j.contains("lowercase") && j["lowercase"].get<bool>();
  return Tokenizer(kind == "word" ? TokenizerKind::word : TokenizerKind::character, std::move(tokens), lowercase);
}

std::string TextStream::push(int id) {
  std::string text;
  if (tokenizer_.kind() != TokenizerKind::byte_bpe) {
    tokenizer_.append_piece(text, id, first_);
  } else {
    tokenizer_.append_piece(pending_, id, first_);
    pending_.erase(0, append_utf8_replacing(text, pending_, false));
  }
  first_ = false;
  return text;
}

std::string TextStream::finish() {
  std::string text;
  append_utf8_replacing(text, pending_, true);
  pending_.clear();
  first_ = true;
  return text;
}

}  // namespace attnlab
