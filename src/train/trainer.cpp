#include "train/trainer.hpp"

#include <algorithm>
#include <cmath>

#include "core/check.hpp"
#include "core/cross_entropy.hpp"
#include "core/thread_pool.hpp"

namespace attnlab {
namespace {

// parts of a batch, fixed so that results do not depend on the number of threads
constexpr Index kBatchParts = 8;

AdamWOptions adamw_options(const TrainingOptions& o) {
  AdamWOptions a;
  a.beta1 = o.beta1;
  a.beta2 = o.beta2;
  a.weight_decay = o.weight_decay;
  return a;
}

std::string diverged(Index step) {
  return "training diverged at step " + std::to_string(step) +
         " (non-finite logits, loss or gradient); the model keeps its parameters — try a lower learning rate";
}

const TrainingOptions& validated(const TrainingOptions& options) {
  options.validate();
  return options;
}

}  // namespace

Trainer::Trainer(std::shared_ptr<const Task> task, const TrainingOptions& options)
    : Trainer(task, Transformer::random(task->model_config(), validated(options).seed), options) {}

Trainer::Trainer(std::shared_ptr<const Task> task, Transformer model, const TrainingOptions& options)
    : task_(std::move(task)),
      options_(validated(options)),
      model_(std::move(model)),
      optimizer_(model_.config(), adamw_options(options_)),
      data_(options_.seed ^ 0x9e3779b9u),
      grads_(ModelParams::zeros(model_.config())) {
  require(model_.config().vocab_size >= task_->tokenizer().size(),
          "training: the model's vocabulary (", model_.config().vocab_size, ") is smaller than the task's (",
          task_->tokenizer().size(), ")");
  const bool encoder_decoder = model_.config().architecture == Architecture::encoder_decoder;
  require(encoder_decoder == (task_->model_config().architecture == Architecture::encoder_decoder),
          "training: the task ", task_->name(), " trains ", to_string(task_->model_config().architecture),
          " models, not ", to_string(model_.config().architecture));
  const Index parts = std::min(kBatchParts, options_.batch_size);
  part_grads_.assign(static_cast<size_t>(parts), grads_);
  part_activations_.resize(static_cast<size_t>(parts));
  for (ModelActivations& a : part_activations_) a.detail = TraceDetail::for_backward;
}

StepReport Trainer::step(ModelActivations* first_example) {
  const ModelConfig& config = model_.config();
  std::vector<Example> batch;
  Index targets = 0;
  for (Index i = 0; i < options_.batch_size; ++i) {
    batch.push_back(task_->example(Split::train, data_));
    require(static_cast<Index>(std::max(batch.back().tokens.size(), batch.back().source.size())) <= config.n_ctx,
            "training: an example is longer than the model's context");
    targets += std::count_if(batch.back().targets.begin(), batch.back().targets.end(), [](int t) { return t >= 0; });
  }
  require(targets > 0, "training: the batch asks for no prediction");
  const Scalar scale = Scalar(1) / static_cast<Scalar>(targets);

  // forward and backward, part by part in parallel; every part owns its gradient
  const Index parts = static_cast<Index>(part_grads_.size());
  std::vector<CrossEntropy> part_loss(static_cast<size_t>(parts));
  parallel_for(parts, [&](Index part) {
    ModelParams& grads = part_grads_[static_cast<size_t>(part)];
    set_zero(config, grads);
    for (Index i = part; i < options_.batch_size; i += parts) {
      const Example& e = batch[static_cast<size_t>(i)];
      ModelActivations& kept = i == 0 && first_example ? *first_example : part_activations_[static_cast<size_t>(part)];
      const Matrix logits = example_logits(model_, e, &kept);
      require(logits.allFinite(), diverged(steps_done() + 1));
      const CrossEntropy ce = cross_entropy_forward(logits, e.targets);
      part_loss[static_cast<size_t>(part)].loss_sum += ce.loss_sum;
      part_loss[static_cast<size_t>(part)].targets += ce.targets;
      part_loss[static_cast<size_t>(part)].correct += ce.correct;
      const Matrix dlogits = cross_entropy_backward(logits, e.targets, scale);
      if (config.architecture == Architecture::encoder_decoder)
        model_.backward(e.source, e.tokens, kept, dlogits, grads);
      else
        model_.backward(e.tokens, kept, dlogits, grads);
    }
  });
  sum_gradients(config, grads_, part_grads_);
  CrossEntropy total;
  for (Index part = 0; part < parts; ++part) {
    total.loss_sum += part_loss[static_cast<size_t>(part)].loss_sum;
    total.correct += part_loss[static_cast<size_t>(part)].correct;
  }

  StepReport report;
  report.loss = static_cast<float>(total.loss_sum * scale);
  report.accuracy = static_cast<float>(total.correct) / static_cast<float>(targets);
  report.gradient_norm = static_cast<float>(clip_gradient_norm(config, grads_, options_.clip_norm));
  require(std::isfinite(report.loss) && std::isfinite(report.gradient_norm), diverged(steps_done() + 1));
  report.learning_rate = options_.schedule.at(steps_done());
  optimizer_.step(model_.mutable_params(), grads_, report.learning_rate);
  report.step = steps_done();
  return report;
}

double Trainer::held_out_accuracy(Index count, std::uint32_t seed) const {
  return attnlab::held_out_accuracy(*task_, model_, count, seed);
}

double Trainer::held_out_loss(Index count, std::uint32_t seed) const {
  return attnlab::held_out_loss(*task_, model_, count, seed);
}

}  // namespace attnlab
