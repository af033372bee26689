#include "train/trainer.hpp"

#include <algorithm>
#include <cmath>

#include "core/check.hpp"
#include "core/cross_entropy.hpp"
#include "core/matmul.hpp"
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

// gradients computed at once: one per thread, at most one per part
Index gradient_buffers(const TrainingOptions& options) {
  return std::min({num_threads(), kBatchParts, options.batch_size});
}

// the config, once a trainer of it fits the limits
const ModelConfig& trainable(const ModelConfig& config, const TrainingOptions& options) {
  require_trainable(config, options);
  return config;
}

}  // namespace

void require_trainable(const ModelConfig& config, const TrainingOptions& options) {
  // the model, its gradient, AdamW's two moments and the gradient buffers
  const std::uint64_t copies = 4 + static_cast<std::uint64_t>(gradient_buffers(options));
  const std::uint64_t bytes = parameter_bytes(config);
  require(bytes <= kDefaultMaxParameterBytes / copies, "training: a trainer holds ", copies, " copies of the ",
          bytes, " bytes of parameters, more than the limit of ", kDefaultMaxParameterBytes, " bytes");
  // forward and backward: 6 · parameters · tokens, for a batch of examples as long as the context
  const double operations = 6.0 * static_cast<double>(bytes / sizeof(Scalar)) *
                            static_cast<double>(options.batch_size) * static_cast<double>(config.n_ctx);
  require(operations <= kMaxTrainingStepFlops, "training: a step of ", options.batch_size, " examples of up to ",
          config.n_ctx, " tokens is up to ", static_cast<std::uint64_t>(operations),
          " floating-point operations, more than the limit of ", static_cast<std::uint64_t>(kMaxTrainingStepFlops),
          ": use a smaller batch or model");
}

Trainer::Trainer(std::shared_ptr<const Task> task, const TrainingOptions& options)
    : Trainer(task, Transformer::random(trainable(task->model_config(), validated(options)), options.seed), options) {}

Trainer::Trainer(std::shared_ptr<const Task> task, Transformer model, const TrainingOptions& options)
    : task_(std::move(task)),
      options_(validated(options)),
      model_((require_trainable(model.config(), options_), std::move(model))),
      optimizer_(model_.config(), adamw_options(options_)),
      data_(options_.seed ^ 0x9e3779b9u),
      grads_(ModelParams::zeros(model_.config())) {
  require(model_.params().weight_dtype() == Dtype::f32, "training: the model's weights are kept as ",
          to_string(model_.params().weight_dtype()), " values to be run; load it with float weights to train it");
  require(model_.config().vocab_size >= task_->tokenizer().size(),
          "training: the model's vocabulary (", model_.config().vocab_size, ") is smaller than the task's (",
          task_->tokenizer().size(), ")");
  const bool encoder_decoder = model_.config().architecture == Architecture::encoder_decoder;
  require(encoder_decoder == (task_->model_config().architecture == Architecture::encoder_decoder),
          "training: the task ", task_->name(), " trains ", to_string(task_->model_config().architecture),
          " models, not ", to_string(model_.config().architecture));
  const Index buffers = gradient_buffers(options_);
  part_grads_.assign(static_cast<size_t>(buffers), grads_);
  part_activations_.resize(static_cast<size_t>(buffers));
  for (ModelActivations& a : part_activations_) a.detail = TraceDetail::for_backward;
}

StepReport Trainer::step(ModelActivations* first_example, const std::function<void()>& before_update) {
  // a step's numbers (and so a stored run) are the same in every WebAssembly engine
  const SeparateRounding same_bits_on_every_engine;
  // a step that throws leaves the trainer as it was: the model, the optimiser and the data stream
  const Rng data_before = data_;
  try {
    return take_step(first_example, before_update);
  } catch (...) {
    data_ = data_before;
    throw;
  }
}

StepReport Trainer::take_step(ModelActivations* first_example, const std::function<void()>& before_update) {
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

  // forward and backward, part by part: each part owns a gradient buffer while a wave of them runs
  // in parallel, and the parts' gradients are added in part order, whatever the number of threads
  const Index parts = std::min(kBatchParts, options_.batch_size);
  const Index buffers = static_cast<Index>(part_grads_.size());
  std::vector<CrossEntropy> part_loss(static_cast<size_t>(parts));
  set_zero(config, grads_);
  for (Index wave = 0; wave < parts; wave += buffers) {
    const Index width = std::min(buffers, parts - wave);
    parallel_for(width, [&](Index slot) {
      const Index part = wave + slot;
      ModelParams& grads = part_grads_[static_cast<size_t>(slot)];
      set_zero(config, grads);
      for (Index i = part; i < options_.batch_size; i += parts) {
        const Example& e = batch[static_cast<size_t>(i)];
        ModelActivations& kept = i == 0 && first_example ? *first_example : part_activations_[static_cast<size_t>(slot)];
        Matrix logits;
        try {
          logits = example_logits(model_, e, &kept);
        } catch (const Error& overflowed) {  // the example fits the model (checked above): the weights diverged
          throw Error(diverged(steps_done() + 1) + " (" + overflowed.what() + ")");
        }
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
    for (Index slot = 0; slot < width; ++slot) add_gradient(config, grads_, part_grads_[static_cast<size_t>(slot)]);
  }
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
  if (before_update) before_update();
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
