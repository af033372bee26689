#pragma once
// Training one step at a time: each call draws a batch, runs forward and backward (of the decoder
// and the encoder for an encoder-decoder, whose examples carry a source), clips the gradient, and
// takes one AdamW step at the scheduled learning rate. Deterministic for a seed:
// the batch is cut into a fixed number of parts whose gradients are summed in order, so the
// thread count never changes the result. A trainer holds 4 + threads copies of the parameters
// (the model, its gradient, AdamW's two moments, one part's gradient per thread), and both that
// memory and the work of one step are capped (kDefaultMaxParameterBytes, kMaxTrainingStepFlops).
#include <functional>
#include <memory>
#include <vector>

#include "model/transformer.hpp"
#include "train/optimizer.hpp"
#include "train/tasks.hpp"

namespace attnlab {

struct StepReport {
  Index step = 0;             // 1 for the first step
  float loss = 0;             // mean cross-entropy over the batch's targets, before the update
  float accuracy = 0;         // share of those targets the model predicted (argmax), before the update
  float learning_rate = 0;
  float gradient_norm = 0;    // before clipping
};

// The most work one training step may do: 6 · parameters · batch · context floating-point
// operations, forward and backward (2³⁷: seconds, not minutes, in WebAssembly on 2 cores).
constexpr double kMaxTrainingStepFlops = 137438953472.0;

// throws attnlab::Error unless a trainer of this config fits the limits: its 4 + threads copies of
// the parameters within kDefaultMaxParameterBytes, and one step within kMaxTrainingStepFlops
void require_trainable(const ModelConfig& config, const TrainingOptions& options);

class Trainer {
 public:
  // a fresh model of the task's configuration, initialised from options.seed
  Trainer(std::shared_ptr<const Task> task, const TrainingOptions& options);
  // continues training a given model (its config must fit the task's vocabulary, and it must be
  // an encoder-decoder exactly when the task's model is one)
  Trainer(std::shared_ptr<const Task> task, Transformer model, const TrainingOptions& options);

  // One optimiser step. When first_example is given it receives the activations of the batch's
  // first example, in the detail it asks for; before_update, when given, runs once the gradient is
  // known and before anything changes. A step that throws (a non-finite loss or gradient, or
  // before_update) leaves the trainer as it was: its model, optimiser and stream of examples.
  StepReport step(ModelActivations* first_example = nullptr, const std::function<void()>& before_update = {});

  // share of `count` held-out examples (drawn from seed) the model solves entirely
  double held_out_accuracy(Index count, std::uint32_t seed) const;
  // mean cross-entropy per target over `count` held-out examples (see attnlab::held_out_loss)
  double held_out_loss(Index count, std::uint32_t seed) const;

  const Transformer& model() const { return model_; }
  const Task& task() const { return *task_; }
  const TrainingOptions& options() const { return options_; }
  Index steps_done() const { return optimizer_.steps(); }

 private:
  StepReport take_step(ModelActivations* first_example, const std::function<void()>& before_update);

  std::shared_ptr<const Task> task_;
  TrainingOptions options_;
  Transformer model_;
  AdamW optimizer_;
  Rng data_;
  std::vector<ModelParams> part_grads_;  // the gradients of the parts computed at once, one per thread
  // those parts' activations, reused from example to example and step to step (TraceDetail::for_backward)
  std::vector<ModelActivations> part_activations_;
  ModelParams grads_;
};

}  // namespace attnlab
