#pragma once
// Checkpoints as people download them: the engine's own files, and Hugging Face's GPT-2 and
// Llama-family models (config.json, model.safetensors or its shards). A checkpoint's tensors are
// placed into the engine's parameters one tensor at a time, so a file is never held whole in
// memory beside the model it becomes.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/safetensors.hpp"
#include "model/params.hpp"
#include "model/transformer.hpp"

namespace attnlab {

// Whose names and layouts a checkpoint's tensors follow.
enum class CheckpointFamily {
  attnlab,  // the engine's own files: GPT-2 names, the engine's layouts, F32
  gpt2,     // Hugging Face GPT-2: Conv1D weights stored (in, out), names with or without "transformer."
  llama,    // Hugging Face Llama: nn.Linear weights stored (out, in), model.layers.N.…
};
std::string to_string(CheckpointFamily family);

struct CheckpointConfig {
  ModelConfig config;
  CheckpointFamily family = CheckpointFamily::attnlab;
  std::optional<int> bos_token_id, eos_token_id;  // as config.json gives them (Hugging Face only)
  bool attention_bias = false, mlp_bias = false;  // Llama: the checkpoint holds these biases (else zero)
};

// A config.json: a Hugging Face one ("model_type" gpt2 or llama) or the engine's own. Every field
// of a Hugging Face config is read, known to change nothing the engine computes (dropout,
// initialisation, bookkeeping), or refused with its name: an option the engine does not implement
// (rope_scaling, a sliding window, …) never loads as a silently different model.
CheckpointConfig checkpoint_config_from_json(const std::string& json);

// Where one checkpoint tensor goes: a block of one parameter, possibly transposed.
struct TensorPlacement {
  std::string source;               // the checkpoint's name, e.g. "model.layers.0.self_attn.k_proj.weight"
  std::vector<std::int64_t> shape;  // its shape in the checkpoint
  std::size_t slot;                 // index into tensor_layout(config)
  Index column = 0;                 // first column it fills (Q, K and V share c_attn)
  bool transpose = false;           // stored (out, in) for the engine's (in, out)
};

// every tensor a checkpoint of this family must hold, in the engine's parameter order; `prefix`
// is "transformer." for GPT-2 files saved from GPT2LMHeadModel, "" otherwise. Parameters no
// placement fills (a Llama's absent biases) stay zero.
std::vector<TensorPlacement> checkpoint_placements(const CheckpointConfig& config, const std::string& prefix = "");

// How a checkpoint's weight matrices are kept: as floats (what training needs), or in the file's
// 16-bit type when every weight matrix there is F16, or every one BF16 (half the memory, and half
// the bytes a decoded token reads; the same results, bit for bit). Vectors are floats either way.
enum class WeightStorage { float32, as_stored };

// Loads a checkpoint in three steps, so the caller can read the files in pieces (a Blob in a
// browser, a file natively): add every shard's header, start() (which checks every tensor against
// the config and only then allocates the model), feed each read's bytes, finish().
class CheckpointLoader {
 public:
  // One contiguous byte range of one shard, holding one tensor the model needs.
  struct Read {
    std::size_t shard;
    std::uint64_t begin, end;  // offsets in that shard's file
    std::string name;          // the tensor's name in the checkpoint
  };

  // refuses a config needing more than max_parameter_bytes (as floats) before anything is allocated
  CheckpointLoader(CheckpointConfig config, std::uint64_t max_parameter_bytes,
                   WeightStorage storage = WeightStorage::float32);

  // the header of shard number shards_added() (header_text: the bytes after the first 8, as
  // safetensors_header_length sizes them) and its file's size; `file_name` (may be empty) names
  // it in messages and in the sharded index
  void add_shard(const std::string& header_text, std::uint64_t file_size, const std::string& file_name = "");
  std::size_t shards_added() const { return shards_.size(); }
  // a sharded checkpoint's model.safetensors.index.json, after every shard: shards added without
  // a name take the index's file names in shard_files order; each tensor must be in the shard the
  // index names, and every shard and tensor must be named
  void use_index(const std::string& index_json);

  // every tensor present once in a supported dtype with the shape the config implies, none left
  // over (GPT-2's attention-mask buffers excepted); allocates the parameters; the reads to do,
  // in order (a tied lm_head.weight last: it is compared with wte)
  const std::vector<Read>& start();
  // bytes [offset, offset + size) of read `index`, offset and size whole values of its dtype; a
  // read's bytes may come in any number of pieces, each once
  void feed(std::size_t index, std::uint64_t offset, const std::uint8_t* bytes, std::size_t size);
  // every read complete and every value finite: the parameters
  ModelParams finish();

  const CheckpointConfig& config() const { return config_; }
  std::uint64_t parameter_bytes() const;

 private:
  struct Shard {
    std::string file_name;
    SafetensorsHeader header;
  };
  struct Pending {
    Read read;
    Dtype dtype;
    TensorPlacement placement;
    std::uint64_t fed = 0;  // bytes placed so far
    bool compare = false;   // a tied head saved beside wte: checked equal, not stored
  };

  // F32, or the 16-bit type every weight matrix's tensor has when storage_ keeps them so
  Dtype kept_weight_dtype(const std::vector<Pending>& pending) const;

  CheckpointConfig config_;
  std::uint64_t max_parameter_bytes_;
  WeightStorage storage_;
  std::vector<Shard> shards_;
  std::vector<Read> reads_;
  std::vector<Pending> pending_;
  std::optional<ModelParams> params_;
  std::vector<TensorSlot> slots_;
};

// the shard files a model.safetensors.index.json names, sorted (the order shards are given in)
std::vector<std::string> shard_files(const std::string& index_json);

// A checkpoint's files in memory: one model.safetensors, or the shards (in shard_files order when
// the index's text is given, which is then checked against them).
struct ByteSpan {
  const std::uint8_t* data;
  std::size_t size;
};
ModelParams read_checkpoint(const CheckpointConfig& config, const std::vector<ByteSpan>& shards,
                            std::uint64_t max_parameter_bytes, const std::string& index_json = "",
                            WeightStorage storage = WeightStorage::float32);

// A checkpoint folder's weights: model.safetensors, or model.safetensors.index.json and its
// shards, read in pieces of a few MiB.
ModelParams read_checkpoint_dir(const std::string& directory, const CheckpointConfig& config,
                                std::uint64_t max_parameter_bytes, WeightStorage storage = WeightStorage::float32);

}  // namespace attnlab
