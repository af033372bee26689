#pragma once
// Training one step at a time: each call draws a batch, runs forward and backward (of the decoder
// and the encoder for an encoder-decoder, whose examples carry a source), clips the gradient, and
// takes one AdamW step at the scheduled learning rate. Deterministic for a seed:
// the batch is cut into a fixed number of parts whose gradients are summed in order, so the
// thread count never changes the result.
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

class Trainer {
 public:
  // a fresh model of the task's configuration, initialised from options.seed
  Trainer(std::shared_ptr<const Task> task, const TrainingOptions& options);
  // continues training a given model (its config must fit the task's vocabulary, and it must be
  // an encoder-decoder exactly when the task's model is one)
  Trainer(std::shared_ptr<const Task> task, Transformer model, const TrainingOptions& options);

  // One optimiser step. When first_example is given it receives the activations of the batch's
  // first example, in the detail it asks for. A non-finite loss or gradient throws
  // attnlab::Error and leaves the model unchanged.
  StepReport step(ModelActivations* first_example = nullptr);

  // share of `count` held-out examples (drawn from seed) the model solves entirely
  double held_out_accuracy(Index count, std::uint32_t seed) const;
  // mean cross-entropy per target over `count` held-out examples (see attnlab::held_out_loss)
  double held_out_loss(Index count, std::uint32_t seed) const;

  const Transformer& model() const { return model_; }
  const Task& task() const { return *task_; }
  const TrainingOptions& options() const { return options_; }
  Index steps_done() const { return optimizer_.steps(); }

 private:
  std::shared_ptr<const Task> task_;
  TrainingOptions options_;
  Transformer model_;
  AdamW optimizer_;
  Rng data_;
  std::vector<ModelParams> part_grads_;  // one gradient per part of the batch
  // one part's activations, reused from example to example and step to step (TraceDetail::for_backward)
  std::vector<ModelActivations> part_activations_;
  ModelParams grads_;
};

}  // namespace attnlab
