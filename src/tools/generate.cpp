// attnlab-generate: continues a prompt with a checkpoint at native speed, printing the text as it
// is generated and then the speed, so a lecturer can try a model before putting it in a slide.
//
//   attnlab-generate DIR --prompt "TEXT" [--max-new N] [--temperature T] [--top-k K] [--top-p P]
//                    [--seed N] [--threads N] [--tokenizer FILE]
//
// DIR holds config.json and model.safetensors (or model.safetensors.index.json and its shards): a
// Hugging Face GPT-2 or Llama checkpoint, or the engine's own files. The tokenizer is DIR's
// tokenizer.json, vocab.json with merges.txt, or vocab.json; a GPT-2 checkpoint without one uses
// GPT-2's, which the build derives (or --tokenizer names another file). Temperature 0 is greedy.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "core/check.hpp"
#include "core/random.hpp"
#include "core/thread_pool.hpp"
#include "io/model_file.hpp"
#include "model/generate.hpp"

using namespace attnlab;

namespace {

int usage() {
  std::cerr << "usage: attnlab-generate DIR --prompt \"TEXT\" [--max-new N] [--temperature T] [--top-k K]"
               " [--top-p P] [--seed N] [--threads N] [--tokenizer FILE]\n";
  return 2;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return usage();
  const std::string directory = argv[1];
  std::string prompt, tokenizer_file = ATTNLAB_GPT2_TOKENIZER;
  Index max_new = 50;
  SamplingOptions sampling;
  int threads = 0;
  try {
    for (int i = 2; i < argc; ++i) {
      const std::string flag = argv[i];
      require(i + 1 < argc, flag, " needs a value");
      const std::string value = argv[++i];
      const auto number = [&] {
        char* end = nullptr;
        const double x = std::strtod(value.c_str(), &end);
        require(end != value.c_str() && *end == '\0' && std::isfinite(x), flag, " expects a number, got \"", value, "\"");
        return x;
      };
      // a whole number in [lo, hi], checked before it is converted
      const auto whole = [&](double lo, double hi) {
        const double x = number();
        require(x == std::floor(x) && x >= lo && x <= hi, flag, " must be a whole number from ", static_cast<long long>(lo),
                " to ", static_cast<long long>(hi), ", got ", value);
        return x;
      };
      if (flag == "--prompt") prompt = value;
      else if (flag == "--max-new") max_new = static_cast<Index>(whole(1, 1 << 16));
      else if (flag == "--temperature") sampling.temperature = static_cast<float>(number());
      else if (flag == "--top-k") sampling.top_k = static_cast<Index>(whole(1, ModelConfig::kMaxVocabSize));
      else if (flag == "--top-p") sampling.top_p = static_cast<float>(number());
      else if (flag == "--seed") sampling.seed = static_cast<std::uint32_t>(whole(0, 4294967295.0));
      else if (flag == "--threads") threads = static_cast<int>(whole(1, 1024));
      else if (flag == "--tokenizer") tokenizer_file = value;
      else throw Error("unknown option " + flag);
    }
    require(!prompt.empty(), "--prompt is required");
    if (threads > 0) set_num_threads(threads);

    const auto load_start = std::chrono::steady_clock::now();
    const LoadedModel loaded = load_model_dir(directory, kDefaultMaxCheckpointBytes, tokenizer_file);
    const Transformer& model = loaded.model;
    const ModelConfig& config = model.config();
    validate_sampling(sampling, config.vocab_size);
    std::cerr << "loaded " << directory << ": " << config.n_layers << " layers, " << config.n_heads << " heads, d_model "
              << config.d_model << ", " << parameter_bytes(config) / 4 << " parameters in " << seconds_since(load_start)
              << " s\n";

    std::vector<int> tokens = loaded.tokenizer.encode(prompt);
    require(!tokens.empty(), "the prompt has no tokens");
    require(static_cast<Index>(tokens.size()) < config.n_ctx, "the prompt has ", tokens.size(),
            " tokens; the model reads at most ", config.n_ctx);
    std::cout << prompt << std::flush;

    KVCache cache = model.new_cache();
    Rng rng(sampling.seed);
    TextStream stream(loaded.tokenizer);
    const auto prefill_start = std::chrono::steady_clock::now();
    Matrix logits = model.forward_cached(tokens, cache);
    const double prefill = seconds_since(prefill_start);
    const auto decode_start = std::chrono::steady_clock::now();
    Index generated = 0;
    while (generated < max_new && cache.length() < config.n_ctx) {
      const int token = sample_token(logits.row(logits.rows() - 1), sampling, rng);
      ++generated;
      if (loaded.eos_token_id && token == *loaded.eos_token_id) break;
      std::cout << stream.push(token) << std::flush;
      if (cache.length() >= config.n_ctx) break;
      logits = model.forward_cached({token}, cache);
    }
    std::cout << stream.finish() << "\n";
    const double decode = seconds_since(decode_start);
    std::fprintf(stderr, "%zu prompt tokens in %.3f s (%.1f tokens/s); %lld generated in %.3f s (%.1f tokens/s)\n",
                 tokens.size(), prefill, static_cast<double>(tokens.size()) / prefill, static_cast<long long>(generated),
                 decode, static_cast<double>(generated) / decode);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "attnlab-generate: " << e.what() << "\n";
    return 1;
  }
}
