#pragma once
// What JavaScript calls: functions and two handle classes, each taking one options object,
// validating it through marshal.hpp and returning plain objects of typed arrays. The contract is
// documented in web/src/engine/attnlab.d.mts.
#include <emscripten/val.h>

#include <memory>
#include <optional>

#include "core/attention_steps.hpp"
#include "io/tokenizer.hpp"
#include "io/checkpoint.hpp"
#include "model/transformer.hpp"
#include "train/trainer.hpp"

namespace attnlab::js {

using emscripten::val;

// {build, version, simd, threads, maxThreads}
val build_info();
// threads used from now on (1 … maxThreads); returns the number set
val set_threads(const val& threads);
// bytes of the WebAssembly heap in use (malloc'd and not freed)
val memory_in_use();
// {reset?} → the most bytes in use at once since the last reset; reset starts a new mark from now
val memory_peak(const val& options);
// {kernel, n, d?, repeats?, minMs?, warmUp?} → {medianMs, gflops, repeats, peakBytes}: peakBytes is
// the heap's high-water mark during the run above what was in use before it (inputs included)
val benchmark(const val& options);

// positional encodings
val positional_table(const val& options);     // {kind, n, d, base?, seed?, heads?, head?} → (n,d) or (n,n)
val position_similarity(const val& options);  // {pe, n, d} → (n,n)
val sinusoidal_shift_matrix(const val& options);  // {d, k, base?} → (d,d)
val sinusoidal_shift(const val& options);         // {pos, k, d, base?} → (1,d) T_k·PE(pos)
val norms(const val& options);                   // {x, d, gamma?, beta?, eps?} → both norms of x, its statistics, Jacobians
val attention_budget(const val& options);        // {d, heads, kvHeads?, layers?, n, bytesPerValue?} → {parameters, kvCacheBytes}
val random_normal(const val& options);           // {rows, cols, seed?, std?} → (rows,cols) of N(0, std²)
val rope_apply(const val& options);           // {x, n, d, pos0?, base?} → (n,d)
val rope_rotation(const val& options);        // {d, pos, base?} → (d,d)
val alibi_slopes(const val& options);         // {heads} → Float32Array
val alibi_bias(const val& options);           // {heads, head, n, m?} → (n,m)

// the seminar's experiments
// {length, hidden?, input?, seed?, recurrentScale?} → {states, jacobianNorms, rnnGradientNorms,
//   attentionGradientNorms, sequentialSteps: {rnn, attention}}
val rnn_gradient_flow(const val& options);
// {dK, samples?, keys?, seed?} → {mean, variance, scaledVariance, scores}
val dot_product_statistics(const val& options);
// {scores, scale?, temperature?} → {weights, entropy, maxWeight, jacobian, jacobianNorm}
val softmax_row(const val& options);
// {scores, scale?} → {logits, naive, maxSubtracted: {shift, exps, sum, weights}, overflowAbove: {float32, float16}}:
// z = scale·scores in float32, softmax(z) without and with the max subtracted (the naive form's ±∞
// and NaN returned as computed), and ln of each format's largest finite number
val softmax_forms(const val& options);
// {layers?, d?, n?, norm?, preNorm?, residual?, seed?} → {inputGradientNorms, parameterGradientNorms, activationNorms}
val depth_gradients(const val& options);
// {activation, x} → {y, derivative}: σ(x) and σ′(x), SwiGLU's being its gate's Swish
val activation_curve(const val& options);
// {d, dFF, activation?} → the feed-forward network's parameter count
val feed_forward_parameters(const val& options);
// {image, height, width, patch, d, seed?} → {patches, embedded}: x_patch = Flatten(patch)·E
val patch_embedding(const val& options);

// Attention advancing one stage per call (see AttentionSteps).
class AttentionStepsHandle {
 public:
  explicit AttentionStepsHandle(AttentionSteps steps) : steps_(std::move(steps)) {}
  val stages() const;   // names of all stages, "start" first
  val stage() const;    // the last stage that ran
  val advance();        // runs the next one; returns its name
  val run_all();        // runs the rest; returns the final stage's name
  val result() const;   // everything computed so far
 private:
  AttentionSteps steps_;
};
// {x, n, d, memory?, m?, mask?, keyPadding?, scaled?} with either
//   {wQ, wK, wV, dK, dV} (one head), or
//   {heads, kvHeads?, rope?, ropeBase?, alibi?, cAttnWeight, cAttnBias, cProjWeight, cProjBias, flash?: {blockRows, blockCols}}
std::shared_ptr<AttentionStepsHandle> attention_steps(const val& options);
// the same options and trace?: true | part names → {stage, scale, heads, concat?, output}: without
// a trace the fast path, and no head's parts
val attention(const val& options);

// A model with its tokenizer and, for generation, a KV cache.
class ModelHandle {
 public:
  ModelHandle(Transformer model, std::optional<Tokenizer> tokenizer)
      : model_(std::move(model)), tokenizer_(std::move(tokenizer)) {}
  val config() const;
  val tokenize(const val& text) const;  // {ids: Int32Array, pieces: string[]}
  val decode(const val& ids) const;     // string
  val pieces(const val& ids) const;     // string[]: each id's piece, as tokenize gives it
  val special_tokens() const;           // {pad, unk, bos, eos, mask, sep}: their ids; byte-level BPE: {content: id}
  // {tokens, source?, trace?: boolean | string[], causal?: boolean} → {logits, trace?: {name: matrix}}
  val forward(const val& options) const;
  // {tokens, temperature?, topK?} → Float32Array (vocab)
  val next_token_probabilities(const val& options) const;
  // {tokens, logits?, trace?}: clears the cache and runs the prompt → {length, cacheBytes, logits?, trace?}
  val start_generation(const val& options);
  // {temperature?, topK?, topP?, seed?, logits?, trace?} → {token, probabilities, length, cacheBytes,
  //   text?: what the token completes (with a tokenizer), logits?: the new last position's, trace?: of
  //   the step, which projects only the new token}
  val generate_step(const val& options);
  // {layer} → {keys, values}: that layer's cache, one row per position
  val kv_cache(const val& options) const;
  // {tokens, source?, maxNew, stop?, temperature?, topK?, topP?, seed?} → Int32Array: prompt and continuation
  val generate(const val& options) const;
  // {weights: Uint8Array, config: string, vocab: string}
  val save() const;
  // FNV-1a of every parameter's bytes, 16 hex digits (parameter_fingerprint)
  val fingerprint() const;
  // "F32", or "F16"/"BF16" when a checkpoint's weight matrices are kept in it (ModelParams::weight_dtype)
  val weight_dtype() const;
  // a tensor's name as save() writes it → that tensor, a vector as one row (parameter_tensor)
  val parameter(const val& name) const;
  // {tokens, layer, source?, cross?}: that layer's attention on these tokens, to step through
  std::shared_ptr<AttentionStepsHandle> attention_steps(const val& options) const;
 private:
  const Tokenizer& tokenizer() const;
  struct GenerationReply;
  // {length, cacheBytes} of the cache, with the last position's logits and the trace when asked
  val generation_state(const GenerationReply& reply, const KVCache& cache, const Matrix& logits,
                       const ModelActivations& kept) const;
  Transformer model_;
  std::optional<Tokenizer> tokenizer_;
  KVCache cache_;
  std::optional<TextStream> text_;  // the generation's text so far, with a model that has a tokenizer
  Matrix last_logits_;
  std::uint32_t generation_seed_ = 0;
  std::uint64_t generated_ = 0;
};
// {config: object, seed?, vocab?: string (vocab.json)}
std::shared_ptr<ModelHandle> model_from_config(const val& options);
// {program: "reverse" | "histogram" | "sort"}: the program compiled into a model's weights, with its
// vocabulary (model/rasp.hpp)
std::shared_ptr<ModelHandle> programmed_model(const val& options);
// {program} → {name, lines, alphabet, maxLength, output, beta, heads, feedForward, layout, vocabulary}
val describe_program(const val& options);
// {program, text} → {tokens, labels, patterns: each head's select pattern (n, 1 + n), output: the
// program run on plain values}
val program_input(const val& options);
// A checkpoint read in pieces (see CheckpointLoader): the JavaScript side reads the files (bytes
// in memory, Blobs, files) and hands over each header and each piece, so a file is never held
// whole in the engine's memory beside the model.
class CheckpointLoading {
 public:
  // {config: string, maxParameterBytes?, weightStorage?: "float32" | "as-stored", vocab?: the
  // engine's vocab.json or a Hugging Face tokenizer.json, read here so that a bad one is refused
  // before any weights}
  CheckpointLoading(CheckpointConfig config, std::uint64_t max_parameter_bytes, WeightStorage storage,
                    std::optional<Tokenizer> tokenizer)
      : loader_(std::move(config), max_parameter_bytes, storage), tokenizer_(std::move(tokenizer)) {}
  // {header: Uint8Array (the bytes after the first 8), fileSize, name?}
  void add_shard(const val& options);
  // the text of model.safetensors.index.json
  void use_index(const val& text);
  // → [{shard, begin, end, name}]: the byte ranges to feed, in order
  val start();
  // {read, offset, bytes: Uint8Array}
  void feed(const val& options);
  // every read fed: the model, with the tokenizer given at the start
  std::shared_ptr<ModelHandle> finish();
  // {family, config, parameterBytes}: what the checkpoint is, before anything is read
  val describe() const;
 private:
  CheckpointLoader loader_;
  std::optional<Tokenizer> tokenizer_;
};
std::shared_ptr<CheckpointLoading> checkpoint_loading(const val& options);
// {bytes: the file's first 8 bytes, fileSize} → the length of the header after them
double safetensors_header_size(const val& options);

// Training a built-in task one optimiser step per call (see Trainer).
class TrainerHandle {
 public:
  explicit TrainerHandle(Trainer trainer) : trainer_(std::move(trainer)) {}
  // {trace?: boolean | string[]} → {step, loss, accuracy, learningRate, gradientNorm, trace?}
  val step(const val& options);
  val progress() const;  // {stepsDone, totalSteps, task, parameters}
  // {count?, seed?} → share of held-out examples solved
  val held_out_accuracy(const val& options) const;
  // {count?, seed?} → mean cross-entropy per target over held-out examples (nats)
  val held_out_loss(const val& options) const;
  // {count?, seed?} → {part: mean cross-entropy} for a task whose targets fall in parts
  val held_out_loss_by_part(const val& options) const;
  // {count?, seed?} → (layers × heads) prefix-matching scores, for the induction task
  val prefix_matching(const val& options) const;
  // the learning rate of steps 1 … totalSteps (Float32Array)
  val schedule() const;
  // a model holding a copy of the weights so far, with the task's vocabulary
  std::shared_ptr<ModelHandle> model() const;
  // {split?: "train" | "heldOut", seed?} → {tokens, targets, text}
  val example(const val& options) const;
 private:
  Trainer trainer_;
};
// {task, seed?, steps?, batchSize?, learningRate?, warmupSteps?, size?: {dModel?, heads?, layers?, dFF?}}
std::shared_ptr<TrainerHandle> create_trainer(const val& options);
// {text} → {text, tokens, pronoun, referent, distractor}: a sentence of the coreference language
val coreference_sentence(const val& options);

}  // namespace attnlab::js
