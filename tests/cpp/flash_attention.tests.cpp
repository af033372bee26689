#include <catch2/catch.hpp>

#include "allocation_tracker.hpp"
#include "core/attention.hpp"
#include "core/check.hpp"
#include "core/flash_attention.hpp"
#include "core/thread_pool.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {

// attention with the n×m matrix formed whole
Matrix naive(const Matrix& q, const Matrix& k, const Matrix& v, bool causal) {
  Matrix out(q.rows(), v.cols());
  attention_forward(q, k, v, causal ? Mask::causal_mask() : Mask::none(), true, out, q.rows());
  return out;
}

}  // namespace

TEST_CASE("flash attention equals naive attention", "[flash][threads]") {
  SECTION("odd sizes, uneven tiles, with and without the causal mask, n ≤ m and n > m") {
    for (auto [n, m] : {std::pair<Index, Index>{37, 37}, {5, 53}, {40, 9}, {1, 1}}) {
      const Matrix q = seeded_random(n, 12, 1, 2.0f), k = seeded_random(m, 12, 2, 2.0f), v = seeded_random(m, 7, 3);
      for (bool causal : {false, true})
        for (Index br : {1, 8, 64})
          for (Index bc : {3, 16, 100}) {
            INFO("n " << n << " m " << m << " causal " << causal << " tiles " << br << "×" << bc);
            CHECK_THAT(flash_attention_forward(q, k, v, causal, true, br, bc), IsNear(naive(q, k, v, causal), 1e-5));
          }
    }
  }
  SECTION("n = 4096 within 1e-5, without ever allocating an n×n matrix") {
    const Index n = 4096, d = 64;
    const Matrix q = seeded_random(n, d, 4), k = seeded_random(n, d, 5), v = seeded_random(n, d, 6);
    if (allocation_tracking_available()) allocation_tracking_start();
    const Matrix out = flash_attention_forward(q, k, v, true, true);
    const std::size_t peak = allocation_tracking_peak();
    allocation_tracking_stop();
    if (allocation_tracking_available()) {
      INFO("peak extra heap bytes " << peak);
      CHECK(peak < std::size_t(4) * n * d * sizeof(float));   // O(n·d): output plus tiles
      CHECK(peak < std::size_t(n) * n * sizeof(float) / 16);  // far from n²
    }
    // the same measurement does see the naive kernel's n×n weights
    if (allocation_tracking_available()) allocation_tracking_start();
    const Matrix reference = naive(q, k, v, true);
    if (allocation_tracking_available()) CHECK(allocation_tracking_peak() >= std::size_t(n) * n * sizeof(float));
    allocation_tracking_stop();
    CHECK_THAT(out, IsNear(reference, 1e-5));
  }
  SECTION("query blocks spread over threads give the same bits as one thread") {
    const Matrix q = seeded_random(300, 16, 10), k = seeded_random(300, 16, 11), v = seeded_random(300, 16, 12);
    const Matrix one = flash_attention_forward(q, k, v, true, true, 32, 48);
    set_num_threads(std::min<Index>(max_threads(), 3));
    const Matrix several = flash_attention_forward(q, k, v, true, true, 32, 48);
    set_num_threads(1);
    CHECK(several == one);
  }
}

TEST_CASE("flash attention's running statistics", "[flash]") {
  const Matrix q = seeded_random(6, 4, 7, 3.0f), k = seeded_random(10, 4, 8, 3.0f), v = seeded_random(10, 3, 9);
  FlashTrace trace;
  flash_attention_forward(q, k, v, false, true, 4, 3, &trace);
  SECTION("one step per tile, in order") {
    REQUIRE(trace.steps.size() == 2 * 4);
    CHECK(trace.steps[5].query_block == 1);
    CHECK(trace.steps[5].key_block == 1);
  }
  SECTION("after the last tile, max and sum are the softmax's row max and normaliser") {
    const AttentionTrace full = attention_forward_traced(q, k, v, Mask::none(), true);
    for (Index block = 0; block < 2; ++block) {
      const FlashTileStep& last = trace.steps[static_cast<size_t>(block * 4 + 3)];
      for (Index i = 0; i < last.running_max.size(); ++i) {
        const auto row = full.scaled.row(block * 4 + i);
        CHECK(last.running_max(i) == Approx(row.maxCoeff()).epsilon(1e-6));
        CHECK(last.running_sum(i) == Approx((row.array() - row.maxCoeff()).exp().sum()).epsilon(1e-5));
      }
    }
    // the running max never decreases
    for (size_t s = 1; s < 4; ++s) CHECK((trace.steps[s].running_max.array() >= trace.steps[s - 1].running_max.array()).all());
  }
  SECTION("bad tiles are refused") {
    CHECK_THROWS_AS(flash_attention_forward(q, k, v, false, true, 0, 4), Error);
  }
}
