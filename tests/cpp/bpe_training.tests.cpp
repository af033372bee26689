#include <catch2/catch.hpp>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/check.hpp"
#include "core/random.hpp"
#include "io/bpe_training.hpp"
#include "io/byte_bpe.hpp"
#include "io/tokenizer.hpp"

using namespace attnlab;
using Pieces = std::vector<std::string>;
using Merges = std::vector<std::pair<std::string, std::string>>;

namespace {

BpeTrainingOptions options(Index vocab_size, std::vector<std::string> specials = {}) {
  BpeTrainingOptions o;
  o.vocab_size = vocab_size;
  o.special_tokens = std::move(specials);
  return o;
}

// the merges of a byte-level tokenizer, in rank order, as its tokenizer.json lists them
Merges merges_of(const Tokenizer& t) {
  const nlohmann::json tokenizer = nlohmann::json::parse(t.to_json());
  Merges merges;
  for (const auto& m : tokenizer["model"]["merges"]) merges.emplace_back(m[0], m[1]);
  return merges;
}

// the bytes the ids stand for, joined: decode() without its UTF-8 repair
std::string bytes_of(const Tokenizer& t, const std::vector<int>& ids) {
  std::string bytes;
  for (int id : ids) append_token_bytes(bytes, t.token(id));
  return bytes;
}

const std::vector<std::string> kEnglish = {
    "The cat sat on the mat because it was soft.", "The dog slept on the rug; the rug was warm.",
    "It is a truth universally acknowledged that the cat sat there.", "the theory of the thing, then the other thing",
    "Q:\tWhat is the answer?\nA:\tForty-two, the answer is forty-two."};

}  // namespace

TEST_CASE("BPE training learns the merges a hand count gives", "[bpe_training]") {
  SECTION("the most frequent pair first, until no pair occurs twice") {
    // pre-tokens "ab", " ab" twice, " abc": (a, b) 4 times, then (Ġ, ab) 3 times, then (Ġab, c) once
    const Tokenizer t = train_byte_bpe({"ab ab ab abc"}, options(4096));
    CHECK(merges_of(t) == Merges{{"a", "b"}, {"Ġ", "ab"}});
    CHECK(t.size() == 256 + 2);
    CHECK(t.token(256) == "ab");
    CHECK(t.token(257) == "Ġab");
    CHECK(t.split("ab abc") == Pieces{"ab", "Ġab", "c"});
  }
  SECTION("ties go to the pair whose pieces came first in the vocabulary") {
    // (a, b) and (c, d) twice each: "a" comes before "c" among the bytes
    CHECK(merges_of(train_byte_bpe({"ab", "cd", "cd", "ab"}, options(257))) == Merges{{"a", "b"}});
    CHECK(merges_of(train_byte_bpe({"cd", "ab", "ab", "cd"}, options(258))) == Merges{{"a", "b"}, {"c", "d"}});
    // (e, f) and (g, h) four times each, then (Ġ, ef) and (Ġ, gh) three times: "ef" was made first
    CHECK(merges_of(train_byte_bpe({"ef ef ef gh gh gh efgh"}, options(259))) == Merges{{"e", "f"}, {"g", "h"}, {"Ġ", "ef"}});
  }
  SECTION("the pieces never cross GPT-2's pre-token boundaries") {
    // the pre-tokens: "a" and "." alternating, " 1" twice, and "a" and "1" alternating
    CHECK(merges_of(train_byte_bpe({"a.a.a.a. 1a1a1a 1a1a"}, options(4096))) == Merges{{"Ġ", "1"}});
  }
  SECTION("the vocabulary stops at vocab_size, specials first, then the 256 bytes") {
    const Tokenizer t = train_byte_bpe(kEnglish, options(6 + 256 + 10, {"[PAD]", "[UNK]", "[BOS]", "[EOS]", "[MASK]", "[SEP]"}));
    CHECK(t.size() == 6 + 256 + 10);
    CHECK(t.token(Tokenizer::kBos) == "[BOS]");
    CHECK(t.token(6 + ' ') == "Ġ");
    CHECK(t.token(6 + 'a') == "a");
    CHECK(merges_of(t).size() == 10);
    const std::vector<int> ids = t.encode("[BOS]the");
    CHECK(ids.front() == Tokenizer::kBos);
    CHECK(t.decode({ids.begin() + 1, ids.end()}) == "the");
    const std::vector<std::pair<std::string, int>> specials = t.special_tokens();
    REQUIRE(specials.size() == 6);
    CHECK(specials[3] == std::pair<std::string, int>{"[EOS]", 3});
  }
  SECTION("bad options are refused by name") {
    CHECK_THROWS_WITH(train_byte_bpe(kEnglish, options(100)), Catch::Contains("between 256"));
    CHECK_THROWS_WITH(train_byte_bpe(kEnglish, options(300, {"[BOS]", "[BOS]"})), Catch::Contains("distinct"));
    BpeTrainingOptions never = options(300);
    never.min_count = 0;
    CHECK_THROWS_WITH(train_byte_bpe(kEnglish, never), Catch::Contains("at least 1"));
  }
}

TEST_CASE("a learnt BPE vocabulary round-trips any bytes", "[bpe_training]") {
  const Tokenizer t = train_byte_bpe(kEnglish, options(6 + 256 + 60, {"[PAD]", "[UNK]", "[BOS]", "[EOS]", "[MASK]", "[SEP]"}));
  SECTION("text: decode(encode(x)) = x") {
    for (const std::string& text : kEnglish) CHECK(t.decode(t.encode(text)) == text);
    for (const std::string text : {"", " ", "\n\n\t  x", "caf\xC3\xA9 \xF0\x9F\x90\x88", "[BOS] the [EOS]", "don't 1234567"})
      CHECK(t.decode(t.encode(text)) == text);
  }
  SECTION("random bytes, invalid UTF-8 and NULs among them: the ids' bytes are the input") {
    Rng rng(11);
    for (int trial = 0; trial < 200; ++trial) {
      std::string bytes;
      const std::uint32_t length = rng.below(40);
      for (std::uint32_t i = 0; i < length; ++i) {
        // half the bytes from a small alphabet, so that merges apply
        bytes += static_cast<char>(rng.below(2) ? "the at\n"[rng.below(7)] : rng.below(256));
      }
      CHECK(bytes_of(t, t.encode(bytes)) == bytes);
    }
  }
  SECTION("the tokenizer.json written is read back as the same tokenizer") {
    const Tokenizer back = Tokenizer::from_json(t.to_json(), t.size());
    CHECK(back.to_json() == t.to_json());
    CHECK(back.encode(kEnglish[2]) == t.encode(kEnglish[2]));
  }
}

TEST_CASE("BPE training is deterministic: the texts' order does not matter", "[bpe_training]") {
  std::vector<std::string> shuffled(kEnglish.rbegin(), kEnglish.rend());
  std::rotate(shuffled.begin(), shuffled.begin() + 2, shuffled.end());
  const Tokenizer a = train_byte_bpe(kEnglish, options(400)), b = train_byte_bpe(shuffled, options(400));
  CHECK(a.to_json() == b.to_json());
  CHECK(a.to_json() == train_byte_bpe(kEnglish, options(400)).to_json());
}
