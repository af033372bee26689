#include "model/params.hpp"

#include <algorithm>
#include <optional>
#include <type_traits>

#include "core/check.hpp"
#include "core/random.hpp"

namespace attnlab {

namespace {

NormParams norm_init(const ModelConfig& config) {
  NormParams n;
  if (config.norm == Norm::none) return n;
  n.weight = RowVector::Ones(config.d_model);
  if (config.norm == Norm::layer_norm) n.bias = RowVector::Zero(config.d_model);
  return n;
}

// a (rows, cols) weight of zeros, as floats or as `dtype`'s 16-bit values
WeightMatrix zero_weight(Index rows, Index cols, Dtype dtype) {
  WeightMatrix w;
  if (dtype == Dtype::f32) w = Matrix::Zero(rows, cols);
  else w.store_half(dtype, rows, cols);
  return w;
}

AttentionParams attention_zeros(const AttentionConfig& a, Dtype dtype) {
  const Index d = a.d_model, qkv = d + 2 * a.kv_width();
  return {zero_weight(d, qkv, dtype), RowVector::Zero(qkv), zero_weight(d, d, dtype), RowVector::Zero(d)};
}

FeedForwardParams feed_forward_zeros(Index d, Index d_ff, Activation activation, Dtype dtype) {
  FeedForwardParams f{zero_weight(d, d_ff, dtype), RowVector::Zero(d_ff), {}, {}, zero_weight(d_ff, d, dtype), RowVector::Zero(d)};
  if (activation == Activation::swiglu) {
    f.c_gate_weight = zero_weight(d, d_ff, dtype);
    f.c_gate_bias = RowVector::Zero(d_ff);
  }
  return f;
}

// a block's parameters drawn from seeds, or without them zero weights of `dtype` (and zero norms)
BlockParams block_init(const ModelConfig& config, bool cross, Rng* seeds, Dtype dtype) {
  const auto seed = [&] { return static_cast<std::uint32_t>(seeds->uniform() * 4294967295.0f); };
  const auto attention = [&](const AttentionConfig& a) { return seeds ? AttentionParams::init(a, seed()) : attention_zeros(a, dtype); };
  BlockParams b;
  b.ln_1 = norm_init(config);
  b.attn = attention(config.attention());
  if (cross) {
    b.ln_cross_attn = norm_init(config);
    b.crossattention = attention(config.cross_attention());
  }
  b.ln_2 = norm_init(config);
  b.mlp = seeds ? FeedForwardParams::init(config.d_model, config.d_ff, config.activation, seed())
                : feed_forward_zeros(config.d_model, config.d_ff, config.activation, dtype);
  return b;
}

StackParams stack_init(const ModelConfig& config, Index layers, bool cross, Rng* seeds, Dtype dtype) {
  StackParams s;
  for (Index i = 0; i < layers; ++i) s.h.push_back(block_init(config, cross, seeds, dtype));
  if (config.final_norm) s.ln_f = norm_init(config);
  return s;
}

// N(0, 0.02²) draws, or zeros when there is no generator (ModelParams::zeros)
Matrix normal(Index rows, Index cols, Rng* rng) {
  if (!rng) return Matrix::Zero(rows, cols);
  Matrix m(rows, cols);
  for (Index i = 0; i < m.size(); ++i) m.data()[i] = rng->normal(0.0f, 0.02f);
  return m;
}

// Visits every tensor of p in checkpoint order as visit(tensor, prefix, suffix), tensor a Matrix
// or RowVector (const when p is) and its checkpoint name prefix + suffix, which only a visitor
// that wants it builds.
template <class Norm, class Visit>
void walk_norm(Norm& n, const std::string& prefix, const char* weight, const char* bias, Visit& visit) {
  if (n.weight.size() == 0) return;  // Norm::none
  visit(n.weight, prefix, weight);
  if (n.bias.size()) visit(n.bias, prefix, bias);
}

template <class Attention, class Visit>
void walk_attention(Attention& a, const std::string& prefix, bool cross, Visit& visit) {
  visit(a.c_attn_weight, prefix, cross ? "crossattention.c_attn.weight" : "attn.c_attn.weight");
  visit(a.c_attn_bias, prefix, cross ? "crossattention.c_attn.bias" : "attn.c_attn.bias");
  visit(a.c_proj_weight, prefix, cross ? "crossattention.c_proj.weight" : "attn.c_proj.weight");
  visit(a.c_proj_bias, prefix, cross ? "crossattention.c_proj.bias" : "attn.c_proj.bias");
}

template <class Stack, class Visit>
void walk_stack(Stack& s, const std::string& prefix, bool final_norm, Visit& visit) {
  for (size_t i = 0; i < s.h.size(); ++i) {
    auto& b = s.h[i];
    const std::string p = prefix + "h." + std::to_string(i) + ".";
    walk_norm(b.ln_1, p, "ln_1.weight", "ln_1.bias", visit);
    walk_attention(b.attn, p, false, visit);
    if (b.crossattention.c_attn_weight.weight_rows()) {
      walk_norm(b.ln_cross_attn, p, "ln_cross_attn.weight", "ln_cross_attn.bias", visit);
      walk_attention(b.crossattention, p, true, visit);
    }
    walk_norm(b.ln_2, p, "ln_2.weight", "ln_2.bias", visit);
    visit(b.mlp.c_fc_weight, p, "mlp.c_fc.weight");
    visit(b.mlp.c_fc_bias, p, "mlp.c_fc.bias");
    if (b.mlp.c_gate_weight.weight_rows()) {
      visit(b.mlp.c_gate_weight, p, "mlp.c_gate.weight");
      visit(b.mlp.c_gate_bias, p, "mlp.c_gate.bias");
    }
    visit(b.mlp.c_proj_weight, p, "mlp.c_proj.weight");
    visit(b.mlp.c_proj_bias, p, "mlp.c_proj.bias");
  }
  if (final_norm) walk_norm(s.ln_f, prefix, "ln_f.weight", "ln_f.bias", visit);
}

template <class Params, class Visit>
void walk_tensors(const ModelConfig& config, Params& p, Visit&& visit) {
  const std::string none;
  visit(p.wte, none, "wte.weight");
  if (config.positional == Positional::learned) visit(p.wpe, none, "wpe.weight");
  switch (config.architecture) {
    case Architecture::encoder_only: walk_stack(p.encoder, none, config.final_norm, visit); break;
    case Architecture::decoder_only: walk_stack(p.decoder, none, config.final_norm, visit); break;
    case Architecture::encoder_decoder:
      walk_stack(p.encoder, "encoder.", config.final_norm, visit);
      walk_stack(p.decoder, "decoder.", config.final_norm, visit);
      break;
  }
  if (!config.tie_embeddings) visit(p.lm_head, none, "lm_head.weight");
}

std::vector<std::int64_t> shape_of(const Matrix& m) { return {m.rows(), m.cols()}; }
std::vector<std::int64_t> shape_of(const WeightMatrix& w) { return {w.weight_rows(), w.weight_cols()}; }
std::vector<std::int64_t> shape_of(const RowVector& v) { return {v.size()}; }

}  // namespace

namespace {

// the parameters of config, drawn from rng (GPT-2's initialisation) or, without one, all zero
//   with their weights as `dtype`
ModelParams make_params(const ModelConfig& config, Rng* rng, std::uint64_t max_bytes, Dtype dtype) {
  config.validate();
  require_parameter_bytes(config, max_bytes, dtype);
  const auto weight = [&](Index rows, Index cols) { return rng ? WeightMatrix(normal(rows, cols, rng)) : zero_weight(rows, cols, dtype); };
  ModelParams p;
  p.wte = weight(config.vocab_size, config.d_model);
  if (config.positional == Positional::learned) p.wpe = normal(config.n_ctx, config.d_model, rng);
  switch (config.architecture) {
    case Architecture::encoder_only: p.encoder = stack_init(config, config.n_layers, false, rng, dtype); break;
    case Architecture::decoder_only: p.decoder = stack_init(config, config.n_layers, false, rng, dtype); break;
    case Architecture::encoder_decoder:
      p.encoder = stack_init(config, config.n_layers, false, rng, dtype);
      p.decoder = stack_init(config, config.n_decoder_layers, true, rng, dtype);
      break;
  }
  if (!config.tie_embeddings) p.lm_head = weight(config.vocab_size, config.d_model);
  if (!rng)  // norm gains start at one above
    walk_tensors(config, p, [](auto& tensor, const std::string&, const char*) { tensor.setZero(); });
  return p;
}

}  // namespace

ModelParams ModelParams::init(const ModelConfig& config, std::uint32_t seed, std::uint64_t max_bytes) {
  Rng rng(seed);
  return make_params(config, &rng, max_bytes, Dtype::f32);
}

ModelParams ModelParams::zeros(const ModelConfig& config, std::uint64_t max_bytes, Dtype weights) {
  return make_params(config, nullptr, max_bytes, weights);
}

Dtype ModelParams::weight_dtype() const { return wte.dtype(); }

std::vector<TensorSlot> tensor_slots(const ModelConfig& config, ModelParams& p) {
  std::vector<TensorSlot> slots;
  walk_tensors(config, p, [&](auto& tensor, const std::string& prefix, const char* suffix) {
    if constexpr (std::is_same_v<std::decay_t<decltype(tensor)>, WeightMatrix>)
      if (tensor.is_half()) return slots.push_back({prefix + suffix, shape_of(tensor), nullptr, tensor.dtype(), tensor.half_data()});
    slots.push_back({prefix + suffix, shape_of(tensor), tensor.data()});
  });
  return slots;
}

std::vector<TensorSpan> tensor_spans(const ModelConfig& config, ModelParams& p) {
  std::vector<TensorSpan> spans;
  spans.reserve(static_cast<size_t>(8 + 20 * (p.encoder.h.size() + p.decoder.h.size())));
  walk_tensors(config, p, [&](auto& tensor, const std::string& prefix, const char* suffix) {
    constexpr bool weight = std::is_same_v<std::decay_t<decltype(tensor)>, WeightMatrix>;
    if constexpr (weight)
      require(!tensor.is_half(), "model parameters: ", prefix + suffix, " holds ", to_string(tensor.dtype()),
              " values, kept to run the model, not to train it (load the checkpoint with float weights to train it)");
    spans.push_back({tensor.data(), tensor.size(), weight || std::is_same_v<std::decay_t<decltype(tensor)>, Matrix>});
  });
  return spans;
}

std::vector<TensorShape> tensor_layout(const ModelConfig& config) {
  config.validate();
  const Index d = config.d_model, qkv = d + 2 * config.attention().kv_width();
  std::vector<TensorShape> layout;
  const auto matrix = [&](const std::string& name, Index rows, Index cols, bool weight = true) {
    layout.push_back({name, {rows, cols}, weight});
  };
  const auto vector = [&](const std::string& name, Index size) { layout.push_back({name, {size}}); };
  const auto norm = [&](const std::string& name) {
    if (config.norm == Norm::none) return;
    vector(name + ".weight", d);
    if (config.norm == Norm::layer_norm) vector(name + ".bias", d);
  };
  const auto attention = [&](const std::string& name) {
    matrix(name + ".c_attn.weight", d, qkv);
    vector(name + ".c_attn.bias", qkv);
    matrix(name + ".c_proj.weight", d, d);
    vector(name + ".c_proj.bias", d);
  };
  const auto stack = [&](const std::string& prefix, Index layers, bool cross) {
    for (Index i = 0; i < layers; ++i) {
      const std::string p = prefix + "h." + std::to_string(i) + ".";
      norm(p + "ln_1");
      attention(p + "attn");
      if (cross) {
        norm(p + "ln_cross_attn");
        attention(p + "crossattention");
      }
      norm(p + "ln_2");
      matrix(p + "mlp.c_fc.weight", d, config.d_ff);
      vector(p + "mlp.c_fc.bias", config.d_ff);
      if (config.activation == Activation::swiglu) {
        matrix(p + "mlp.c_gate.weight", d, config.d_ff);
        vector(p + "mlp.c_gate.bias", config.d_ff);
      }
      matrix(p + "mlp.c_proj.weight", config.d_ff, d);
      vector(p + "mlp.c_proj.bias", d);
    }
    if (config.final_norm) norm(prefix + "ln_f");
  };
  matrix("wte.weight", config.vocab_size, d);
  if (config.positional == Positional::learned) matrix("wpe.weight", config.n_ctx, d, false);
  if (config.architecture == Architecture::encoder_decoder) {
    stack("encoder.", config.n_layers, false);
    stack("decoder.", config.n_decoder_layers, true);
  } else {
    stack("", config.n_layers, false);
  }
  if (!config.tie_embeddings) matrix("lm_head.weight", config.vocab_size, d);
  return layout;
}

WeightView parameter_tensor(const ModelConfig& config, const ModelParams& params, const std::string& name,
                            std::uint64_t max_values) {
  require(name.size() <= kMaxTensorNameBytes, "parameter: a tensor name has at most ", kMaxTensorNameBytes,
          " bytes, got ", name.size());
  std::optional<WeightView> found;
  walk_tensors(config, params, [&](const auto& tensor, const std::string& prefix, const char* suffix) {
    // name == prefix + suffix, without building the name of every tensor passed
    if (found || name.compare(0, prefix.size(), prefix) != 0 || name.compare(prefix.size(), std::string::npos, suffix) != 0)
      return;
    found = WeightView(tensor);
  });
  if (!found) {
    const std::vector<TensorShape> layout = tensor_layout(config);
    const auto w_o = std::find_if(layout.begin(), layout.end(), [](const TensorShape& t) {
      return t.name.size() >= 18 && t.name.compare(t.name.size() - 18, 18, "attn.c_proj.weight") == 0;
    });
    throw_error({"parameter: the model has no tensor \"", name, "\"; its ", layout.size(), " tensors are named as save() writes them, \"",
                 layout.front().name, "\", \"", layout[1].name, "\" … \"", layout.back().name, "\" (the first block's W_O is \"",
                 w_o->name, "\")"});
  }
  const Index rows = found->rows(), cols = found->cols();
  const std::uint64_t values = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols);
  require(values <= max_values, "parameter: \"", name, "\" holds ", rows, "×", cols, " = ", values,
          " numbers, more than the ", max_values, " that one call hands out");
  return *found;
}

std::uint64_t parameter_bytes(const ModelConfig& config, Dtype weights) {
  std::uint64_t bytes = 0;
  for (const TensorShape& t : tensor_layout(config)) {
    std::uint64_t size = 1;
    for (auto s : t.shape) size *= static_cast<std::uint64_t>(s);
    bytes += size * (t.weight && weights != Dtype::f32 ? 2 : sizeof(Scalar));
  }
  return bytes;
}

void require_parameter_bytes(const ModelConfig& config, std::uint64_t max_bytes, Dtype weights) {
  const std::uint64_t bytes = parameter_bytes(config, weights);
  require(bytes <= max_bytes, "model config: the parameters need ", bytes, " bytes, more than the limit of ",
          max_bytes, " bytes");
}

void validate_params(const ModelConfig& config, const ModelParams& params) {
  const std::vector<TensorShape> want = tensor_layout(config);
  ModelParams& actual = const_cast<ModelParams&>(params);  // slots are only read here
  const std::vector<TensorSlot> have = tensor_slots(config, actual);
  require(want.size() == have.size(), "model parameters: expected ", want.size(), " tensors, found ", have.size());
  for (size_t i = 0; i < want.size(); ++i) {
    require(have[i].name == want[i].name && have[i].shape == want[i].shape,
            "model parameters: ", want[i].name, " has the wrong shape");
    Index count = 1;
    for (auto s : have[i].shape) count *= s;
    for (Index j = 0; j < count; ++j)
      require(have[i].data ? std::isfinite(have[i].data[j]) : finite_16(have[i].dtype, have[i].halves[j]),
              "model parameters: ", want[i].name, " contains a non-finite value");
  }
}

std::uint64_t parameter_fingerprint(const ModelConfig& config, const ModelParams& params) {
  std::uint64_t hash = 14695981039346656037ull;
  const auto add = [&](const Scalar* values, Index count) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(values);
    for (size_t b = 0; b < static_cast<size_t>(count) * sizeof(Scalar); ++b) hash = (hash ^ bytes[b]) * 1099511628211ull;
  };
  std::vector<Scalar> row;
  walk_tensors(config, params, [&](const auto& tensor, const std::string&, const char*) {
    const WeightView w(tensor);
    if (w.is_float()) return add(w.float_data(), w.rows() * w.cols());
    row.resize(static_cast<std::size_t>(w.cols()));  // widened: the same numbers hash alike however they are kept
    for (Index i = 0; i < w.rows(); ++i) {
      w.row(i, 0, w.cols(), row.data());
      add(row.data(), w.cols());
    }
  });
  return hash;
}

}  // namespace attnlab
