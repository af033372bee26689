// The attention benchmark as a program (native, or WebAssembly under node): one JSON line per
// case on stdout.   attnlab_bench [threads]
#include <cstdio>
#include <cstdlib>

#include "core/thread_pool.hpp"
#include "model/benchmark.hpp"

int main(int argc, char** argv) {
  const attnlab::Index threads = argc > 1 ? std::atoi(argv[1]) : 1;
  attnlab::set_num_threads(threads);
  for (auto kernel : {attnlab::BenchmarkKernel::single_head, attnlab::BenchmarkKernel::multi_head}) {
    for (attnlab::Index n : {64, 128, 256, 512}) {
      const attnlab::BenchmarkResult r = attnlab::run_benchmark(kernel, n);
      std::printf("{\"kernel\":\"%s\",\"n\":%d,\"threads\":%d,\"ms\":%.4f,\"gflops\":%.3f,\"repeats\":%d}\n",
                  attnlab::to_string(kernel).c_str(), static_cast<int>(n), static_cast<int>(threads), r.median_ms,
                  r.gflops, r.repeats);
      std::fflush(stdout);
    }
  }
  return 0;
}
