#pragma once
// Timing the attention kernels the same way everywhere (native, WebAssembly in Node and in
// browsers): warm up, then the median of repeated calls. A measurement, never a pass/fail test.
#include <string>

#include "core/tensor.hpp"

namespace attnlab {

enum class BenchmarkKernel {
  single_head,  // softmax(QKᵀ/√d)·V with d = 64: 4·n²·d flops
  multi_head,   // 8 heads, d_model = 512, projections included: 8·n·d² + 4·n²·d flops
};
BenchmarkKernel benchmark_kernel_from_string(const std::string& name);
std::string to_string(BenchmarkKernel kernel);

struct BenchmarkResult {
  double median_ms = 0;
  double gflops = 0;  // flops of one call / median time
  int repeats = 0;
};

// runs the kernel on seeded random input of length n until both min_repeats calls and min_ms
// milliseconds are done (after a warm-up of the same length)
BenchmarkResult run_benchmark(BenchmarkKernel kernel, Index n, int min_repeats = 7, double min_ms = 300);

}  // namespace attnlab
