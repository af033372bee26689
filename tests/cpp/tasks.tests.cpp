#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <set>

#include "core/check.hpp"
#include "core/cross_entropy.hpp"
#include "model/params.hpp"
#include "train/tasks.hpp"
#ifdef ATTNLAB_EMBEDDED_CORPUS
#include "train/corpus.hpp"
#endif

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
    CHECK(mat.adjective == 9);
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
  SECTION("a training example masks words as BERT's do; \"it\" asks for its referent while the cues are seen") {
    Rng rng(4);
    double others = 0, asked = 0, masked = 0, kept = 0, referent_asked = 0, referent_seen = 0;
    for (int k = 0; k < 3000; ++k) {
      const auto s = task.sentence(Split::train, rng);
      const Example e = task.masked_example_of(s, rng);
      REQUIRE(e.tokens.size() == s.tokens.size());
      const auto seen = [&](Index i) { return e.tokens[static_cast<size_t>(i)] == s.tokens[static_cast<size_t>(i)]; };
      CHECK(seen(s.pronoun));
      for (size_t i = 0; i < e.tokens.size(); ++i) {
        if (static_cast<Index>(i) == s.pronoun) continue;
        others += 1;
        // a word is changed only when it is asked for, and then its own word is the target
        if (e.targets[i] < 0) {
          CHECK(e.tokens[i] == s.tokens[i]);
          continue;
        }
        CHECK(e.targets[i] == s.tokens[i]);
        asked += 1;
        if (e.tokens[i] == Tokenizer::kMask) masked += 1;
        if (e.tokens[i] == s.tokens[i]) kept += 1;
      }
      const bool cues_seen = seen(s.referent) && seen(s.adjective);
      referent_seen += cues_seen;
      const int it = e.targets[static_cast<size_t>(s.pronoun)];
      CHECK(it == (cues_seen ? s.tokens[static_cast<size_t>(s.referent)] : -1));
      referent_asked += it >= 0;
    }
    CHECK(asked / others == Approx(0.15).margin(0.01));
    CHECK(masked / asked == Approx(0.8).margin(0.03));
    // left as they are: 10 %, and a random word that happens to be the same
    CHECK(kept / asked == Approx(0.1).margin(0.03));
    CHECK(referent_asked == referent_seen);
    CHECK(referent_asked / 3000 > 0.65);
  }
  SECTION("a held-out example is the whole sentence, asking for the referent only") {
    Rng a(9), b(9);
    for (int k = 0; k < 50; ++k) {
      const Example e = task.example(Split::held_out, a);
      const Example whole = task.example_of(task.sentence(Split::held_out, b));
      CHECK(e.tokens == whole.tokens);
      CHECK(e.targets == whole.targets);
    }
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

TEST_CASE("letter tasks for an encoder-decoder", "[tasks]") {
  const LetterSeq2SeqTask reverse(LetterSequenceTask::Kind::reverse);
  const auto letters_of = [&](const std::vector<int>& ids) { return reverse.tokenizer().decode(ids); };
  SECTION("the encoder reads x, the decoder reads [BOS] y and predicts y [EOS]") {
    Rng rng(1);
    for (int i = 0; i < 200; ++i) {
      const Example e = reverse.example(Split::train, rng);
      const std::string x = letters_of(e.source);
      REQUIRE(x.size() >= 2);
      REQUIRE(x.size() <= 8);
      CHECK_FALSE(LetterSequenceTask::held_out(x));
      REQUIRE(e.tokens.size() == x.size() + 1);
      CHECK(e.tokens.front() == Tokenizer::kBos);
      CHECK(letters_of({e.tokens.begin() + 1, e.tokens.end()}) == reverse.transform(x));
      REQUIRE(e.targets.size() == x.size() + 1);
      CHECK(letters_of({e.targets.begin(), e.targets.end() - 1}) == reverse.transform(x));
      CHECK(e.targets.back() == Tokenizer::kEos);
    }
  }
  SECTION("its held-out inputs are those of the decoder-only task, drawn the same way") {
    const LetterSequenceTask decoder_only(LetterSequenceTask::Kind::reverse);
    Rng a(4), b(4);
    for (int i = 0; i < 100; ++i) {
      const std::string x = letters_of(reverse.example(Split::held_out, a).source);
      CHECK(LetterSequenceTask::held_out(x));
      CHECK(x == decoder_only.letters(Split::held_out, b));
    }
  }
  SECTION("a small encoder-decoder whose context holds a whole output, and an untrained one solves nothing") {
    const ModelConfig c = reverse.model_config();
    CHECK(reverse.name() == "reverse-seq2seq");
    CHECK(c.architecture == Architecture::encoder_decoder);
    CHECK(c.n_ctx == 8 + 2);
    CHECK(parameter_bytes(c) / sizeof(float) <= 150000);
    CHECK(held_out_accuracy(reverse, Transformer::random(c, 1), 50, 1) == 0.0);
  }
}

namespace {

// documents "0: … the quick brown fox …", "1: …", …: enough text for both splits
std::vector<std::string> numbered_documents(int count) {
  std::vector<std::string> documents;
  for (int i = 0; i < count; ++i)
    documents.push_back(std::to_string(i) + ": the quick brown fox jumps over the lazy dog " + std::to_string(i * i));
  return documents;
}

}  // namespace

TEST_CASE("next-character prediction", "[tasks]") {
  SECTION("fortune files are split at lines holding only %") {
    CHECK(LanguageModelTask::fortune_entries("One.\n%\nTwo\n\tlines.\n%\n%\n100% sure\n%\n") ==
          std::vector<std::string>{"One.", "Two\n\tlines.", "100% sure"});
    CHECK(LanguageModelTask::fortune_entries("no final mark\n\nat all") == std::vector<std::string>{"no final mark\n\nat all"});
    CHECK(LanguageModelTask::fortune_entries("%\n%\n").empty());
  }
  const std::vector<std::string> documents = numbered_documents(400);
  const LanguageModelTask task("numbers", documents, 16);
  SECTION("about a tenth of the documents are held out") {
    int held = 0;
    for (const std::string& d : documents) held += LanguageModelTask::held_out(d);
    CHECK(held > 400 / 10 - 15);
    CHECK(held < 400 / 10 + 15);
  }
  SECTION("each split's stream is its documents in order, each followed by [EOS]") {
    std::string train, held_out;
    for (const std::string& d : documents) (LanguageModelTask::held_out(d) ? held_out : train) += d + "[EOS]";
    CHECK(task.tokenizer().decode(task.stream(Split::train)) == train);
    CHECK(task.tokenizer().decode(task.stream(Split::held_out)) == held_out);
    CHECK(task.tokenizer().kind() == TokenizerKind::character);
    CHECK(task.tokenizer().token(6) == "0");  // first seen
    CHECK(task.tokenizer().token(7) == ":");
  }
  SECTION("an example is [BOS] and a window of the split's stream; each position predicts the next token") {
    Rng rng(8);
    for (const Split split : {Split::train, Split::held_out}) {
      const std::vector<int>& stream = task.stream(split);
      for (int i = 0; i < 100; ++i) {
        const Example e = task.example(split, rng);
        REQUIRE(e.tokens.size() == 16);
        REQUIRE(e.targets.size() == 16);
        CHECK(e.source.empty());
        CHECK(e.tokens.front() == Tokenizer::kBos);
        CHECK(std::equal(e.tokens.begin() + 1, e.tokens.end(), e.targets.begin()));
        CHECK(std::search(stream.begin(), stream.end(), e.targets.begin(), e.targets.end()) != stream.end());
      }
    }
  }
  // the task's model made smaller (its context is the window of 16 already)
  const ModelConfig small = ModelConfig::Builder(task.model_config()).width(16, 4).ffn(32).layers(1).build();
  SECTION("solved: the argmax after the whole window is the next character") {
    const Transformer model = Transformer::random(small, 3);
    Rng rng(9);
    Example e = task.example(Split::held_out, rng);
    const Matrix logits = model.forward(e.tokens);
    Index best = 0;
    logits.row(logits.rows() - 1).maxCoeff(&best);
    e.targets.back() = static_cast<int>(best);
    CHECK(task.solved(model, e));
    e.targets.back() = static_cast<int>((best + 1) % small.vocab_size);
    CHECK_FALSE(task.solved(model, e));
  }
  SECTION("held_out_loss is the mean cross-entropy over every target of the held-out examples") {
    const Transformer model = Transformer::random(small, 4);
    Rng rng(11);
    double loss_sum = 0;
    Index targets = 0;
    for (int i = 0; i < 20; ++i) {
      const Example e = task.example(Split::held_out, rng);
      const CrossEntropy ce = cross_entropy_forward(model.forward(e.tokens), e.targets);
      loss_sum += ce.loss_sum;
      targets += ce.targets;
    }
    CHECK(targets == 20 * 16);
    const double loss = held_out_loss(task, model, 20, 11);
    CHECK_THAT(loss, Catch::Matchers::WithinRel(loss_sum / static_cast<double>(targets), 1e-6));
    // an untrained model is near uniform over the vocabulary
    CHECK_THAT(loss, Catch::Matchers::WithinAbs(std::log(static_cast<double>(small.vocab_size)), 0.5));
  }
  SECTION("too little text for a window is refused") {
    CHECK_THROWS_WITH(LanguageModelTask("tiny", numbered_documents(3), 16), Catch::Contains("fewer than a window of 16"));
    CHECK_THROWS_WITH(LanguageModelTask("short", documents, 1), Catch::Contains("context"));
  }
}

#ifdef ATTNLAB_EMBEDDED_CORPUS
TEST_CASE("the fortunes corpus is compiled in, byte for byte", "[tasks]") {
  const std::vector<std::string> files = fortunes_min_files();
  REQUIRE(files.size() == 3);
  CHECK(files[0].size() == 24516);
  CHECK(files[1].size() == 53589);
  CHECK(files[2].size() == 20294);
  CHECK(files[0].rfind("A day for firm decisions!!!!!  Or is it?\n%\n", 0) == 0);
  const std::unique_ptr<Task> task = make_task("fortunes");
  const auto& fortunes = dynamic_cast<const LanguageModelTask&>(*task);
  std::size_t documents = 0, held_out = 0;
  for (const Split split : {Split::train, Split::held_out}) {
    const std::vector<int>& stream = fortunes.stream(split);
    (split == Split::train ? documents : held_out) += std::count(stream.begin(), stream.end(), Tokenizer::kEos);
  }
  documents += held_out;
  CHECK(documents == 431 + 262 + 128);  // the lines holding only "%" in the three files
  CHECK(held_out > documents / 20);
  CHECK(held_out < documents / 6);
  CHECK(fortunes.tokenizer().size() == 6 + 88);  // the specials and the characters the corpus uses
  CHECK(parameter_bytes(fortunes.model_config()) / sizeof(float) <= 500000);
}

TEST_CASE("the english task: fortunes in BPE pieces learnt from its training text, its training windows repeated", "[tasks]") {
  const std::vector<std::string> files = fortunes_files();
  REQUIRE(files.size() == 19);
  std::size_t bytes = 0;
  for (const std::string& file : files) bytes += file.size();
  CHECK(bytes == 1110426 - 3755);  // the folder without its COPYRIGHT
  const std::unique_ptr<Task> task = make_task("english");
  const auto& english = dynamic_cast<const LanguageModelTask&>(*task);
  const Tokenizer& pieces = english.tokenizer();
  CHECK(pieces.kind() == TokenizerKind::byte_bpe);
  CHECK(pieces.size() == 2048);
  CHECK(pieces.token(Tokenizer::kBos) == "[BOS]");
  CHECK(pieces.token(Tokenizer::kEos) == "[EOS]");
  CHECK(english.model_config().vocab_size == 2048);
  CHECK(parameter_bytes(english.model_config()) / sizeof(float) <= 300000);

  SECTION("both streams decode to their documents; a held-out document is read in pieces learnt without it") {
    for (const Split split : {Split::train, Split::held_out}) {
      const std::vector<int>& stream = english.stream(split);
      const std::string text = pieces.decode(stream);
      CHECK(text.find("[EOS]") != std::string::npos);
      // pieces of several bytes: 2.8 bytes a piece (the fortunes hold much white space and punctuation)
      CHECK(static_cast<double>(text.size()) / static_cast<double>(stream.size()) > 2.5);
    }
  }
  SECTION("every training window starts with a stretch written twice; held-out ones never") {
    Rng rng(5);
    // the longest L ≥ 8 with targets[0, L) = targets[L, 2L), or 0
    const auto repeated = [](const Example& e) {
      for (size_t length = e.targets.size() / 2; length >= LanguageModelTask::kShortestRepeat; --length)
        if (std::equal(e.targets.begin(), e.targets.begin() + static_cast<std::ptrdiff_t>(length),
                       e.targets.begin() + static_cast<std::ptrdiff_t>(length)))
          return length;
      return size_t{0};
    };
    std::set<size_t> lengths;
    for (int i = 0; i < 200; ++i) {
      const Example e = english.example(Split::train, rng);
      REQUIRE(e.tokens.size() == 128);
      CHECK(e.tokens.front() == Tokenizer::kBos);
      CHECK(std::equal(e.tokens.begin() + 1, e.tokens.end(), e.targets.begin()));
      const size_t length = repeated(e);
      CHECK(length >= 8);
      CHECK(length <= 63);
      lengths.insert(length);
    }
    CHECK(lengths.size() > 30);  // no fixed offset finds the earlier copy
    for (int i = 0; i < 100; ++i) CHECK(repeated(english.example(Split::held_out, rng)) == 0);
  }
}
#endif

TEST_CASE("random letters, repeated", "[tasks]") {
  const InductionTask task;
  const Tokenizer& tok = task.tokenizer();

  SECTION("[BOS] x x, every position predicting the next token, in two parts") {
    const Example e = task.example_of("abcA");
    CHECK(tok.decode(e.tokens) == "[BOS]abcAabcA");
    REQUIRE(e.targets.size() == e.tokens.size());
    for (size_t i = 0; i + 1 < e.tokens.size(); ++i) CHECK(e.targets[i] == e.tokens[i + 1]);
    CHECK(e.targets.back() == -1);
    // targets b c A (first copy), a (the repeat's first letter: unpredictable), then b c A of the repeat
    CHECK(e.parts == std::vector<int>{0, 0, 0, 0, 0, 1, 1, 1, -1});
    CHECK(task.part_names() == std::vector<std::string>{"first", "repeat"});
  }

  SECTION("lengths 8 to 20 over 52 letters, held-out sequences never trained on, the same for a seed") {
    Rng train(3), held_out(3), again(3);
    std::set<std::string> trained;
    for (int i = 0; i < 400; ++i) {
      const std::string x = task.letters(Split::train, train);
      CHECK(x.size() >= 8);
      CHECK(x.size() <= 20);
      for (char c : x) CHECK(std::isalpha(static_cast<unsigned char>(c)));
      CHECK(task.letters(Split::train, again) == x);
      trained.insert(x);
    }
    for (int i = 0; i < 100; ++i) CHECK(trained.count(task.letters(Split::held_out, held_out)) == 0);
    CHECK(tok.size() == 6 + 52);
  }

  const Transformer model = Transformer::random(task.model_config(), 5);

  SECTION("the loss of each part is the cross-entropy over its targets alone") {
    Rng rng(2026);
    std::vector<Example> examples;
    for (int i = 0; i < 3; ++i) examples.push_back(task.example(Split::held_out, rng));
    double sums[2] = {0, 0};
    Index counts[2] = {0, 0};
    for (const Example& e : examples) {
      const Matrix logits = model.forward(e.tokens);
      for (int part = 0; part < 2; ++part) {
        std::vector<int> targets = e.targets;
        for (size_t t = 0; t < targets.size(); ++t) if (e.parts[t] != part) targets[t] = -1;
        const CrossEntropy ce = cross_entropy_forward(logits, targets);
        sums[part] += ce.loss_sum;
        counts[part] += ce.targets;
      }
    }
    const std::vector<double> by_part = held_out_loss_by_part(task, model, 3, 2026);
    REQUIRE(by_part.size() == 2);
    CHECK_THAT(by_part[0], Catch::Matchers::WithinRel(sums[0] / counts[0], 1e-9));
    CHECK_THAT(by_part[1], Catch::Matchers::WithinRel(sums[1] / counts[1], 1e-9));
    // an untrained model spreads its bets over the whole vocabulary, specials included: both near ln 58
    CHECK_THAT(by_part[0], Catch::Matchers::WithinAbs(std::log(static_cast<double>(tok.size())), 0.05));
    CHECK_THAT(by_part[1], Catch::Matchers::WithinAbs(std::log(static_cast<double>(tok.size())), 0.05));
    CHECK_THROWS_WITH(held_out_loss_by_part(*make_task("copy"), Transformer::random(make_task("copy")->model_config(), 1), 2, 1),
                      Catch::Contains("has no parts"));
  }

  SECTION("prefix matching reads A[L + j, j + 1] from each head's attention") {
    Rng rng(2026);
    const Example e = task.example(Split::held_out, rng);
    ModelActivations kept;
    kept.detail = TraceDetail::for_backward;
    model.forward(e.tokens, &kept);
    const Index length = (static_cast<Index>(e.tokens.size()) - 1) / 2;
    const Matrix scores = task.prefix_matching(model, 1, 2026);
    REQUIRE(scores.rows() == 2);
    REQUIRE(scores.cols() == 4);
    for (Index layer = 0; layer < 2; ++layer)
      for (Index head = 0; head < 4; ++head) {
        const Matrix& w = kept.decoder.layers[static_cast<size_t>(layer)].attn.heads[static_cast<size_t>(head)].weights;
        double sum = 0;
        for (Index j = 1; j <= length; ++j) sum += w(length + j, j + 1);
        CHECK_THAT(scores(layer, head), Catch::Matchers::WithinAbs(sum / static_cast<double>(length), 1e-6));
        // untrained: far from an induction head
        CHECK(scores(layer, head) < 0.3);
      }
  }
}

TEST_CASE("make_task", "[tasks]") {
  for (const std::string& name : task_names()) {
#ifndef ATTNLAB_EMBEDDED_CORPUS
    if (name == "fortunes" || name == "english") {
      CHECK_THROWS_WITH(make_task(name), Catch::Contains("this build has none"));
      continue;
    }
#endif
    CHECK(make_task(name)->name() == name);
  }
  CHECK_THROWS_WITH(make_task("translate"),
                    Catch::Contains("choose copy, reverse, sort, coreference, reverse-seq2seq, induction, fortunes or english"));
}
