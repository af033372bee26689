#include <catch2/catch.hpp>

#include <vector>

#include "core/check.hpp"
#include "core/matmul.hpp"
#include "core/thread_pool.hpp"
#include "model/benchmark.hpp"
#include "allocation_tracker.hpp"

using namespace attnlab;

// Timing itself is never asserted (benchmarks are measurements); these check what a run reports.
TEST_CASE("benchmark runs every kernel and counts its flops", "[benchmark]") {
  BenchmarkOptions once;
  once.min_repeats = 1;
  once.min_ms = 0;
  once.warm_up = false;
  SECTION("flops per call follow each kernel's formula") {
    const Index n = 96;
    const double d = 32;
    once.d = 32;
    const std::pair<BenchmarkKernel, double> cases[] = {
        {BenchmarkKernel::single_head, 4.0 * n * n * d}, {BenchmarkKernel::flash, 4.0 * n * n * d},
        {BenchmarkKernel::projections, 8.0 * n * d * d}, {BenchmarkKernel::feed_forward, 16.0 * n * d * d},
        {BenchmarkKernel::multi_head, 8.0 * n * d * d + 4.0 * n * n * d},
        {BenchmarkKernel::head, 6.0 * n * d * d + 4.0 * n * n * d}, {BenchmarkKernel::matmul, 2.0 * n * d * d},
        {BenchmarkKernel::multiply_add_peak, static_cast<double>(num_threads()) * n * 1000 * kPeakFlopsPerStep}};
    for (const auto& [kernel, flops] : cases) {
      INFO(to_string(kernel));
      const BenchmarkResult r = run_benchmark(kernel, n, once);
      CHECK(r.repeats == 1);
      REQUIRE(r.median_ms > 0);
      CHECK(r.gflops * r.median_ms * 1e6 == Approx(flops).epsilon(1e-9));
    }
  }
  SECTION("names round-trip; unknown names, bad n and d are refused") {
    for (const char* name : {"single_head", "flash", "projections", "feed_forward", "multi_head", "head", "matmul", "multiply_add_peak"})
      CHECK(to_string(benchmark_kernel_from_string(name)) == name);
    CHECK_THROWS_WITH(benchmark_kernel_from_string("fast"), Catch::Contains("single_head"));
    CHECK_THROWS_WITH(run_benchmark(BenchmarkKernel::single_head, 8193, once), Catch::Contains("8192"));
    CHECK(benchmark_max_length(BenchmarkKernel::flash) == 32768);
    CHECK_THROWS_WITH(run_benchmark(BenchmarkKernel::flash, 32769, once), Catch::Contains("32768"));
    // bounded work: flash at its longest n with d = 512 would take 10 minutes a call
    BenchmarkOptions wide = once;
    wide.d = 512;
    CHECK_THROWS_WITH(run_benchmark(BenchmarkKernel::flash, 32768, wide),
                      Catch::Contains("one flash call at n = 32768, d = 512 is 2199023255552 floating-point operations, "
                                      "more than the limit of 274877906944"));
    BenchmarkOptions many = once;
    many.min_repeats = 1000;
    CHECK_THROWS_WITH(run_benchmark(BenchmarkKernel::naive, 8192, many), Catch::Contains("ask for fewer repeats"));
    once.d = 12;
    CHECK_THROWS_WITH(run_benchmark(BenchmarkKernel::multi_head, 16, once), Catch::Contains("multiple of the 8 heads"));
    once.d = 0;
    once.min_repeats = 0;
    CHECK_THROWS_AS(run_benchmark(BenchmarkKernel::flash, 16, once), Error);
  }
  SECTION("memory: what a run holds stays within its bound, which is checked before allocating") {
    const bool tracked = test::allocation_tracking_available();  // glibc only
    const std::vector<BenchmarkKernel> kernels = {BenchmarkKernel::single_head, BenchmarkKernel::naive, BenchmarkKernel::flash,
                                       BenchmarkKernel::projections, BenchmarkKernel::feed_forward, BenchmarkKernel::head,
                                       BenchmarkKernel::multi_head, BenchmarkKernel::matmul};
    for (const BenchmarkKernel kernel : tracked ? kernels : std::vector<BenchmarkKernel>{}) {
      for (const auto& [n, d] : {std::pair<Index, Index>{2048, 512}, {4096, 64}, {300, 256}, {40, 8}}) {
        INFO(to_string(kernel) << " n = " << n << " d = " << d);
        once.d = d;
        test::allocation_tracking_start();
        run_benchmark(kernel, n, once);
        const std::size_t peak = test::allocation_tracking_peak();
        test::allocation_tracking_stop();
        const std::uint64_t bound = benchmark_bytes(kernel, n, d, num_threads());
        CHECK(peak <= bound);
        // a bound, not a guess: within 3× of what the run held, once its buffers outweigh the workspaces
        if (n >= 2048) CHECK(bound <= 3 * peak);
      }
    }
    once.d = 1024;
    test::allocation_tracking_start();
    CHECK_THROWS_WITH(run_benchmark(BenchmarkKernel::flash, 32768, once),
                      Catch::Contains("holds up to") && Catch::Contains("more than the limit of 536870912"));
    if (tracked) CHECK(test::allocation_tracking_peak() < (1u << 16));  // refused before its matrices were allocated
    test::allocation_tracking_stop();
  }
}
