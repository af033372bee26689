// Where does "it" look? The shipped coreference model (trained by attnlab-train, see README) reads
// the seminar's sentence; for each head of each layer this prints the attention weights of the
// query "it" over the sentence, then the word the model predicts for "it". Change the adjective
// ("soft" → "hungry") and layer 1 moves its attention from the mat to the cat.
#include <cmath>
#include <cstdio>
#include <string>

#include "model/trace.hpp"
#include "io/model_file.hpp"
#include "train/tasks.hpp"

using namespace attnlab;

int main(int argc, char** argv) {
  const std::string directory = argc > 1 ? argv[1] : ATTNLAB_MODELS_DIR "/coreference";
  const LoadedModel loaded = load_model_dir(directory);
  const CoreferenceTask language;
  for (const char* text : {"The cat sat on the mat because it was soft.", "The cat sat on the mat because it was hungry."}) {
    const CoreferenceTask::Sentence s = language.parse(text);
    ModelActivations kept;
    const Trace trace(kept);
    const Matrix logits = loaded.model.forward(s.tokens, &kept);
    std::printf("%s\nattention of \"it\" (row %lld) per head:\n\n%-12s", text, static_cast<long long>(s.pronoun), "");
    for (int token : s.tokens) std::printf("%8s", loaded.tokenizer.token(token).c_str());
    std::printf("\n");
    for (Index layer = 0; layer < loaded.model.config().n_layers; ++layer) {
      for (Index head = 0; head < loaded.model.config().n_heads; ++head) {
        const Matrix& w = trace.get("layer" + std::to_string(layer) + ".attn.head" + std::to_string(head) + ".weights");
        std::printf("layer %lld h%lld  ", static_cast<long long>(layer), static_cast<long long>(head));
        for (Index j = 0; j < w.cols(); ++j) std::printf("%8.3f", w(s.pronoun, j));
        std::printf("\n");
      }
    }
    Index best = 0;
    logits.row(s.pronoun).maxCoeff(&best);
    std::printf("\n\"it\" = %s (p = %.3f)\n\n", loaded.tokenizer.token(static_cast<int>(best)).c_str(),
                static_cast<double>(std::exp(logits(s.pronoun, best) - logits.row(s.pronoun).maxCoeff()) /
                                    (logits.row(s.pronoun).array() - logits.row(s.pronoun).maxCoeff()).exp().sum()));
  }
  return 0;
}
