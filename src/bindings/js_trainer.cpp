#include "bindings/js_api.hpp"
#include "bindings/marshal.hpp"
#include "core/check.hpp"
#include "model/params.hpp"

namespace attnlab::js {

std::shared_ptr<TrainerHandle> create_trainer(const val& options) {
  return guarded([&] {
    std::shared_ptr<const Task> task = make_task(get_string(options, "task", ""));
    TrainingOptions o = task->training_options();
    o.seed = get_seed(options, "seed", o.seed);
    o.schedule.total_steps = get_index(options, "steps", 1, 1000000, o.schedule.total_steps);
    o.schedule.warmup_steps = std::min(o.schedule.warmup_steps, o.schedule.total_steps);
    o.schedule.warmup_steps = get_index(options, "warmupSteps", 0, o.schedule.total_steps, o.schedule.warmup_steps);
    o.batch_size = get_index(options, "batchSize", 1, 512, o.batch_size);
    o.schedule.peak = static_cast<float>(get_number(options, "learningRate", o.schedule.peak));
    const std::optional<val> given_size = optional(options, "size");
    if (!given_size) return std::make_shared<TrainerHandle>(Trainer(task, o));
    // a model of another size for the task: its width, heads, depth (of each stack) and FFN width
    const val& size = *given_size;
    const ModelConfig demo = task->model_config();
    // read in turn, so that a bad dModel is reported before bad heads (one call's arguments have no order)
    const Index d_model = get_index(size, "dModel", 1, 1024, demo.d_model);
    const Index heads = get_index(size, "heads", 1, 64, demo.n_heads);
    const ModelConfig config = ModelConfig::Builder(demo)
                                   .width(d_model, heads)
                                   .layers(get_index(size, "layers", 1, 48, demo.n_layers))
                                   .ffn(get_index(size, "dFF", 1, 4096, demo.d_ff))
                                   .build();
    require_trainable(config, o);  // before the model is allocated
    return std::make_shared<TrainerHandle>(Trainer(task, Transformer::random(config, o.seed), o));
  }, options);
}

val TrainerHandle::step(const val& options) {
  return guarded([&] {
    ModelActivations kept;
    const std::optional<TraceRequest> trace = get_trace(options);
    PickedTrace picked;
    // the trace is picked before the update: a name nothing recorded leaves the trainer as it was
    const StepReport r = trainer_.step(trace ? &kept : nullptr, [&] { if (trace) picked = pick_trace(kept, *trace); });
    val out = val::object();
    out.set("step", static_cast<double>(r.step));
    out.set("loss", r.loss);
    out.set("accuracy", r.accuracy);
    out.set("learningRate", r.learning_rate);
    out.set("gradientNorm", r.gradient_norm);
    if (trace) out.set("trace", trace_to_js(picked));
    return out;
  }, options);
}

val TrainerHandle::progress() const {
  val out = val::object();
  out.set("stepsDone", static_cast<double>(trainer_.steps_done()));
  out.set("totalSteps", static_cast<double>(trainer_.options().schedule.total_steps));
  out.set("task", trainer_.task().name());
  out.set("parameters", static_cast<double>(parameter_bytes(trainer_.model().config()) / sizeof(float)));
  return out;
}

val TrainerHandle::held_out_loss(const val& options) const {
  return guarded([&] {
    return val(trainer_.held_out_loss(get_index(options, "count", 1, 10000, 200), get_seed(options, "seed", 2026)));
  }, options);
}

val TrainerHandle::held_out_loss_by_part(const val& options) const {
  return guarded([&] {
    const Index count = get_index(options, "count", 1, 10000, 200);
    const std::uint32_t seed = get_seed(options, "seed", 2026);
    const std::vector<std::string> names = trainer_.task().part_names();
    require(!names.empty(), "trainer: the task ", trainer_.task().name(), " has no parts to measure apart");
    const std::vector<double> losses = attnlab::held_out_loss_by_part(trainer_.task(), trainer_.model(), count, seed);
    val out = val::object();
    for (size_t i = 0; i < names.size(); ++i) out.set(names[i], losses[i]);
    return out;
  }, options);
}

val TrainerHandle::prefix_matching(const val& options) const {
  return guarded([&] {
    const Index count = get_index(options, "count", 1, 10000, 32);
    const std::uint32_t seed = get_seed(options, "seed", 2026);
    const auto* induction = dynamic_cast<const InductionTask*>(&trainer_.task());
    require(induction != nullptr, "trainer: prefix matching is measured on the induction task, not ", trainer_.task().name());
    return to_js(induction->prefix_matching(trainer_.model(), count, seed));
  }, options);
}

val TrainerHandle::schedule() const {
  return guarded([&] {
    const LearningRateSchedule& schedule = trainer_.options().schedule;
    std::vector<float> rates(static_cast<size_t>(schedule.total_steps));
    for (Index t = 0; t < schedule.total_steps; ++t) rates[static_cast<size_t>(t)] = schedule.at(t);
    return float_array(rates.data(), schedule.total_steps);
  });
}

val TrainerHandle::held_out_accuracy(const val& options) const {
  return guarded([&] {
    return val(trainer_.held_out_accuracy(get_index(options, "count", 1, 10000, 200), get_seed(options, "seed", 2026)));
  }, options);
}

std::shared_ptr<ModelHandle> TrainerHandle::model() const {
  return guarded([&] { return std::make_shared<ModelHandle>(trainer_.model(), trainer_.task().tokenizer()); });
}

val TrainerHandle::example(const val& options) const {
  return guarded([&] {
    const std::string split = get_string(options, "split", "train");
    require(split == "train" || split == "heldOut", "example: split must be \"train\" or \"heldOut\"");
    Rng rng(get_seed(options, "seed", 0));
    const Example e = trainer_.task().example(split == "train" ? Split::train : Split::held_out, rng);
    val out = val::object();
    out.set("tokens", to_js(e.tokens));
    out.set("targets", to_js(e.targets));
    out.set("text", trainer_.task().tokenizer().decode(e.tokens));
    if (!e.source.empty()) {
      out.set("source", to_js(e.source));
      out.set("sourceText", trainer_.task().tokenizer().decode(e.source));
    }
    return out;
  }, options);
}

val coreference_sentence(const val& options) {
  return guarded([&] {
    const std::string text = get_string(options, "text", "");
    require(text.size() <= 4096, "coreference: the text is longer than 4096 bytes");
    static const CoreferenceTask language;
    const CoreferenceTask::Sentence s = language.parse(text);
    val out = val::object();
    out.set("text", s.text);
    out.set("tokens", to_js(s.tokens));
    out.set("pronoun", static_cast<double>(s.pronoun));
    out.set("referent", static_cast<double>(s.referent));
    out.set("distractor", static_cast<double>(s.distractor));
    return out;
  }, options);
}

}  // namespace attnlab::js
