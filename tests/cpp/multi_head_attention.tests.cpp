#include <catch2/catch.hpp>
#include <numeric>
#include <vector>

#include "core/alibi.hpp"
#include "core/check.hpp"
#include "core/multi_head_attention.hpp"
#include "core/random.hpp"
#include "core/rope.hpp"
#include "core/sinusoidal.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {

AttentionParams params_from(const FixtureCase& f) {
  AttentionParams p;
  p.c_attn_weight = f.tensor("c_attn_weight");
  p.c_attn_bias = f.tensor("c_attn_bias");
  p.c_proj_weight = f.tensor("c_proj_weight");
  p.c_proj_bias = f.tensor("c_proj_bias");
  return p;
}

}  // namespace

TEST_CASE("multi-head attention matches PyTorch", "[attention][multihead][oracle]") {
  for (const FixtureCase& f : load_fixture_cases("attention.json")) {
    DYNAMIC_SECTION(f.name) {
      AttentionConfig config;
      config.d_model = f.get<Index>("d_model");
      config.n_heads = f.get<Index>("n_heads");
      config.n_kv_heads = f.get<Index>("n_kv_heads");
      Mask mask;
      mask.causal = f.get<bool>("causal");
      mask.key_padding = f.get<std::vector<std::uint8_t>>("key_padding");
      const Matrix x = f.tensor("x");
      MultiHeadTrace trace;
      const Matrix out = f.kind == "cross"
                             ? cross_attention_forward(config, params_from(f), x, f.tensor("memory"), mask, &trace)
                             : self_attention_forward(config, params_from(f), x, mask, &trace);
      CHECK_THAT(out, IsNear(f.tensor("output"), 1e-5));
      const std::vector<Matrix> weights = f.tensor_stack("weights");
      REQUIRE(weights.size() == static_cast<size_t>(config.n_heads));
      for (Index h = 0; h < config.n_heads; ++h) {
        INFO("head " << h);
        CHECK_THAT(trace.heads[h].weights, IsNear(weights[h], 1e-5));
      }
      // the untraced path gives the same output
      const Matrix fast = f.kind == "cross"
                              ? cross_attention_forward(config, params_from(f), x, f.tensor("memory"), mask)
                              : self_attention_forward(config, params_from(f), x, mask);
      CHECK_THAT(fast, IsNear(out, 1e-6));
    }
  }
}

TEST_CASE("multi-head structure", "[attention][multihead]") {
  AttentionConfig config;
  config.d_model = 12;
  config.n_heads = 4;
  // weights well above GPT-2's 0.02 initialisation, so attention is far from uniform
  AttentionParams params = AttentionParams::init(config, 11);
  params.c_attn_weight *= 25.0f;
  const Matrix x = seeded_random(6, 12, 3);

  SECTION("the trace holds every stage and the concatenation is the heads side by side") {
    MultiHeadTrace t;
    const Matrix out = self_attention_forward(config, params, x, Mask::causal_mask(), &t);
    REQUIRE(t.heads.size() == 4);
    CHECK_THAT(t.q, IsNear(Matrix((x * params.c_attn_weight.leftCols(12)).rowwise() + params.c_attn_bias.head(12)), 1e-6));
    for (Index h = 0; h < 4; ++h) {
      CHECK_THAT(t.heads[h].q, IsNear(Matrix(t.q.middleCols(h * 3, 3)), 0));
      CHECK_THAT(Matrix(t.concat.middleCols(h * 3, 3)), IsNear(t.heads[h].output, 0));
    }
    CHECK_THAT(t.output, IsNear(out, 0));
  }
  SECTION("without positional information self-attention is permutation-equivariant") {
    const std::vector<Index> perm = {4, 0, 5, 2, 1, 3};
    Matrix permuted(6, 12);
    for (Index i = 0; i < 6; ++i) permuted.row(i) = x.row(perm[i]);
    const Matrix out = self_attention_forward(config, params, x, Mask::none());
    const Matrix out_permuted = self_attention_forward(config, params, permuted, Mask::none());
    Matrix expected(6, 12);
    for (Index i = 0; i < 6; ++i) expected.row(i) = out.row(perm[i]);
    CHECK_THAT(out_permuted, IsNear(expected, 1e-6));

    SECTION("and with sinusoidal encodings added it is not") {
      const Matrix pe = sinusoidal_table(6, 12);
      const Matrix with_pe = self_attention_forward(config, params, Matrix(x + pe), Mask::none());
      const Matrix permuted_with_pe = self_attention_forward(config, params, Matrix(permuted + pe), Mask::none());
      Matrix reordered(6, 12);
      for (Index i = 0; i < 6; ++i) reordered.row(i) = with_pe.row(perm[i]);
      CHECK((permuted_with_pe - reordered).cwiseAbs().maxCoeff() > 1e-3f);
    }
  }
  SECTION("GQA and MQA: query heads share key/value heads in consecutive groups") {
    AttentionConfig gqa = config;
    gqa.n_kv_heads = 2;
    CHECK(kv_head_of(gqa, 0) == 0);
    CHECK(kv_head_of(gqa, 1) == 0);
    CHECK(kv_head_of(gqa, 2) == 1);
    CHECK(kv_head_of(gqa, 3) == 1);
    const AttentionParams p = AttentionParams::init(gqa, 5);
    CHECK(p.c_attn_weight.cols() == 12 + 2 * 2 * 3);
    MultiHeadTrace t;
    self_attention_forward(gqa, p, x, Mask::none(), &t);
    CHECK_THAT(t.heads[0].k, IsNear(t.heads[1].k, 0));
    CHECK_THAT(t.heads[2].v, IsNear(t.heads[3].v, 0));
    CHECK_FALSE(t.heads[0].k.isApprox(t.heads[2].k));
  }
  SECTION("ALiBi adds each head's linear distance penalty to its scores") {
    AttentionConfig alibi = config;
    alibi.alibi = true;
    MultiHeadTrace t;
    self_attention_forward(alibi, params, x, Mask::none(), &t);
    const std::vector<float> slopes = alibi_slopes(4);
    for (Index h = 0; h < 4; ++h)
      CHECK_THAT(t.heads[h].masked, IsNear(Matrix(t.heads[h].scaled + alibi_bias(slopes[h], 6, 6)), 1e-6));
  }
  SECTION("RoPE rotates queries and keys, so scores change but values do not") {
    AttentionConfig rope = config;
    rope.n_heads = 2;
    rope.rope = true;
    const AttentionParams p = AttentionParams::init(rope, 9);
    MultiHeadTrace t;
    self_attention_forward(rope, p, x, Mask::none(), &t);
    const Matrix unrotated = (x * p.c_attn_weight.leftCols(12)).rowwise() + p.c_attn_bias.head(12);
    CHECK_THAT(Matrix(t.heads[0].q.row(0)), IsNear(Matrix(unrotated.block(0, 0, 1, 6)), 1e-6));  // position 0
    CHECK_FALSE(t.heads[0].q.row(3).isApprox(unrotated.block(3, 0, 1, 6)));
    Matrix rotated = unrotated.middleCols(6, 6);
    rope_apply(rotated, 0);
    CHECK_THAT(t.heads[1].q, IsNear(rotated, 1e-6));
    const Matrix values = (x * p.c_attn_weight.rightCols(6)).rowwise() + p.c_attn_bias.tail(6);
    CHECK_THAT(t.heads[1].v, IsNear(values, 1e-6));
  }
}

TEST_CASE("attention sizes: parameters and KV-cache bytes from the numbers alone", "[attention][multihead]") {
  for (Index g : {8, 2, 1}) {
    AttentionConfig config;
    config.d_model = 32;
    config.n_heads = 8;
    config.n_kv_heads = g;
    SECTION("g = " + std::to_string(g)) {
      // the parameters are the sizes of the tensors AttentionParams::init allocates
      const AttentionParams p = AttentionParams::init(config, 3);
      const std::uint64_t allocated = p.c_attn_weight.size() + p.c_attn_bias.size() + p.c_proj_weight.size() + p.c_proj_bias.size();
      CHECK(attention_parameters(config) == allocated);
      CHECK(attention_parameters(config) == static_cast<std::uint64_t>(2 * 32 * 32 + 2 * 32 * (g * 4) + 2 * 32 + 2 * (g * 4)));
      // the bytes are what a real cache holds after decoding n tokens one by one
      KVCacheLayer cache;
      Rng rng(5);
      for (int token = 0; token < 7; ++token)
        self_attention_forward_cached(config, p, draw_normal(1, 32, rng), cache);
      CHECK(kv_cache_bytes(config, 7, sizeof(Scalar)) == static_cast<std::uint64_t>(cache.bytes()));
      CHECK(kv_cache_bytes(config, 7, 2) * 2 == kv_cache_bytes(config, 7, 4));
    }
  }
  SECTION("a 7B-class layer (d = 4096, h = 32): MHA against GQA (g = 8) and MQA, without allocating it") {
    AttentionConfig config;
    config.d_model = 4096;
    config.n_heads = 32;
    CHECK(kv_cache_bytes(config, 4096, 2) == 2ull * 4096 * 4096 * 2);  // 64 MiB per layer at fp16
    config.n_kv_heads = 8;
    CHECK(kv_cache_bytes(config, 4096, 2) == 2ull * 4096 * 1024 * 2);
    config.n_kv_heads = 1;
    CHECK(kv_cache_bytes(config, 4096, 2) == 2ull * 4096 * 128 * 2);
    CHECK(attention_parameters(config) == 4096ull * (4096 + 256) + (4096 + 256) + 4096ull * 4096 + 4096);
  }
  SECTION("an inconsistent configuration is refused") {
    AttentionConfig config;
    config.d_model = 32;
    config.n_heads = 8;
    config.n_kv_heads = 3;
    CHECK_THROWS(attention_parameters(config));
    CHECK_THROWS(kv_cache_bytes(config, 1, 4));
  }
}

TEST_CASE("a KV cache layer appends rows in place, with room to grow, and truncates", "[attention][multihead][kv_cache]") {
  KVCacheLayer layer;
  Matrix all(40, 6);
  for (Index i = 0; i < all.size(); ++i) all.data()[i] = static_cast<float>(i);
  layer.append(all.topRows(3));
  CHECK(layer.length() == 3);
  CHECK(layer.kv.rows() >= 16);  // room for what comes next
  for (Index r = 3; r < 40; ++r) layer.append(all.middleRows(r, 1));  // one row a decoded token, growing past its room
  CHECK(layer.length() == 40);
  CHECK(layer.rows() == all);
  CHECK(layer.bytes() == 40 * 6 * static_cast<Index>(sizeof(float)));
  const float* buffer = layer.kv.data();
  layer.truncate(10);
  CHECK(layer.rows() == all.topRows(10));
  layer.append(Matrix::Constant(2, 6, -1.0f));  // overwrites what was truncated, in the same buffer
  CHECK(layer.kv.data() == buffer);
  CHECK(layer.rows().topRows(10) == all.topRows(10));
  CHECK(layer.rows().bottomRows(2) == Matrix::Constant(2, 6, -1.0f));
  CHECK_THROWS_WITH(layer.append(Matrix::Zero(1, 4)), Catch::Contains("built for another configuration"));
}

TEST_CASE("multi-head attention rejects inconsistent configurations", "[attention][multihead][errors]") {
  AttentionConfig config;
  config.d_model = 10;
  config.n_heads = 4;
  CHECK_THROWS_WITH(config.validate(), Catch::Contains("not divisible by n_heads"));
  config.n_heads = 5;
  config.n_kv_heads = 2;
  CHECK_THROWS_WITH(config.validate(), Catch::Contains("does not divide n_heads"));
  config.n_kv_heads = 0;
  config.n_heads = 10;
  config.rope = true;
  CHECK_THROWS_WITH(config.validate(), Catch::Contains("even head width"));
  config.n_heads = 5;
  config.rope = false;
  const AttentionParams params = AttentionParams::init(config, 1);
  CHECK_THROWS_WITH(self_attention_forward(config, params, Matrix::Ones(3, 8), Mask::none()),
                    Catch::Contains("expected d_model = 10"));
  CHECK_THROWS_WITH(self_attention_forward(config, params, Matrix(0, 10), Mask::none()),
                    Catch::Contains("n = 0"));
  AttentionParams broken = params;
  broken.c_proj_weight(2, 3) = std::numeric_limits<float>::infinity();
  CHECK_THROWS_WITH(self_attention_forward(config, broken, Matrix::Ones(3, 10), Mask::none()),
                    Catch::Contains("attn.c_proj.weight contains a non-finite value"));
  // a model's own weights (checked when it was made) are not read again: shapes only
  CHECK_NOTHROW(self_attention_forward(config, broken, Matrix::Ones(3, 10), Mask::none(), nullptr, WeightCheck::shapes));
  broken = params;
  broken.c_attn_bias.resize(7);
  CHECK_THROWS_WITH(self_attention_forward(config, broken, Matrix::Ones(3, 10), Mask::none()),
                    Catch::Contains("attn.c_attn.bias has shape (1,7)"));
  CHECK_THROWS_WITH(self_attention_forward(config, broken, Matrix::Ones(3, 10), Mask::none(), nullptr, WeightCheck::shapes),
                    Catch::Contains("attn.c_attn.bias has shape (1,7)"));
  AttentionConfig positional = config;
  positional.alibi = true;
  CHECK_THROWS_WITH(cross_attention_forward(positional, params, Matrix::Ones(2, 10), Matrix::Ones(3, 10), Mask::none()),
                    Catch::Contains("not cross-attention"));
  // a valid call afterwards still works
  CHECK(self_attention_forward(config, params, Matrix::Ones(3, 10), Mask::none()).allFinite());
}

TEST_CASE("multi-head attention checks Q and the new keys and values once, where they are projected", "[attention][multihead][errors][kv_cache]") {
  AttentionConfig config;
  config.d_model = 8;
  config.n_heads = 2;
  config.rope = true;
  const AttentionParams params = AttentionParams::init(config, 3);
  KVCacheLayer cache;
  const Matrix prompt = Matrix::Ones(3, 8) * 0.5f;
  const Matrix full = self_attention_forward_cached(config, params, prompt, cache);
  REQUIRE(cache.length() == 3);
  const Matrix cached = cache.rows();

  SECTION("a finite input whose projection overflows: named by the part it overflows, the cache unchanged") {
    const Matrix huge = Matrix::Constant(1, 8, 3e38f);
    for (const auto& [column, part] : {std::pair<Index, const char*>{0, "attention: Q"}, {8, "attention: K"}, {16, "attention: V"}}) {
      AttentionParams overflowing = params;
      overflowing.c_attn_weight.col(column).setConstant(1e10f);
      CHECK_THROWS_WITH(self_attention_forward_cached(config, overflowing, huge, cache, nullptr, WeightCheck::shapes),
                        Catch::StartsWith(std::string(part) + " contains a non-finite value at (0,"));
      CHECK(cache.rows() == cached);
    }
  }
  SECTION("the heads check shapes only: the cached rows were checked when they were new") {
    const Matrix next = self_attention_forward_cached(config, params, Matrix::Ones(1, 8) * 0.25f, cache);
    CHECK(next.allFinite());
    KVCacheLayer again;
    const Matrix whole = self_attention_forward_cached(config, params, (Matrix(4, 8) << prompt, Matrix::Ones(1, 8) * 0.25f).finished(), again);
    CHECK_THAT(float((next - whole.bottomRows(1)).cwiseAbs().maxCoeff()), Catch::Matchers::WithinAbs(0, 1e-6));
    const Matrix q = Matrix::Ones(2, 4), k = Matrix::Ones(3, 4);
    Matrix v = Matrix::Ones(3, 4), out(2, 4);
    v(1, 2) = std::numeric_limits<float>::quiet_NaN();
    CHECK_THROWS_WITH(attention_forward(q, k, v, Mask::none(), true, out), Catch::Contains("attention: V contains a non-finite value at (1,2)"));
    CHECK_NOTHROW(attention_forward(q, k, v, Mask::none(), true, out, 0, InputCheck::shapes));
    CHECK_THROWS_WITH(attention_forward(q, Matrix::Ones(3, 5), v, Mask::none(), true, out, 0, InputCheck::shapes),
                      Catch::Contains("d_k must match"));
  }
  CHECK(full.allFinite());
}
