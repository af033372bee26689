#include <catch2/catch.hpp>

#include "core/attention_steps.hpp"
#include "core/check.hpp"
#include "allocation_tracker.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {
AttentionConfig config(Index h, Index g) {
  AttentionConfig c;
  c.d_model = 16;
  c.n_heads = h;
  c.n_kv_heads = g;
  return c;
}
}  // namespace

TEST_CASE("attention one stage at a time", "[attention][steps]") {
  const Matrix x = seeded_random(7, 16, 1), memory = seeded_random(5, 16, 2);
  SECTION("each stage appears in order and the end equals the one-call forward") {
    for (auto [h, g] : {std::pair<Index, Index>{4, 4}, {4, 2}, {4, 1}, {1, 1}}) {
      const AttentionConfig c = config(h, g);
      AttentionParams p = AttentionParams::init(c, 3);
      p.c_attn_weight *= 10.0f;
      AttentionSteps s = AttentionSteps::multi_head(c, p, x, Matrix(), Mask::causal_mask());
      CHECK(s.stage() == AttentionStage::start);
      CHECK(s.next_stage() == AttentionStage::project);
      CHECK(s.advance() == AttentionStage::project);
      CHECK(s.heads() == h);
      CHECK(s.head(0).scores.size() == 0);
      CHECK(s.advance() == AttentionStage::scores);
      CHECK(s.head(h - 1).scores.rows() == 7);
      CHECK(s.advance() == AttentionStage::scale);
      CHECK(s.advance() == AttentionStage::mask);
      CHECK(std::isinf(s.head(0).masked(0, 1)));
      CHECK(s.advance() == AttentionStage::softmax);
      CHECK(s.advance() == AttentionStage::mix);
      CHECK(s.advance() == AttentionStage::concat);
      CHECK(s.advance() == AttentionStage::output);
      CHECK(s.finished());
      CHECK_THROWS_WITH(s.advance(), Catch::Contains("every stage has run"));
      MultiHeadTrace t;
      const Matrix expected = self_attention_forward(c, p, x, Mask::causal_mask(), &t);
      CHECK_THAT(s.output(), IsNear(expected, 1e-6));
      for (Index i = 0; i < h; ++i) CHECK_THAT(s.head(i).weights, IsNear(t.heads[i].weights, 1e-6));
    }
  }
  SECTION("cross-attention and ALiBi") {
    AttentionConfig c = config(2, 2);
    const AttentionParams p = AttentionParams::init(c, 4);
    AttentionSteps cross = AttentionSteps::multi_head(c, p, x, memory, Mask::none());
    cross.run_all();
    CHECK(cross.head(1).weights.cols() == 5);
    CHECK_THAT(cross.output(), IsNear(cross_attention_forward(c, p, x, memory, Mask::none()), 1e-6));
    c.alibi = true;
    AttentionSteps alibi = AttentionSteps::multi_head(c, p, x, Matrix(), Mask::none());
    alibi.run_all();
    CHECK_THAT(alibi.output(), IsNear(self_attention_forward(c, p, x, Mask::none()), 1e-6));
  }
  SECTION("flash attention exposes its tiles and gives the same output") {
    const AttentionConfig naive = config(2, 1);
    AttentionConfig c = naive;
    c.flash_rows = 4;
    c.flash_cols = 3;
    const AttentionParams p = AttentionParams::init(c, 5);
    AttentionSteps s = AttentionSteps::multi_head(c, p, x, Matrix(), Mask::causal_mask());
    CHECK(s.stages().size() == 5);
    s.run_all();
    CHECK_THAT(s.output(), IsNear(self_attention_forward(naive, p, x, Mask::causal_mask()), 1e-6));
    CHECK(s.output() == self_attention_forward(c, p, x, Mask::causal_mask()));  // the model path's flash
    CHECK(s.flash(1).steps.size() > 2);
    CHECK(s.head(0).weights.size() == 0);  // never formed
    CHECK_THROWS_WITH(AttentionSteps::multi_head(c, p, x, Matrix(), Mask::key_padding_mask(std::vector<std::uint8_t>(7, 0))),
                      Catch::Contains("causal mask only"));
    c.flash_cols = 0;
    CHECK_THROWS_WITH(AttentionSteps::multi_head(c, p, x, Matrix(), Mask::causal_mask()), Catch::Contains("both tile sizes"));
  }
  SECTION("the deck's single head, and bad input at construction") {
    const Matrix xd = rows({{1, 0, 1, 0}, {0, 1, 0, 1}, {1, 1, 0, 0}});
    const Matrix wq = rows({{1, 0}, {0, 1}, {1, 0}, {0, 1}}), wk = rows({{0, 1}, {1, 0}, {0, 1}, {1, 0}}),
                 wv = rows({{1, 1}, {0, 0}, {1, 0}, {0, 1}});
    AttentionSteps s = AttentionSteps::single_head(xd, Matrix(), wq, wk, wv, Mask::none(), true);
    s.run_all();
    CHECK(s.stage() == AttentionStage::mix);
    CHECK_THAT(s.head(0).weights, IsNear(attention_head_forward_traced(xd, xd, wq, wk, wv, Mask::none(), true).weights, 0));
    CHECK_THROWS_AS(s.flash(0), Error);
    CHECK_THROWS_WITH(s.head(1), Catch::Contains("head 1 does not exist"));
    CHECK_THROWS_WITH(AttentionSteps::single_head(xd, Matrix(), wq, Matrix::Ones(3, 2), wv, Mask::none(), true),
                      Catch::Contains("need d = 4 rows"));
    CHECK_THROWS_WITH(AttentionSteps::multi_head(config(4, 4), AttentionParams::init(config(4, 4), 1), Matrix::Ones(2, 15),
                                                 Matrix(), Mask::none()), Catch::Contains("expected d_model = 16"));
  }
}

namespace {
// everything a reader of the steps can see: the stage, and every matrix each stage has produced
struct Seen {
  AttentionStage stage;
  std::vector<Matrix> matrices;
  std::size_t flash_steps = 0;
};
Seen seen(const AttentionSteps& s) {
  Seen out{s.stage(), {s.concat(), s.output()}};
  for (Index h = 0; h < s.heads(); ++h) {
    const AttentionTrace& t = s.head(h);
    out.matrices.insert(out.matrices.end(), {t.q, t.k, t.v, t.scores, t.scaled, t.masked, t.weights, t.output});
    if (s.stages().size() == 5 && s.stage() != AttentionStage::project) out.flash_steps += s.flash(h).steps.size();
  }
  return out;
}
bool same(const Seen& a, const Seen& b) {
  if (a.stage != b.stage || a.matrices.size() != b.matrices.size() || a.flash_steps != b.flash_steps) return false;
  for (size_t i = 0; i < a.matrices.size(); ++i) {
    const Matrix &x = a.matrices[i], &y = b.matrices[i];
    if (x.rows() != y.rows() || x.cols() != y.cols() || (x.size() && x != y)) return false;
  }
  return true;
}
}  // namespace

TEST_CASE("a stage that fails leaves the steps as they were", "[attention][steps][errors]") {
  const Matrix x = seeded_random(6, 16, 1), memory = seeded_random(4, 16, 2);
  AttentionConfig rope = config(4, 2);
  rope.rope = true;
  AttentionConfig flash = config(2, 1);
  flash.flash_rows = 4;
  flash.flash_cols = 3;
  const Matrix wq = seeded_random(16, 4, 3), wk = seeded_random(16, 4, 4), wv = seeded_random(16, 4, 5);
  const std::vector<std::pair<std::string, AttentionSteps>> cases = {
      {"grouped heads with RoPE, causal", AttentionSteps::multi_head(rope, AttentionParams::init(rope, 3), x, Matrix(), Mask::causal_mask())},
      {"cross-attention", AttentionSteps::multi_head(config(2, 2), AttentionParams::init(config(2, 2), 4), x, memory, Mask::none())},
      {"flash attention", AttentionSteps::multi_head(flash, AttentionParams::init(flash, 5), x, Matrix(), Mask::causal_mask())},
      {"one head with its own projections", AttentionSteps::single_head(x, Matrix(), wq, wk, wv, Mask::causal_mask(), true)},
  };
  for (const auto& [name, untouched] : cases) {
    SECTION(name) {
      AttentionSteps steps = untouched, reference = untouched;
      reference.run_all();
      std::size_t failures = 0;
      while (!steps.finished()) {
        const Seen before = seen(steps);
        INFO("advancing from " << to_string(steps.stage()));
        failures += fail_each_allocation([&] { steps.advance(); }, [&] { CHECK(same(seen(steps), before)); });
      }
      // and the steps, once they succeed, end where steps that never failed end
      CHECK(same(seen(steps), seen(reference)));
      if (allocation_tracking_available()) CHECK(failures >= steps.stages().size() - 1);
    }
  }
}
