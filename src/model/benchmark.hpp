#pragma once
// Timing the attention kernels the same way everywhere (native, WebAssembly in Node and in
// browsers): warm up, then the median of repeated calls. A measurement, never a pass/fail test.
#include <cstdint>
#include <string>

#include "core/tensor.hpp"

namespace attnlab {

// What each kernel computes on an (n × d) input, d its default unless given, and its flops:
enum class BenchmarkKernel {
  single_head,   // softmax(QKᵀ/√d)·V, the fused row-block path (d = 64): 4·n²·d
  naive,         // the same with the n×n matrix formed whole, as the textbook computes it
  flash,         // the same, tile by tile with an online softmax (flash_attention.hpp): 4·n²·d
  projections,   // Q, K, V and the output projection, x·W for four (d × d) W (d = 64): 8·n·d²
  feed_forward,  // GELU(x·W₁ + b₁)·W₂ + b₂ with d_ff = 4d (d = 64): 16·n·d²
  multi_head,    // 8 heads, d_model = d (512), projections included: 8·n·d² + 4·n²·d
  head,          // one head from x, as engine.attention computes it: Q, K, V = x·W_Q, x·W_K, x·W_V
                 // (d × d each, d = 64), then single_head's path: 6·n·d² + 4·n²·d
  matmul,        // x·W through the engine's matrix product (matmul.hpp), W (d × d), d = 512: 2·n·d²
  multiply_add_peak,  // the probe of the most the products could reach: multiply_add_peak on every
                      // thread, n thousand steps each: threads · n · 1000 · kPeakFlopsPerStep
};
BenchmarkKernel benchmark_kernel_from_string(const std::string& name);
std::string to_string(BenchmarkKernel kernel);

struct BenchmarkResult {
  double median_ms = 0;
  double gflops = 0;  // flops of one call / median time
  int repeats = 0;
};

struct BenchmarkOptions {
  Index d = 0;          // width; 0: the kernel's default
  int min_repeats = 7;  // timed calls, at least
  double min_ms = 300;  // milliseconds of timed calls, at least
  bool warm_up = true;  // first the same calls untimed (lets WebAssembly engines optimise the code)
};

// the longest input a kernel accepts: flash never forms the n×n matrix, so it goes further
Index benchmark_max_length(BenchmarkKernel kernel);

// The most work one benchmark may do, so that every call ends in bounded time: 2³⁸ floating-point
// operations a call (flash at n = 32,768 and d = 64: 13.7 s at the engine's 20 GFLOP/s in
// WebAssembly on 2 cores) and 2⁴² in all its calls, warm-up included (about 4 minutes); min_ms adds
// at most a minute.
constexpr double kMaxBenchmarkCallFlops = 274877906944.0;
constexpr double kMaxBenchmarkFlops = 4398046511104.0;

// The most memory one benchmark may hold at once, so that it fits the WebAssembly heap beside a
// model: 512 MiB (naive at n = 8192 forms its 256 MiB matrix; d = 1024 adds 160 MiB of inputs).
constexpr std::uint64_t kMaxBenchmarkBytes = 512ull << 20;

// An upper bound on the bytes a run holds at once, checked against kMaxBenchmarkBytes before
// anything is allocated: inputs, weights, outputs (the last call's beside the new one), and each
// kernel's scratch with `threads` workers (n·n scores for naive, row blocks of scores for the
// fused path, 64 × 64 tiles for flash, the hidden layer and the heads' projections).
std::uint64_t benchmark_bytes(BenchmarkKernel kernel, Index n, Index d, int threads);

// runs the kernel on seeded random input of length n until both options.min_repeats calls and
// options.min_ms milliseconds are done
BenchmarkResult run_benchmark(BenchmarkKernel kernel, Index n, const BenchmarkOptions& options = {});

}  // namespace attnlab
