#include <catch2/catch.hpp>
#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/check.hpp"
#include "model/rasp.hpp"
#include "model/trace.hpp"
#include "model/transformer.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;
using Catch::Matchers::Contains;

namespace {

// the programs' answers by plain C++, one label a character
std::vector<std::string> reference(const std::string& program, const std::string& text) {
  std::vector<std::string> out;
  if (program == "reverse") {
    for (auto c = text.rbegin(); c != text.rend(); ++c) out.emplace_back(1, *c);
  } else if (program == "histogram") {
    for (char c : text) out.push_back(std::to_string(std::count(text.begin(), text.end(), c)));
  } else {
    std::string sorted = text;
    std::stable_sort(sorted.begin(), sorted.end());
    for (char c : sorted) out.emplace_back(1, c);
  }
  return out;
}

// every text over `letters` of 1 … max_length characters
std::vector<std::string> all_texts(const std::string& letters, size_t max_length) {
  std::vector<std::string> texts, last = {""};
  for (size_t length = 1; length <= max_length; ++length) {
    std::vector<std::string> next;
    for (const std::string& t : last)
      for (char c : letters) next.push_back(t + c);
    texts.insert(texts.end(), next.begin(), next.end());
    last = std::move(next);
  }
  return texts;
}

std::vector<std::string> random_texts(unsigned seed, int count, size_t max_length) {
  std::mt19937 rng(seed);
  std::vector<std::string> texts;
  for (int i = 0; i < count; ++i) {
    std::string t(1 + rng() % max_length, 'a');
    for (char& c : t) c = static_cast<char>('a' + rng() % 26);
    texts.push_back(t);
  }
  return texts;
}

// the model's answer: argmax of the logits at each character's position (after [BOS])
std::vector<std::string> decoded(const CompiledRasp& compiled, const Matrix& logits) {
  std::vector<std::string> out;
  for (Index i = 1; i < logits.rows(); ++i) {
    Index best = 0;
    logits.row(i).maxCoeff(&best);
    out.push_back(compiled.vocabulary[static_cast<size_t>(best)]);
  }
  return out;
}

struct Checked {
  double worst_pattern = 0;  // the largest |attention − select pattern| over every head and text
  int texts = 0;
};

// runs every text through the compiled model: its output must be the reference's exactly, and
// each program head's attention (rows of the characters) the program's select pattern
Checked check_texts(const CompiledRasp& compiled, const Transformer& model, const std::vector<std::string>& texts) {
  Checked checked;
  for (const std::string& text : texts) {
    ModelActivations kept;
    const Matrix logits = model.forward(rasp_tokens(compiled.program, text), &kept);
    const std::vector<std::string> expected = reference(compiled.program.name, text);
    INFO(compiled.program.name << " of \"" << text << "\"");
    REQUIRE(decoded(compiled, logits) == expected);
    const RaspRun run = run_rasp(compiled.program, text);
    REQUIRE(run.output == expected);
    const Trace trace(kept);
    for (size_t h = 0; h < compiled.program.heads.size(); ++h) {
      const RaspHead& head = compiled.program.heads[h];
      const Matrix& weights = trace.get("layer" + std::to_string(head.layer) + ".attn.head" + std::to_string(head.head) + ".weights");
      const Matrix rows_of_text = weights.bottomRows(weights.rows() - 1);
      checked.worst_pattern = std::max(checked.worst_pattern, double((rows_of_text - run.patterns[h]).cwiseAbs().maxCoeff()));
    }
    ++checked.texts;
  }
  return checked;
}

}  // namespace

TEST_CASE("rasp: compiled programs give the reference's answer and attend as their selects", "[rasp]") {
  for (const std::string& name : rasp_program_names()) {
    DYNAMIC_SECTION(name) {
      const CompiledRasp compiled = compile_rasp(rasp_program(name));
      const Transformer model(compiled.config, compiled.params);

      SECTION("every text over a, b, z of up to 7 letters (ties, repeats, both ends of the alphabet)") {
        const Checked c = check_texts(compiled, model, all_texts("abz", 7));
        CHECK(c.texts == 3279);
        CHECK(c.worst_pattern < 1e-6);
      }
      SECTION("random texts of 1 … 10 letters a–z, and the longest of one letter and of ten distinct ones") {
        std::vector<std::string> texts = random_texts(2026, 3000, 10);
        texts.insert(texts.end(), {"aaaaaaaaaa", "zzzzzzzzzz", "jihgfedcba", "abcdefghij", "zyxwvutsrq", "q"});
        const Checked c = check_texts(compiled, model, texts);
        CHECK(c.texts == 3006);
        CHECK(c.worst_pattern < 1e-6);
      }
    }
  }
}

TEST_CASE("rasp: the select patterns as the program defines them", "[rasp]") {
  SECTION("reverse: each character selects the one as far from the end as it is from the start") {
    const RaspRun run = run_rasp(rasp_program("reverse"), "abc");
    // heads: length's SelectorWidth (BOS and all three), then the flip
    CHECK_THAT(run.patterns[0], IsNear(Matrix(Matrix::Constant(3, 4, 0.25f)), 1e-7));
    CHECK_THAT(run.patterns[1], IsNear(rows({{0, 0, 0, 1}, {0, 0, 1, 0}, {0, 1, 0, 0}}), 0));
    CHECK(run.values.at("length") == std::vector<double>{3, 3, 3});
    CHECK(run.values.at("opp") == std::vector<double>{2, 1, 0});
  }
  SECTION("histogram: each character selects its equals, and BOS") {
    const RaspRun run = run_rasp(rasp_program("histogram"), "aba");
    const float third = 1.0f / 3;
    CHECK_THAT(run.patterns[0], IsNear(rows({{third, third, 0, third}, {0.5f, 0, 0.5f, 0}, {third, third, 0, third}}), 1e-7));
    CHECK(run.output == std::vector<std::string>{"2", "1", "2"});
  }
  SECTION("sort: smaller letters, then equal letters earlier in the text; position by position the one that lands there") {
    const RaspRun run = run_rasp(rasp_program("sort"), "bab");
    CHECK(run.values.at("smaller") == std::vector<double>{1, 0, 1});
    CHECK(run.values.at("ties") == std::vector<double>{0, 0, 1});
    CHECK(run.values.at("position") == std::vector<double>{1, 0, 2});
    // ties: the second b selects the first b only
    CHECK_THAT(run.patterns[1], IsNear(rows({{1, 0, 0, 0}, {1, 0, 0, 0}, {0.5f, 0.5f, 0, 0}}), 1e-7));
    // sorted: position 0 reads the a, 1 the first b, 2 the second b
    CHECK_THAT(run.patterns[2], IsNear(rows({{0, 0, 1, 0}, {0, 1, 0, 0}, {0, 0, 0, 1}}), 0));
    CHECK(run.output == std::vector<std::string>{"a", "b", "b"});
  }
}

TEST_CASE("rasp: the compiled model is an ordinary engine model laid out in named subspaces", "[rasp]") {
  const CompiledRasp compiled = compile_rasp(rasp_program("sort"));
  const ModelConfig& c = compiled.config;
  CHECK(c.architecture == Architecture::encoder_only);
  CHECK(c.norm == Norm::none);
  CHECK_FALSE(c.final_norm);
  CHECK(c.positional == Positional::learned);
  CHECK(c.activation == Activation::relu);
  CHECK_FALSE(c.tie_embeddings);
  CHECK(c.n_layers == 3);
  CHECK(c.n_heads == 2);
  CHECK(c.n_ctx == 11);

  SECTION("the subspaces tile the residual stream, BOS's flag first") {
    Index next = 0;
    for (const RaspSubspace& s : compiled.layout) {
      CHECK(s.offset == next);
      CHECK(static_cast<Index>(s.labels.size()) == s.width);
      next += s.width;
    }
    CHECK(next == c.d_model);
    CHECK(compiled.layout.front().name == "bos");
    CHECK(compiled.subspace("tokens").width == 26);
    CHECK(compiled.subspace("position").labels.back() == "9");
    CHECK_THROWS_WITH(compiled.subspace("nothing"), Contains("no subspace nothing"));
  }
  SECTION("[BOS] and the letters are tokens of its vocabulary; histogram adds its counts") {
    CHECK(rasp_tokens(compiled.program, "ba") == std::vector<int>{2, 7, 6});
    CHECK(compiled.vocabulary.size() == 6 + 26);
    const CompiledRasp histogram = compile_rasp(rasp_program("histogram"));
    CHECK(histogram.vocabulary.size() == 6 + 26 + 10);
    CHECK(histogram.vocabulary.back() == "10");
  }
  SECTION("a head reads only the subspaces of its select: W_Q·W_Kᵀ is β times the truth table") {
    const Index dk = c.d_model / c.n_heads;
    const Matrix& w = compiled.params.encoder.h[0].attn.c_attn_weight;
    const Matrix bilinear = w.middleCols(0, dk) * w.middleCols(c.d_model, dk).transpose();  // head 0: smaller
    const RaspSubspace& tokens = compiled.subspace("tokens");
    for (Index q = 0; q < 26; ++q)
      for (Index k = 0; k < 26; ++k)
        CHECK(bilinear(tokens.offset + q, tokens.offset + k) == (k < q ? compiled.beta : 0));
    CHECK(bilinear.cwiseAbs().sum() == Approx(compiled.beta * 325));  // 26·25/2 pairs, nothing else
  }
}

TEST_CASE("rasp: bad input is refused with the reason", "[rasp][errors]") {
  const CompiledRasp compiled = compile_rasp(rasp_program("reverse"));
  CHECK_THROWS_WITH(rasp_program("copy"), Contains("no program named \"copy\" (there are reverse, histogram and sort)"));
  CHECK_THROWS_WITH(rasp_tokens(compiled.program, "abcdefghijk"), Contains("reverse reads at most 10 letters, got 11"));
  CHECK_THROWS_WITH(rasp_tokens(compiled.program, "abC"), Contains("letters a–z only; \"C\" (character 3) is not one of them"));
  CHECK_THROWS_WITH(rasp_tokens(compiled.program, "aé"), Contains("\"é\" (character 2)"));
  CHECK_THROWS_WITH(run_rasp(compiled.program, "a b"), Contains("\" \" (character 2)"));
  CHECK(rasp_tokens(compiled.program, "") == std::vector<int>{2});
}
