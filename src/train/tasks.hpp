#pragma once
// Training data the engine generates itself, seeded, no downloads: copy, reverse and sort a short
// string of letters (decoder-only), and a toy coreference language (encoder-only) in which the
// adjective decides which noun "it" means. Every task keeps some inputs out of training (held out)
// to measure generalisation.
#include <memory>
#include <string>
#include <vector>

#include "core/random.hpp"
#include "io/tokenizer.hpp"
#include "model/config.hpp"
#include "model/transformer.hpp"
#include "train/schedule.hpp"

namespace attnlab {

// One training sequence: the model reads tokens and, at position i, should predict targets[i]
// (−1 where nothing is asked).
struct Example {
  std::vector<int> tokens;
  std::vector<int> targets;
};

enum class Split { train, held_out };

// The training settings a task's demo model is trained with (see Trainer).
struct TrainingOptions {
  Index batch_size = 32;
  LearningRateSchedule schedule;  // its total_steps is the length of a full run
  float weight_decay = 0.01f;
  float beta1 = 0.9f, beta2 = 0.99f;
  float clip_norm = 1.0f;
  std::uint32_t seed = 1;         // model initialisation and the stream of examples
  // throws attnlab::Error naming the first bad setting
  void validate() const;
};

class Task {
 public:
  virtual ~Task() = default;
  virtual std::string name() const = 0;
  virtual const Tokenizer& tokenizer() const = 0;
  // the model the task's demo is trained on, and how
  virtual ModelConfig model_config() const = 0;
  virtual TrainingOptions training_options() const = 0;
  // a random example from one split
  virtual Example example(Split split, Rng& rng) const = 0;
  // whether a model gets the example entirely right (the exact output, or the right referent)
  virtual bool solved(const Transformer& model, const Example& example) const = 0;
};

// share of `count` held-out examples (drawn from seed) that the model solves; examples run in parallel
double held_out_accuracy(const Task& task, const Transformer& model, Index count, std::uint32_t seed);

// "copy" | "reverse" | "sort" | "coreference"; anything else is an error naming the choices
std::unique_ptr<Task> make_task(const std::string& name);
std::vector<std::string> task_names();

// [BOS] x₁…x_k [SEP] y₁…y_k [EOS] with y = f(x) over the letters a–z, k in [min_length, max_length];
// targets are the tokens after [SEP]. An input is held out when its hash falls in one of 8 buckets.
class LetterSequenceTask : public Task {
 public:
  enum class Kind { copy, reverse, sort };
  explicit LetterSequenceTask(Kind kind, Index min_length = 2, Index max_length = 8);

  std::string name() const override;
  const Tokenizer& tokenizer() const override { return tokenizer_; }
  ModelConfig model_config() const override;
  TrainingOptions training_options() const override;
  Example example(Split split, Rng& rng) const override;
  bool solved(const Transformer& model, const Example& example) const override;

  // y = f(x)   letters → letters
  std::string transform(const std::string& letters) const;
  static bool held_out(const std::string& letters);

 private:
  Kind kind_;
  Index min_length_, max_length_;
  Tokenizer tokenizer_;
};

// "the cat sat on the mat because it was soft": two nouns, one animal and one thing, in one of many
// templates, then "it was <adjective>". Adjectives of animals (hungry, tired, …) make "it" the
// animal, adjectives of things (soft, broken, …) the thing. The model (encoder-only) predicts the
// referent's word at the position of "it". Held out: a quarter of the (referent, adjective) pairs,
// among them (mat, soft) and (cat, hungry), so the seminar's sentences are never trained on.
class CoreferenceTask : public Task {
 public:
  struct Sentence {
    std::string text;
    std::vector<int> tokens;
    Index pronoun = 0;     // position of "it"
    Index referent = 0;    // position of the noun "it" means
    Index distractor = 0;  // position of the other noun
  };

  CoreferenceTask();
  std::string name() const override { return "coreference"; }
  const Tokenizer& tokenizer() const override { return tokenizer_; }
  ModelConfig model_config() const override;
  TrainingOptions training_options() const override;
  Example example(Split split, Rng& rng) const override;
  bool solved(const Transformer& model, const Example& example) const override;

  Sentence sentence(Split split, Rng& rng) const;
  // reads any sentence of the language ("The cat sat on the mat because it was soft"); throws
  // attnlab::Error when it is not one
  Sentence parse(const std::string& text) const;
  Example example_of(const Sentence& sentence) const;

  // For every layer and head: the share of the sentences in which "it" puts at least `threshold`
  // of its attention on its referent.
  struct HeadScore {
    Index layer = 0, head = 0;
    double share = 0;
  };
  std::vector<HeadScore> referent_attention(const Transformer& model, const std::vector<Sentence>& sentences,
                                            double threshold = 0.5) const;

 private:
  Tokenizer tokenizer_;
};

}  // namespace attnlab
