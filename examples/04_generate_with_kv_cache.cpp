// A small decoder-only (GPT-style) model generating text token by token with the KV cache, and
// the cache's size against the seminar's formula 2·L·n·d_kv·bytes, for multi-head and
// multi-query attention. The weights are random: the point is the mechanics, not the prose.
#include <algorithm>
#include <iostream>
#include <vector>

#include "io/tokenizer.hpp"
#include "model/generate.hpp"

using namespace attnlab;

int main() {
  const Tokenizer tokenizer = Tokenizer::build(
      TokenizerKind::word, {"the cat sat on the mat because it was soft .",
                            "the dog chased the ball because it was fast ."});
  for (Index kv_heads : {4, 1}) {
    const ModelConfig config = ModelConfig::Builder(Architecture::decoder_only, tokenizer.size(), 32)
                                   .width(32, 4)
                                   .kv_heads(kv_heads)
                                   .ffn(64)
                                   .layers(2)
                                   .positional(Positional::rope)
                                   .build();
    const Transformer model = Transformer::random(config, 7);
    SamplingOptions sampling;
    sampling.temperature = 0.8f;
    sampling.top_k = 5;
    sampling.seed = 11;
    const std::vector<int> prompt = tokenizer.encode("the cat sat");
    const std::vector<int> text = generate(model, prompt, 8, sampling);

    // token by token through the cache: each step's logits are that row of a full forward
    KVCache cache = model.new_cache();
    const Matrix full = model.forward(text);
    float difference = 0;
    for (size_t i = 0; i < text.size(); ++i) {
      const Matrix step = model.forward_cached({text[i]}, cache);
      difference = std::max(difference, (step - full.row(static_cast<Index>(i))).cwiseAbs().maxCoeff());
    }

    const Index d_kv = kv_heads * config.d_model / config.n_heads;
    std::cout << (kv_heads == config.n_heads ? "multi-head" : "multi-query") << " attention, "
              << kv_heads << " key/value head(s)\n"
              << "  generated: " << tokenizer.decode(text) << "\n"
              << "  cached and full logits agree: " << (difference < 1e-5f ? "yes" : "NO") << "\n"
              << "  KV cache: 2 x L x n x d_kv x 4 = 2 x " << config.n_layers << " x " << cache.length()
              << " x " << d_kv << " x 4 = " << 2 * config.n_layers * cache.length() * d_kv * 4
              << " bytes; the engine holds " << cache.bytes() << " bytes\n";
  }
  return 0;
}
