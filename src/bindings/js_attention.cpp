#include "bindings/js_api.hpp"
#include "bindings/marshal.hpp"
#include "core/check.hpp"

namespace attnlab::js {

std::shared_ptr<AttentionStepsHandle> attention_steps(const val& options) {
  return guarded([&] {
    const Index n = get_index(options, "n", 1, kMaxLength);
    const Index d = get_index(options, "d", 1, kMaxWidth);
    const bool cross = has(options, "memory");
    const Index m = cross ? get_index(options, "m", 1, kMaxLength) : n;
    const Matrix x = get_matrix(options, "x", n, d);
    const Matrix memory = cross ? get_matrix(options, "memory", m, d) : Matrix();
    const Mask mask = get_mask(options, m);
    const bool scaled = get_bool(options, "scaled", true);
    if (has(options, "wQ")) {
      const Index dk = get_index(options, "dK", 1, kMaxWidth);
      const Index dv = get_index(options, "dV", 1, kMaxWidth);
      return std::make_shared<AttentionStepsHandle>(AttentionSteps::single_head(
          x, memory, get_matrix(options, "wQ", d, dk), get_matrix(options, "wK", d, dk),
          get_matrix(options, "wV", d, dv), mask, scaled));
    }
    AttentionConfig config;
    config.d_model = d;
    config.n_heads = get_index(options, "heads", 1, d);
    config.n_kv_heads = get_index(options, "kvHeads", 1, config.n_heads, config.n_heads);
    config.scaled = scaled;
    config.rope = get_bool(options, "rope", false);
    config.rope_base = static_cast<float>(get_number(options, "ropeBase", 10000.0));
    config.alibi = get_bool(options, "alibi", false);
    config.validate();
    const Index qkv = d + 2 * config.kv_width();
    AttentionParams params;
    params.c_attn_weight = get_matrix(options, "cAttnWeight", d, qkv);
    params.c_attn_bias = get_matrix(options, "cAttnBias", 1, qkv);
    params.c_proj_weight = get_matrix(options, "cProjWeight", d, d);
    params.c_proj_bias = get_matrix(options, "cProjBias", 1, d);
    Index block_rows = 0, block_cols = 0;
    if (has(options, "flash")) {
      const val flash = get(options, "flash");
      block_rows = get_index(flash, "blockRows", 1, 4096);
      block_cols = get_index(flash, "blockCols", 1, 4096);
    }
    return std::make_shared<AttentionStepsHandle>(
        AttentionSteps::multi_head(config, params, x, memory, mask, block_rows, block_cols));
  }, options);
}

val AttentionStepsHandle::stages() const {
  return guarded([&] {
    std::vector<std::string> names;
    for (AttentionStage s : steps_.stages()) names.push_back(to_string(s));
    return to_js(names);
  });
}

val AttentionStepsHandle::stage() const {
  return guarded([&] { return val(to_string(steps_.stage())); });
}

val AttentionStepsHandle::advance() {
  return guarded([&] { return val(to_string(steps_.advance())); });
}

val AttentionStepsHandle::run_all() {
  return guarded([&] {
    steps_.run_all();
    return val(to_string(steps_.stage()));
  });
}

val AttentionStepsHandle::result() const {
  return guarded([&] {
    val out = val::object();
    out.set("stage", to_string(steps_.stage()));
    out.set("scale", steps_.scale());
    val heads = val::array();
    for (Index h = 0; h < steps_.heads(); ++h) {
      const AttentionTrace& t = steps_.head(h);
      val head = val::object();
      const std::pair<const char*, const Matrix*> parts[] = {
          {"q", &t.q}, {"k", &t.k}, {"v", &t.v}, {"scores", &t.scores}, {"scaled", &t.scaled},
          {"masked", &t.masked}, {"weights", &t.weights}, {"output", &t.output}};
      for (const auto& [name, m] : parts)
        if (m->size()) head.set(name, to_js(*m));
      bool flash = false;
      for (AttentionStage s : steps_.stages()) flash = flash || s == AttentionStage::flash;
      if (flash && t.output.size()) {
        const FlashTrace& f = steps_.flash(h);
        val tiles = val::array();
        for (const FlashTileStep& step : f.steps) {
          val tile = val::object();
          tile.set("queryBlock", static_cast<double>(step.query_block));
          tile.set("keyBlock", static_cast<double>(step.key_block));
          tile.set("runningMax", float_array(step.running_max.data(), step.running_max.size()));
          tile.set("runningSum", float_array(step.running_sum.data(), step.running_sum.size()));
          tiles.call<void>("push", tile);
        }
        val info = val::object();
        info.set("blockRows", static_cast<double>(f.block_rows));
        info.set("blockCols", static_cast<double>(f.block_cols));
        info.set("tiles", tiles);
        head.set("flash", info);
      }
      heads.call<void>("push", head);
    }
    out.set("heads", heads);
    if (steps_.concat().size()) out.set("concat", to_js(steps_.concat()));
    if (steps_.output().size()) out.set("output", to_js(steps_.output()));
    return out;
  });
}

}  // namespace attnlab::js
