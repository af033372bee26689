// The demo models the page ships (web/public/models), held to the bars they were trained for.
#include <catch2/catch.hpp>

#include "io/model_file.hpp"
#include "train/tasks.hpp"

using namespace attnlab;

namespace {
const std::string kModels = ATTNLAB_MODELS_DIR;
}

TEST_CASE("the coreference model resolves \"it\" in held-out sentences", "[trained]") {
  const LoadedModel loaded = load_model_dir(kModels + "/coreference");
  const CoreferenceTask task;
  CHECK(loaded.tokenizer.to_json() == task.tokenizer().to_json());

  SECTION("at least 95 % of 1000 held-out sentences") {
    const double accuracy = held_out_accuracy(task, loaded.model, 1000, 2026);
    INFO("held-out accuracy " << accuracy);
    CHECK(accuracy >= 0.95);
  }
  SECTION("layer 1, head 0: \"it\" puts at least half its attention on the referent in ≥ 90 % of them") {
    Rng rng(2026);
    std::vector<CoreferenceTask::Sentence> sentences;
    for (int i = 0; i < 1000; ++i) sentences.push_back(task.sentence(Split::held_out, rng));
    const auto scores = task.referent_attention(loaded.model, sentences);
    const auto head = std::find_if(scores.begin(), scores.end(), [](const auto& s) { return s.layer == 1 && s.head == 0; });
    REQUIRE(head != scores.end());
    INFO("layer 1 head 0: " << head->share);
    CHECK(head->share >= 0.9);
    // from "it", layer 0 spreads out over the sentence rather than looking at the referent
    for (const auto& s : scores)
      if (s.layer == 0) CHECK(s.share < 0.5);
  }
  SECTION("the seminar's sentence, and its twin with the other adjective") {
    for (const auto& [text, expected] : {std::pair{"The cat sat on the mat because it was soft.", "mat"},
                                         std::pair{"The cat sat on the mat because it was hungry.", "cat"}}) {
      const CoreferenceTask::Sentence s = task.parse(text);
      Trace trace;
      const Matrix logits = loaded.model.forward(s.tokens, &trace);
      Index best = 0;
      logits.row(s.pronoun).maxCoeff(&best);
      CHECK(loaded.tokenizer.token(static_cast<int>(best)) == expected);
      CHECK(trace.get("layer1.attn.head0.weights")(s.pronoun, s.referent) >= 0.5f);
    }
  }
}

TEST_CASE("the sort model sorts held-out letter strings exactly", "[trained]") {
  const LoadedModel loaded = load_model_dir(kModels + "/sort");
  const LetterSequenceTask task(LetterSequenceTask::Kind::sort);
  CHECK(loaded.tokenizer.to_json() == task.tokenizer().to_json());
  const double accuracy = held_out_accuracy(task, loaded.model, 1000, 2026);
  INFO("held-out exact-match accuracy " << accuracy);
  CHECK(accuracy >= 0.99);
}
