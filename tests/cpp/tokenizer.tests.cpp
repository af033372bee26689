#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <numeric>
#include <nlohmann/json.hpp>

#include "core/check.hpp"
#include "io/byte_bpe.hpp"
#include "io/model_file.hpp"
#include "io/tokenizer.hpp"

// timings mean little under the sanitizers
#if defined(__SANITIZE_ADDRESS__)
#define ATTNLAB_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ATTNLAB_SANITIZED 1
#endif
#endif

using namespace attnlab;
using Pieces = std::vector<std::string>;

TEST_CASE("word-level tokenizer", "[tokenizer]") {
  const Tokenizer t = Tokenizer::build(TokenizerKind::word, {"The cat sat on the mat because it was soft."}, true);
  SECTION("splits words and punctuation; the vocabulary starts with the specials") {
    CHECK(t.split("The cat, it's soft!") == Pieces{"the", "cat", ",", "it's", "soft", "!"});
    CHECK(t.token(0) == "[PAD]");
    CHECK(t.token(5) == "[SEP]");
    CHECK(t.token(6) == "the");
    CHECK(t.size() == 6 + 10);  // the cat sat on mat because it was soft .
  }
  SECTION("unknown words are [UNK]; specials in text stay whole") {
    const std::vector<int> ids = t.encode("[BOS] the dog sat [MASK] .");
    CHECK(ids == std::vector<int>{Tokenizer::kBos, 6, Tokenizer::kUnk, 8, Tokenizer::kMask, t.id(".")});
  }
  SECTION("decode spaces words and attaches punctuation") {
    CHECK(t.decode(t.encode("the cat sat on the mat.")) == "the cat sat on the mat.");
    CHECK_THROWS_WITH(t.decode({99}), Catch::Contains("id 99 is outside the vocabulary"));
  }
  SECTION("empty, blank, very long and non-ASCII text never fail") {
    CHECK(t.encode("").empty());
    CHECK(t.encode(" \t\n ").empty());
    CHECK(t.encode(std::string(200000, 'a')).size() == 1);
    CHECK(t.encode("caf\xC3\xA9 \xF0\x9F\x90\x88 \xFF\xFE") == std::vector<int>{1, 1, 1});
    CHECK(t.encode(std::string("a\0b", 3)).size() == 3);
  }
  SECTION("the vocabulary round-trips through JSON and bad vocabularies are refused") {
    const Tokenizer back = Tokenizer::from_json(t.to_json());
    CHECK(back.encode("the cat sat") == t.encode("the cat sat"));
    CHECK(back.lowercase());
    CHECK_THROWS_WITH(Tokenizer::from_json("{"), Catch::Contains("not valid JSON"));
    CHECK_THROWS_WITH(Tokenizer::from_json(R"({"kind":"word","tokens":["a"]})"), Catch::Contains("six special"));
    CHECK_THROWS_WITH(Tokenizer::from_json(R"({"kind":"bpe","tokens":[]})"), Catch::Contains("kind must be"));
    CHECK_THROWS_WITH(Tokenizer(TokenizerKind::word, {"[PAD]", "[UNK]", "[BOS]", "[EOS]", "[MASK]", "[SEP]", "x", "x"}, false),
                      Catch::Contains("appears twice"));
  }
}

TEST_CASE("character-level tokenizer", "[tokenizer]") {
  const Tokenizer t = Tokenizer::build(TokenizerKind::character, {"abc d\xC3\xA9"});
  CHECK(t.split("d\xC3\xA9 a") == Pieces{"d", "\xC3\xA9", " ", "a"});
  CHECK(t.decode(t.encode("cab d\xC3\xA9")) == "cab d\xC3\xA9");
  CHECK(t.encode("z") == std::vector<int>{Tokenizer::kUnk});
  CHECK(t.split("\xE2\x82") == Pieces{"\xE2", "\x82"});  // a truncated sequence falls apart into bytes
  CHECK(Tokenizer::from_json(t.to_json()).size() == t.size());
}

TEST_CASE("vocabulary JSON is read strictly and its size checked while parsing", "[tokenizer][errors]") {
  const auto error_of = [](const std::string& json, std::optional<Index> expected = std::nullopt) {
    try {
      Tokenizer::from_json(json, expected);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string specials = R"("[PAD]","[UNK]","[BOS]","[EOS]","[MASK]","[SEP]")";
  const std::string good = R"({"kind":"word","lowercase":true,"tokens":[)" + specials + R"(,"a"]})";
  CHECK(error_of(good) == "no error");
  CHECK(error_of(good, 7) == "no error");
  SECTION("repeated keys, unknown fields and a non-boolean lowercase are refused by name") {
    CHECK_THAT(error_of(R"({"kind":"word","kind":"character","tokens":[)" + specials + "]}"),
               Catch::Contains("names \"kind\" twice"));
    CHECK_THAT(error_of(R"({"kind":"word","tokens":[)" + specials + R"(],"tokens":[]})"),
               Catch::Contains("names \"tokens\" twice"));
    CHECK_THAT(error_of(R"({"kind":"word","lowercase":"true","tokens":[)" + specials + "]}"),
               Catch::Contains("\"lowercase\" must be true or false"));
    CHECK_THAT(error_of(R"({"kind":"word","lowercase":1,"tokens":[)" + specials + "]}"),
               Catch::Contains("\"lowercase\" must be true or false"));
    CHECK_THAT(error_of(R"({"kind":"word","merges":[],"tokens":[)" + specials + "]}"),
               Catch::Contains("unknown field \"merges\""));
  }
  SECTION("a vocabulary of another size than the model's is refused, a larger one before it is read") {
    CHECK_THAT(error_of(good, 10), Catch::Contains("the vocabulary has 7 tokens but the config says vocab_size = 10"));
    std::string huge = R"({"kind":"word","tokens":[)" + specials;
    for (int i = 0; i < 200000; ++i) huge += ",\"w" + std::to_string(i) + "\"";
    huge += "]}";
    CHECK_THAT(error_of(huge, 12), Catch::Contains("has more than 12 tokens but the config says vocab_size = 12"));
  }
  SECTION("no vocabulary is larger than a model's largest vocab_size") {
    CHECK_THROWS_WITH(Tokenizer(TokenizerKind::word, std::vector<std::string>(Tokenizer::kMaxSize + 1, "x"), false),
                      Catch::Contains("more than 1048576 tokens"));
  }
}

// ---- byte-level BPE

namespace {

// GPT-2's byte alphabet, written out apart from the engine's: the printable Latin-1 bytes stand for
// themselves, the other 68 for U+0100 onwards in byte order
std::string byte_piece(int b) {
  const auto printable = [](int k) { return (k >= 0x21 && k <= 0x7E) || (k >= 0xA1 && k <= 0xAC) || k >= 0xAE; };
  int cp = b;
  if (!printable(b)) {
    cp = 0x100;
    for (int k = 0; k < b; ++k) cp += !printable(k);
  }
  if (cp < 0x80) return std::string(1, static_cast<char>(cp));
  return {static_cast<char>(0xC0 | (cp >> 6)), static_cast<char>(0x80 | (cp & 0x3F))};
}

const std::string kByteLevel = R"({"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true})";

// a tokenizer.json: the 256 bytes (ids 0 … 255 in byte order), then `pieces` (ids from 256), the
// merges (a JSON list), added tokens and pre-tokenizer as given
std::string bpe_json(const std::vector<std::string>& pieces, const std::string& merges, const std::string& added = "[]",
                     const std::string& pre_tokenizer = kByteLevel) {
  nlohmann::ordered_json vocab = nlohmann::ordered_json::object();
  for (int b = 0; b < 256; ++b) vocab[byte_piece(b)] = b;
  for (size_t i = 0; i < pieces.size(); ++i) vocab[pieces[i]] = 256 + i;
  return R"({"version":"1.0","truncation":null,"padding":null,"added_tokens":)" + added +
         R"(,"normalizer":null,"pre_tokenizer":)" + pre_tokenizer + R"(,"post_processor":null,"decoder":)" + kByteLevel +
         R"(,"model":{"type":"BPE","dropout":null,"unk_token":null,"fuse_unk":false,"byte_fallback":false,"vocab":)" +
         vocab.dump() + R"(,"merges":)" + merges + "}}";
}

// text with its first `from` replaced by `to`
std::string with(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// the message of the attnlab::Error that reading this tokenizer.json throws, or "no error"
std::string refusal(const std::string& json, std::optional<Index> expected_size = std::nullopt) {
  try {
    Tokenizer::from_hf_json(json, expected_size);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// the pre-tokens of text under GPT-2's pattern (or the model's steps)
Pieces pre_tokens(const std::string& text, const BytePairModel& model = BytePairModel()) {
  Pieces pieces;
  model.pre_tokenize(text, pieces);
  return pieces;
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("GPT-2's split pattern, by hand", "[tokenizer][bpe]") {
  SECTION("contractions, lower-case only; letters after one optional space") {
    CHECK(pre_tokens("I'm here, they're 'RE we'LL") ==
          Pieces{"I", "'m", " here", ",", " they", "'re", " '", "RE", " we", "'", "LL"});
    CHECK(pre_tokens("it's'd've''s") == Pieces{"it", "'s", "'d", "'ve", "''", "s"});
  }
  SECTION("a run of white space leaves its last character to the word after it") {
    CHECK(pre_tokens("Hello   world\n\n") == Pieces{"Hello", "  ", " world", "\n\n"});
    CHECK(pre_tokens("a\tb") == Pieces{"a", "\t", "b"});
    CHECK(pre_tokens("x  \n y") == Pieces{"x", "  \n", " y"});
    CHECK(pre_tokens("\n\nx") == Pieces{"\n", "\n", "x"});
    CHECK(pre_tokens("   ") == Pieces{"   "});
    CHECK(pre_tokens("\xC2\xA0x") == Pieces{"\xC2\xA0", "x"});  // a no-break space is white space, not " "
  }
  SECTION("digits, punctuation, non-ASCII letters, CJK and emoji") {
    CHECK(pre_tokens("abc123 4567 x1") == Pieces{"abc", "123", " 4567", " x", "1"});
    CHECK(pre_tokens("Hi!!! ...ok?") == Pieces{"Hi", "!!!", " ...", "ok", "?"});
    CHECK(pre_tokens("caf\xC3\xA9 na\xC3\xAFve \xD0\x9F\xD1\x80\xD0\xB8") ==
          Pieces{"caf\xC3\xA9", " na\xC3\xAFve", " \xD0\x9F\xD1\x80\xD0\xB8"});
    CHECK(pre_tokens("\xE6\x97\xA5\xE6\x9C\xAC text") == Pieces{"\xE6\x97\xA5\xE6\x9C\xAC", " text"});
    // 👋🏽!: the emoji, its skin tone and "!" are neither letters, numbers nor space
    CHECK(pre_tokens("hi \xF0\x9F\x91\x8B\xF0\x9F\x8F\xBD!") == Pieces{"hi", " \xF0\x9F\x91\x8B\xF0\x9F\x8F\xBD!"});
    CHECK(pre_tokens("\xD9\xA3\xD9\xA4 x") == Pieces{"\xD9\xA3\xD9\xA4", " x"});  // Arabic-Indic digits are numbers
  }
  SECTION("bytes outside UTF-8 are characters of their own, neither letters nor space") {
    CHECK(pre_tokens("a\xFF" "b") == Pieces{"a", "\xFF", "b"});
    CHECK(pre_tokens("a \xFF\xFE\xE2\x82") == Pieces{"a", " \xFF\xFE\xE2\x82"});
  }
  SECTION("Digits before ByteLevel cuts numbers out first, each digit alone or in runs") {
    BytePairModel each;
    each.splits = {BytePairModel::Split::each_digit};
    CHECK(pre_tokens("abc 123", each) == Pieces{"abc", " ", "1", "2", "3"});
    BytePairModel runs;
    runs.splits = {BytePairModel::Split::digit_runs};
    CHECK(pre_tokens("abc 123x", runs) == Pieces{"abc", " ", "123", "x"});
    BytePairModel prefixed;
    prefixed.add_prefix_space = true;
    CHECK(pre_tokens("hi there", prefixed) == Pieces{" hi", " there"});
  }
}

TEST_CASE("byte-level BPE merges the lowest rank first", "[tokenizer][bpe]") {
  const std::vector<std::string> pieces = {"he", "\xC4\xA0t", "\xC4\xA0the", "ll", "llo", "bc", "ab", "aa"};
  const Tokenizer t = Tokenizer::from_hf_json(bpe_json(pieces, R"(["h e", "Ġ t", "Ġt he", "l l", "ll o", "b c", "a b", "a a"])"));
  CHECK(t.kind() == TokenizerKind::byte_bpe);
  CHECK(t.size() == 264);
  SECTION("hand-checked merges") {
    CHECK(t.split(" the hello") == Pieces{"\xC4\xA0the", "\xC4\xA0", "he", "llo"});
    CHECK(t.encode(" the hello") == std::vector<int>{258, ' ', 256, 260});
    CHECK(t.id("\xC4\xA0the") == 258);
    CHECK_THROWS_WITH(t.id("the"), Catch::Contains("\"the\" is not in the vocabulary"));
  }
  SECTION("the lowest rank wins over the leftmost pair; among equal ranks the leftmost") {
    CHECK(t.split("abc") == Pieces{"a", "bc"});
    CHECK(t.split("aaa") == Pieces{"aa", "a"});
    CHECK(t.split("aaaa") == Pieces{"aa", "aa"});
  }
  SECTION("any byte string encodes; bytes that are not UTF-8 decode to U+FFFD") {
    std::string all, all_pieces, encoded_pieces;
    for (int b = 0; b < 256; ++b) all += static_cast<char>(b), all_pieces += byte_piece(b);
    for (int id : t.encode(all)) encoded_pieces += t.token(id);
    CHECK(encoded_pieces == all_pieces);  // no byte lost, none added
    std::vector<int> bytes(256);
    std::iota(bytes.begin(), bytes.end(), 0);
    CHECK(Tokenizer::from_hf_json(bpe_json({}, "[]")).encode(all) == bytes);
    CHECK(t.decode(t.encode("h\xC3\xA9llo \xF0\x9F\x98\x80 the")) == "h\xC3\xA9llo \xF0\x9F\x98\x80 the");
    CHECK(t.decode(t.encode("\xEF\xBB\xBF" "a byte-order mark stays")) == "\xEF\xBB\xBF" "a byte-order mark stays");
    CHECK(t.decode(t.encode("a\xE2\x82")) == "a\xEF\xBF\xBD");           // cut off at the end: one U+FFFD
    CHECK(t.decode(t.encode("\xC3(")) == "\xEF\xBF\xBD(");                // a lead byte without its continuation
    CHECK(t.decode(t.encode("\xFF\xFE")) == "\xEF\xBF\xBD\xEF\xBF\xBD");  // never in UTF-8
    CHECK(t.decode(t.encode("\xED\xA0\x80")) == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
    CHECK_THROWS_WITH(t.decode({264}), Catch::Contains("id 264 is outside the vocabulary"));
    CHECK(t.encode("").empty());
  }
  SECTION("merges written as pairs or as \"a b\" strings read the same") {
    const Tokenizer pairs = Tokenizer::from_hf_json(
        bpe_json(pieces, R"([["h","e"], ["Ġ","t"], ["Ġt","he"], ["l","l"], ["ll","o"], ["b","c"], ["a","b"], ["a","a"]])"));
    for (const char* text : {" the hello", "abc aaaa", "hello the"}) CHECK(pairs.encode(text) == t.encode(text));
  }
  SECTION("no special tokens here, and none listed for the word and character kinds") {
    CHECK(t.special_tokens().empty());
    CHECK(Tokenizer::build(TokenizerKind::word, {"a"}).special_tokens().empty());
  }
}

TEST_CASE("byte-level BPE: added tokens stay whole and the special ones are listed", "[tokenizer][bpe]") {
  const std::string added =
      R"([{"id":258,"content":"<|endoftext|>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},
          {"id":257,"content":"<|end|>","special":true,"normalized":false},
          {"id":259,"content":"Hello there","special":false,"normalized":true}])";
  const Tokenizer t = Tokenizer::from_hf_json(bpe_json({"he"}, R"(["h e"])", added));
  CHECK(t.size() == 260);
  CHECK(t.special_tokens() == std::vector<std::pair<std::string, int>>{{"<|end|>", 257}, {"<|endoftext|>", 258}});
  CHECK(t.split("a<|endoftext|>he<|end|><|end") == Pieces{"a", "<|endoftext|>", "he", "<|end|>", "<", "|", "e", "n", "d"});
  CHECK(t.encode("x Hello there!") == std::vector<int>{'x', ' ', 259, '!'});
  CHECK(t.decode(t.encode("a<|endoftext|> he")) == "a<|endoftext|> he");
  CHECK(Tokenizer::from_json(t.to_json()).encode("Hello there<|end|>") == std::vector<int>{259, 257});
}

TEST_CASE("byte-level BPE decodes as a stream, holding back broken characters", "[tokenizer][bpe]") {
  const Tokenizer t = Tokenizer::from_hf_json(bpe_json({}, "[]"));
  const std::string text = "a\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD \xE6\x97\xA5\xE6\x9C\xAC!";  // a👍🏽 日本!
  const std::vector<int> ids = t.encode(text);
  REQUIRE(ids.size() == text.size());  // no merges: a token per byte
  TextStream stream(t);
  Pieces shown;
  for (int id : ids) shown.push_back(stream.push(id));
  CHECK(shown == Pieces{"a", "", "", "", "\xF0\x9F\x91\x8D", "", "", "", "\xF0\x9F\x8F\xBD", " ", "", "", "\xE6\x97\xA5",
                        "", "", "\xE6\x9C\xAC", "!"});
  CHECK(stream.finish().empty());
  SECTION("a dangling partial character is flushed as U+FFFD; a byte outside UTF-8 shows at once") {
    CHECK(stream.push(0xF0).empty());
    CHECK(stream.push(0x9F).empty());
    CHECK(stream.finish() == "\xEF\xBF\xBD");
    CHECK(stream.push(0xE6).empty());
    CHECK(stream.push('x') == "\xEF\xBF\xBDx");
    CHECK(stream.push(0xFF) == "\xEF\xBF\xBD");
    CHECK_THROWS_WITH(stream.push(999), Catch::Contains("outside the vocabulary"));
  }
  SECTION("a word-level stream spaces its words as decode does") {
    const Tokenizer words = Tokenizer::build(TokenizerKind::word, {"the cat sat ."});
    TextStream w(words);
    std::string joined;
    for (int id : words.encode("the cat sat.")) joined += w.push(id);
    CHECK(joined + w.finish() == "the cat sat.");
  }
}

TEST_CASE("tokenizer.json is read strictly", "[tokenizer][bpe][errors]") {
  const std::string good = bpe_json({"he", "hh"}, R"(["h e", "h h"])");
  REQUIRE(refusal(good) == "no error");
  SECTION("malformed JSON, merges and vocabularies") {
    CHECK_THAT(refusal("{\"model\":"), Catch::StartsWith("tokenizer.json is not valid JSON"));
    CHECK_THAT(refusal(R"({"version":"1.0"})"), Catch::Contains("the tokenizer needs a \"model\""));
    CHECK_THAT(refusal(with(good, R"("h h")", R"("h h x")")), Catch::Contains("merge 1 (\"h h x\") is not two pieces"));
    CHECK_THAT(refusal(with(good, R"("h h")", R"(["h"])")), Catch::Contains("merge 1 must be \"a b\" or [\"a\", \"b\"]"));
    CHECK_THAT(refusal(with(good, R"("h h")", R"("h Q9")")),
               Catch::Contains("merge 1 (\"h Q9\") names \"Q9\", which is not in the vocabulary"));
    CHECK_THAT(refusal(with(good, R"("h h")", R"("e h")")),
               Catch::Contains("merge 1 (\"e h\") makes \"eh\", which is not in the vocabulary"));
    CHECK_THAT(refusal(with(good, R"("h h")", R"(["h", "e"])")), Catch::Contains("the merge \"h e\" appears twice"));
    CHECK_THAT(refusal(with(good, R"("hh":257)", R"("hh":256)")), Catch::Contains("\"he\" and \"hh\" both have the id 256"));
    CHECK_THAT(refusal(with(good, R"("hh":257)", R"("he":257)")), Catch::Contains("names \"he\" twice in \"vocab\""));
    CHECK_THAT(refusal(with(good, R"("hh":257)", R"("hh":100000)")),
               Catch::Contains("the id 100000 of \"hh\" is out of range (the vocabulary and added tokens hold 258 entries)"));
    CHECK_THAT(refusal(with(good, R"("hh":257)", R"("hh":-1)")), Catch::Contains("the id -1 of \"hh\" is out of range"));
    CHECK_THAT(refusal(with(good, R"("hh":257)", R"("hh":"7")")), Catch::Contains("the id of \"hh\" must be a whole number"));
    CHECK_THAT(refusal(with(with(good, R"("hh":257)", R"("hh":258)"), R"("added_tokens":[])",
                            R"("added_tokens":[{"id":256,"content":"he"}])")),
               Catch::Contains("no token has the id 257 (the ids must run from 0 to 257 without holes)"));
    CHECK_THAT(refusal(with(good, R"("Ġ":32)", R"("Ġx":32)")),
               Catch::Contains("the vocabulary lacks the byte 0x20 (\"Ġ\"): a byte-level vocabulary has all 256"));
    CHECK_THAT(refusal(with(good, R"("added_tokens":[])", R"("added_tokens":[{"id":256,"content":"xx"}])")),
               Catch::Contains("the added token \"xx\" has the id 256 of \"he\""));
    CHECK_THAT(refusal(with(good, R"("added_tokens":[])", R"("added_tokens":[{"id":258,"content":"he"}])")),
               Catch::Contains("the added token \"he\" (id 258) is also in the vocabulary with the id 256"));
    CHECK_THAT(refusal(with(good, R"("added_tokens":[])", R"("added_tokens":[{"id":258,"content":"<a>"},{"id":258,"content":"<a>"}])")),
               Catch::Contains("the added token \"<a>\" appears twice"));
    CHECK_THAT(refusal(with(good, R"("added_tokens":[])", R"("added_tokens":[{"id":258,"content":""}])")),
               Catch::Contains("an added token is empty"));
  }
  SECTION("unknown fields, anywhere") {
    CHECK_THAT(refusal(with(good, R"("version":"1.0")", R"("version":"1.0","extra":1)")),
               Catch::Contains("unknown field \"extra\" in the top level"));
    CHECK_THAT(refusal(with(good, R"("fuse_unk":false)", R"("fuse_unk":false,"extra":1)")),
               Catch::Contains("unknown field \"extra\" in the model"));
    CHECK_THAT(refusal(with(good, R"("added_tokens":[])", R"("added_tokens":[{"id":258,"content":"<a>","extra":1}])")),
               Catch::Contains("unknown field \"extra\" in an added token"));
    CHECK_THAT(refusal(with(good, R"("use_regex":true})", R"("use_regex":true,"extra":1})")),
               Catch::Contains("unknown field \"extra\" in the pre-tokenizer ByteLevel"));
  }
  SECTION("sizes: over a model's vocab_size is found while parsing; under it is allowed") {
    CHECK_THAT(refusal(good, 200), Catch::Contains("the vocabulary has more than 200 tokens but the config says vocab_size = 200"));
    CHECK_THAT(refusal(with(good, R"("added_tokens":[])", R"("added_tokens":[{"id":258,"content":"<a>"}])"), 258),
               Catch::Contains("the vocabulary has 259 tokens but the config says vocab_size = 258"));
    CHECK(refusal(good, 258) == "no error");
    CHECK(refusal(good, 50000) == "no error");
  }
  SECTION("no vocabulary holds more than kMaxSize tokens") {
    std::string huge = R"({"model":{"type":"BPE","vocab":{)";
    for (Index i = 0; i <= Tokenizer::kMaxSize; ++i) huge += (i ? ",\"" : "\"") + std::to_string(i) + "\":0";
    huge += "}}}";
    CHECK_THAT(refusal(huge), Catch::Contains("has more than 1048576 tokens but the limit is 1048576"));
  }
}

TEST_CASE("what byte-level BPE does not implement is refused by name", "[tokenizer][bpe][errors]") {
  const std::string good = bpe_json({"he"}, R"(["h e"])");
  const std::string digits = R"({"type":"Digits","individual_digits":true})";
  CHECK_THAT(refusal(with(good, R"("type":"BPE")", R"("type":"WordPiece")")),
             Catch::Contains("the model type WordPiece is not implemented (only BPE)"));
  CHECK_THAT(refusal(R"({"model":{"type":"Unigram","vocab":[["a",0.0]]}})"),
             Catch::Contains("the model type Unigram is not implemented"));
  // TinyLlama's SentencePiece-style pre-tokenizer and normalizer
  CHECK_THAT(refusal(with(good, kByteLevel, R"({"type":"Metaspace","replacement":"▁","add_prefix_space":true})")),
             Catch::Contains("the pre-tokenizer Metaspace is not implemented"));
  CHECK_THAT(refusal(with(good, R"("normalizer":null)",
                          R"("normalizer":{"type":"Sequence","normalizers":[{"type":"Prepend","prepend":"▁"}]})")),
             Catch::Contains("the normalizer Sequence is not implemented (only none)"));
  CHECK_THAT(refusal(with(good, R"("byte_fallback":false)", R"("byte_fallback":true)")),
             Catch::Contains("byte_fallback is not implemented"));
  CHECK_THAT(refusal(with(good, R"("dropout":null)", R"("dropout":0.1)")), Catch::Contains("BPE dropout is not implemented"));
  CHECK_THAT(refusal(with(good, R"("fuse_unk":false)", R"("fuse_unk":false,"continuing_subword_prefix":"##")")),
             Catch::Contains("continuing_subword_prefix is not implemented"));
  CHECK_THAT(refusal(with(good, R"("truncation":null)", R"("truncation":{"max_length":8})")),
             Catch::Contains("truncation is not implemented"));
  CHECK_THAT(refusal(with(good, kByteLevel, R"({"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"Regex":"\\p{L}+"},"behavior":"Isolated","invert":false},)" + kByteLevel + "]}")),
             Catch::Contains("the pre-tokenizer Split with the pattern"));
  CHECK_THAT(refusal(with(good, kByteLevel, R"({"type":"Sequence","pretokenizers":[)" + kByteLevel + "," + digits + "]}")),
             Catch::Contains("the pre-tokenizer ByteLevel before other steps is not implemented"));
  CHECK_THAT(refusal(with(good, kByteLevel, digits)), Catch::Contains("the pre-tokenizer Digits without a ByteLevel after it"));
  CHECK_THAT(refusal(with(good, kByteLevel, "null")), Catch::Contains("a pre_tokenizer is needed (ByteLevel)"));
  CHECK_THAT(refusal(with(good, R"("post_processor":null)",
                          R"("post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},{"Sequence":{"id":"A","type_id":0}}],"pair":[],"special_tokens":{"<s>":{"id":"<s>","ids":[1],"tokens":["<s>"]}}})")),
             Catch::Contains("the post_processor TemplateProcessing adding tokens (such as a BOS token) is not implemented"));
  CHECK_THAT(refusal(with(good, R"("post_processor":null)", R"("post_processor":{"type":"RobertaProcessing"})")),
             Catch::Contains("the post_processor RobertaProcessing is not implemented"));
  CHECK_THAT(refusal(with(good, R"("decoder":)" + kByteLevel, R"("decoder":{"type":"Metaspace"})")),
             Catch::Contains("the decoder Metaspace is not implemented (only ByteLevel)"));
  CHECK_THAT(refusal(with(good, R"("added_tokens":[])", R"("added_tokens":[{"id":257,"content":"<x>","lstrip":true}])")),
             Catch::Contains("lstrip (in the added token \"<x>\") is not implemented"));
  SECTION("what does not change the ids is read: SmolLM2's pre-tokenizer, a template adding nothing") {
    const std::string smollm2 = R"({"type":"Sequence","pretokenizers":[)" + digits + "," + kByteLevel + "]}";
    const Tokenizer t = Tokenizer::from_hf_json(
        with(with(good, kByteLevel, smollm2), R"("post_processor":null)",
             R"("post_processor":{"type":"TemplateProcessing","single":[{"Sequence":{"id":"A","type_id":0}}],"pair":[],"special_tokens":{}})"));
    CHECK(t.split("he 42") == Pieces{"he", "\xC4\xA0", "4", "2"});
  }
}

TEST_CASE("byte-level BPE saves as tokenizer.json and loads again, alone and with a model", "[tokenizer][bpe]") {
  const std::string smollm2 = R"({"type":"Sequence","pretokenizers":[{"type":"Digits","individual_digits":true},)" + kByteLevel + "]}";
  const Tokenizer t = Tokenizer::from_hf_json(
      bpe_json({"he", "ll"}, R"(["h e", "l l"])", R"([{"id":258,"content":"<|im_end|>","special":true,"normalized":false}])", smollm2));
  const std::string saved = t.to_json();
  const Tokenizer back = Tokenizer::from_json(saved);
  CHECK(back.kind() == TokenizerKind::byte_bpe);
  CHECK(back.to_json() == saved);
  CHECK(back.size() == t.size());
  for (int id = 0; id < t.size(); ++id) CHECK(back.token(id) == t.token(id));
  CHECK(back.special_tokens() == t.special_tokens());
  const std::string text = "hello 2024<|im_end|>\n";
  CHECK(back.encode(text) == t.encode(text));
  const ModelConfig config = ModelConfig::Builder(Architecture::decoder_only, t.size(), 8).width(8, 1).ffn(8).layers(1).build();
  const auto dir = std::filesystem::temp_directory_path() / "attnlab-model-byte-bpe";
  std::filesystem::create_directories(dir);
  save_model_dir(dir.string(), Transformer::random(config, 3), t);
  const LoadedModel loaded = load_model_dir(dir.string());
  CHECK(loaded.tokenizer.kind() == TokenizerKind::byte_bpe);
  CHECK(loaded.tokenizer.encode(text) == t.encode(text));
  CHECK(loaded.tokenizer.decode(t.encode(text)) == text);
}

TEST_CASE("GPT-2's tokenizer, derived from js-tiktoken's ranks", "[tokenizer][bpe]") {
  const std::string json = file_text(ATTNLAB_GPT2_TOKENIZER);
  INFO("scripts/build.sh writes " ATTNLAB_GPT2_TOKENIZER " (scripts/gpt2-tokenizer.mjs)");
  REQUIRE_FALSE(json.empty());
  const Tokenizer gpt2 = Tokenizer::from_hf_json(json, 50257);
  CHECK(gpt2.size() == 50257);
  CHECK(gpt2.encode("Hello world") == std::vector<int>{15496, 995});
  CHECK(gpt2.split(" the") == Pieces{"\xC4\xA0the"});
  CHECK(gpt2.encode(" the") == std::vector<int>{262});
  CHECK(gpt2.special_tokens() == std::vector<std::pair<std::string, int>>{{"<|endoftext|>", 50256}});
  CHECK(gpt2.encode("a<|endoftext|>b") == std::vector<int>{64, 50256, 65});
  SECTION("its vocab.json and merges.txt read the same") {
    const nlohmann::json j = nlohmann::json::parse(json);
    std::string merges = "#version: 0.2\n";
    for (const auto& m : j["model"]["merges"]) merges += m[0].get<std::string>() + " " + m[1].get<std::string>() + "\n";
    const Tokenizer files = Tokenizer::from_vocab_merges(j["model"]["vocab"].dump(), merges, 50257);
    CHECK(files.special_tokens() == gpt2.special_tokens());
    const std::string text = "The quick brown fox's 123 jumps\n\n  over <|endoftext|> caf\xC3\xA9!";
    CHECK(files.encode(text) == gpt2.encode(text));
    std::string refused = "no error";
    try {
      Tokenizer::from_vocab_merges(j["model"]["vocab"].dump(), "#version: 0.2\na\n");
    } catch (const Error& e) {
      refused = e.what();
    }
    CHECK_THAT(refused, Catch::Contains("merges.txt: line 2 (\"a\") is not two pieces separated by a space"));
  }
  SECTION("a mebibyte of text encodes in well under a second, and decodes to itself") {
    const std::string corpus = file_text(ATTNLAB_SOURCE_DIR "/src/train/corpus/fortunes-min/fortunes");
    REQUIRE(corpus.size() > 1000);
    std::string text;
    while (text.size() < (1 << 20)) text += corpus;
    const auto start = std::chrono::steady_clock::now();
    const std::vector<int> ids = gpt2.encode(text);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    WARN("1 MiB: " << ids.size() << " tokens in " << seconds << " s");
    CHECK(gpt2.decode(ids) == text);
#if !defined(__EMSCRIPTEN__) && !defined(ATTNLAB_SANITIZED)
    CHECK(seconds < 0.5);
#endif
  }
}
