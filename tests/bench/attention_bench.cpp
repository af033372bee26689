// The benchmark as a native program: one JSON line per measurement on stdout, the attention
// kernels, a training step of the coreference demo model (batch 32) and a traced forward of each
// shipped model named, as the page asks for one.   attnlab_bench [threads [models-dir name…]]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/thread_pool.hpp"
#include "io/model_file.hpp"
#include "model/benchmark.hpp"
#include "train/tasks.hpp"
#include "train/trainer.hpp"

namespace {

template <typename Call>
double median_ms(int repeats, const Call& call) {
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    call();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// median ms of 21 training steps after one untimed step
double training_step_ms() {
  std::shared_ptr<const attnlab::Task> task = attnlab::make_task("coreference");
  attnlab::TrainingOptions options = task->training_options();
  options.seed = 1;
  options.batch_size = 32;
  attnlab::Trainer trainer(task, options);
  trainer.step();
  return median_ms(21, [&] { trainer.step(); });
}

// median ms of 21 forwards of a shipped model over its whole context, every stage kept (the
// tokens of tests/bench/workloads.mjs; an encoder-decoder reads them as its source too)
double traced_forward_ms(const attnlab::Transformer& model) {
  const attnlab::ModelConfig& config = model.config();
  std::vector<int> tokens;
  for (attnlab::Index i = 0; i < config.n_ctx; ++i) tokens.push_back(static_cast<int>((i * 7 + 3) % config.vocab_size));
  const bool encoder_decoder = config.architecture == attnlab::Architecture::encoder_decoder;
  attnlab::ModelActivations kept;
  const auto forward = [&] { return encoder_decoder ? model.forward(tokens, tokens, &kept) : model.forward(tokens, &kept); };
  forward();
  return median_ms(21, forward);
}

}  // namespace

int main(int argc, char** argv) {
  const attnlab::Index threads = argc > 1 ? std::atoi(argv[1]) : 1;
  attnlab::set_num_threads(threads);
  for (auto kernel : {attnlab::BenchmarkKernel::single_head, attnlab::BenchmarkKernel::multi_head}) {
    for (attnlab::Index n : {64, 128, 256, 512}) {
      const attnlab::BenchmarkResult r = attnlab::run_benchmark(kernel, n);
      std::printf("{\"section\":\"kernels\",\"kernel\":\"%s\",\"n\":%d,\"threads\":%d,\"ms\":%.4f,\"gflops\":%.3f,\"repeats\":%d}\n",
                  attnlab::to_string(kernel).c_str(), static_cast<int>(n), static_cast<int>(threads), r.median_ms,
                  r.gflops, r.repeats);
      std::fflush(stdout);
    }
  }
  std::printf("{\"section\":\"training\",\"kernel\":\"training step (coreference, batch 32)\",\"n\":32,\"threads\":%d,\"ms\":%.4f}\n",
              static_cast<int>(threads), training_step_ms());
  for (int i = 3; i < argc; ++i) {
    const attnlab::LoadedModel loaded = attnlab::load_model_dir(std::string(argv[2]) + "/" + argv[i]);
    const attnlab::Index n = loaded.model.config().n_ctx;
    std::printf("{\"section\":\"training\",\"kernel\":\"traced forward (%s, n = %d)\",\"n\":%d,\"threads\":%d,\"ms\":%.4f}\n",
                argv[i], static_cast<int>(n), static_cast<int>(n), static_cast<int>(threads), traced_forward_ms(loaded.model));
  }
  return 0;
}
