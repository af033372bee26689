// attnlab-train: trains one of the built-in tasks from scratch and saves the model.
//
//   attnlab-train <copy|reverse|sort|coreference|reverse-seq2seq|induction|fortunes|english> [--out DIR] [--seed N]
//                 [--steps N] [--batch N] [--threads N] [--eval N] [--stop-after N]
//
// Progress goes to standard error (step, loss, accuracy, learning rate, gradient norm, ETA);
// the held-out evaluation (accuracy, loss and perplexity over --eval examples; greedy
// continuations for a language model) to standard output. With the task's defaults and seed, the
// run is exactly the one that produced the models the page ships. --stop-after N saves the model
// after the first N steps of that run, its schedule unchanged: the short check of tests/cpp pins
// the weights it saves, and they differ whenever the full run would. For the induction task, --out
// also gets training.json: every 20 steps, the held-out loss of each part and every head's
// prefix-matching score (what the page draws before the reader trains a model of their own).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "core/check.hpp"
#include "core/thread_pool.hpp"
#include "io/model_file.hpp"
#include "train/trainer.hpp"

using namespace attnlab;

namespace {

int usage() {
  std::string names;
  for (const std::string& name : task_names()) names += (names.empty() ? "" : "|") + name;
  std::cerr << "usage: attnlab-train <" << names << "> [--out DIR] [--seed N] [--steps N] [--batch N]"
               " [--threads N] [--eval N] [--stop-after N]\n";
  return 2;
}

std::string duration(double seconds) {
  char text[32];
  if (seconds < 60) std::snprintf(text, sizeof text, "%.0f s", seconds);
  else std::snprintf(text, sizeof text, "%dm%02ds", static_cast<int>(seconds) / 60, static_cast<int>(seconds) % 60);
  return text;
}

// Every step allocates and frees the same large activations. By default glibc maps large blocks
// afresh and hands freed memory at the top of the heap back to the system, so each step would
// fault all of its memory in again: more than twice the time of a step that reuses it.
void keep_freed_memory() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

Index number(const std::string& flag, const char* value) {
  char* end = nullptr;
  const long long n = std::strtoll(value, &end, 10);
  require(*value != '\0' && *end == '\0' && n >= 0, flag, " needs a non-negative whole number, got \"", value, "\"");
  return static_cast<Index>(n);
}

// "  first 3.26  repeat 0.05": the held-out loss of each of the task's parts, or "" when it has none
std::string parts_loss(const Task& task, const Transformer& model, Index count) {
  const std::vector<std::string> names = task.part_names();
  if (names.empty()) return "";
  const std::vector<double> losses = held_out_loss_by_part(task, model, count, 2026);
  std::string text;
  char number[32];
  for (size_t i = 0; i < names.size(); ++i) {
    std::snprintf(number, sizeof number, " %.3f", losses[i]);
    text += "  " + names[i] + number;
  }
  return text;
}

// training.json of the induction task: the run's curves, measured every kLogEvery steps
constexpr Index kLogEvery = 20;
struct InductionLog {
  std::vector<Index> steps;
  std::vector<double> first, repeat;
  std::vector<Matrix> prefix_matching;

  void measure(const InductionTask& task, const Transformer& model, Index step) {
    const std::vector<double> losses = held_out_loss_by_part(task, model, 64, 2026);
    steps.push_back(step);
    first.push_back(losses[0]);
    repeat.push_back(losses[1]);
    prefix_matching.push_back(task.prefix_matching(model, 16, 2026));
  }

  void save(const std::string& path) const {
    FILE* file = std::fopen(path.c_str(), "w");
    require(file != nullptr, "cannot write ", path);
    const auto numbers = [&](const char* name, const std::vector<double>& values) {
      std::fprintf(file, "  \"%s\": [", name);
      for (size_t i = 0; i < values.size(); ++i) std::fprintf(file, "%s%.4f", i ? ", " : "", values[i]);
      std::fprintf(file, "],\n");
    };
    std::fprintf(file, "{\n  \"steps\": [");
    for (size_t i = 0; i < steps.size(); ++i) std::fprintf(file, "%s%lld", i ? ", " : "", static_cast<long long>(steps[i]));
    std::fprintf(file, "],\n");
    numbers("first", first);
    numbers("repeat", repeat);
    std::fprintf(file, "  \"prefixMatching\": [");
    for (size_t i = 0; i < prefix_matching.size(); ++i) {
      std::fprintf(file, "%s[", i ? ",\n    " : "\n    ");
      const Matrix& scores = prefix_matching[i];
      for (Index k = 0; k < scores.size(); ++k) std::fprintf(file, "%s%.4f", k ? ", " : "", scores.data()[k]);
      std::fprintf(file, "]");
    }
    std::fprintf(file, "\n  ]\n}\n");
    std::fclose(file);
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  keep_freed_memory();
  try {
    std::shared_ptr<const Task> task = make_task(argv[1]);
    TrainingOptions options = task->training_options();
    set_num_threads(std::clamp<Index>(std::thread::hardware_concurrency(), 1, max_threads()));
    std::string out;
    Index eval = 1000;
    Index stop_after = -1;
    for (int i = 2; i < argc; ++i) {
      const std::string flag = argv[i];
      if (i + 1 >= argc) return usage();
      const char* value = argv[++i];
      if (flag == "--out") out = value;
      else if (flag == "--seed") options.seed = static_cast<std::uint32_t>(number(flag, value));
      else if (flag == "--steps") options.schedule.total_steps = number(flag, value);
      else if (flag == "--batch") options.batch_size = number(flag, value);
      else if (flag == "--threads") set_num_threads(number(flag, value));
      else if (flag == "--eval") eval = number(flag, value);
      else if (flag == "--stop-after") stop_after = number(flag, value);
      else return usage();
    }
    Trainer trainer(task, options);
    const Index steps = stop_after < 0 ? options.schedule.total_steps : std::min(stop_after, options.schedule.total_steps);
    std::cerr << "training " << task->name() << ": " << steps << " steps of " << options.batch_size
              << " examples, seed " << options.seed << ", " << num_threads() << " thread(s)\n";
    const auto start = std::chrono::steady_clock::now();
    const Index every = std::max<Index>(1, steps / 20);
    const auto* induction = dynamic_cast<const InductionTask*>(task.get());
    InductionLog log;
    if (induction) log.measure(*induction, trainer.model(), 0);
    for (Index s = 1; s <= steps; ++s) {
      const StepReport r = trainer.step();
      if (induction && s % kLogEvery == 0) log.measure(*induction, trainer.model(), s);
      if (s % every != 0 && s != steps) continue;
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      char line[160];
      std::snprintf(line, sizeof line, "step %5lld/%lld  loss %.4f  acc %5.1f%%  lr %.2e  |g| %.3f  %s, ETA %s",
                    static_cast<long long>(r.step), static_cast<long long>(steps), r.loss, 100.0 * r.accuracy,
                    r.learning_rate, r.gradient_norm, duration(elapsed).c_str(),
                    duration(elapsed / static_cast<double>(s) * static_cast<double>(steps - s)).c_str());
      std::cerr << line << parts_loss(*task, trainer.model(), 64) << "\n" << std::flush;
    }
    if (eval > 0) {
      std::printf("held-out accuracy: %.1f%% of %lld examples\n", 100.0 * trainer.held_out_accuracy(eval, 2026),
                  static_cast<long long>(eval));
      const double loss = trainer.held_out_loss(eval, 2026);
      std::printf("held-out loss: %.4f nats per target, perplexity %.3f\n", loss, std::exp(loss));
      if (!task->part_names().empty()) std::printf("held-out loss by part:%s\n", parts_loss(*task, trainer.model(), eval).c_str());
    }
    if (const auto* language = dynamic_cast<const LanguageModelTask*>(task.get()); language && eval > 0) {
      std::printf("greedy continuations:\n");
      for (const char* prompt : {"The ", "A ", "Q:\t", "Love "})
        std::printf("  \"%s%s\"\n", prompt, language->continuation(trainer.model(), prompt, 100).c_str());
    }
    if (const auto* coreference = dynamic_cast<const CoreferenceTask*>(task.get())) {
      Rng rng(2026);
      std::vector<CoreferenceTask::Sentence> sentences;
      for (Index i = 0; i < std::max<Index>(eval, 1); ++i) sentences.push_back(coreference->sentence(Split::held_out, rng));
      std::printf("share of held-out sentences where \"it\" puts >= 0.5 of its attention on its referent:\n");
      for (const auto& score : coreference->referent_attention(trainer.model(), sentences))
        std::printf("  layer %lld head %lld: %5.1f%%\n", static_cast<long long>(score.layer),
                    static_cast<long long>(score.head), 100.0 * score.share);
    }
    if (!out.empty()) {
      std::filesystem::create_directories(out);
      save_model_dir(out, trainer.model(), task->tokenizer());
      if (induction) log.save(out + "/training.json");
      std::printf("saved %s (config.json, model.safetensors, vocab.json)\n", out.c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "attnlab-train: " << e.what() << "\n";
    return 1;
  }
}
