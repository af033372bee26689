#include "model/trace.hpp"

#include "core/check.hpp"

namespace attnlab {
namespace {

using Entries = std::vector<std::pair<std::string, const Matrix*>>;

void add(Entries& out, const std::string& name, const Matrix& x) {
  if (x.size() > 0) out.emplace_back(name, &x);
}

void add_attention(Entries& out, const std::string& prefix, const MultiHeadTrace& t) {
  add(out, prefix + ".q", t.q);
  add(out, prefix + ".k", t.k);
  add(out, prefix + ".v", t.v);
  for (size_t h = 0; h < t.heads.size(); ++h) {
    const std::string head = prefix + ".head" + std::to_string(h);
    const AttentionTrace& a = t.heads[h];
    add(out, head + ".scores", a.scores);
    add(out, head + ".scaled", a.scaled);
    add(out, head + ".masked", a.masked);
    add(out, head + ".weights", a.weights);
    add(out, head + ".output", a.output);
  }
  add(out, prefix + ".concat", t.concat);
  add(out, prefix + ".out", t.output);
}

// a residual sub-layer's parts in the order block_forward computes them: norm, f, sum (pre-LN)
// or f, sum, norm (post-LN)
template <class Sublayer>
void add_sublayer(Entries& out, bool pre_norm, const std::string& norm_name, const Matrix& normed,
                  Sublayer&& add_f, const std::string& sum_name, const Matrix& sum) {
  if (pre_norm) add(out, norm_name, normed);
  add_f();
  add(out, sum_name, sum);
  if (!pre_norm) add(out, norm_name, normed);
}

void add_stack(Entries& out, bool pre_norm, const std::string& prefix, const StackActivations& s) {
  add(out, prefix + "embed.tokens", s.embed_tokens);
  add(out, prefix + "embed.positions", s.embed_positions);
  add(out, prefix + "embed.out", s.embed_out);
  for (size_t i = 0; i < s.layers.size(); ++i) {
    const std::string layer = prefix + "layer" + std::to_string(i) + ".";
    const BlockActivations& b = s.layers[i];
    add(out, layer + "in", b.in);
    add_sublayer(out, pre_norm, layer + "ln_1", b.ln_1, [&] { add_attention(out, layer + "attn", b.attn); },
                 layer + "residual_1", b.residual_1);
    if (b.residual_cross.size() > 0)
      add_sublayer(out, pre_norm, layer + "ln_cross_attn", b.ln_cross_attn,
                   [&] { add_attention(out, layer + "cross", b.cross); }, layer + "residual_cross", b.residual_cross);
    add_sublayer(out, pre_norm, layer + "ln_2", b.ln_2, [&] {
      add(out, layer + "mlp.hidden", b.mlp.hidden);
      add(out, layer + "mlp.gate", b.mlp.gate);
      add(out, layer + "mlp.act", b.mlp.activated);
      add(out, layer + "mlp.out", b.mlp.output);
    }, layer + "residual_2", b.residual_2);
    add(out, layer + "out", b.out);
  }
  add(out, prefix + "ln_f", s.ln_f);
}

}  // namespace

std::vector<std::pair<std::string, const Matrix*>> Trace::entries() const {
  Entries out;
  const ModelActivations& a = activations_;
  if (a.encoder_decoder) {
    add_stack(out, a.pre_norm, "encoder.", a.encoder);
    add_stack(out, a.pre_norm, "decoder.", a.decoder);
  } else {
    add_stack(out, a.pre_norm, "", a.encoder.layers.empty() ? a.decoder : a.encoder);
  }
  add(out, "logits", a.logits);
  return out;
}

std::vector<std::string> Trace::names() const {
  std::vector<std::string> names;
  for (auto& [name, x] : entries()) names.push_back(std::move(name));
  return names;
}

bool Trace::contains(const std::string& name) const {
  for (const auto& [entry, x] : entries())
    if (entry == name) return true;
  return false;
}

const Matrix& Trace::get(const std::string& name) const {
  for (const auto& [entry, x] : entries())
    if (entry == name) return *x;
  throw Error("trace: nothing recorded under \"" + name + "\"");
}

}  // namespace attnlab
