#include "model/benchmark.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "core/attention.hpp"
#include "core/check.hpp"
#include "core/enum_names.hpp"
#include "core/feed_forward.hpp"
#include "core/flash_attention.hpp"
#include "core/linear.hpp"
#include "core/matmul.hpp"
#include "core/multi_head_attention.hpp"
#include "core/random.hpp"
#include "core/thread_pool.hpp"

namespace attnlab {

namespace {

constexpr std::pair<const char*, BenchmarkKernel> kKernels[] = {
    {"single_head", BenchmarkKernel::single_head}, {"naive", BenchmarkKernel::naive},
    {"flash", BenchmarkKernel::flash},
    {"projections", BenchmarkKernel::projections}, {"feed_forward", BenchmarkKernel::feed_forward},
    {"multi_head", BenchmarkKernel::multi_head}, {"head", BenchmarkKernel::head},
    {"matmul", BenchmarkKernel::matmul}, {"multiply_add_peak", BenchmarkKernel::multiply_add_peak}};

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

Index benchmark_max_length(BenchmarkKernel kernel) { return kernel == BenchmarkKernel::flash ? 32768 : 8192; }

std::uint64_t benchmark_bytes(BenchmarkKernel kernel, Index n, Index d, int threads) {
  const double nd = static_cast<double>(n) * d, dd = static_cast<double>(d) * d, t = threads;
  // the fused path's scores: a block of rows against every key, per worker
  const double row_blocks = t * static_cast<double>(std::min(n, fused_block_rows(n))) * n;
  // a matrix product's packed blocks, per worker (Eigen's GEBP: within 1 MiB at these sizes)
  const double products = t * 262144.0;
  double floats = 0;
  switch (kernel) {
    case BenchmarkKernel::single_head: floats = 5 * nd + row_blocks + products; break;
    case BenchmarkKernel::naive: floats = 5 * nd + static_cast<double>(n) * n + 2 * t * n + products; break;
    case BenchmarkKernel::flash: floats = 5 * nd + t * (64.0 * 64 + 64.0 * d + 4 * 64); break;
    case BenchmarkKernel::projections: floats = 6 * nd + 3 * dd + products; break;
    case BenchmarkKernel::feed_forward: floats = 11 * nd + 8 * dd + 5.0 * d + products; break;
    case BenchmarkKernel::head: floats = 8 * nd + 3 * dd + row_blocks + products; break;
    case BenchmarkKernel::multi_head: floats = 12 * nd + 4 * dd + 4.0 * d + row_blocks + products; break;
    case BenchmarkKernel::matmul: floats = 2 * nd + dd + 2 * products; break;  // Eigen packs blocks of x and of W
    case BenchmarkKernel::multiply_add_peak: floats = t; break;
  }
  return static_cast<std::uint64_t>(floats * sizeof(Scalar)) + (64u << 10);  // and small vectors, bookkeeping
}

BenchmarkResult run_benchmark(BenchmarkKernel kernel, Index n, const BenchmarkOptions& options) {
  const Index max_n = benchmark_max_length(kernel);
  require(n >= 1 && n <= max_n, "benchmark: n must be between 1 and ", max_n, " for ", to_string(kernel));
  const bool wide = kernel == BenchmarkKernel::multi_head || kernel == BenchmarkKernel::matmul;
  const Index d = options.d != 0 ? options.d : wide ? 512 : 64;
  require(d >= 1 && d <= 1024 && (kernel != BenchmarkKernel::multi_head || d % 8 == 0),
          "benchmark: d must be between 1 and 1024 (a multiple of the 8 heads for multi_head)");
  const int min_repeats = options.min_repeats;
  const double min_ms = options.min_ms;
  require(min_repeats >= 1 && min_repeats <= 1000 && min_ms >= 0 && min_ms <= 60000,
          "benchmark: repeats must be 1…1000 and time 0…60000 ms");
  const std::uint64_t bytes = benchmark_bytes(kernel, n, d, num_threads());
  require(bytes <= kMaxBenchmarkBytes, "benchmark: ", to_string(kernel), " at n = ", n, ", d = ", d, " holds up to ", bytes,
          " bytes, more than the limit of ", kMaxBenchmarkBytes);
  const double nd = static_cast<double>(n) * d;
  Rng rng(1);
  std::function<void()> call;
  double flops = 0;
  // inputs and outputs live outside the timed calls
  Matrix q, k, v, out, x, w, w_k, w_v;
  AttentionConfig config;
  AttentionParams params;
  FeedForwardParams ffn;
  switch (kernel) {
    case BenchmarkKernel::single_head:
    case BenchmarkKernel::naive:
    case BenchmarkKernel::flash:
      q = random_matrix(n, d, rng);
      k = random_matrix(n, d, rng);
      v = random_matrix(n, d, rng);
      flops = 4.0 * n * nd;
      if (kernel == BenchmarkKernel::flash) {
        call = [&] { out = flash_attention_forward(q, k, v, false, true); };
      } else {
        out.resize(n, d);
        // naive: one (⌈n/threads⌉, n) slab of the matrix per thread, n×n in all
        const Index block_rows = kernel == BenchmarkKernel::naive ? (n + num_threads() - 1) / num_threads() : 0;
        call = [&, block_rows] { attention_forward(q, k, v, Mask::none(), true, out, block_rows); };
      }
      break;
    case BenchmarkKernel::projections:
      x = random_matrix(n, d, rng);
      w = random_matrix(d, 3 * d, rng) * 0.02f;
      flops = 8.0 * nd * d;
      call = [&] {
        q = linear_forward(x, w);                         // [Q K V] = x·[W_Q W_K W_V]
        out = linear_forward(q.leftCols(d), w.leftCols(d));  // ·W_O (any d × d matrix costs the same)
      };
      break;
    case BenchmarkKernel::feed_forward:
      x = random_matrix(n, d, rng);
      ffn = FeedForwardParams::init(d, 4 * d, Activation::gelu, 2);
      flops = 16.0 * nd * d;
      call = [&] { out = feed_forward(ffn, Activation::gelu, x); };
      break;
    case BenchmarkKernel::head:
      x = random_matrix(n, d, rng);
      w = random_matrix(d, d, rng) * 0.2f;
      w_k = random_matrix(d, d, rng) * 0.2f;
      w_v = random_matrix(d, d, rng) * 0.2f;
      flops = 6.0 * nd * d + 4.0 * n * nd;
      call = [&] { out = attention_head_forward(x, x, w, w_k, w_v, Mask::none(), true); };
      break;
    case BenchmarkKernel::multi_head:
      config.d_model = d;
      config.n_heads = 8;
      params = AttentionParams::init(config, 2);
      x = random_matrix(n, d, rng);
      flops = 8.0 * nd * d + 4.0 * n * nd;
      call = [&] { out = self_attention_forward(config, params, x, Mask::none()); };
      break;
    case BenchmarkKernel::matmul:
      x = random_matrix(n, d, rng);
      w = random_matrix(d, d, rng);
      out.resize(n, d);
      flops = 2.0 * nd * d;
      call = [&] { matmul(x, w, out); };
      break;
    case BenchmarkKernel::multiply_add_peak: {
      const Index threads = num_threads(), steps = n * 1000;
      out.resize(1, threads);
      flops = static_cast<double>(threads) * static_cast<double>(steps) * kPeakFlopsPerStep;
      call = [&, threads, steps] { parallel_for(threads, [&](Index t) { out(0, t) = multiply_add_peak(steps); }); };
      break;
    }
  }
  // bounded by its options: a call, and all the calls asked for, within a fixed number of operations
  const int runs = min_repeats * (options.warm_up ? 2 : 1);
  const auto count = [](double operations) { return static_cast<std::uint64_t>(operations); };
  require(flops <= kMaxBenchmarkCallFlops, "benchmark: one ", to_string(kernel), " call at n = ", n, ", d = ", d,
          " is ", count(flops), " floating-point operations, more than the limit of ", count(kMaxBenchmarkCallFlops));
  require(flops * runs <= kMaxBenchmarkFlops, "benchmark: ", runs, " calls (warm-up included) of ", count(flops),
          " floating-point operations are more than the limit of ", count(kMaxBenchmarkFlops), ": ask for fewer repeats");
  const auto run_for = [&](std::vector<double>* times) {
    const double start = now_ms();
    for (int i = 0; i < min_repeats || now_ms() - start < min_ms; ++i) {
      const double t0 = now_ms();
      call();
      if (times) times->push_back(now_ms() - t0);
    }
  };
  if (options.warm_up) run_for(nullptr);
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
