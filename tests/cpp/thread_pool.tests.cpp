#include <catch2/catch.hpp>
#include <atomic>
#include <stdexcept>
#include <vector>

#include "core/attention.hpp"
#include "core/check.hpp"
#include "core/thread_pool.hpp"
#include "model/transformer.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {
// restores one thread when a test ends, whatever happens
struct ThreadsFor {
  explicit ThreadsFor(Index n) { set_num_threads(n); }
  ~ThreadsFor() { set_num_threads(1); }
};
Index most_threads() { return std::min<Index>(max_threads(), 4); }
}  // namespace

TEST_CASE("thread pool", "[threads]") {
  ThreadsFor threads(most_threads());
  SECTION("every index runs exactly once, also when regions nest") {
    std::vector<std::atomic<int>> hits(1000);
    parallel_for(10, [&](Index outer) {
      parallel_for(100, [&](Index inner) { hits[static_cast<size_t>(outer * 100 + inner)]++; });
    });
    for (auto& h : hits) CHECK(h == 1);
  }
  SECTION("an exception in a body reaches the caller, and the pool keeps working") {
    CHECK_THROWS_WITH(parallel_for(50, [](Index i) { if (i == 17) throw Error("body 17 failed"); }),
                      Catch::Contains("body 17 failed"));
    std::atomic<int> count{0};
    parallel_for(64, [&](Index) { count++; });
    CHECK(count == 64);
  }
  SECTION("asking for more threads than the build has is an error, not a hang") {
    CHECK_THROWS_WITH(set_num_threads(max_threads() + 1), Catch::Contains("threads"));
    CHECK_THROWS_AS(set_num_threads(0), Error);
    CHECK(num_threads() == most_threads());
  }
}

TEST_CASE("results are the same with 1 or N threads", "[threads]") {
  std::srand(12);
  const Matrix q = Matrix::Random(200, 32), k = Matrix::Random(230, 32), v = Matrix::Random(230, 16);
  Mask mask = Mask::causal_mask();
  mask.key_padding.assign(230, 0);
  mask.key_padding[3] = 1;
  mask.additive = Matrix::Random(200, 230);
  const Matrix x = Matrix::Random(200, 24), w_q = Matrix::Random(24, 32), w_k = Matrix::Random(24, 32),
               w_v = Matrix::Random(24, 16);
  const ModelConfig c = ModelConfig::Builder(Architecture::decoder_only, 20, 64)
                            .width(32, 8)
                            .kv_heads(2)
                            .ffn(64)
                            .layers(2)
                            .positional(Positional::alibi)
                            .build();
  const Transformer model = Transformer::random(c, 4);
  std::vector<int> tokens;
  for (int i = 0; i < 60; ++i) tokens.push_back((i * 7) % 20);

  auto run = [&](Index threads) {
    ThreadsFor use(threads);
    Matrix out(200, 16);
    attention_forward(q, k, v, mask, true, out);
    // one head from x: its projections split their rows too
    const Matrix head = attention_head_forward(x, x, w_q, w_k, w_v, Mask::causal_mask(), true);
    return std::make_tuple(out, model.forward(tokens), head);
  };
  const auto [o1, l1, h1] = run(1);
  const auto [on, ln, hn] = run(most_threads());
  CHECK_THAT(on, IsNear(o1, 1e-6));
  CHECK_THAT(ln, IsNear(l1, 1e-6));
  CHECK_THAT(hn, IsNear(h1, 1e-6));
  // and the split attention equals the traced, unsplit one
  const AttentionTrace t = attention_forward_traced(q, k, v, mask, true);
  CHECK_THAT(on, IsNear(t.output, 1e-6));
}
