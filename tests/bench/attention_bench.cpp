// The benchmark as a native program: one JSON line per measurement on stdout, the attention
// kernels and a training step of the coreference demo model (batch 32).   attnlab_bench [threads]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/thread_pool.hpp"
#include "model/benchmark.hpp"
#include "train/tasks.hpp"
#include "train/trainer.hpp"

namespace {

// median ms of 21 training steps after one untimed step
double training_step_ms() {
  std::shared_ptr<const attnlab::Task> task = attnlab::make_task("coreference");
  attnlab::TrainingOptions options = task->training_options();
  options.seed = 1;
  options.batch_size = 32;
  attnlab::Trainer trainer(task, options);
  trainer.step();
  std::vector<double> times;
  for (int i = 0; i < 21; ++i) {
    const auto start = std::chrono::steady_clock::now();
    trainer.step();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
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
  return 0;
}
