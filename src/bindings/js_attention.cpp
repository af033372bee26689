#include <functional>
#include <set>

#include "bindings/js_api.hpp"
#include "bindings/marshal.hpp"
#include "core/check.hpp"

namespace attnlab::js {

namespace {

// The options of attention and attentionSteps, read and checked once.
struct AttentionCall {
  Matrix x, memory;  // memory empty: self-attention
  Mask mask;
  bool scaled = true;
  bool multi_head = false;
  Matrix w_q, w_k, w_v;    // one head
  AttentionConfig config;  // multi-head
  AttentionParams params;

  AttentionSteps steps() const {
    return multi_head ? AttentionSteps::multi_head(config, params, x, memory, mask)
                      : AttentionSteps::single_head(x, memory, w_q, w_k, w_v, mask, scaled);
  }
  // the output alone, by the fast path: no stage is kept; the weights' numbers were checked finite
  // as they were read, so only their shapes are checked again
  Matrix forward() const {
    if (!multi_head) return attention_head_forward(x, memory.size() ? memory : x, w_q, w_k, w_v, mask, scaled);
    return memory.size() ? cross_attention_forward(config, params, x, memory, mask, nullptr, WeightCheck::shapes)
                         : self_attention_forward(config, params, x, mask, nullptr, WeightCheck::shapes);
  }
};

AttentionCall read_attention_call(const val& options) {
  AttentionCall call;
  const Index n = get_index(options, "n", 1, kMaxLength);
  const Index d = get_index(options, "d", 1, kMaxWidth);
  const std::optional<val> memory = optional(options, "memory");
  const Index m = memory ? get_index(options, "m", 1, kMaxLength) : n;
  call.x = get_matrix(options, "x", n, d);
  if (memory) call.memory = matrix_from_js(*memory, "memory", m, d);
  call.mask = get_mask(options, m);
  call.scaled = get_bool(options, "scaled", true);
  if (const std::optional<val> w_q = optional(options, "wQ")) {
    const Index dk = get_index(options, "dK", 1, kMaxWidth);
    const Index dv = get_index(options, "dV", 1, kMaxWidth);
    call.w_q = matrix_from_js(*w_q, "wQ", d, dk);
    call.w_k = get_matrix(options, "wK", d, dk);
    call.w_v = get_matrix(options, "wV", d, dv);
    return call;
  }
  call.multi_head = true;
  AttentionConfig& config = call.config;
  config.d_model = d;
  config.n_heads = get_index(options, "heads", 1, d);
  config.n_kv_heads = get_index(options, "kvHeads", 1, config.n_heads, config.n_heads);
  config.scaled = call.scaled;
  config.rope = get_bool(options, "rope", false);
  config.rope_base = static_cast<float>(get_number(options, "ropeBase", 10000.0));
  config.rope_pairing = get_rope_pairing(options);
  config.alibi = get_bool(options, "alibi", false);
  if (const std::optional<val> flash = optional(options, "flash")) {
    config.flash_rows = get_index(*flash, "blockRows", 1, 4096);
    config.flash_cols = get_index(*flash, "blockCols", 1, 4096);
  }
  config.validate();
  const Index qkv = d + 2 * config.kv_width();
  call.params.c_attn_weight = get_matrix(options, "cAttnWeight", d, qkv);
  call.params.c_attn_bias = get_matrix(options, "cAttnBias", 1, qkv);
  call.params.c_proj_weight = get_matrix(options, "cProjWeight", d, d);
  call.params.c_proj_bias = get_matrix(options, "cProjBias", 1, d);
  return call;
}

// what a result may hold: each head's stages and flash tiles, and the heads' concatenation
constexpr const char* kParts[] = {"q", "k", "v", "scores", "scaled", "masked", "weights", "output", "flash", "concat"};
using PartFilter = std::function<bool(const std::string&)>;

// options.trace: true (every part) or an array of part names, each checked
PartFilter requested_parts(const TraceRequest& request) {
  const std::optional<std::vector<std::string>>& names = request.names;
  if (!names) return [](const std::string&) { return true; };
  for (const std::string& name : *names) {
    bool known = false;
    for (const char* part : kParts) known = known || name == part;
    require(known, "trace names \"", name,
            "\", no part of attention (q, k, v, scores, scaled, masked, weights, output, flash, concat)");
  }
  const std::set<std::string> wanted(names->begin(), names->end());
  return [wanted](const std::string& name) { return wanted.count(name) > 0; };
}

val flash_tiles_to_js(const FlashTrace& f) {
  val tiles = val::array();
  for (size_t i = 0; i < f.steps.size(); ++i) {
    const FlashTileStep& step = f.steps[i];
    val tile = val::object();
    tile.set("queryBlock", static_cast<double>(step.query_block));
    tile.set("keyBlock", static_cast<double>(step.key_block));
    tile.set("runningMax", float_array(step.running_max.data(), step.running_max.size()));
    tile.set("runningSum", float_array(step.running_sum.data(), step.running_sum.size()));
    tiles.set(i, tile);
  }
  val info = val::object();
  info.set("blockRows", static_cast<double>(f.block_rows));
  info.set("blockCols", static_cast<double>(f.block_cols));
  info.set("tiles", tiles);
  return info;
}

// What the stepper has computed, the parts that `wanted` names; `output` (the whole call's, or a
// single head's) whenever it exists.
val steps_to_js(const AttentionSteps& steps, const PartFilter& wanted) {
  val out = val::object();
  out.set("stage", to_string(steps.stage()));
  out.set("scale", steps.scale());
  bool flash = false;
  for (AttentionStage s : steps.stages()) flash = flash || s == AttentionStage::flash;
  val heads = val::array();
  for (Index h = 0; h < steps.heads(); ++h) {
    const AttentionTrace& t = steps.head(h);
    val head = val::object();
    const std::pair<const char*, const Matrix*> parts[] = {
        {"q", &t.q}, {"k", &t.k}, {"v", &t.v}, {"scores", &t.scores}, {"scaled", &t.scaled},
        {"masked", &t.masked}, {"weights", &t.weights}, {"output", &t.output}};
    for (const auto& [name, m] : parts)
      if (m->size() && wanted(name)) head.set(name, to_js(*m));
    if (flash && t.output.size() && wanted("flash")) head.set("flash", flash_tiles_to_js(steps.flash(h)));
    heads.set(h, head);
  }
  out.set("heads", heads);
  if (steps.concat().size() && wanted("concat")) out.set("concat", to_js(steps.concat()));
  if (steps.output().size()) out.set("output", to_js(steps.output()));
  else if (steps.heads() == 1 && steps.head(0).output.size()) out.set("output", to_js(steps.head(0).output));
  return out;
}

}  // namespace

val attention(const val& options) {
  return guarded([&] {
    const AttentionCall call = read_attention_call(options);
    if (const std::optional<TraceRequest> trace = get_trace(options)) {
      const PartFilter wanted = requested_parts(*trace);
      AttentionSteps steps = call.steps();
      steps.run_all();
      return steps_to_js(steps, wanted);
    }
    val out = val::object();
    out.set("stage", to_string(call.multi_head ? AttentionStage::output : AttentionStage::mix));
    out.set("scale", attention_scale(call.multi_head ? call.config.d_head() : call.w_q.cols(), call.scaled));
    out.set("heads", val::array());
    out.set("output", to_js(call.forward()));
    return out;
  }, options);
}

std::shared_ptr<AttentionStepsHandle> attention_steps(const val& options) {
  return guarded([&] { return std::make_shared<AttentionStepsHandle>(read_attention_call(options).steps()); }, options);
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
  return guarded([&] { return steps_to_js(steps_, [](const std::string&) { return true; }); });
}

}  // namespace attnlab::js
