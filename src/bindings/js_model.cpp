#include "bindings/js_api.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

#include "bindings/marshal.hpp"
#include "core/check.hpp"
#include "io/model_file.hpp"
#include "model/generate.hpp"
#include "model/layer_attention.hpp"
#include "model/params.hpp"

namespace attnlab::js {

namespace {

// options.maxParameterBytes: the largest model the call may build (default: fallback)
std::uint64_t get_max_parameter_bytes(const val& options, std::uint64_t fallback = kDefaultMaxParameterBytes) {
  return static_cast<std::uint64_t>(
      get_index(options, "maxParameterBytes", 1, std::numeric_limits<Index>::max(), static_cast<Index>(fallback)));
}

// options[key], required: a whole number of bytes (a file's size or an offset in it), 0 … 2⁵³
std::uint64_t get_byte_count(const val& options, const char* key) {
  const std::optional<val> given = optional(options, key);
  require(given.has_value(), key, " is required");
  const double bytes = number_from_js(*given, key);
  require(bytes >= 0 && bytes <= 0x1p53 && bytes == std::floor(bytes), key, " must be a whole number of bytes");
  return static_cast<std::uint64_t>(bytes);
}

// the sampling options of a JS call, checked against the vocabulary
SamplingOptions get_sampling(const val& options, Index vocab, std::uint32_t default_seed) {
  SamplingOptions s;
  const double temperature = get_number(options, "temperature", 1.0);
  // the engine samples in float: a larger temperature would become +∞
  if (temperature > std::numeric_limits<float>::max()) {
    char message[96];
    std::snprintf(message, sizeof message, "temperature must be at most %.9g (the largest float), got %.9g",
                  static_cast<double>(std::numeric_limits<float>::max()), temperature);
    throw Error(message);
  }
  s.temperature = static_cast<float>(temperature);
  if (const std::optional<val> top_k = optional(options, "topK")) {
    const double k = number_from_js(*top_k, "topK");
    require(k == std::floor(k), "topK must be a whole number");
    require(k >= 1 && k <= static_cast<double>(vocab), "topK must be between 1 and the vocabulary size ", vocab, ", got ", k);
    s.top_k = static_cast<Index>(k);
  }
  if (const std::optional<val> top_p = optional(options, "topP")) s.top_p = static_cast<float>(number_from_js(*top_p, "topP"));
  s.seed = get_seed(options, "seed", default_seed);
  validate_sampling(s, vocab);
  return s;
}

}  // namespace

std::shared_ptr<ModelHandle> model_from_config(const val& options) {
  return guarded([&] {
    const ModelConfig config = config_from_json(get_json(options, "config"));
    const std::uint64_t max_bytes = get_max_parameter_bytes(options);
    require_parameter_bytes(config, max_bytes);  // before the vocabulary is read
    const std::uint32_t seed = get_seed(options, "seed", 0);
    std::optional<Tokenizer> tokenizer;
    const std::optional<val> vocab = optional(options, "vocab");
    const std::optional<val> hf_tokenizer = optional(options, "tokenizer");
    require(!(vocab && hf_tokenizer), "give vocab (vocab.json) or tokenizer (a Hugging Face tokenizer.json), not both");
    if (vocab) tokenizer = Tokenizer::from_json(string_from_js(*vocab, "vocab"), config.vocab_size);
    if (hf_tokenizer) tokenizer = Tokenizer::from_hf_json(string_from_js(*hf_tokenizer, "tokenizer"), config.vocab_size);
    return std::make_shared<ModelHandle>(Transformer::random(config, seed, max_bytes), std::move(tokenizer));
  }, options);
}

std::shared_ptr<CheckpointLoading> checkpoint_loading(const val& options) {
  return guarded([&] {
    CheckpointConfig config = checkpoint_config_from_json(get_string(options, "config", ""));
    // a downloaded checkpoint may be larger than what the engine creates or trains
    const std::uint64_t cap = get_max_parameter_bytes(
        options, config.family == CheckpointFamily::attnlab ? kDefaultMaxParameterBytes : kDefaultMaxCheckpointBytes);
    const std::string storage = get_string(options, "weightStorage", "float32");
    require(storage == "float32" || storage == "as-stored", "weightStorage must be \"float32\" or \"as-stored\", got \"",
            storage, "\"");
    std::optional<Tokenizer> tokenizer;
    if (const std::optional<val> vocab = optional(options, "vocab"))
      tokenizer = Tokenizer::from_json(string_from_js(*vocab, "vocab"), config.config.vocab_size);
    return std::make_shared<CheckpointLoading>(
        std::move(config), cap, storage == "float32" ? WeightStorage::float32 : WeightStorage::as_stored, std::move(tokenizer));
  }, options);
}

double safetensors_header_size(const val& options) {
  return guarded([&] {
    const std::vector<std::uint8_t> first8 = get_bytes(options, "bytes");
    const std::uint64_t file_size = get_byte_count(options, "fileSize");
    require(first8.size() >= 8 || first8.size() == file_size, "bytes must hold the file's first 8 bytes");
    std::uint8_t padded[8] = {};
    std::copy(first8.begin(), first8.begin() + std::min<size_t>(8, first8.size()), padded);
    return static_cast<double>(safetensors_header_length(padded, file_size));
  }, options);
}

void CheckpointLoading::add_shard(const val& options) {
  guarded([&] {
    const std::vector<std::uint8_t> header = get_bytes(options, "header");
    loader_.add_shard(std::string(header.begin(), header.end()), get_byte_count(options, "fileSize"),
                      get_string(options, "name", ""));
  }, options);
}

void CheckpointLoading::use_index(const val& text) {
  guarded([&] { loader_.use_index(string_from_js(text, "index")); }, text);
}

val CheckpointLoading::start() {
  return guarded([&] {
    const std::vector<CheckpointLoader::Read>& reads = loader_.start();
    val out = val::array();
    for (size_t i = 0; i < reads.size(); ++i) {
      val read = val::object();
      read.set("shard", static_cast<double>(reads[i].shard));
      read.set("begin", static_cast<double>(reads[i].begin));
      read.set("end", static_cast<double>(reads[i].end));
      read.set("name", reads[i].name);
      out.set(i, read);
    }
    return out;
  });
}

void CheckpointLoading::feed(const val& options) {
  guarded([&] {
    const Index read = get_index(options, "read", 0, std::numeric_limits<Index>::max());
    const std::uint64_t offset = get_byte_count(options, "offset");
    const std::vector<std::uint8_t> bytes = get_bytes(options, "bytes");
    loader_.feed(static_cast<std::size_t>(read), offset, bytes.data(), bytes.size());
  }, options);
}

std::shared_ptr<ModelHandle> CheckpointLoading::finish() {
  return guarded([&] {
    return std::make_shared<ModelHandle>(Transformer(loader_.config().config, loader_.finish()), std::move(tokenizer_));
  });
}

val CheckpointLoading::describe() const {
  return guarded([&] {
    val out = val::object();
    out.set("family", to_string(loader_.config().family));
    out.set("config", parse_json(config_to_json(loader_.config().config)));
    out.set("parameterBytes", static_cast<double>(loader_.parameter_bytes()));
    return out;
  });
}

const Tokenizer& ModelHandle::tokenizer() const {
  require(tokenizer_.has_value(), "this model has no vocabulary (create it with one to tokenize text)");
  return *tokenizer_;
}

val ModelHandle::config() const {
  return guarded([&] { return parse_json(config_to_json(model_.config())); });
}

val ModelHandle::tokenize(const val& text) const {
  return guarded([&] {
    const std::string s = string_from_js(text, "tokenize: text");
    require(s.size() <= 1 << 20, "tokenize: text longer than 1 MiB");
    val out = val::object();
    out.set("ids", to_js(tokenizer().encode(s)));
    out.set("pieces", to_js(tokenizer().split(s)));
    return out;
  }, text);
}

val ModelHandle::decode(const val& ids) const {
  return guarded([&] {
    val wrapper = val::object();
    wrapper.set("ids", ids);
    return val(tokenizer().decode(get_ints(wrapper, "ids", 0, static_cast<int>(model_.config().vocab_size) - 1)));
  }, ids);
}

val ModelHandle::pieces(const val& ids) const {
  return guarded([&] {
    val wrapper = val::object();
    wrapper.set("ids", ids);
    std::vector<std::string> out;
    for (const int id : get_ints(wrapper, "ids", 0, static_cast<int>(model_.config().vocab_size) - 1)) out.push_back(tokenizer().token(id));
    return to_js(out);
  }, ids);
}

// a byte-level BPE tokenizer's special tokens by content; otherwise the six every word or
// character vocabulary starts with (see Tokenizer), also for a model without a vocabulary
val ModelHandle::special_tokens() const {
  return guarded([&] {
    val ids = val::object();
    if (tokenizer_ && tokenizer_->kind() == TokenizerKind::byte_bpe) {
      for (const auto& [content, id] : tokenizer_->special_tokens()) ids.set(content, id);
      return ids;
    }
    ids.set("pad", Tokenizer::kPad);
    ids.set("unk", Tokenizer::kUnk);
    ids.set("bos", Tokenizer::kBos);
    ids.set("eos", Tokenizer::kEos);
    ids.set("mask", Tokenizer::kMask);
    ids.set("sep", Tokenizer::kSep);
    return ids;
  });
}

val ModelHandle::forward(const val& options) const {
  return guarded([&] {
    const int top = static_cast<int>(model_.config().vocab_size) - 1;
    const std::vector<int> tokens = get_ints(options, "tokens", 0, top);
    const std::optional<TraceRequest> trace = get_trace(options);
    std::optional<bool> causal;  // absent: the architecture's own mask
    if (const std::optional<val> given = optional(options, "causal")) causal = bool_from_js(*given, "causal");
    const std::optional<val> source = optional(options, "source");
    ModelActivations kept;
    const Matrix logits = source ? model_.forward(ints_from_js(*source, "source", 0, top), tokens, trace ? &kept : nullptr, causal)
                                 : model_.forward(tokens, trace ? &kept : nullptr, causal);
    val out = val::object();
    out.set("logits", to_js(logits));
    if (trace) out.set("trace", trace_to_js(pick_trace(kept, *trace)));
    return out;
  }, options);
}

val ModelHandle::next_token_probabilities(const val& options) const {
  return guarded([&] {
    const std::vector<int> tokens = get_ints(options, "tokens", 0, static_cast<int>(model_.config().vocab_size) - 1);
    const SamplingOptions sampling = get_sampling(options, model_.config().vocab_size, 0);
    const Matrix logits = model_.forward(tokens);
    const RowVector p = attnlab::next_token_probabilities(logits.row(logits.rows() - 1), sampling);
    return float_array(p.data(), p.size());
  }, options);
}

// What a generation call answers besides its token, read from its options before the call
// changes anything: a bad option must not leave a step half done.
struct ModelHandle::GenerationReply {
  bool logits = false;
  std::optional<TraceRequest> trace;

  explicit GenerationReply(const val& options)
      : logits(get_bool(options, "logits", false)), trace(get_trace(options)) {}
};

val ModelHandle::start_generation(const val& options) {
  return guarded([&] {
    const std::vector<int> tokens = get_ints(options, "tokens", 0, static_cast<int>(model_.config().vocab_size) - 1);
    require(!tokens.empty(), "startGeneration: the prompt is empty");
    const GenerationReply reply(options);
    KVCache cache = model_.new_cache();
    ModelActivations kept;
    Matrix logits = model_.forward_cached(tokens, cache, reply.trace ? &kept : nullptr);
    val out = generation_state(reply, cache, logits, kept);
    // committed only once nothing can fail
    cache_ = std::move(cache);
    last_logits_ = std::move(logits);
    generated_ = 0;
    text_.reset();
    if (tokenizer_) text_.emplace(*tokenizer_);
    return out;
  }, options);
}

val ModelHandle::generate_step(const val& options) {
  return guarded([&] {
    require(cache_.length() > 0, "generateStep: call startGeneration first");
    require(cache_.length() < model_.config().n_ctx, "generateStep: the context of n_ctx = ", model_.config().n_ctx,
            " tokens is full");
    const SamplingOptions sampling = get_sampling(options, model_.config().vocab_size, generation_seed_);
    const GenerationReply reply(options);
    // one stream per generation: the seed, advanced by the number of tokens drawn so far
    Rng rng(sampling.seed + static_cast<std::uint32_t>(generated_ * 2654435761u));
    const RowVector last = last_logits_.row(last_logits_.rows() - 1);
    const RowVector p = attnlab::next_token_probabilities(last, sampling);
    const int token = sample_token(last, sampling, rng);
    const Index before = cache_.length();
    ModelActivations kept;
    Matrix logits = model_.forward_cached({token}, cache_, reply.trace ? &kept : nullptr);  // all or nothing
    try {
      val out = generation_state(reply, cache_, logits, kept);
      out.set("token", token);
      out.set("probabilities", float_array(p.data(), p.size()));
      // the text the token completes: a character split across tokens shows once it is whole; an
      // id beyond the tokenizer (a vocab_size rounded up) adds nothing
      std::optional<TextStream> text = text_;
      if (text) out.set("text", token < tokenizer_->size() ? text->push(token) : std::string());
      // committed only once nothing can fail (moves do not throw)
      last_logits_ = std::move(logits);
      ++generated_;
      if (text) text_.emplace(std::move(*text));
      return out;
    } catch (...) {
      cache_.truncate(before);
      throw;
    }
  }, options);
}

val ModelHandle::generation_state(const GenerationReply& reply, const KVCache& cache, const Matrix& logits,
                                  const ModelActivations& kept) const {
  val out = val::object();
  out.set("length", static_cast<double>(cache.length()));
  out.set("cacheBytes", static_cast<double>(cache.bytes()));
  if (reply.logits) out.set("logits", to_js(logits.bottomRows(1)));
  if (reply.trace) out.set("trace", trace_to_js(pick_trace(kept, *reply.trace)));
  return out;
}

val ModelHandle::kv_cache(const val& options) const {
  return guarded([&] {
    require(cache_.length() > 0, "kvCache: call startGeneration first");
    const Index layers = static_cast<Index>(cache_.layers.size());
    const Index layer = get_index(options, "layer", 0, layers - 1);
    const ConstMatrixRef kv = cache_.layers[static_cast<size_t>(layer)].rows();
    const Index width = kv.cols() / 2;  // [K | V]
    val out = val::object();
    out.set("keys", to_js(kv.leftCols(width)));
    out.set("values", to_js(kv.rightCols(width)));
    return out;
  }, options);
}

val ModelHandle::generate(const val& options) const {
  return guarded([&] {
    const int top = static_cast<int>(model_.config().vocab_size) - 1;
    const std::vector<int> tokens = get_ints(options, "tokens", 0, top);
    require(!tokens.empty(), "generate: the prompt is empty");
    const Index max_new = get_index(options, "maxNew", 0, model_.config().n_ctx);
    const SamplingOptions sampling = get_sampling(options, model_.config().vocab_size, 0);
    const std::optional<val> given_stop = optional(options, "stop");
    const int stop = given_stop ? static_cast<int>(index_from_js(*given_stop, "stop", 0, top)) : -1;
    const bool seq2seq = model_.config().architecture == Architecture::encoder_decoder;
    const std::optional<val> source = optional(options, "source");
    require(seq2seq == source.has_value(), seq2seq ? "generate: an encoder-decoder model needs a source"
                                                   : "generate: only an encoder-decoder model reads a source");
    return to_js(seq2seq ? attnlab::generate(model_, ints_from_js(*source, "source", 0, top), tokens, max_new, sampling, stop)
                         : attnlab::generate(model_, tokens, max_new, sampling, stop));
  }, options);
}

val ModelHandle::fingerprint() const {
  return guarded([&] {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(parameter_fingerprint(model_.config(), model_.params())));
    return val(std::string(hex));
  });
}

val ModelHandle::weight_dtype() const {
  return guarded([&] { return val(to_string(model_.params().weight_dtype())); });
}

val ModelHandle::parameter(const val& name) const {
  return guarded([&] { return weight_to_js(parameter_tensor(model_.config(), model_.params(), string_from_js(name, "parameter: name"))); },
                 name);
}

val ModelHandle::save() const {
  return guarded([&] {
    const std::vector<std::uint8_t> weights = params_to_safetensors(model_.config(), model_.params());
    val out = val::object();
    out.set("weights", byte_array(weights));
    out.set("config", config_to_json(model_.config()));
    if (tokenizer_) out.set("vocab", tokenizer_->to_json());
    return out;
  });
}

std::shared_ptr<AttentionStepsHandle> ModelHandle::attention_steps(const val& options) const {
  return guarded([&] {
    const int top = static_cast<int>(model_.config().vocab_size) - 1;
    const std::vector<int> tokens = get_ints(options, "tokens", 0, top);
    const std::optional<val> given = optional(options, "source");
    const std::vector<int> source = given ? ints_from_js(*given, "source", 0, top) : std::vector<int>{};
    return std::make_shared<AttentionStepsHandle>(layer_attention_steps(
        model_, tokens, get_index(options, "layer", 0, 255), source, get_bool(options, "cross", false)));
  }, options);
}

}  // namespace attnlab::js
