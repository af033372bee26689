// A libFuzzer program over everything that reads outside data: safetensors files, whole models
// (weights, config.json, vocab.json), model configs (the engine's and Hugging Face's), Hugging Face
// checkpoints (config.json, model.safetensors.index.json and two shards, in F32, F16 or BF16), and
// vocabularies (word, character, and byte-level BPE's tokenizer.json) with the tokenizer. The first
// byte of an input picks the reader; the rest holds its files, joined by NUL bytes. A rejection
// must be an attnlab::Error (anything else escaping is a finding), and whatever is accepted must
// pass an oracle, or the program aborts with "wrong accept". Under ASan/UBSan every memory error
// and undefined behaviour is a finding too.
//
// ATTNLAB_FUZZ_SEEDS=<dir> writes the seed corpus there instead (from the shipped models and
// small random ones of every architecture) and exits.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/check.hpp"
#include "io/checkpoint.hpp"
#include "io/model_file.hpp"
#include "io/safetensors.hpp"
#include "io/tokenizer.hpp"

namespace {

using namespace attnlab;

enum Reader : char { safetensors_file, model_files, model_config, vocabulary, checkpoint_files, reader_count };

[[noreturn]] void wrong_accept(const std::string& what) {
  std::fprintf(stderr, "attnlab-fuzz: wrong accept: %s\n", what.c_str());
  std::abort();
}

void expect(bool holds, const std::string& what) {
  if (!holds) wrong_accept(what);
}

const std::uint8_t* bytes_of(const std::string& s) { return reinterpret_cast<const std::uint8_t*>(s.data()); }

bool same_floats(const std::vector<float>& a, const void* b) {
  return std::memcmp(a.data(), b, a.size() * sizeof(float)) == 0;
}

// Accepted: every tensor holds the file's bytes at its data_offsets, and writing the tensors out
// and reading them back gives them again, bit for bit.
void check_safetensors(const std::string& file) {
  TensorMap tensors;
  try {
    tensors = safetensors_read(bytes_of(file), file.size());
  } catch (const Error&) {
    return;
  }
  std::uint64_t header_size = 0;
  std::memcpy(&header_size, file.data(), 8);
  const nlohmann::json header = nlohmann::json::parse(file.substr(8, header_size));
  const char* data = file.data() + 8 + header_size;
  expect(tensors.size() == header.size() - header.count("__metadata__"), "safetensors: a tensor went missing");
  for (const auto& [name, t] : tensors) {
    const std::uint64_t begin = header.at(name).at("data_offsets").at(0);
    expect(header.at(name).at("shape").get<std::vector<std::int64_t>>() == t.shape, "safetensors: shape of " + name);
    expect(same_floats(t.data, data + begin), "safetensors: data of " + name);
  }
  const std::vector<std::uint8_t> written = safetensors_write(tensors);
  const TensorMap back = safetensors_read(written.data(), written.size());
  expect(back.size() == tensors.size(), "safetensors: tensors lost writing them out");
  for (const auto& [name, t] : tensors)
    expect(back.at(name).shape == t.shape && same_floats(back.at(name).data, t.data.data()),
           "safetensors: " + name + " changed writing it out");
}

// Accepted: the config writes out and reads back unchanged.
void check_config(const std::string& text) {
  ModelConfig config;
  try {
    config = checkpoint_config_from_json(text).config;
  } catch (const Error&) {
    return;
  }
  const std::string written = config_to_json(config);
  expect(config_to_json(config_from_json(written)) == written, "config: changed writing it out");
}

// Accepted: every tensor the checkpoint places holds the file's values, widened, where its
// placement puts them (transposed for nn.Linear), and a forward pass gives finite logits or
// refuses extreme weights.
void check_checkpoint(const std::string& config_json, const std::string& index, const std::vector<std::string>& files) {
  CheckpointConfig config;
  std::optional<ModelParams> params;
  std::vector<ByteSpan> shards;
  for (const std::string& file : files)
    if (!file.empty()) shards.push_back({bytes_of(file), file.size()});
  try {
    config = checkpoint_config_from_json(config_json);
    params = read_checkpoint(config, shards, std::uint64_t(64) << 20, index);
  } catch (const Error&) {
    return;
  }
  TensorMap stored;
  for (const ByteSpan& shard : shards) stored.merge(safetensors_read(shard.data, shard.size));
  const std::string prefix = stored.count("transformer.wte.weight") ? "transformer." : "";
  const std::vector<TensorSlot> slots = tensor_slots(config.config, *params);
  float largest = 0;
  for (const TensorPlacement& p : checkpoint_placements(config, prefix)) {
    const StoredTensor& t = stored.at(p.source);
    const TensorSlot& slot = slots[p.slot];
    const Index slot_cols = static_cast<Index>(slot.shape.back()), cols = static_cast<Index>(t.shape.back());
    for (Index e = 0; e < static_cast<Index>(t.data.size()); ++e) {
      const Index r = e / cols, c = e % cols;
      const float placed = p.transpose ? slot.data[c * slot_cols + p.column + r] : slot.data[r * slot_cols + p.column + c];
      expect(std::memcmp(&placed, &t.data[static_cast<size_t>(e)], 4) == 0, "checkpoint: " + p.source + " is not the file's");
      largest = std::max(largest, std::abs(placed));
    }
  }
  const Transformer model(config.config, std::move(*params));
  std::vector<int> tokens;
  for (Index i = 0; i < std::min<Index>(config.config.n_ctx, 5); ++i)
    tokens.push_back(static_cast<int>((i * 7 + 1) % config.config.vocab_size));
  try {
    expect(model.forward(tokens).allFinite(), "checkpoint: forward returned a non-finite logit");
  } catch (const Error&) {
    expect(largest > 1e12f, "checkpoint: forward refused weights of at most " + std::to_string(largest));
  }
}

// Accepted: the vocabulary writes out and reads back unchanged, and the ids of any text decode to
// a text with the same ids. A byte-level BPE tokenizer (a tokenizer.json) writes out the same
// file again; its pieces are its ids' tokens, and decoding its ids one at a time gives what
// decode gives. (Its decode replaces bytes outside UTF-8, and an added token may decode to other
// bytes than it is written with, as in Hugging Face's tokenizers: encode need not give the ids back.)
void check_vocabulary(const std::string& json, const std::string& text) {
  std::optional<Tokenizer> tokenizer;
  try {
    tokenizer = Tokenizer::from_json(json);
  } catch (const Error&) {
    return;
  }
  const Tokenizer back = Tokenizer::from_json(tokenizer->to_json());
  expect(back.size() == tokenizer->size() && back.kind() == tokenizer->kind() &&
             back.lowercase() == tokenizer->lowercase() && back.special_tokens() == tokenizer->special_tokens(),
         "vocabulary: changed writing it out");
  for (int id = 0; id < tokenizer->size(); ++id)
    expect(back.token(id) == tokenizer->token(id), "vocabulary: token " + std::to_string(id) + " changed");
  const std::vector<int> ids = tokenizer->encode(text);
  if (tokenizer->kind() != TokenizerKind::byte_bpe) {
    expect(tokenizer->encode(tokenizer->decode(ids)) == ids, "tokenizer: ids do not survive decode and encode");
    return;
  }
  expect(back.to_json() == tokenizer->to_json(), "tokenizer.json: changed writing it out");
  expect(back.encode(text) == ids, "tokenizer.json: encodes differently once written out");
  const std::vector<std::string> pieces = tokenizer->split(text);
  expect(pieces.size() == ids.size(), "tokenizer.json: split and encode disagree");
  TextStream stream(*tokenizer);
  std::string streamed;
  for (size_t i = 0; i < ids.size(); ++i) {
    expect(tokenizer->token(ids[i]) == pieces[i], "tokenizer.json: split and encode disagree");
    streamed += stream.push(ids[i]);
  }
  expect(streamed + stream.finish() == tokenizer->decode(ids), "tokenizer.json: the stream differs from decode");
}

// a small byte-level BPE tokenizer.json: the 256 bytes in GPT-2's alphabet, a few merges, an added
// special token, and SmolLM2's pre-tokenizer
std::string byte_bpe_seed() {
  nlohmann::ordered_json vocab = nlohmann::ordered_json::object();
  for (int b = 0, next = 0x100; b < 256; ++b) {
    const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
    const int cp = printable ? b : next++;
    vocab[cp < 0x80 ? std::string(1, static_cast<char>(cp))
                    : std::string{static_cast<char>(0xC0 | (cp >> 6)), static_cast<char>(0x80 | (cp & 0x3F))}] = b;
  }
  int id = 256;
  for (const char* piece : {"he", "\xC4\xA0t", "\xC4\xA0the", "at", "\xC4\xA0" "c", "\xC4\xA0" "cat"}) vocab[piece] = id++;
  return R"({"version":"1.0","truncation":null,"padding":null,)"
         R"("added_tokens":[{"id":262,"content":"<|endoftext|>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}],)"
         R"("normalizer":null,"pre_tokenizer":{"type":"Sequence","pretokenizers":[{"type":"Digits","individual_digits":true},)"
         R"({"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true}]},"post_processor":null,)"
         R"("decoder":{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true},)"
         R"("model":{"type":"BPE","dropout":null,"unk_token":null,"fuse_unk":false,"byte_fallback":false,"vocab":)" +
         vocab.dump() + R"(,"merges":["h e","\u0120 t","\u0120t he",["a","t"],["\u0120","c"],["\u0120c","at"]]}})";
}

// Accepted: the parameters are the file's tensors bit for bit, and the model runs with finite
// logits, or refuses to, only when its weights are extreme enough (beyond 1e12) to overflow float
// activations.
void check_model(const std::string& config, const std::string& vocab, const std::string& weights) {
  std::optional<LoadedModel> loaded;
  try {
    loaded = load_model(bytes_of(weights), weights.size(), config, vocab);
  } catch (const Error&) {
    return;
  }
  const TensorMap file = safetensors_read(bytes_of(weights), weights.size());
  ModelParams params = loaded->model.params();
  float largest = 0;
  for (const TensorSlot& slot : tensor_slots(loaded->model.config(), params)) {
    const StoredTensor& stored = file.at(slot.name);
    expect(stored.shape == slot.shape && same_floats(stored.data, slot.data), "model: " + slot.name + " is not the file's");
    for (float w : stored.data) largest = std::max(largest, std::abs(w));
  }
  const ModelConfig& c = loaded->model.config();
  std::vector<int> tokens;
  for (Index i = 0; i < std::min<Index>(c.n_ctx, 6); ++i) tokens.push_back(static_cast<int>((i * 7 + 1) % c.vocab_size));
  // extreme weights may overflow the activations, and the engine then refuses (natively as in
  // JavaScript): a forward that returns has finite logits, and one that throws had extreme weights
  try {
    const Matrix logits = c.architecture == Architecture::encoder_decoder ? loaded->model.forward(tokens, tokens)
                                                                          : loaded->model.forward(tokens);
    expect(logits.allFinite(), "model: forward returned a non-finite logit");
  } catch (const Error&) {
    expect(largest > 1e12f, "model: forward refused weights of at most " + std::to_string(largest));
  }
}

// the input after the reader byte, cut at the first `parts - 1` NUL bytes
std::vector<std::string> split(const std::string& input, size_t parts) {
  std::vector<std::string> out;
  size_t begin = 0;
  while (out.size() + 1 < parts) {
    const size_t end = input.find('\0', begin);
    if (end == std::string::npos) break;
    out.push_back(input.substr(begin, end - begin));
    begin = end + 1;
  }
  out.push_back(input.substr(std::min(begin, input.size())));
  out.resize(parts);
  return out;
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? std::string(1, '\0') : std::string()) + parts[i];
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// one seed of each reader for a model's three files
void write_model_seeds(const std::string& dir, const std::string& name, const std::string& config,
                       const std::string& vocab, const std::string& weights) {
  const std::string text = "The cat sat on the mat because it was tired. [MASK] abc, x y z! 1 2 3";
  const std::pair<Reader, std::string> seeds[] = {{safetensors_file, weights},
                                                  {model_files, joined({config, vocab, weights})},
                                                  {model_config, config},
                                                  {vocabulary, joined({vocab, text})}};
  for (const auto& [reader, body] : seeds) {
    std::ofstream out(dir + "/" + name + "-" + std::to_string(reader), std::ios::binary);
    out << static_cast<char>(reader) << body;
  }
}

void write_seeds(const std::string& dir) {
  for (const char* shipped : {"coreference", "sort"}) {
    const std::string from = std::string(ATTNLAB_MODELS_DIR) + "/" + shipped + "/";
    write_model_seeds(dir, shipped, read_file(from + "config.json"), read_file(from + "vocab.json"),
                      read_file(from + "model.safetensors"));
  }
  // Hugging Face checkpoints of both families, every dtype, one sharded (tests/reference/fixtures/hf)
  for (const char* name : {"gpt2-f32", "gpt2-f16-untied", "gpt2-bf16", "llama-f32", "llama-f16-mqa", "llama-bf16-sharded"}) {
    const std::string from = std::string(ATTNLAB_FIXTURE_DIR) + "/hf/" + name + "/";
    const std::string index = read_file(from + "model.safetensors.index.json");
    std::vector<std::string> parts = {read_file(from + "config.json"), index};
    if (index.empty()) {
      parts.push_back(read_file(from + "model.safetensors"));
    } else {
      for (const std::string& shard : shard_files(index)) parts.push_back(read_file(from + shard));
    }
    std::ofstream out(dir + "/" + name + "-" + std::to_string(checkpoint_files), std::ios::binary);
    out << static_cast<char>(checkpoint_files) << joined(parts);
    std::ofstream config(dir + "/" + name + "-" + std::to_string(model_config), std::ios::binary);
    config << static_cast<char>(model_config) << parts[0];
  }
  {
    const std::string text = "The cat sat on the mat, 2024 \xF0\x9F\x98\x80 caf\xC3\xA9<|endoftext|>it's";
    std::ofstream out(dir + "/byte-bpe-" + std::to_string(vocabulary), std::ios::binary);
    out << static_cast<char>(vocabulary) << joined({byte_bpe_seed(), text});
  }
  // small models of every architecture and positional scheme, so that mutations reach every tensor
  const Tokenizer words = Tokenizer::build(TokenizerKind::word, {"a b c ."});
  const Tokenizer characters = Tokenizer::build(TokenizerKind::character, {"ab"}, true);
  int n = 0;
  for (Architecture architecture : {Architecture::decoder_only, Architecture::encoder_only, Architecture::encoder_decoder}) {
    for (Positional positional : {Positional::learned, Positional::rope, Positional::alibi, Positional::sinusoidal}) {
      const Tokenizer& tokenizer = n % 2 ? characters : words;
      const ModelConfig c = ModelConfig::Builder(architecture, tokenizer.size(), 6)
                                .width(4, 2)
                                .kv_heads(n % 3 == 0 ? 1 : 2)
                                .ffn(6)
                                .layers(1)
                                .positional(positional)
                                .norm(n % 2 ? Norm::rms_norm : Norm::layer_norm)
                                .activation(n % 2 ? Activation::swiglu : Activation::gelu)
                                .tie_embeddings(n % 3 != 1)
                                .build();
      const std::vector<std::uint8_t> weights = params_to_safetensors(c, Transformer::random(c, 7 + n).params());
      write_model_seeds(dir, "small" + std::to_string(n++), config_to_json(c), tokenizer.to_json(),
                        std::string(weights.begin(), weights.end()));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("ATTNLAB_FUZZ_SEEDS")) {
    write_seeds(dir);
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string input(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (static_cast<Reader>(data[0] % reader_count)) {
    case safetensors_file: check_safetensors(input); break;
    case model_files: {
      const std::vector<std::string> files = split(input, 3);
      check_model(files[0], files[1], files[2]);
      break;
    }
    case model_config: check_config(input); break;
    case checkpoint_files: {
      const std::vector<std::string> files = split(input, 4);
      check_checkpoint(files[0], files[1], {files[2], files[3]});
      break;
    }
    case vocabulary: {
      const std::vector<std::string> files = split(input, 2);
      check_vocabulary(files[0], files[1]);
      break;
    }
    case reader_count: break;
  }
  return 0;
}
