#include <catch2/catch.hpp>

#include "core/check.hpp"
#include "io/tokenizer.hpp"

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
