#pragma once
// Training data, seeded, no downloads: copy, reverse and sort a short string of letters
// (decoder-only, and reverse also encoder-decoder), a toy coreference language (encoder-only) in
// which the adjective decides which noun "it" means, random letters repeated (decoder-only: where
// induction heads form), and next-character prediction on real English (decoder-only; the corpus
// is compiled into the native engine). Every task keeps some inputs out
// of training (held out) to measure generalisation.
#include <memory>
#include <string>
#include <vector>

#include "core/random.hpp"
#include "io/tokenizer.hpp"
#include "model/config.hpp"
#include "model/transformer.hpp"
#include "train/schedule.hpp"

namespace attnlab {

// One training sequence: the model (the decoder of an encoder-decoder) reads tokens and, at
// position i, should predict targets[i] (−1 where nothing is asked).
struct Example {
  std::vector<int> tokens;
  std::vector<int> targets;
  std::vector<int> source;  // what the encoder reads (encoder-decoder tasks); empty otherwise
  // which of the task's parts (Task::part_names) each target belongs to; empty when the task has none
  std::vector<int> parts;
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
  // whether a model gets the example right: the exact output by greedy decoding, the right
  // referent, or for a language model the next character after the whole window
  virtual bool solved(const Transformer& model, const Example& example) const = 0;
  // names of the parts an example's targets fall in (Example::parts), when the loss of each tells
  // something on its own; none by default
  virtual std::vector<std::string> part_names() const { return {}; }
};

// the model's logits for an example: forward(tokens), or forward(source, tokens) for an
// encoder-decoder   → (tokens, vocab)
Matrix example_logits(const Transformer& model, const Example& example, ModelActivations* activations = nullptr);

// share of `count` held-out examples (drawn from seed) that the model solves; examples run in parallel
double held_out_accuracy(const Task& task, const Transformer& model, Index count, std::uint32_t seed);

// mean cross-entropy in nats per target, −(1/T)·Σ log p(t), over every target of `count` held-out
// examples (drawn from seed), the model reading the true tokens; exp of it is the perplexity
double held_out_loss(const Task& task, const Transformer& model, Index count, std::uint32_t seed);

// the same, one mean per part of the task (Task::part_names), in their order; a part with no
// target in these examples is NaN
std::vector<double> held_out_loss_by_part(const Task& task, const Transformer& model, Index count, std::uint32_t seed);

// "copy" | "reverse" | "sort" | "coreference" | "reverse-seq2seq" | "induction" | "fortunes"; anything else is an
// error naming the choices. "fortunes" needs the corpus compiled into the native engine; a build
// without it (WebAssembly) refuses it with an error saying so.
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
  // a random input x of the split
  std::string letters(Split split, Rng& rng) const;

 protected:
  Kind kind_;
  Index min_length_, max_length_;
  Tokenizer tokenizer_;
};

// The same letters and held-out inputs, for an encoder-decoder: the encoder reads x₁…x_k, the
// decoder reads [BOS] y₁…y_k and predicts y₁…y_k [EOS]. The decoder sees x only through
// cross-attention, so for reverse, output position i has to look at input position k−1−i.
class LetterSeq2SeqTask : public LetterSequenceTask {
 public:
  explicit LetterSeq2SeqTask(Kind kind, Index min_length = 2, Index max_length = 8);

  std::string name() const override;
  ModelConfig model_config() const override;
  TrainingOptions training_options() const override;
  Example example(Split split, Rng& rng) const override;
  // greedy decoding from [BOS] gives y₁…y_k [EOS] exactly
  bool solved(const Transformer& model, const Example& example) const override;
};

// "the cat sat on the mat because it was soft": two nouns, one animal and one thing, in one of many
// templates, then "it was <adjective>". Adjectives of animals (hungry, tired, …) make "it" the
// animal, adjectives of things (soft, broken, …) the thing. The model (encoder-only) predicts the
// referent's word at the position of "it", and in training also the masked words around it, as
// BERT is trained (Devlin et al., 2019): every word but "it" is hidden with probability 0.15 (by
// [MASK] 80 % of the time, by a random word 10 %, left as it is 10 %) and predicted, so that every
// word of a sentence has a reason to look at the others, not "it" alone. "it" predicts its referent
// unless the referent or the adjective was hidden (nothing then says what "it" means). Held-out
// examples are whole sentences asking for the referent only. Held out: a quarter of the
// (referent, adjective) pairs, among them (mat, soft) and (cat, hungry), so the seminar's sentences
// are never trained on.
class CoreferenceTask : public Task {
 public:
  struct Sentence {
    std::string text;
    std::vector<int> tokens;
    Index pronoun = 0;     // position of "it"
    Index referent = 0;    // position of the noun "it" means
    Index distractor = 0;  // position of the other noun
    Index adjective = 0;   // position of the adjective, which decides
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
  // the sentence whole, asking for the referent at "it" only
  Example example_of(const Sentence& sentence) const;
  // the sentence with words masked, each asking for its own word (a training example)
  Example masked_example_of(const Sentence& sentence, Rng& rng) const;

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

// Random letters, then the same letters again: [BOS] x₁…x_L x₁…x_L with x uniform over a–z and L in
// [min_length, max_length]; every position predicts the next token. Its two parts: "first" (the
// targets x₂…x_L and the repeat's x₁, which nothing in the sequence predicts: the best loss is
// ln 26) and "repeat" (x₂…x_L again, each predictable by finding the current letter earlier and
// reading the one after it, which is what an induction head does; Olsson et al., 2022). L varies so
// that no fixed offset finds the earlier copy. Held out: about one sequence in eight, by a hash.
class InductionTask : public Task {
 public:
  explicit InductionTask(Index min_length = 8, Index max_length = 20);

  std::string name() const override { return "induction"; }
  const Tokenizer& tokenizer() const override { return tokenizer_; }
  ModelConfig model_config() const override;
  TrainingOptions training_options() const override;
  Example example(Split split, Rng& rng) const override;
  // every target of the repeat is the argmax of the model's next-token distribution
  bool solved(const Transformer& model, const Example& example) const override;
  std::vector<std::string> part_names() const override { return {"first", "repeat"}; }

  // The prefix-matching score of every head (Olsson et al., 2022), (layers × heads): its mean
  // attention from each letter of the repeat to the letter after that letter's place in the first
  // copy, A[L + j, j + 1] for j = 1 … L, over `count` held-out examples drawn from seed. An
  // induction head scores near 1; a head spread evenly over the repeat's rows, about 1.5 / L.
  Matrix prefix_matching(const Transformer& model, Index count, std::uint32_t seed) const;

  // x₁…x_L of one split
  std::string letters(Split split, Rng& rng) const;
  // the example of [BOS] x x for given letters
  Example example_of(const std::string& letters) const;

 private:
  Index min_length_, max_length_;
  Tokenizer tokenizer_;
};

// Next-token prediction on documents of English text: each is held out (about one in ten) or not
// by a hash of its text. An example is [BOS] followed by a window of n_ctx − 1 tokens cut at random
// from one split's stream (its documents in order, each followed by [EOS]); every position
// predicts the next token. solved(): the argmax after the whole window is the next token (so
// held_out_accuracy is top-1 accuracy with n_ctx − 1 tokens of context); the measure of a
// language model is held_out_loss, in nats per token (a character, or a BPE piece).
class LanguageModelTask : public Task {
 public:
  // characters: the documents' own characters as the vocabulary, a model of the fortunes demo's
  // shape with `context` positions; throws attnlab::Error when either split's stream is shorter
  // than a window
  LanguageModelTask(std::string name, const std::vector<std::string>& documents, Index context = 128);
  // the documents as tokens of `tokenizer`, whose [BOS] and [EOS] must have the ids Tokenizer::kBos
  // and kEos, for a decoder-only model of `config` (its n_ctx is the window) trained with `training`;
  // with repeat_every > 0, one training window in repeat_every (drawn at random) starts with a
  // stretch of kShortestRepeat … n_ctx/2 − 1 tokens written twice, which only what reads the earlier
  // copy (an induction head) predicts; held-out windows never repeat
  LanguageModelTask(std::string name, const std::vector<std::string>& documents, Tokenizer tokenizer,
                    const ModelConfig& config, const TrainingOptions& training, Index repeat_every = 0);
  static constexpr Index kShortestRepeat = 8;
  // the entries of a fortune(6) file: texts separated by lines holding only "%", each without its
  // final newline; empty entries are dropped
  static std::vector<std::string> fortune_entries(const std::string& file);

  std::string name() const override { return name_; }
  const Tokenizer& tokenizer() const override { return tokenizer_; }
  ModelConfig model_config() const override;
  TrainingOptions training_options() const override;
  Example example(Split split, Rng& rng) const override;
  bool solved(const Transformer& model, const Example& example) const override;

  static bool held_out(const std::string& document);
  // the split's stream of token ids, documents followed by [EOS]
  const std::vector<int>& stream(Split split) const;
  // greedy continuation of text after [BOS], up to max_new characters or [EOS] (not included)
  std::string continuation(const Transformer& model, const std::string& text, Index max_new) const;

 private:
  // the documents' tokens into the two streams
  void read(const std::vector<std::string>& documents);

  std::string name_;
  Tokenizer tokenizer_;
  ModelConfig config_;
  TrainingOptions training_;
  Index context_;
  Index repeat_every_ = 0;
  std::vector<int> train_stream_, held_out_stream_;
};

}  // namespace attnlab
