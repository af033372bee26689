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
