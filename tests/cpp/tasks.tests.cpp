#include <catch2/catch.hpp>
#include <set>

#include "core/check.hpp"
#include "train/tasks.hpp"

using namespace attnlab;

TEST_CASE("letter tasks", "[tasks]") {
  SECTION("copy, reverse and sort transform the letters") {
    CHECK(LetterSequenceTask(LetterSequenceTask::Kind::copy).transform("dbca") == "dbca");
    CHECK(LetterSequenceTask(LetterSequenceTask::Kind::reverse).transform("dbca") == "acbd");
    CHECK(LetterSequenceTask(LetterSequenceTask::Kind::sort).transform("dbcab") == "abbcd");
  }
  SECTION("[BOS] x [SEP] f(x) [EOS], with targets from [SEP] on") {
    const LetterSequenceTask sort(LetterSequenceTask::Kind::sort, 3, 5);
    Rng rng(1);
    for (int i = 0; i < 200; ++i) {
      const Example e = sort.example(Split::train, rng);
      const size_t k = (e.tokens.size() - 3) / 2;
      REQUIRE(e.tokens.size() == 2 * k + 3);
      CHECK(k >= 3);
      CHECK(k <= 5);
      CHECK(e.tokens.front() == Tokenizer::kBos);
      CHECK(e.tokens[k + 1] == Tokenizer::kSep);
      CHECK(e.tokens.back() == Tokenizer::kEos);
      std::string x, y;
      for (size_t j = 1; j <= k; ++j) x += sort.tokenizer().token(e.tokens[j]);
      for (size_t j = k + 2; j < 2 * k + 2; ++j) y += sort.tokenizer().token(e.tokens[j]);
      CHECK(y == sort.transform(x));
      CHECK_FALSE(LetterSequenceTask::held_out(x));
      for (size_t j = 0; j < e.targets.size(); ++j)
        CHECK(e.targets[j] == (j >= k + 1 && j + 1 < e.tokens.size() ? e.tokens[j + 1] : -1));
    }
  }
  SECTION("held-out inputs never appear in training, and are about an eighth of all inputs") {
    const LetterSequenceTask copy(LetterSequenceTask::Kind::copy);
    Rng rng(2);
    for (int i = 0; i < 300; ++i) {
      const Example e = copy.example(Split::held_out, rng);
      std::string x;
      for (size_t j = 1; e.tokens[j] != Tokenizer::kSep; ++j) x += copy.tokenizer().token(e.tokens[j]);
      CHECK(LetterSequenceTask::held_out(x));
    }
    int held = 0;
    for (char a = 'a'; a <= 'z'; ++a)
      for (char b = 'a'; b <= 'z'; ++b) held += LetterSequenceTask::held_out(std::string{a, b});
    CHECK(held > 676 / 8 - 30);
    CHECK(held < 676 / 8 + 30);
  }
  SECTION("the same seed gives the same examples") {
    const LetterSequenceTask reverse(LetterSequenceTask::Kind::reverse);
    Rng a(5), b(5);
    for (int i = 0; i < 20; ++i) CHECK(reverse.example(Split::train, a).tokens == reverse.example(Split::train, b).tokens);
  }
}

TEST_CASE("the coreference language", "[tasks]") {
  const CoreferenceTask task;
  SECTION("the seminar's sentences parse, and the adjective picks the referent") {
    const auto mat = task.parse("The cat sat on the mat because it was soft.");
    CHECK(mat.text == "the cat sat on the mat because it was soft");
    CHECK(mat.pronoun == 7);
    CHECK(mat.referent == 5);
    CHECK(mat.distractor == 1);
    const auto cat = task.parse("the cat sat on the mat because it was hungry");
    CHECK(cat.referent == 1);
    const auto dog = task.parse("the dog chased the ball because it was fast");
    CHECK(task.tokenizer().token(dog.tokens[static_cast<size_t>(dog.referent)]) == "dog");
    const auto thing_first = task.parse("the rock fell on the frog because it was too heavy");
    CHECK(task.tokenizer().token(thing_first.tokens[static_cast<size_t>(thing_first.referent)]) == "rock");
  }
  SECTION("text outside the language is refused with an example of what fits") {
    CHECK_THROWS_WITH(task.parse("the cat sat on the dog because it was soft"), Catch::Contains("not a sentence of the language"));
    CHECK_THROWS_WITH(task.parse(""), Catch::Contains("e.g. \"the cat sat"));
    CHECK_THROWS_AS(task.parse(std::string(5000, 'x')), Error);
  }
  SECTION("an example asks for the referent's word at the position of \"it\" only") {
    const Example e = task.example_of(task.parse("the dog chased the ball because it was fast"));
    for (size_t i = 0; i < e.targets.size(); ++i) CHECK(e.targets[i] == (i == 6 ? e.tokens[1] : -1));
  }
  SECTION("held-out (referent, adjective) pairs never occur in training; the seminar sentence is held out") {
    const auto pair = [&](const CoreferenceTask::Sentence& s) {
      return task.tokenizer().token(s.tokens[static_cast<size_t>(s.referent)]) + "/" +
             task.tokenizer().token(s.tokens.back());
    };
    Rng rng(3);
    std::set<std::string> train, held_out;
    std::set<std::string> templates;
    for (int i = 0; i < 4000; ++i) train.insert(pair(task.sentence(Split::train, rng)));
    for (int i = 0; i < 2000; ++i) {
      const auto s = task.sentence(Split::held_out, rng);
      held_out.insert(pair(s));
      templates.insert(std::to_string(s.tokens.size()) + ":" + std::to_string(s.referent));
    }
    for (const std::string& p : held_out) CHECK(train.count(p) == 0);
    CHECK(held_out.count("mat/soft") == 1);
    CHECK(held_out.count("cat/hungry") == 1);
    CHECK(train.size() == 192);  // three quarters of 2·16 nouns × 8 adjectives
    CHECK(held_out.size() == 64);
    CHECK(templates.size() >= 4);  // referents early and late, sentences of several lengths
  }
}

TEST_CASE("make_task", "[tasks]") {
  for (const std::string& name : task_names()) CHECK(make_task(name)->name() == name);
  CHECK_THROWS_WITH(make_task("translate"), Catch::Contains("choose copy, reverse, sort or coreference"));
}
