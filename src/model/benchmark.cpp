#include "model/benchmark.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "core/attention.hpp"
#include "core/check.hpp"
#include "core/enum_names.hpp"
#include "core/multi_head_attention.hpp"
#include "core/random.hpp"

namespace attnlab {

namespace {

constexpr std::pair<const char*, BenchmarkKernel> kKernels[] = {
    {"single_head", BenchmarkKernel::single_head}, {"multi_head", BenchmarkKernel::multi_head}};

Matrix random_matrix(Index rows, Index cols, Rng& rng) {
  Matrix m(rows, cols);
  for (Index i = 0; i < m.size(); ++i) m.data()[i] = rng.normal();
  return m;
}

double now_ms() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

}  // namespace

BenchmarkKernel benchmark_kernel_from_string(const std::string& name) {
  return enum_from_name(name, "benchmark kernel", kKernels);
}
std::string to_string(BenchmarkKernel kernel) { return enum_name(kernel, kKernels); }

BenchmarkResult run_benchmark(BenchmarkKernel kernel, Index n, int min_repeats, double min_ms) {
  require(n >= 1 && n <= 4096, "benchmark: n must be between 1 and 4096");
  require(min_repeats >= 1 && min_repeats <= 1000 && min_ms >= 0 && min_ms <= 60000,
          "benchmark: repeats must be 1…1000 and time 0…60000 ms");
  Rng rng(1);
  std::function<void()> call;
  double flops = 0;
  // inputs and outputs live outside the timed calls
  Matrix q, k, v, weights, out, x;
  AttentionConfig config;
  AttentionParams params;
  if (kernel == BenchmarkKernel::single_head) {
    const Index d = 64;
    q = random_matrix(n, d, rng);
    k = random_matrix(n, d, rng);
    v = random_matrix(n, d, rng);
    weights.resize(n, n);
    out.resize(n, d);
    flops = 4.0 * n * n * d;
    call = [&] { attention_forward(q, k, v, Mask::none(), true, weights, out); };
  } else {
    const Index d = 512;
    config.d_model = d;
    config.n_heads = 8;
    params = AttentionParams::init(config, 2);
    x = random_matrix(n, d, rng);
    flops = 8.0 * n * d * d + 4.0 * n * n * d;
    call = [&] { out = self_attention_forward(config, params, x, Mask::none()); };
  }
  const auto run_for = [&](std::vector<double>* times) {
    const double start = now_ms();
    for (int i = 0; i < min_repeats || now_ms() - start < min_ms; ++i) {
      const double t0 = now_ms();
      call();
      if (times) times->push_back(now_ms() - t0);
    }
  };
  run_for(nullptr);  // warm-up: lets the WebAssembly engine optimise the kernels
  std::vector<double> times;
  run_for(&times);
  std::sort(times.begin(), times.end());
  BenchmarkResult r;
  r.repeats = static_cast<int>(times.size());
  r.median_ms = times[times.size() / 2];
  r.gflops = flops / (r.median_ms * 1e6);
  return r;
}

}  // namespace attnlab
