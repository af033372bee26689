#pragma once
// All parameters of a model, named as in GPT-2 checkpoints so that loading one is a one-to-one
// shape check: wte, wpe, h.{i}.ln_1, h.{i}.attn.c_attn, h.{i}.attn.c_proj, h.{i}.ln_2,
// h.{i}.mlp.c_fc, h.{i}.mlp.c_proj, ln_f (and lm_head when untied). Encoder-decoder models put
// their stacks under "encoder." and "decoder."; decoder blocks there add ln_cross_attn and
// crossattention.
#include <cstdint>
#include <string>
#include <vector>

#include "core/feed_forward.hpp"
#include "core/multi_head_attention.hpp"
#include "model/config.hpp"

namespace attnlab {

struct NormParams {
  RowVector weight;  // (d) γ
  RowVector bias;    // (d) β; empty for RMSNorm
};

struct BlockParams {
  NormParams ln_1;                 // around self-attention
  AttentionParams attn;
  NormParams ln_cross_attn;        // around cross-attention (encoder-decoder's decoder only)
  AttentionParams crossattention;
  NormParams ln_2;                 // around the feed-forward network
  FeedForwardParams mlp;
};

struct StackParams {
  std::vector<BlockParams> h;
  NormParams ln_f;  // final norm (when the config has one)
};

// Largest model the engine builds unless the caller asks otherwise (natively and in JS alike): a
// small config must not be able to make the engine allocate gigabytes. A trainer needs four
// copies of the parameters. A checkpoint someone downloaded is loaded, not trained, and may be
// larger: GPT-2 medium's 355M parameters (1.42 GB) fit beside their activations in the 2 GiB
// WebAssembly heap.
#if defined(__EMSCRIPTEN__)
constexpr std::uint64_t kDefaultMaxParameterBytes = std::uint64_t(256) << 20;
constexpr std::uint64_t kDefaultMaxCheckpointBytes = std::uint64_t(1536) << 20;
#else
constexpr std::uint64_t kDefaultMaxParameterBytes = std::uint64_t(4) << 30;
constexpr std::uint64_t kDefaultMaxCheckpointBytes = std::uint64_t(16) << 30;
#endif

struct ModelParams {
  WeightMatrix wte;      // (vocab, d)  token embeddings
  Matrix wpe;            // (n_ctx, d)  learned positions only
  StackParams encoder;   // encoder-only and encoder-decoder
  StackParams decoder;   // decoder-only and encoder-decoder
  WeightMatrix lm_head;  // (vocab, d)  only when embeddings are not tied

  // seeded: weights ~ N(0, 0.02²), biases 0, norm gains 1 (GPT-2's initialisation); refuses a
  // config whose parameters need more than max_bytes before allocating any of them
  static ModelParams init(const ModelConfig& config, std::uint32_t seed,
                          std::uint64_t max_bytes = kDefaultMaxParameterBytes);
  // every tensor of the config's shapes, all zero: where gradients and optimiser moments start,
  // and what a checkpoint is read into (nothing drawn at random), its weight matrices (WeightMatrix)
  // as `weights` (F16 or BF16 for a checkpoint kept in them); the same refusal as init
  static ModelParams zeros(const ModelConfig& config, std::uint64_t max_bytes = kDefaultMaxParameterBytes,
                           Dtype weights = Dtype::f32);
  // F32, or the 16-bit type every weight matrix is kept in
  Dtype weight_dtype() const;
};

// One named tensor of a parameter set: where its numbers live and the shape it must have.
struct TensorSlot {
  std::string name;
  std::vector<std::int64_t> shape;
  Scalar* data;                        // float numbers, or nullptr when kept as 16-bit values:
  Dtype dtype = Dtype::f32;            //   F16 or BF16
  std::uint16_t* halves = nullptr;
};

// Every tensor of `params` under its checkpoint name, in a fixed order. The params must have
// the shapes of `config` (as from ModelParams::init); loading writes through these slots.
std::vector<TensorSlot> tensor_slots(const ModelConfig& config, ModelParams& params);

// One tensor's numbers, for element-wise work over a whole parameter set (the optimiser, clipping):
// the order of tensor_slots without building names or shapes. Float parameters only: refuses a set
// with 16-bit weights, which are run, not trained.
struct TensorSpan {
  Scalar* data;
  Index size;
  bool matrix;  // a weight matrix (weight decay applies), not a bias, gain or vector
};
std::vector<TensorSpan> tensor_spans(const ModelConfig& config, ModelParams& params);

// A tensor's checkpoint name and shape, as a config implies them.
struct TensorShape {
  std::string name;
  std::vector<std::int64_t> shape;
  bool weight = false;  // a weight matrix (WeightMatrix), which a 16-bit checkpoint's values may stay in
};

// The names and shapes of tensor_slots(config, params), from the config alone: nothing is
// allocated, so a file can be checked against a config before memory is committed to it.
std::vector<TensorShape> tensor_layout(const ModelConfig& config);

// Most numbers parameter_tensor hands out at once (2²⁴ floats, 64 MiB): every weight of a block of
// GPT-2 up to XL (the largest, XL's mlp.c_fc, holds 1600·6400 = 10.2 M), but not a vocabulary's
// embedding (GPT-2 small's wte.weight holds 50257·768 = 38.6 M, 154 MB that a page would hold
// twice on its way from the engine's worker): a page asks for a block's matrix, never for all.
constexpr std::uint64_t kMaxTensorValues = std::uint64_t(1) << 24;
// Longest tensor name parameter_tensor reads (the longest the engine writes has under 40 bytes).
constexpr std::size_t kMaxTensorNameBytes = 256;

// W = params[name] → (rows, cols), a vector as (1, n): the tensor that save() writes under `name`
// ("h.1.attn.c_proj.weight": layer 1's W_O, (h·d_k, d)), a view of params' own numbers (floats, or
// the 16-bit values a weight is kept in). Refuses a name no tensor has (saying how the names look)
// and a tensor of more than max_values numbers, before the caller can copy anything.
WeightView parameter_tensor(const ModelConfig& config, const ModelParams& params, const std::string& name,
                            std::uint64_t max_values = kMaxTensorValues);

// bytes of the parameters a config implies (from tensor_layout), its weight matrices as `weights`
std::uint64_t parameter_bytes(const ModelConfig& config, Dtype weights = Dtype::f32);

// throws attnlab::Error unless parameter_bytes(config, weights) ≤ max_bytes
void require_parameter_bytes(const ModelConfig& config, std::uint64_t max_bytes, Dtype weights = Dtype::f32);

// FNV-1a (64 bits) over the bytes of every parameter (as floats) in tensor_slots' order: equal for
// equal weights on every platform and however they are kept, so a page can show that a call changed
// none of them
std::uint64_t parameter_fingerprint(const ModelConfig& config, const ModelParams& params);

// throws attnlab::Error naming the first missing, wrongly shaped or non-finite tensor
void validate_params(const ModelConfig& config, const ModelParams& params);

}  // namespace attnlab
