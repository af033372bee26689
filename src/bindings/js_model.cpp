#include "bindings/js_api.hpp"
#include "bindings/marshal.hpp"
#include "core/check.hpp"
#include "io/model_file.hpp"
#include "model/generate.hpp"
#include "model/layer_attention.hpp"

namespace attnlab::js {

namespace {

std::string json_text(const val& value) { return val::global("JSON").call<std::string>("stringify", value); }

// the sampling options of a JS call, checked against the vocabulary
SamplingOptions get_sampling(const val& options, Index vocab, std::uint32_t default_seed) {
  SamplingOptions s;
  s.temperature = static_cast<float>(get_number(options, "temperature", 1.0));
  if (has(options, "topK")) {
    const val k = options["topK"];
    require(k.typeOf().as<std::string>() == "number" && std::isfinite(k.as<double>()) &&
                k.as<double>() == std::floor(k.as<double>()),
            "topK must be a whole number");
    const double value = k.as<double>();
    require(value >= 1 && value <= static_cast<double>(vocab),
            "topK must be between 1 and the vocabulary size " + std::to_string(vocab) + ", got " +
                std::to_string(static_cast<long long>(value)));
    s.top_k = static_cast<Index>(value);
  }
  s.seed = get_seed(options, "seed", default_seed);
  validate_sampling(s, vocab);
  return s;
}

}  // namespace

std::shared_ptr<ModelHandle> model_from_config(const val& options) {
  return guarded([&] {
    require(has(options, "config"), "config is required");
    const ModelConfig config = config_from_json(json_text(options["config"]));
    const std::uint32_t seed = get_seed(options, "seed", 0);
    std::optional<Tokenizer> tokenizer;
    if (has(options, "vocab")) {
      tokenizer = Tokenizer::from_json(get_string(options, "vocab", ""));
      require(tokenizer->size() == config.vocab_size,
              "the vocabulary has " + std::to_string(tokenizer->size()) + " tokens but vocab_size is " +
                  std::to_string(config.vocab_size));
    }
    return std::make_shared<ModelHandle>(Transformer::random(config, seed),
                                         std::move(tokenizer));
  });
}

std::shared_ptr<ModelHandle> model_from_files(const val& options) {
  return guarded([&] {
    require(has(options, "weights"), "weights (the bytes of model.safetensors) are required");
    const val weights = options["weights"];
    require(weights.instanceof(val::global("Uint8Array")), "weights must be a Uint8Array");
    const std::vector<std::uint8_t> bytes = emscripten::convertJSArrayToNumberVector<std::uint8_t>(weights);
    LoadedModel loaded = load_model(bytes.data(), bytes.size(), get_string(options, "config", ""),
                                    get_string(options, "vocab", ""));
    return std::make_shared<ModelHandle>(std::move(loaded.model), std::move(loaded.tokenizer));
  });
}

const Tokenizer& ModelHandle::tokenizer() const {
  require(tokenizer_.has_value(), "this model has no vocabulary (create it with one to tokenize text)");
  return *tokenizer_;
}

val ModelHandle::config() const {
  return guarded([&] { return val::global("JSON").call<val>("parse", config_to_json(model_.config())); });
}

val ModelHandle::tokenize(const val& text) const {
  return guarded([&] {
    require(text.typeOf().as<std::string>() == "string", "tokenize: text must be a string");
    const std::string s = text.as<std::string>();
    require(s.size() <= 1 << 20, "tokenize: text longer than 1 MiB");
    val out = val::object();
    out.set("ids", to_js(tokenizer().encode(s)));
    out.set("pieces", to_js(tokenizer().split(s)));
    return out;
  });
}

val ModelHandle::decode(const val& ids) const {
  return guarded([&] {
    val wrapper = val::object();
    wrapper.set("ids", ids);
    return val(tokenizer().decode(get_ints(wrapper, "ids", 0, static_cast<int>(model_.config().vocab_size) - 1)));
  });
}

val ModelHandle::forward(const val& options) const {
  return guarded([&] {
    const int top = static_cast<int>(model_.config().vocab_size) - 1;
    const std::vector<int> tokens = get_ints(options, "tokens", 0, top);
    const bool want_trace = wants_trace(options);
    std::optional<bool> causal;  // absent: the architecture's own mask
    if (has(options, "causal")) causal = get_bool(options, "causal", true);
    Trace trace;
    const Matrix logits = has(options, "source")
                              ? model_.forward(get_ints(options, "source", 0, top), tokens, want_trace ? &trace : nullptr, causal)
                              : model_.forward(tokens, want_trace ? &trace : nullptr, causal);
    val out = val::object();
    out.set("logits", to_js(logits));
    if (want_trace) out.set("trace", trace_to_js(trace, options["trace"]));
    return out;
  });
}

val ModelHandle::next_token_probabilities(const val& options) const {
  return guarded([&] {
    const std::vector<int> tokens = get_ints(options, "tokens", 0, static_cast<int>(model_.config().vocab_size) - 1);
    const SamplingOptions sampling = get_sampling(options, model_.config().vocab_size, 0);
    const Matrix logits = model_.forward(tokens);
    const RowVector p = attnlab::next_token_probabilities(logits.row(logits.rows() - 1), sampling);
    return float_array(p.data(), p.size());
  });
}

val ModelHandle::start_generation(const val& options) {
  return guarded([&] {
    const std::vector<int> tokens = get_ints(options, "tokens", 0, static_cast<int>(model_.config().vocab_size) - 1);
    require(!tokens.empty(), "startGeneration: the prompt is empty");
    KVCache cache = model_.new_cache();
    last_logits_ = model_.forward_cached(tokens, cache);
    cache_ = std::move(cache);
    generated_ = 0;
    val out = val::object();
    out.set("length", static_cast<double>(cache_.length()));
    out.set("cacheBytes", static_cast<double>(cache_.bytes()));
    return out;
  });
}

val ModelHandle::generate_step(const val& options) {
  return guarded([&] {
    require(cache_.length() > 0, "generateStep: call startGeneration first");
    const SamplingOptions sampling = get_sampling(options, model_.config().vocab_size, generation_seed_);
    // one stream per generation: the seed, advanced by the number of tokens drawn so far
    Rng rng(sampling.seed + static_cast<std::uint32_t>(generated_ * 2654435761u));
    const RowVector last = last_logits_.row(last_logits_.rows() - 1);
    const RowVector p = attnlab::next_token_probabilities(last, sampling);
    const int token = sample_token(last, sampling, rng);
    require(cache_.length() < model_.config().n_ctx, "generateStep: the context of n_ctx = " +
                                                         std::to_string(model_.config().n_ctx) + " tokens is full");
    last_logits_ = model_.forward_cached({token}, cache_);
    ++generated_;
    val out = val::object();
    out.set("token", token);
    out.set("probabilities", float_array(p.data(), p.size()));
    out.set("length", static_cast<double>(cache_.length()));
    out.set("cacheBytes", static_cast<double>(cache_.bytes()));
    return out;
  });
}

val ModelHandle::save() const {
  return guarded([&] {
    const std::vector<std::uint8_t> weights = params_to_safetensors(model_.config(), model_.params());
    val out = val::object();
    const val view(emscripten::typed_memory_view(weights.size(), weights.data()));
    out.set("weights", val::global("Uint8Array").new_(view));
    out.set("config", config_to_json(model_.config()));
    if (tokenizer_) out.set("vocab", tokenizer_->to_json());
    return out;
  });
}

std::shared_ptr<AttentionStepsHandle> ModelHandle::attention_steps(const val& options) const {
  return guarded([&] {
    const int top = static_cast<int>(model_.config().vocab_size) - 1;
    const std::vector<int> tokens = get_ints(options, "tokens", 0, top);
    const std::vector<int> source = has(options, "source") ? get_ints(options, "source", 0, top) : std::vector<int>{};
    return std::make_shared<AttentionStepsHandle>(layer_attention_steps(
        model_, tokens, get_index(options, "layer", 0, 255), source, get_bool(options, "cross", false)));
  });
}

}  // namespace attnlab::js
