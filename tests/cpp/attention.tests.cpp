#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/attention.hpp"
#include "core/check.hpp"
#include "core/thread_pool.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;
using Catch::Matchers::WithinAbs;

namespace {

// Every stage of the engine's trace against the double-precision reference, to 1e-6.
void check_trace_against_reference(const AttentionTrace& t, bool causal, bool scaled = true) {
  const auto ref = reference_attention(t.q.cast<double>(), t.k.cast<double>(), t.v.cast<double>(),
                                       causal, scaled);
  CHECK_THAT(t.scores, IsNear(ref.scores, 1e-6));
  CHECK_THAT(t.scaled, IsNear(ref.scaled, 1e-6));
  CHECK_THAT(t.weights, IsNear(ref.weights, 1e-6));
  CHECK_THAT(t.output, IsNear(ref.output, 1e-6));
}

}  // namespace

TEST_CASE("the slide deck's worked example: n = 3, d = 4, d_k = d_v = 2", "[attention][seminar]") {
  const Matrix x = rows({{1, 0, 1, 0}, {0, 1, 0, 1}, {1, 1, 0, 0}});
  const Matrix w_q = rows({{1, 0}, {0, 1}, {1, 0}, {0, 1}});
  const Matrix w_k = rows({{0, 1}, {1, 0}, {0, 1}, {1, 0}});
  const Matrix w_v = rows({{1, 1}, {0, 0}, {1, 0}, {0, 1}});
  const AttentionTrace t = attention_head_forward_traced(x, x, w_q, w_k, w_v, Mask::none(), true);

  SECTION("projections are the deck's integer matrices") {
    CHECK_THAT(t.q, IsNear(rows({{2, 0}, {0, 2}, {1, 1}}), 0));
    CHECK_THAT(t.k, IsNear(rows({{0, 2}, {2, 0}, {1, 1}}), 0));
    CHECK_THAT(t.v, IsNear(rows({{2, 1}, {0, 1}, {1, 1}}), 0));
  }
  SECTION("scores, scaling and weights") {
    CHECK_THAT(t.scores, IsNear(rows({{0, 4, 2}, {4, 0, 2}, {2, 2, 2}}), 0));
    CHECK_THAT(t.scale, WithinAbs(1.0 / std::sqrt(2.0), 1e-7));
    CHECK_THAT(t.masked, IsNear(t.scaled, 0));
    // e^(0), e^(2√2), e^(√2) normalised: computed here in double, not taken from the deck
    const double e0 = 1.0, e1 = std::exp(2.0 * std::sqrt(2.0)), e2 = std::exp(std::sqrt(2.0));
    const double s = e0 + e1 + e2;
    CHECK_THAT(t.weights(0, 0), WithinAbs(e0 / s, 1e-6));
    CHECK_THAT(t.weights(0, 1), WithinAbs(e1 / s, 1e-6));
    CHECK_THAT(t.weights(0, 2), WithinAbs(e2 / s, 1e-6));
    CHECK_THAT(t.weights(2, 0), WithinAbs(1.0 / 3.0, 1e-6));
    // the deck prints A's first row as (0.05, 0.78, 0.17); the exact row is (0.0454, 0.7679, 0.1867)
    CHECK_THAT(t.weights, IsNear(rows({{0.0453884f, 0.7679176f, 0.1866940f},
                                       {0.7679176f, 0.0453884f, 0.1866940f},
                                       {1 / 3.0f, 1 / 3.0f, 1 / 3.0f}}), 1e-6));
  }
  SECTION("every stage against the independent reference") {
    check_trace_against_reference(t, false);
    // output row 1 = 2·α₁₁ + α₁₃ = 0.2775 (the deck prints 0.27)
    CHECK_THAT(t.output(0, 0), WithinAbs(2.0 * t.weights(0, 0) + t.weights(0, 2), 1e-6));
    CHECK_THAT(t.output.col(1).sum(), WithinAbs(3.0, 1e-6));
  }
}

TEST_CASE("write-up 002's numerical example: n = 3, d = 2", "[attention][seminar]") {
  const Matrix z = rows({{1.0f, 0.5f}, {2.0f, 1.0f}, {0.5f, 2.0f}});
  const Matrix w_q = rows({{0.5f, 0.3f}, {0.2f, 0.4f}});
  const Matrix w_k = rows({{0.3f, 0.1f}, {0.4f, 0.2f}});
  const Matrix w_v = rows({{0.2f, 0.5f}, {0.3f, 0.1f}});
  const AttentionTrace t = attention_head_forward_traced(z, z, w_q, w_k, w_v, Mask::none(), true);

  SECTION("projections, including the entries the write-up gets wrong") {
    CHECK_THAT(t.q, IsNear(rows({{0.6f, 0.5f}, {1.2f, 1.0f}, {0.65f, 0.95f}}), 1e-6));
    // row 3 of Q, K and V is (0.65, 0.95), (0.95, 0.45), (0.7, 0.45); the write-up prints
    // (0.65, 1.1), (0.95, 0.5) and (0.76, 0.45)
    CHECK_THAT(t.k, IsNear(rows({{0.5f, 0.2f}, {1.0f, 0.4f}, {0.95f, 0.45f}}), 1e-6));
    CHECK_THAT(t.v, IsNear(rows({{0.35f, 0.55f}, {0.7f, 1.1f}, {0.7f, 0.45f}}), 1e-6));
  }
  SECTION("every stage against the independent reference") {
    check_trace_against_reference(t, false);
    for (Index i = 0; i < 3; ++i) CHECK_THAT(t.weights.row(i).sum(), WithinAbs(1.0, 1e-6));
  }
}

TEST_CASE("attention masks", "[attention][mask]") {
  const Matrix q = rows({{0.2f, -1.0f, 0.5f}, {1.3f, 0.4f, -0.2f}, {-0.6f, 0.9f, 1.1f}, {0.0f, 0.3f, -0.8f}});
  const Matrix k = rows({{1.0f, 0.1f, -0.3f}, {-0.5f, 0.8f, 0.2f}, {0.7f, -0.9f, 0.6f}, {0.3f, 0.3f, 0.3f}});
  const Matrix v = rows({{1, 2}, {3, -1}, {0.5f, 0.5f}, {-2, 1}});

  SECTION("causal: zero weight above the diagonal, rows sum to 1, equal to the reference") {
    const AttentionTrace t = attention_forward_traced(q, k, v, Mask::causal_mask(), true);
    for (Index i = 0; i < 4; ++i) {
      for (Index j = i + 1; j < 4; ++j) CHECK(t.weights(i, j) == 0.0f);
      CHECK_THAT(t.weights.row(i).sum(), WithinAbs(1.0, 1e-6));
    }
    CHECK(t.weights(0, 0) == 1.0f);
    check_trace_against_reference(t, true);
  }
  SECTION("causal with fewer queries than keys: the queries are the last positions") {
    const AttentionTrace t = attention_forward_traced(q.bottomRows(2), k, v, Mask::causal_mask(), true);
    CHECK(t.weights(0, 3) == 0.0f);
    CHECK(t.weights(0, 2) > 0.0f);
    CHECK(t.weights(1, 3) > 0.0f);
    check_trace_against_reference(t, true);
  }
  SECTION("key padding hides whole columns") {
    const AttentionTrace t = attention_forward_traced(q, k, v, Mask::key_padding_mask({0, 1, 0, 1}), true);
    CHECK(t.weights.col(1).isZero(0));
    CHECK(t.weights.col(3).isZero(0));
    const auto ref = reference_attention(q.cast<double>(), MatrixD(k.cast<double>()({0, 2}, Eigen::all)),
                                         MatrixD(v.cast<double>()({0, 2}, Eigen::all)), false);
    CHECK_THAT(Matrix(t.weights(Eigen::all, {0, 2})), IsNear(ref.weights, 1e-6));
    CHECK_THAT(t.output, IsNear(ref.output, 1e-6));
  }
  SECTION("an arbitrary additive mask is added after scaling") {
    const Matrix bias = rows({{0, -1, 0.5f, 0}, {2, 0, 0, -3}, {0, 0, 0, 0}, {-0.25f, 1, 1, 1}});
    const AttentionTrace t = attention_forward_traced(q, k, v, Mask::additive_mask(bias), true);
    CHECK_THAT(t.masked, IsNear(Matrix(t.scaled + bias), 1e-6));
    for (Index i = 0; i < 4; ++i) CHECK_THAT(t.weights.row(i).sum(), WithinAbs(1.0, 1e-6));
  }
  SECTION("a fully masked row gives zero weights and a zero output, never NaN") {
    const float inf = std::numeric_limits<float>::infinity();
    Matrix hide = Matrix::Zero(4, 4);
    hide.row(2).setConstant(-inf);
    const AttentionTrace t = attention_forward_traced(q, k, v, Mask::additive_mask(hide), true);
    CHECK(t.weights.allFinite());
    CHECK(t.weights.row(2).isZero(0));
    CHECK(t.output.row(2).isZero(0));
    CHECK(t.output.allFinite());
  }
  SECTION("the fast path equals the traced one") {
    Matrix out(4, 2);
    attention_forward(q, k, v, Mask::causal_mask(), true, out);
    CHECK_THAT(out, IsNear(attention_forward_traced(q, k, v, Mask::causal_mask(), true).output, 1e-6));
  }
}

TEST_CASE("the fused fast path, in blocks of query rows over the threads", "[attention][threads]") {
  std::srand(3);
  // queries at the last 300 of 420 key positions: blocks of 39 rows, the last one short
  const Matrix q = Matrix::Random(300, 16), k = Matrix::Random(420, 16), v = Matrix::Random(420, 5);
  std::vector<std::uint8_t> padding(420, 0);
  padding[7] = padding[411] = 1;
  Mask mask = Mask::key_padding_mask(padding);
  mask.causal = true;
  const AttentionTrace traced = attention_forward_traced(q, k, v, mask, true);
  Matrix fused(300, 5), whole(300, 5);
  attention_forward(q, k, v, mask, true, fused);
  attention_forward(q, k, v, mask, true, whole, 300);
  SECTION("equals every stage run on the whole matrix, whatever the rows per block") {
    CHECK_THAT(fused, IsNear(traced.output, 1e-6));
    CHECK_THAT(whole, IsNear(traced.output, 1e-6));
    for (Index rows : {1, 7, 64, 299}) {
      Matrix blocked(300, 5);
      attention_forward(q, k, v, mask, true, blocked, rows);
      CHECK_THAT(blocked, IsNear(traced.output, 1e-6));
    }
  }
  SECTION("gives the same bits on any number of threads") {
    set_num_threads(std::min<Index>(max_threads(), 3));
    Matrix several(300, 5);
    attention_forward(q, k, v, mask, true, several);
    set_num_threads(1);
    CHECK(several == fused);
  }
  SECTION("writes into a column block of a wider matrix, as heads do into their concatenation") {
    Matrix concat = Matrix::Constant(300, 12, 7.0f);
    attention_forward(q, k, v, mask, true, concat.middleCols(4, 5));
    CHECK(concat.middleCols(4, 5) == fused);
    CHECK((concat.leftCols(4).array() == 7.0f).all());
    CHECK((concat.rightCols(3).array() == 7.0f).all());
  }
}

TEST_CASE("switching the √d_k scaling off", "[attention]") {
  const Matrix q = rows({{3, 1, -2, 4}, {0.5f, 2, 1, -1}});
  const AttentionTrace scaled = attention_forward_traced(q, q, q, Mask::none(), true);
  const AttentionTrace raw = attention_forward_traced(q, q, q, Mask::none(), false);
  CHECK(raw.scale == 1.0f);
  CHECK_THAT(raw.scaled, IsNear(raw.scores, 0));
  check_trace_against_reference(raw, false, false);
  // unscaled weights are sharper: the largest weight of each row grows
  for (Index i = 0; i < 2; ++i) CHECK(raw.weights.row(i).maxCoeff() > scaled.weights.row(i).maxCoeff());
}

TEST_CASE("attention rejects bad input with a clear message", "[attention][errors]") {
  const Matrix q = Matrix::Ones(3, 4), k = Matrix::Ones(5, 4), v = Matrix::Ones(5, 2);
  CHECK_THROWS_WITH(attention_forward_traced(q, Matrix::Ones(5, 3), v, Mask::none(), true),
                    Catch::Contains("d_k must match"));
  CHECK_THROWS_WITH(attention_forward_traced(q, k, Matrix::Ones(4, 2), Mask::none(), true),
                    Catch::Contains("one value per key"));
  CHECK_THROWS_WITH(attention_forward_traced(Matrix(0, 4), k, v, Mask::none(), true),
                    Catch::Contains("n = 0"));
  Matrix bad = q;
  bad(1, 2) = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH(attention_forward_traced(bad, k, v, Mask::none(), true),
                    Catch::Contains("non-finite value at (1,2)"));
  CHECK_THROWS_WITH(attention_forward_traced(q, k, v, Mask::additive_mask(Matrix::Zero(3, 4)), true),
                    Catch::Contains("expected (3,5)"));
  CHECK_THROWS_WITH(attention_forward_traced(q, k, v, Mask::key_padding_mask({0, 1}), true),
                    Catch::Contains("2 flags for 5 keys"));
  CHECK_THROWS_WITH(attention_head_forward_traced(q, q, Matrix::Ones(3, 2), Matrix::Ones(4, 2),
                                                  Matrix::Ones(4, 2), Mask::none(), true),
                    Catch::Contains("need d = 4 rows"));
  // and it still works afterwards
  const AttentionTrace t = attention_forward_traced(q, k, v, Mask::none(), true);
  CHECK_THAT(t.weights(0, 0), WithinAbs(0.2, 1e-6));
}
