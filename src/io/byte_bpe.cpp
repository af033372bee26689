#include "io/byte_bpe.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>
#include <queue>

#include "core/check.hpp"
#include "io/strict_json.hpp"
#include "io/tokenizer.hpp"
#include "io/unicode_classes.hpp"

namespace attnlab {

namespace {

using nlohmann::json;

constexpr char32_t kNotUtf8 = 0xFFFFFFFF;  // the "code point" of a byte outside valid UTF-8
constexpr Index kLargestVocabulary = Tokenizer::kMaxSize;
const char* const kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

std::string utf8_of(char32_t cp) {
  std::string out;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return out;
}

// GPT-2's byte alphabet: the printable Latin-1 bytes stand for themselves, the other 68 (controls,
// space, DEL, no-break space, soft hyphen) for U+0100 onwards in byte order, so that every piece
// is visible text (the space is "Ġ", U+0120)
struct ByteAlphabet {
  std::array<std::string, 256> text;  // each byte's character, in UTF-8
  std::array<int, 0x144> byte_of;     // the byte of each character below U+0144, or -1

  ByteAlphabet() {
    byte_of.fill(-1);
    char32_t next = 0x100;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
      const char32_t cp = printable ? static_cast<char32_t>(b) : next++;
      byte_of[cp] = b;
      text[static_cast<size_t>(b)] = utf8_of(cp);
    }
  }
};

const ByteAlphabet& byte_alphabet() {
  static const ByteAlphabet alphabet;
  return alphabet;
}

// One UTF-8 sequence read from bytes[i]: its length and code point when valid. When not, cp is
// kNotUtf8 and length the bytes of its longest start that a valid sequence could have (at least
// 1); cut_off tells that start reached the end of bytes (more bytes could complete it).
struct Utf8Read {
  size_t length;
  char32_t cp;
  bool cut_off;
};

Utf8Read read_utf8(std::string_view bytes, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(bytes[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return {1, lead, false};
  size_t more;
  char32_t cp;
  unsigned char low = 0x80, high = 0xBF;  // the range of the next byte (narrower after E0, ED, F0, F4)
  if (lead >= 0xC2 && lead <= 0xDF) {
    more = 1, cp = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    more = 2, cp = lead & 0x0F;
    if (lead == 0xE0) low = 0xA0;  // no overlong forms
    if (lead == 0xED) high = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    more = 3, cp = lead & 0x07;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;  // nothing beyond U+10FFFF
  } else {
    return {1, kNotUtf8, false};
  }
  for (size_t k = 1; k <= more; ++k) {
    if (i + k >= bytes.size()) return {k, kNotUtf8, true};
    const unsigned char next = byte(i + k);
    if (next < low || next > high) return {k, kNotUtf8, false};
    low = 0x80, high = 0xBF;
    cp = (cp << 6) | (next & 0x3F);
  }
  return {more + 1, cp, false};
}

// the classes GPT-2's split pattern tells apart
enum class CharClass : unsigned char { letter, number, space, other };

CharClass class_of(char32_t cp) {
  if (cp < 0x80) {
    if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z')) return CharClass::letter;
    if (cp >= '0' && cp <= '9') return CharClass::number;
    if (cp == ' ' || (cp >= '\t' && cp <= '\r')) return CharClass::space;
    return CharClass::other;
  }
  if (cp == kNotUtf8) return CharClass::other;
  if (unicode::kLetters.contains(cp)) return CharClass::letter;
  if (unicode::kNumbers.contains(cp)) return CharClass::number;
  if (unicode::kWhiteSpace.contains(cp)) return CharClass::space;
  return CharClass::other;
}

struct TextChar {
  size_t begin;  // its first byte
  char32_t cp;
  CharClass kind;
};

// the characters of text: each valid UTF-8 sequence, and each byte outside one on its own
std::vector<TextChar> chars_of(std::string_view text) {
  std::vector<TextChar> chars;
  chars.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const Utf8Read r = read_utf8(text, i);
    chars.push_back({i, r.cp, class_of(r.cp)});
    i += r.cp == kNotUtf8 ? 1 : r.length;
  }
  return chars;
}

// where the match of GPT-2's pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// that starts at c[i] ends (the first alternative that matches wins, as in a regex)
size_t gpt2_match_end(const std::vector<TextChar>& c, size_t i) {
  const size_t n = c.size();
  const auto cp = [&](size_t k) { return k < n ? c[k].cp : kNotUtf8; };
  if (cp(i) == '\'') {
    const char32_t a = cp(i + 1), b = cp(i + 2);
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return i + 2;
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return i + 3;
  }
  for (CharClass run : {CharClass::letter, CharClass::number, CharClass::other}) {
    size_t k = cp(i) == ' ' && i + 1 < n && c[i + 1].kind == run ? i + 1 : i;
    if (c[k].kind != run) continue;
    while (k < n && c[k].kind == run) ++k;
    return k;
  }
  // white space: all of it at the end of the text; before anything else, all but the last
  // character (which then starts " ?\p{L}+" and the like), unless that is the only one
  size_t k = i;
  while (k < n && c[k].kind == CharClass::space) ++k;
  return k < n && k - i > 1 ? k - 1 : k;
}

// appends the pieces of text that `end_of(chars, i)` cuts: each ends where the one starting at
// character i ends
void split_text(std::string_view text, const std::function<size_t(const std::vector<TextChar>&, size_t)>& end_of,
                std::vector<std::string>& pieces) {
  const std::vector<TextChar> chars = chars_of(text);
  for (size_t i = 0; i < chars.size();) {
    const size_t j = end_of(chars, i);
    const size_t begin = chars[i].begin, end = j < chars.size() ? chars[j].begin : text.size();
    pieces.emplace_back(text.substr(begin, end - begin));
    i = j;
  }
}

// Digits: each number character alone (or each run of them), the text between them whole
size_t digits_end(const std::vector<TextChar>& c, size_t i, bool each_digit) {
  const bool number = c[i].kind == CharClass::number;
  if (number && each_digit) return i + 1;
  size_t k = i + 1;
  while (k < c.size() && (c[k].kind == CharClass::number) == number) ++k;
  return k;
}

}  // namespace

size_t append_utf8_replacing(std::string& out, std::string_view bytes, bool final) {
  size_t i = 0;
  while (i < bytes.size()) {
    const Utf8Read r = read_utf8(bytes, i);
    if (r.cp != kNotUtf8) {
      out.append(bytes.substr(i, r.length));
    } else if (r.cut_off && !final) {
      break;
    } else {
      out += "\xEF\xBF\xBD";
    }
    i += r.length;
  }
  return i;
}

const std::string& byte_piece(unsigned char b) { return byte_alphabet().text[b]; }

void append_token_bytes(std::string& bytes, const std::string& piece) {
  const ByteAlphabet& alphabet = byte_alphabet();
  const size_t start = bytes.size();
  for (size_t i = 0; i < piece.size();) {
    const Utf8Read r = read_utf8(piece, i);
    if (r.cp >= alphabet.byte_of.size() || alphabet.byte_of[r.cp] < 0) {
      bytes.resize(start);
      bytes += piece;
      return;
    }
    bytes += static_cast<char>(alphabet.byte_of[r.cp]);
    i += r.length;
  }
}

std::vector<BytePairModel::Segment> BytePairModel::cut_at_added_tokens(std::string_view text) const {
  std::vector<Segment> segments{{text, -1}};
  // tokens.json's two passes: the added tokens that are not normalized, then those that are
  for (int normalized : {0, 1}) {
    const auto& candidates = added_by_first_byte[static_cast<size_t>(normalized)];
    std::vector<Segment> cut;
    for (const Segment& segment : segments) {
      if (segment.added_id >= 0) {
        cut.push_back(segment);
        continue;
      }
      const std::string_view s = segment.text;
      size_t from = 0;
      for (size_t i = 0; i < s.size(); ++i) {
        for (int a : candidates[static_cast<unsigned char>(s[i])]) {
          const std::string& content = added[static_cast<size_t>(a)].content;
          if (s.compare(i, content.size(), content) != 0) continue;
          if (i > from) cut.push_back({s.substr(from, i - from), -1});
          cut.push_back({s.substr(i, content.size()), added[static_cast<size_t>(a)].id});
          from = i + content.size();
          i = from - 1;
          break;
        }
      }
      if (from < s.size()) cut.push_back({s.substr(from), -1});
    }
    segments = std::move(cut);
  }
  return segments;
}

void BytePairModel::pre_tokenize(std::string_view text, std::vector<std::string>& pieces) const {
  if (text.empty()) return;
  std::vector<std::string> current{std::string(text)}, next;
  for (Split split : splits) {
    next.clear();
    for (const std::string& piece : current) {
      if (split == Split::gpt2) split_text(piece, gpt2_match_end, next);
      else
        split_text(piece, [each = split == Split::each_digit](const std::vector<TextChar>& c, size_t i) {
          return digits_end(c, i, each);
        }, next);
    }
    current.swap(next);
  }
  for (std::string& piece : current) {
    if (add_prefix_space && piece[0] != ' ') piece.insert(0, 1, ' ');
    if (use_regex) split_text(piece, gpt2_match_end, pieces);
    else pieces.push_back(std::move(piece));
  }
}

void BytePairModel::merge(const std::string& pre_token, const std::unordered_map<std::string, int>& vocab,
                          std::vector<int>& ids) const {
  const ByteAlphabet& alphabet = byte_alphabet();
  if (ignore_merges) {
    std::string whole;
    for (char b : pre_token) whole += alphabet.text[static_cast<unsigned char>(b)];
    const auto found = vocab.find(whole);
    if (found != vocab.end() && !added_only[static_cast<size_t>(found->second)]) {
      ids.push_back(found->second);
      return;
    }
  }
  // the symbols as a linked list over the bytes: a merge joins a symbol with the next one
  struct Symbol {
    int id, prev, next;  // id -1: merged into the symbol before it
  };
  const int n = static_cast<int>(pre_token.size());
  std::vector<Symbol> symbols(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    symbols[static_cast<size_t>(i)] = {byte_ids[static_cast<unsigned char>(pre_token[static_cast<size_t>(i)])], i - 1,
                                       i + 1 < n ? i + 1 : -1};
  const auto rule = [&](int left) -> const Merge* {
    const int right = symbols[static_cast<size_t>(left)].next;
    if (right < 0) return nullptr;
    const std::uint64_t key = (static_cast<std::uint64_t>(symbols[static_cast<size_t>(left)].id) << 32) |
                              static_cast<std::uint32_t>(symbols[static_cast<size_t>(right)].id);
    const auto found = merges.find(key);
    return found == merges.end() ? nullptr : &found->second;
  };
  // candidate merges (rank, left symbol), lowest rank first and leftmost among equal ranks; an
  // entry whose symbols have changed since is skipped when it comes up
  using Candidate = std::pair<int, int>;
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> queue;
  const auto consider = [&](int left) {
    if (left < 0) return;
    if (const Merge* m = rule(left)) queue.push({m->rank, left});
  };
  for (int i = 0; i + 1 < n; ++i) consider(i);
  while (!queue.empty()) {
    const auto [rank, left] = queue.top();
    queue.pop();
    Symbol& s = symbols[static_cast<size_t>(left)];
    if (s.id < 0) continue;
    const Merge* m = rule(left);
    if (!m || m->rank != rank) continue;
    Symbol& right = symbols[static_cast<size_t>(s.next)];
    s.id = m->id;
    s.next = right.next;
    if (right.next >= 0) symbols[static_cast<size_t>(right.next)].prev = left;
    right.id = -1;
    consider(s.prev);
    consider(left);
  }
  for (int i = 0; i >= 0 && n > 0; i = symbols[static_cast<size_t>(i)].next) ids.push_back(symbols[static_cast<size_t>(i)].id);
}

std::string wrong_vocabulary_size(const std::string& found, std::optional<Index> expected_size, Index most) {
  return "tokenizer: the vocabulary has " + found + " tokens but " +
         (expected_size ? "the config says vocab_size = " : "the limit is ") + std::to_string(most);
}

namespace {

// What a tokenizer.json or vocab.json + merges.txt holds, before it is checked.
struct BpeInput {
  std::vector<std::pair<std::string, std::int64_t>> vocab;  // piece, id
  std::vector<AddedToken> added;
  std::vector<std::pair<std::string, std::string>> merges;
};

// a merge for messages: "a b"
std::string merge_name(const std::pair<std::string, std::string>& m) { return "\"" + m.first + " " + m.second + "\""; }

// checks the input and makes the tokenizer's parts of it (the model's settings already in place)
ByteBpeParts assemble(BpeInput& in, std::shared_ptr<BytePairModel> model, std::optional<Index> expected_size,
                      const std::string& what) {
  BytePairModel& m = *model;
  // every id names one token, so the ids lie below the count of entries
  const size_t bound = in.vocab.size() + in.added.size();
  std::vector<const std::string*> by_id(bound, nullptr);
  ByteBpeParts parts;
  for (const auto& [piece, id] : in.vocab) {
    require(!piece.empty(), what, ": the vocabulary has an empty piece");
    require(id >= 0 && static_cast<size_t>(id) < bound, what, ": the id ", id, " of \"", piece,
            "\" is out of range (the vocabulary and added tokens hold ", bound, " entries)");
    const std::string*& slot = by_id[static_cast<size_t>(id)];
    require(!slot, what, ": \"", slot ? *slot : "", "\" and \"", piece, "\" both have the id ", id);
    slot = &piece;
    require(parts.ids.emplace(piece, static_cast<int>(id)).second, what, ": \"", piece, "\" appears twice");
  }
  const std::unordered_map<std::string, int> model_ids = parts.ids;
  std::vector<int> added_only_ids;
  for (const AddedToken& a : in.added) {
    require(!a.content.empty(), what, ": an added token is empty");
    require(a.id >= 0 && static_cast<size_t>(a.id) < bound, what, ": the id ", a.id, " of the added token \"",
            a.content, "\" is out of range (the vocabulary and added tokens hold ", bound, " entries)");
    const std::string*& slot = by_id[static_cast<size_t>(a.id)];
    if (slot) {
      require(*slot == a.content, what, ": the added token \"", a.content, "\" has the id ", a.id, " of \"", *slot,
              "\"");
      require(model_ids.count(a.content), what, ": the added token \"", a.content, "\" appears twice");
    } else {
      slot = &a.content;
      const auto [at, fresh] = parts.ids.emplace(a.content, a.id);
      require(fresh, what, ": the added token \"", a.content, "\" (id ", a.id, ") is also ",
              model_ids.count(a.content) ? "in the vocabulary" : "added", " with the id ", at->second);
      added_only_ids.push_back(a.id);
    }
  }
  const size_t size = parts.ids.size();
  // ids are distinct, so they fill 0 … size − 1 exactly when none lies beyond
  for (size_t id = 0; id < size; ++id)
    require(by_id[id] != nullptr, what, ": no token has the id ", id, " (the ids must run from 0 to ", size - 1,
            " without holes)");
  const Index most = expected_size.value_or(kLargestVocabulary);
  require(static_cast<Index>(size) <= kLargestVocabulary, wrong_vocabulary_size(std::to_string(size), std::nullopt,
                                                                           kLargestVocabulary));
  require(static_cast<Index>(size) <= most, wrong_vocabulary_size(std::to_string(size), expected_size, most));
  parts.tokens.reserve(size);
  for (size_t id = 0; id < size; ++id) parts.tokens.push_back(*by_id[id]);

  m.added_only.assign(size, false);
  for (int id : added_only_ids) m.added_only[static_cast<size_t>(id)] = true;
  m.added = std::move(in.added);
  for (size_t a = 0; a < m.added.size(); ++a) {
    const AddedToken& token = m.added[a];
    m.added_by_first_byte[token.normalized][static_cast<unsigned char>(token.content[0])].push_back(static_cast<int>(a));
    if (token.special) parts.special_tokens.emplace_back(token.content, token.id);
  }
  for (auto& by_byte : m.added_by_first_byte)
    for (auto& list : by_byte)
      std::stable_sort(list.begin(), list.end(), [&](int a, int b) {
        return m.added[static_cast<size_t>(a)].content.size() > m.added[static_cast<size_t>(b)].content.size();
      });
  std::sort(parts.special_tokens.begin(), parts.special_tokens.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });

  const ByteAlphabet& alphabet = byte_alphabet();
  for (int b = 0; b < 256; ++b) {
    const auto found = model_ids.find(alphabet.text[static_cast<size_t>(b)]);
    if (found == model_ids.end()) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", b);
      throw Error(what + ": the vocabulary lacks the byte " + hex + " (\"" + alphabet.text[static_cast<size_t>(b)] +
                  "\"): a byte-level vocabulary has all 256");
    }
    m.byte_ids[static_cast<size_t>(b)] = found->second;
  }

  m.merge_pairs.reserve(in.merges.size());
  for (size_t rank = 0; rank < in.merges.size(); ++rank) {
    const auto& merge = in.merges[rank];
    for (const std::string* piece : {&merge.first, &merge.second})
      require(model_ids.count(*piece), what, ": merge ", rank, " (", merge_name(merge), ") names \"", *piece,
              "\", which is not in the vocabulary");
    const auto merged = model_ids.find(merge.first + merge.second);
    require(merged != model_ids.end(), what, ": merge ", rank, " (", merge_name(merge), ") makes \"",
            merge.first + merge.second, "\", which is not in the vocabulary");
    const int left = model_ids.at(merge.first), right = model_ids.at(merge.second);
    const std::uint64_t key = (static_cast<std::uint64_t>(left) << 32) | static_cast<std::uint32_t>(right);
    require(m.merges.emplace(key, BytePairModel::Merge{static_cast<int>(rank), merged->second}).second, what,
            ": the merge ", merge_name(merge), " appears twice");
    m.merge_pairs.emplace_back(left, right);
  }
  parts.model = std::move(model);
  return parts;
}

// the "type" of a tokenizer.json component, for messages
std::string type_of(const json& component) {
  if (component.is_object() && component.contains("type") && component["type"].is_string())
    return component["type"].get<std::string>();
  const std::string text = component.dump();
  return text.size() > 40 ? text.substr(0, 40) + "…" : text;
}

// requires component to be an object with no other fields than these
void require_fields(const json& component, std::initializer_list<const char*> fields, const std::string& what) {
  require(component.is_object(), "tokenizer.json: ", what, " must be an object");
  for (const auto& item : component.items())
    require(std::any_of(fields.begin(), fields.end(), [&](const char* f) { return item.key() == f; }),
            "tokenizer.json: unknown field \"", item.key(), "\" in ", what);
}

// component[name], a boolean, or fallback when absent
bool bool_field(const json& component, const char* name, bool fallback, const std::string& what) {
  if (!component.contains(name)) return fallback;
  require(component[name].is_boolean(), "tokenizer.json: \"", name, "\" in ", what, " must be true or false");
  return component[name].get<bool>();
}

// whether component[name] is absent or null
bool absent(const json& component, const char* name) { return !component.contains(name) || component[name].is_null(); }

void read_byte_level(const json& p, BytePairModel& m, const std::string& what) {
  require_fields(p, {"type", "add_prefix_space", "trim_offsets", "use_regex"}, what);
  m.add_prefix_space = bool_field(p, "add_prefix_space", true, what);
  m.use_regex = bool_field(p, "use_regex", true, what);
  bool_field(p, "trim_offsets", true, what);  // offsets only, which the engine does not report
}

// one step of the pre-tokenizer, the last one being ByteLevel
void read_pre_tokenizer_step(const json& p, BytePairModel& m, bool last) {
  const std::string type = type_of(p);
  const std::string what = "the pre-tokenizer " + type;
  const auto not_implemented = [&](const std::string& detail) {
    return "tokenizer.json: " + what + detail +
           " is not implemented (byte-level BPE needs ByteLevel, alone or last in a Sequence after Digits and "
           "Split with GPT-2's pattern)";
  };
  if (type == "ByteLevel") {
    require(last, not_implemented(" before other steps"));
    read_byte_level(p, m, what);
  } else if (type == "Digits" && !last) {
    require_fields(p, {"type", "individual_digits"}, what);
    m.splits.push_back(bool_field(p, "individual_digits", false, what) ? BytePairModel::Split::each_digit
                                                                       : BytePairModel::Split::digit_runs);
  } else if (type == "Split" && !last) {
    require_fields(p, {"type", "pattern", "behavior", "invert"}, what);
    const json& pattern = p.contains("pattern") ? p["pattern"] : json();
    const bool gpt2 = pattern.is_object() && pattern.size() == 1 && pattern.contains("Regex") &&
                      pattern["Regex"] == kGpt2Pattern;
    require(gpt2, not_implemented(" with the pattern " + type_of(pattern)));
    require(p.contains("behavior") && p["behavior"] == "Isolated",
            not_implemented(" with the behavior " + (p.contains("behavior") ? type_of(p["behavior"]) : "(none)")));
    require(!bool_field(p, "invert", false, what), not_implemented(" with invert"));
    m.splits.push_back(BytePairModel::Split::gpt2);
  } else {
    throw Error(not_implemented(last && (type == "Digits" || type == "Split") ? " without a ByteLevel after it" : ""));
  }
}

void read_pre_tokenizer(const json& p, BytePairModel& m) {
  require(!p.is_null(), "tokenizer.json: a pre_tokenizer is needed (ByteLevel) for byte-level BPE");
  if (type_of(p) == "Sequence") {
    require_fields(p, {"type", "pretokenizers"}, "the pre-tokenizer Sequence");
    require(p.contains("pretokenizers") && p["pretokenizers"].is_array() && !p["pretokenizers"].empty(),
            "tokenizer.json: the pre-tokenizer Sequence needs a list \"pretokenizers\"");
    const json& steps = p["pretokenizers"];
    for (size_t i = 0; i < steps.size(); ++i) read_pre_tokenizer_step(steps[i], m, i + 1 == steps.size());
  } else {
    read_pre_tokenizer_step(p, m, true);
  }
  m.pre_tokenizer = p;
}

// a post-processor that adds no tokens: ByteLevel (offsets only), a TemplateProcessing of the
// sequence alone, or a Sequence of those
void read_post_processor(const json& p) {
  if (p.is_null()) return;
  const std::string type = type_of(p);
  const std::string what = "the post_processor " + type;
  if (type == "ByteLevel") {
    require_fields(p, {"type", "add_prefix_space", "trim_offsets", "use_regex"}, what);
  } else if (type == "TemplateProcessing") {
    require_fields(p, {"type", "single", "pair", "special_tokens"}, what);
    bool only_sequence = p.contains("single") && p["single"].is_array();
    if (only_sequence)
      for (const json& piece : p["single"]) only_sequence = only_sequence && piece.is_object() && piece.contains("Sequence");
    const bool no_specials = !p.contains("special_tokens") || (p["special_tokens"].is_object() && p["special_tokens"].empty());
    require(only_sequence && no_specials, "tokenizer.json: ", what,
            " adding tokens (such as a BOS token) is not implemented; encode adds none");
  } else if (type == "Sequence") {
    require_fields(p, {"type", "processors"}, what);
    require(p.contains("processors") && p["processors"].is_array(), "tokenizer.json: ", what, " needs \"processors\"");
    for (const json& step : p["processors"]) read_post_processor(step);
  } else {
    throw Error("tokenizer.json: " + what + " is not implemented (only none, ByteLevel and TemplateProcessing "
                "adding no tokens)");
  }
}

void read_model_fields(const json& model, BytePairModel& m, BpeInput& in) {
  require(model.is_object(), "tokenizer.json: \"model\" must be an object");
  const std::string type = model.contains("type") ? type_of(model) : "(none)";
  require(type == "BPE", "tokenizer.json: the model type ", type, " is not implemented (only BPE)");
  require_fields(model, {"type", "dropout", "unk_token", "continuing_subword_prefix", "end_of_word_suffix", "fuse_unk",
                         "byte_fallback", "ignore_merges", "vocab", "merges"},
                 "the model");
  require(absent(model, "dropout"), "tokenizer.json: BPE dropout is not implemented");
  require(!bool_field(model, "byte_fallback", false, "the model"), "tokenizer.json: byte_fallback is not implemented");
  for (const char* affix : {"continuing_subword_prefix", "end_of_word_suffix"})
    require(absent(model, affix) || model[affix] == "", "tokenizer.json: ", affix, " is not implemented");
  require(absent(model, "unk_token") || model["unk_token"].is_string(), "tokenizer.json: unk_token must be a string or null");
  m.unk_token = model.contains("unk_token") ? model["unk_token"] : json();
  m.fuse_unk = bool_field(model, "fuse_unk", false, "the model");
  m.ignore_merges = bool_field(model, "ignore_merges", false, "the model");

  require(model.contains("vocab") && model["vocab"].is_object(), "tokenizer.json: the model needs a \"vocab\" object");
  for (const auto& [piece, id] : model["vocab"].items()) {
    require(id.is_number_integer(), "tokenizer.json: the id of \"", piece, "\" must be a whole number");
    in.vocab.emplace_back(piece, id.get<std::int64_t>());
  }
  require(model.contains("merges") && model["merges"].is_array(), "tokenizer.json: the model needs a \"merges\" list");
  for (const json& merge : model["merges"]) {
    if (merge.is_string()) {
      const std::string text = merge.get<std::string>();
      const size_t space = text.find(' ');
      require(space != std::string::npos && space > 0 && space + 1 < text.size() &&
                  text.find(' ', space + 1) == std::string::npos,
              "tokenizer.json: merge ", in.merges.size(), " (\"", text, "\") is not two pieces separated by a space");
      in.merges.emplace_back(text.substr(0, space), text.substr(space + 1));
    } else {
      require(merge.is_array() && merge.size() == 2 && merge[0].is_string() && merge[1].is_string(),
              "tokenizer.json: merge ", in.merges.size(), " must be \"a b\" or [\"a\", \"b\"]");
      in.merges.emplace_back(merge[0].get<std::string>(), merge[1].get<std::string>());
    }
  }
}

void read_added_tokens(const json& added, BpeInput& in) {
  require(added.is_array(), "tokenizer.json: \"added_tokens\" must be a list");
  for (const json& a : added) {
    require_fields(a, {"id", "content", "single_word", "lstrip", "rstrip", "normalized", "special"}, "an added token");
    require(a.contains("id") && a["id"].is_number_integer() && a.contains("content") && a["content"].is_string(),
            "tokenizer.json: an added token needs a whole-number \"id\" and a \"content\" string");
    const std::string content = a["content"].get<std::string>();
    const std::string what = "the added token \"" + content + "\"";
    for (const char* option : {"single_word", "lstrip", "rstrip"})
      require(!bool_field(a, option, false, what), "tokenizer.json: ", option, " (in ", what, ") is not implemented");
    const std::int64_t id = a["id"].get<std::int64_t>();
    require(id >= 0 && id <= std::numeric_limits<int>::max(), "tokenizer.json: the id ", id, " of ", what,
            " is out of range");
    in.added.push_back({content, static_cast<int>(id), bool_field(a, "special", false, what),
                        bool_field(a, "normalized", !bool_field(a, "special", false, what), what)});
  }
}

}  // namespace

ByteBpeParts read_hf_tokenizer(const json& j, std::optional<Index> expected_size) {
  require_fields(j, {"version", "truncation", "padding", "added_tokens", "normalizer", "pre_tokenizer", "post_processor",
                     "decoder", "model"},
                 "the top level");
  require(absent(j, "truncation"), "tokenizer.json: truncation is not implemented");
  require(absent(j, "padding"), "tokenizer.json: padding is not implemented");
  require(absent(j, "normalizer"), "tokenizer.json: the normalizer ", absent(j, "normalizer") ? "" : type_of(j["normalizer"]),
          " is not implemented (only none)");
  auto m = std::make_shared<BytePairModel>();
  BpeInput in;
  read_model_fields(j["model"], *m, in);
  if (j.contains("added_tokens")) read_added_tokens(j["added_tokens"], in);
  read_pre_tokenizer(j.contains("pre_tokenizer") ? j["pre_tokenizer"] : json(), *m);
  const json post = j.contains("post_processor") ? j["post_processor"] : json();
  read_post_processor(post);
  m->post_processor = post;
  const json decoder = j.contains("decoder") ? j["decoder"] : json();
  require(type_of(decoder) == "ByteLevel", "tokenizer.json: the decoder ", type_of(decoder),
          " is not implemented (only ByteLevel)");
  require_fields(decoder, {"type", "add_prefix_space", "trim_offsets", "use_regex"}, "the decoder ByteLevel");
  m->decoder = decoder;
  return assemble(in, std::move(m), expected_size, "tokenizer.json");
}

ByteBpeParts read_vocab_merges(const std::string& vocab_json, const std::string& merges_txt,
                               std::optional<Index> expected_size) {
  const Index most = expected_size.value_or(kLargestVocabulary);
  Index count = 0;
  const JsonWatch count_pieces = [&](int depth, json::parse_event_t event, const json&) {
    if (depth == 1 && event == json::parse_event_t::key && ++count > most)
      throw Error(wrong_vocabulary_size("more than " + std::to_string(most), expected_size, most));
  };
  const json vocab = parse_strict_json(vocab_json, "vocab.json", count_pieces);
  require(vocab.is_object(), "vocab.json must be an object of pieces and their ids");
  BpeInput in;
  for (const auto& [piece, id] : vocab.items()) {
    require(id.is_number_integer(), "vocab.json: the id of \"", piece, "\" must be a whole number");
    in.vocab.emplace_back(piece, id.get<std::int64_t>());
    if (piece == "<|endoftext|>") in.added.push_back({piece, static_cast<int>(id.get<std::int64_t>()), true, true});
  }
  size_t line_number = 0;
  for (size_t begin = 0; begin < merges_txt.size();) {
    size_t end = merges_txt.find('\n', begin);
    if (end == std::string::npos) end = merges_txt.size();
    std::string line = merges_txt.substr(begin, end - begin);
    begin = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("#version", 0) == 0) continue;
    const size_t space = line.find(' ');
    require(space != std::string::npos && space > 0 && space + 1 < line.size() &&
                line.find(' ', space + 1) == std::string::npos,
            "merges.txt: line ", line_number, " (\"", line, "\") is not two pieces separated by a space");
    in.merges.emplace_back(line.substr(0, space), line.substr(space + 1));
  }
  // GPT-2's own settings, as its tokenizer.json has them
  auto m = std::make_shared<BytePairModel>();
  m->pre_tokenizer = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", true}};
  m->post_processor = {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", false}, {"use_regex", true}};
  m->decoder = {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", true}, {"use_regex", true}};
  return assemble(in, std::move(m), expected_size, "vocab.json and merges.txt");
}

std::string write_hf_tokenizer(const BytePairModel& m, const std::vector<std::string>& tokens) {
  // written by hand: nlohmann's ordered objects look keys up one by one, which a vocabulary of
  // 50,000 pieces would make quadratic
  const auto quoted = [](const std::string& s) { return json(s).dump(); };
  std::string out = "{\n\"version\": \"1.0\",\n\"truncation\": null,\n\"padding\": null,\n\"added_tokens\": [";
  for (size_t a = 0; a < m.added.size(); ++a) {
    const AddedToken& t = m.added[a];
    out += std::string(a ? "," : "") + "\n  {\"id\": " + std::to_string(t.id) + ", \"content\": " + quoted(t.content) +
           ", \"single_word\": false, \"lstrip\": false, \"rstrip\": false, \"normalized\": " +
           (t.normalized ? "true" : "false") + ", \"special\": " + (t.special ? "true" : "false") + "}";
  }
  out += "\n],\n\"normalizer\": null,\n\"pre_tokenizer\": " + m.pre_tokenizer.dump() +
         ",\n\"post_processor\": " + m.post_processor.dump() + ",\n\"decoder\": " + m.decoder.dump() +
         ",\n\"model\": {\"type\": \"BPE\", \"dropout\": null, \"unk_token\": " + m.unk_token.dump() +
         ", \"continuing_subword_prefix\": null, \"end_of_word_suffix\": null, \"fuse_unk\": " +
         (m.fuse_unk ? "true" : "false") + ", \"byte_fallback\": false, \"ignore_merges\": " +
         (m.ignore_merges ? "true" : "false") + ",\n\"vocab\": {";
  bool first = true;
  for (size_t id = 0; id < tokens.size(); ++id) {
    if (m.added_only[id]) continue;
    out += std::string(first ? "\n" : ",\n") + quoted(tokens[id]) + ": " + std::to_string(id);
    first = false;
  }
  out += "\n},\n\"merges\": [";
  for (size_t rank = 0; rank < m.merge_pairs.size(); ++rank) {
    const auto [left, right] = m.merge_pairs[rank];
    out += std::string(rank ? ",\n" : "\n") + "[" + quoted(tokens[static_cast<size_t>(left)]) + ", " +
           quoted(tokens[static_cast<size_t>(right)]) + "]";
  }
  out += "\n]}\n}\n";
  return out;
}

}  // namespace attnlab
