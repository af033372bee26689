/**
 * The raw WebAssembly engine as Embind exports it (src/bindings/bindings.cpp): the contract the
 * package's TypeScript layer (index.ts) is written against, and that tests/js/contract.test.mjs
 * checks against the compiled module. The package's Engine and Model pass most calls through
 * unchanged: those take their declarations and documentation from here.
 *
 * Every function takes one options object and returns plain objects of typed arrays that
 * JavaScript owns. Bad input throws an `Error` whose message starts with "attnlab:" and names the
 * problem (a NUL in it written as "\0"); the module stays usable and no memory is kept. That
 * includes exceptions thrown by the caller's own getters, proxies or toJSON while an option is
 * read: they become such an Error ("x could not be read (…)"). Each option is read once. Text
 * with lone UTF-16 surrogates is read with U+FFFD in their place. The classes (`AttentionSteps`,
 * `CheckpointLoader`, `Model`, `Trainer`) hold C++ memory: the package wraps them, or deletes them
 * when it is done with them, so that user code never calls `delete()`.
 */

/** A row-major matrix: entry (i, j) is `data[i * cols + j]`. */
export interface MatrixData {
  rows: number;
  cols: number;
  data: Float32Array;
}

/** Numbers may be given as a typed array (not BigInt64Array) or an array(-like) of numbers,
 * row-major; all must be finite and of type number (no digit strings or booleans). */
export type Numbers = Float32Array | ArrayLike<number>;

export interface BuildInfo {
  /** "simd" (one thread) or "simd-threads" (pthreads; needs a cross-origin-isolated page) */
  build: 'simd' | 'simd-threads';
  simd: boolean;
  /** the relaxed-SIMD engine: inference's products with one fused multiply-add a step (LoadOptions.relaxedSimd) */
  relaxedSimd: boolean;
  threads: boolean;
  /** largest number of threads this build can use */
  maxThreads: number;
  version: string;
}

/** Options shared by both kinds of attention. */
export interface AttentionInput {
  /** queries' input X, (n × d) */
  x: Numbers;
  n: number;
  d: number;
  /** cross-attention: keys and values come from this (m × d) sequence instead of X */
  memory?: Numbers;
  m?: number;
  /** default "none"; causal queries sit at the last n of the m key positions */
  mask?: 'none' | 'causal';
  /** m flags, non-zero = a padding key no query may attend to */
  keyPadding?: Numbers;
  /** divide scores by √d_k (default true) */
  scaled?: boolean;
}

/** One head with its own projections, as in the seminar's worked examples. */
export interface SingleHeadInput extends AttentionInput {
  /** W_Q and W_K are (d × dK), W_V is (d × dV) */
  wQ: Numbers;
  wK: Numbers;
  wV: Numbers;
  dK: number;
  dV: number;
}

/** The coordinates RoPE rotates together: (2i, 2i+1), or (i, i + d/2) ("rotate_half") */
export type RopePairing = 'interleaved' | 'rotate_half';

/** Multi-head attention with GPT-2-layout weights (y = x·W + b). */
export interface MultiHeadInput extends AttentionInput {
  /** h; d must be divisible by it */
  heads: number;
  /** g, dividing h: h = MHA (default), 1 = MQA, otherwise GQA */
  kvHeads?: number;
  rope?: boolean;
  ropeBase?: number;
  /** which coordinates rotate together: (2i, 2i+1) (default) or (i, i + d_k/2) as Hugging Face's Llama */
  ropePairing?: RopePairing;
  alibi?: boolean;
  /** (d × (d + 2·g·d/h)), columns [W_Q | W_K | W_V] */
  cAttnWeight: Numbers;
  cAttnBias: Numbers;
  /** W_O, (d × d) */
  cProjWeight: Numbers;
  cProjBias: Numbers;
  /** compute with flash attention in tiles of blockRows × blockCols (causal mask only, no ALiBi) */
  flash?: { blockRows: number; blockCols: number };
}

export type AttentionStage =
  | 'start' | 'project' | 'scores' | 'scale' | 'mask' | 'softmax' | 'mix' | 'flash' | 'concat' | 'output';

/** What a traced attention call may return: each head's tensors and flash tiles, and the heads' concatenation. */
export type AttentionPart = 'q' | 'k' | 'v' | 'scores' | 'scaled' | 'masked' | 'weights' | 'output' | 'flash' | 'concat';

/** attention() in one call: without `trace`, the fast path (no n×m matrix is kept, nothing but
 * the output returned); with `trace: true` every part, or only the parts listed. */
export type AttentionOptions = (SingleHeadInput | MultiHeadInput) & { trace?: boolean | AttentionPart[] };

/** The online softmax's state after one tile of flash attention. */
export interface FlashTile {
  queryBlock: number;
  keyBlock: number;
  /** per query row of the block: running max m and running sum ℓ */
  runningMax: Float32Array;
  runningSum: Float32Array;
}

/** One head's tensors; each is present once its stage has run. */
export interface HeadResult {
  q?: MatrixData;
  k?: MatrixData;
  v?: MatrixData;
  /** QKᵀ */
  scores?: MatrixData;
  /** QKᵀ·scale */
  scaled?: MatrixData;
  /** scaled + mask (+ ALiBi bias); hidden entries are -Infinity */
  masked?: MatrixData;
  /** rows sum to 1; a fully masked row is all zeros */
  weights?: MatrixData;
  output?: MatrixData;
  flash?: { blockRows: number; blockCols: number; tiles: FlashTile[] };
}

export interface AttentionResult {
  /** the last stage that ran */
  stage: AttentionStage;
  /** 1/√d_k, or 1 with scaling off */
  scale: number;
  /** each head's parts asked for (empty without a trace) */
  heads: HeadResult[];
  /** heads side by side, (n × h·d_v) */
  concat?: MatrixData;
  /** concat·W_O + b_O, (n × d); a single head's output (n × dV) */
  output?: MatrixData;
}

/** Attention advancing one stage per call: project → scores → scale → mask → softmax → mix → concat → output. */
export interface RawAttentionSteps {
  stages(): AttentionStage[];
  stage(): AttentionStage;
  /** runs the next stage and returns its name; throws when all have run */
  advance(): AttentionStage;
  runAll(): AttentionStage;
  result(): AttentionResult;
  delete(): void;
}

/** A model config as in config.json; only vocab_size, n_ctx, d_model and d_ff are required. */
export interface ModelConfig {
  architecture?: 'encoder_only' | 'decoder_only' | 'encoder_decoder';
  vocab_size: number;
  n_ctx: number;
  d_model: number;
  n_heads?: number;
  n_kv_heads?: number;
  d_ff: number;
  n_layers?: number;
  n_decoder_layers?: number;
  positional?: 'none' | 'sinusoidal' | 'learned' | 'rope' | 'alibi';
  positional_base?: number;
  /** RoPE only: pairs (2i, 2i+1) (default) or (i, i + d_k/2) as Hugging Face's Llama code */
  rope_pairing?: RopePairing;
  activation?: 'relu' | 'gelu' | 'gelu_tanh' | 'swiglu';
  norm?: 'layer_norm' | 'rms_norm' | 'none';
  pre_norm?: boolean;
  /** false drops every skip connection: f(LN(x)) or LN(f(x)) instead of x + … (default true) */
  residual?: boolean;
  final_norm?: boolean;
  norm_eps?: number;
  tie_embeddings?: boolean;
  scaled?: boolean;
}

export interface ForwardOptions {
  tokens: ArrayLike<number>;
  /** encoder-decoder models: the source sequence */
  source?: ArrayLike<number>;
  /** true: every intermediate; a list: just those names (e.g. "layer0.head1.weights" is
   * "layer0.attn.head1.weights"); an unknown name throws */
  trace?: boolean | string[];
  /** self-attention's causal mask; absent: the architecture's own (decoder-only and an
   * encoder-decoder's decoder: causal, encoder-only: none). false lifts a decoder's mask, so every
   * position also sees the ones after it; true gives an encoder-only model one. An
   * encoder-decoder's encoder never has one. */
  causal?: boolean;
}

export interface SamplingOptions {
  /** 0 = greedy; finite, ≥ 0 and at most 3.40282347e38, the largest float (default 1); a tiny
   * temperature is greedy in effect, a huge one uniform */
  temperature?: number;
  /** 1 … vocabulary size */
  topK?: number;
  /** nucleus sampling, after temperature and top-k: keep the fewest most likely tokens whose
   * probabilities reach topP (ties: lower id first), renormalised; 0 < topP ≤ 1 */
  topP?: number;
  seed?: number;
}

/** What a generation call can hand back beyond the cache's size. */
export interface GenerationOutputs {
  /** the logits of the cache's last position (1 × vocab) */
  logits?: boolean;
  /** the step's intermediates, as forward's trace (the new positions' rows only) */
  trace?: boolean | string[];
}

export interface GenerationState {
  /** positions in the KV cache */
  length: number;
  /** 2 · L · length · g·d_k · 4 bytes */
  cacheBytes: number;
  logits?: MatrixData;
  trace?: Record<string, MatrixData>;
}

/** The ids of the special tokens, which every word or character vocabulary starts with (and
 * what a model without a vocabulary reports). */
export interface SpecialTokens {
  /** [PAD], filling a sequence out to a length */
  pad: number;
  /** [UNK], any piece outside the vocabulary */
  unk: number;
  /** [BOS], the start of a sequence (and of a decoder's output) */
  bos: number;
  /** [EOS], the end of a sequence: generation stops after it */
  eos: number;
  /** [MASK], a hidden token an encoder predicts */
  mask: number;
  /** [SEP], between the parts of a sequence */
  sep: number;
}

/** A byte-level BPE tokenizer's special tokens: each added token marked special, by its content,
 * with its id (GPT-2: { "<|endoftext|>": 50256 }). */
export type ByteBpeSpecialTokens = Record<string, number>;

export interface RawModel {
  config(): Required<ModelConfig>;
  /** ids and pieces (byte-level BPE: the vocabulary's pieces, in GPT-2's byte alphabet, "Ġthe") */
  tokenize(text: string): { ids: Int32Array; pieces: string[] };
  /** byte-level BPE: bytes that do not form UTF-8 become U+FFFD */
  decode(ids: ArrayLike<number>): string;
  /** each id's piece, as tokenize gives them (byte-level BPE: in GPT-2's byte alphabet, the bytes of
   * a character split over tokens kept apart) */
  pieces(ids: ArrayLike<number>): string[];
  specialTokens(): SpecialTokens | ByteBpeSpecialTokens;
  /** logits (n × vocab), and the named intermediates when asked for; `causal` switches the
   * self-attention mask (absent: the architecture's own). Logits that are not finite (weights
   * large enough to overflow the activations) throw. */
  forward(options: ForwardOptions): { logits: MatrixData; trace?: Record<string, MatrixData> };
  nextTokenProbabilities(options: { tokens: ArrayLike<number> } & SamplingOptions): Float32Array;
  /** clears the KV cache and runs the prompt through it */
  startGeneration(options: { tokens: ArrayLike<number> } & GenerationOutputs): GenerationState;
  /** samples one token from the last logits and feeds it through the cache: only its row is projected */
  generateStep(options?: SamplingOptions & GenerationOutputs): GenerationState & {
    token: number; probabilities: Float32Array;
    /** with a tokenizer: the text this token completes, so that the steps' texts joined are the
     * continuation; a character whose bytes span tokens appears, whole, with the last of them */
    text?: string;
  };
  /** one layer's KV cache after startGeneration/generateStep: (length × g·d_k) keys and values */
  kvCache(options: { layer: number }): { keys: MatrixData; values: MatrixData };
  /** the prompt followed by up to maxNew sampled tokens (temperature 0: greedy), stopping after
   * `stop` and at n_ctx; an encoder-decoder model decodes from `source` */
  generate(options: { tokens: ArrayLike<number>; source?: ArrayLike<number>; maxNew: number; stop?: number } & SamplingOptions): Int32Array;
  /** the three files of a saved model; vocab is vocab.json, or a byte-level BPE tokenizer's
   * tokenizer.json (loadModel reads either) */
  save(): { weights: Uint8Array; config: string; vocab?: string };
  /** FNV-1a (64 bits) of every parameter's bytes (as float32) as 16 hex digits: equal exactly when
   * the weights are, however they are kept */
  fingerprint(): string;
  /** how the weight matrices are kept: 'F32', or a checkpoint's 'F16'/'BF16' (loaded with
   * weightStorage 'as-stored'), which runs with the same results and cannot be trained */
  weightDtype(): 'F32' | 'F16' | 'BF16';
  /** one tensor of the weights, named as save() writes it ("h.1.attn.c_proj.weight" is layer 1's
   * W_O, (h·d_k × d)); a vector comes as one row. The numbers are save()'s, without copying out the
   * rest. A name the model has no tensor under, one over 256 bytes, and a tensor of more than 2²⁴
   * numbers (GPT-2's token embedding: save() has it) throw. */
  parameter(name: string): MatrixData;
  /** one layer's attention (self, or cross in an encoder-decoder's decoder) on these tokens, fed
   * with exactly what that sub-layer sees in a forward pass, to step through */
  attentionSteps(options: { tokens: ArrayLike<number>; layer: number; source?: ArrayLike<number>; cross?: boolean }): RawAttentionSteps;
  delete(): void;
}

export interface RnnGradientFlowOptions {
  /** T, the positions: 2 … 512 */
  length: number;
  /** H, the RNN's state width and the head's d_k = d_v: 1 … 256 (default 16) */
  hidden?: number;
  /** D, the width of each input x_t: 1 … 256 (default 8) */
  input?: number;
  /** inputs and weights (default 0); the same seed gives the same numbers */
  seed?: number;
  /** W_hh = recurrentScale·Q with Q a random orthogonal (H × H) matrix; > 0 and ≤ 1e6 (default 1) */
  recurrentScale?: number;
}

/** One seeded sequence x_1 … x_T ~ N(0, I) through a tanh RNN, h_t = tanh(W_hh·h_{t−1} + W_xh·x_t + b)
 * with h_0 = 0, b = 0, W_xh ~ N(0, 1/D), and through one causal self-attention head
 * y = softmax((X·W_Q)(X·W_K)ᵀ/√H + M)·(X·W_V) with W_Q, W_K, W_V ~ N(0, 1/D) of (D × H). Norms are
 * Euclidean (vectors) and Frobenius (matrices). */
export interface RnnGradientFlow {
  /** (T × H), row t − 1 is h_t */
  states: MatrixData;
  /** T entries: ‖∂h_t/∂h_1‖_F for t = 1 … T; entry 0 is ‖I‖_F = √H */
  jacobianNorms: Float32Array;
  /** T entries: ‖∂L/∂x_t‖ for L = ½‖h_T‖², from the RNN's backward pass */
  rnnGradientNorms: Float32Array;
  /** T entries: ‖∂L/∂x_t‖ for L = ½‖y_T‖², from the attention head's backward pass. They do not
   * decay with distance; the last entry is larger (x_T is also the query, while each earlier x_t
   * holds about a 1/T share of the attention) */
  attentionGradientNorms: Float32Array;
  /** steps that must run one after another: T for the RNN, 1 for attention */
  sequentialSteps: { rnn: number; attention: number };
}

export interface DotProductStatisticsOptions {
  /** d_k, the width of q and k: 1 … 4096 */
  dK: number;
  /** pairs (q, k) sampled: 1 … 100000 (default 4000). The call draws 2·samples·dK normal
   * numbers and blocks for it: about a second per 10⁷ in WebAssembly, so the largest requests
   * (dK = 4096, 100000 samples) take a minute or more; keep samples·dK near 10⁶ on a page */
  samples?: number;
  /** keys scored against one query for `scores`: 1 … 4096 (default 8) */
  keys?: number;
  seed?: number;
}

/** q·k for q, k ~ N(0, I_dK): mean 0 and variance dK, so q·k/√dK has variance 1. Variances are
 * population variances (divided by `samples`). */
export interface DotProductStatistics {
  mean: number;
  /** of q·k over the sampled pairs; ≈ dK */
  variance: number;
  /** of q·k/√dK; ≈ 1 */
  scaledVariance: number;
  /** one random query's raw scores q·k_j against `keys` random keys */
  scores: Float32Array;
}

export interface SoftmaxRowOptions {
  /** the raw scores, 1 … 1024 finite numbers */
  scores: Numbers;
  /** finite (default 1) */
  scale?: number;
  /** finite and > 0 (default 1) */
  temperature?: number;
}

/** a = softmax(z) with z = scale·scores/temperature, by the engine's softmax forward and backward */
export interface SoftmaxRow {
  weights: Float32Array;
  /** −Σ a_i ln a_i, in nats: 0 for a one-hot row, ln n for a uniform one */
  entropy: number;
  maxWeight: number;
  /** (n × n), ∂a_i/∂z_j = a_i(δ_ij − a_j) */
  jacobian: MatrixData;
  /** Frobenius norm of the Jacobian */
  jacobianNorm: number;
}

export interface SoftmaxFormsOptions {
  /** the raw scores, 1 … 1024 finite numbers */
  scores: Numbers;
  /** finite (default 1); scale·scores must stay finite in float32 */
  scale?: number;
}

/** One softmax row's terms: a_i = e_i / s with e_i = exp(z_i − shift) and s = Σ_j e_j, in float32. */
export interface SoftmaxTerms {
  /** what was subtracted from every logit before exp: 0 (naive) or max_j z_j */
  shift: number;
  exps: Float32Array;
  sum: number;
  weights: Float32Array;
}

/** softmax(z) for z = scale·scores in float32, computed two ways. The only call whose results hold
 * ±Infinity and NaN on purpose (in `naive`): every other call refuses non-finite inputs and never
 * returns NaN. */
export interface SoftmaxForms {
  /** z = scale·scores, rounded to float32 */
  logits: Float32Array;
  /** A teaching counter-example that attention never uses: exp(z_i) with no maximum subtracted.
   * Past ln(FLT_MAX) ≈ 88.72 an exp is Infinity, the sum Infinity and that weight ∞/∞ = NaN (the
   * others e_i/∞ = 0); several terms near FLT_MAX overflow the sum alone (weights of 0); logits
   * all below about −103.97 underflow every term to 0 (weights 0/0 = NaN). Returned as computed. */
  naive: SoftmaxTerms;
  /** the engine's softmax, as attention computes it: the largest term is exp(0) = 1, so it stays
   * finite and exact for any finite logits */
  maxSubtracted: SoftmaxTerms;
  /** ln of the largest finite number of each format, above which exp overflows: float32
   * ln((2 − 2⁻²³)·2¹²⁷) ≈ 88.72, float16 ln 65504 ≈ 11.09 */
  overflowAbove: { float32: number; float16: number };
}

export interface TrainingExample {
  tokens: Int32Array;
  /** what each position should predict, −1 where nothing is asked */
  targets: Int32Array;
  text: string;
  source?: Int32Array;
  sourceText?: string;
}

/** the built-in training tasks (see README, "Training") */
export type TaskName = 'copy' | 'reverse' | 'sort' | 'coreference' | 'reverse-seq2seq' | 'induction';

export interface TrainerOptions {
  task: TaskName;
  /** model initialisation and the stream of examples; the same seed gives the same run */
  seed?: number;
  /** length of the learning-rate schedule (1 … 1,000,000; default: the task's) */
  steps?: number;
  /** examples per step, 1 … 512 */
  batchSize?: number;
  /** the peak learning rate (finite, > 0) */
  learningRate?: number;
  /** linear warm-up steps, 0 … steps */
  warmupSteps?: number;
  /** another size than the task's demo model: d_model (divisible by heads), heads, layers (of each
   * stack), d_ff; limited to a quarter of the default parameter limit (the trainer holds four copies) */
  size?: { dModel?: number; heads?: number; layers?: number; dFF?: number };
}

export interface TrainingStep {
  /** 1 for the first step */
  step: number;
  /** mean cross-entropy over the batch's targets, before the update */
  loss: number;
  /** share of those targets predicted right (argmax), before the update */
  accuracy: number;
  learningRate: number;
  /** gradient norm before clipping (to 1) */
  gradientNorm: number;
  /** the forward trace of the batch's first example, when asked for */
  trace?: Record<string, MatrixData>;
}

/** What a checkpoint is, from its config alone. */
export interface CheckpointDescription {
  /** whose names and layouts the tensors follow */
  family: 'attnlab' | 'gpt2' | 'llama';
  /** the engine's config the checkpoint becomes */
  config: Required<ModelConfig>;
  /** bytes of its parameters as float32, which loading allocates (with weightStorage 'as-stored',
   * an F16 or BF16 checkpoint's weight matrices take half as many) */
  parameterBytes: number;
}

/** How a checkpoint's weight matrices are kept: as float32 (the default, and what training needs),
 * or 'as-stored': in the file's 16-bit type when every weight matrix there is F16, or every one
 * BF16 (half the memory, half the bytes each generated token reads, the same results bit for bit);
 * otherwise as float32 all the same. */
export type WeightStorage = 'float32' | 'as-stored';

/** One byte range of one shard, holding one tensor the model needs. */
export interface CheckpointRead {
  shard: number;
  begin: number;
  end: number;
  /** the tensor's name in the checkpoint */
  name: string;
}

/** The engine side of loading a checkpoint: every header, then the pieces of every read in order. */
export interface RawCheckpointLoader {
  /** header: the bytes after the file's first 8 (safetensorsHeaderSize of them); name: the
   * shard's file name, matched against the index */
  addShard(options: { header: Uint8Array; fileSize: number; name?: string }): void;
  /** model.safetensors.index.json, after every shard: unnamed shards take its file names in sorted order */
  useIndex(text: string): void;
  /** checks every tensor against the config, allocates the model, and gives the reads to do */
  start(): CheckpointRead[];
  /** the bytes [offset, offset + bytes.length) of read number `read`, in order, whole values */
  feed(options: { read: number; offset: number; bytes: Uint8Array }): void;
  /** every read complete and every value finite: the model, with the vocabulary given at the start */
  finish(): RawModel;
  describe(): CheckpointDescription;
  delete(): void;
}

export interface RawTrainer {
  /** one AdamW step on a fresh batch; a non-finite loss throws and keeps the weights */
  step(options: { trace?: boolean | string[] }): TrainingStep;
  progress(): { stepsDone: number; totalSteps: number; task: TaskName; parameters: number };
  /** share of held-out examples the model solves exactly (default 200 examples, seed 2026) */
  heldOutAccuracy(options: { count?: number; seed?: number }): number;
  /** mean cross-entropy in nats per target over held-out examples (default 200, seed 2026) */
  heldOutLoss(options: { count?: number; seed?: number }): number;
  /** the same for each part of the task's targets, by name; the induction task's parts are
   * "first" (nothing predicts them: ln 52 at best) and "repeat" (predictable from the first copy).
   * A task without parts is an error. */
  heldOutLossByPart(options: { count?: number; seed?: number }): Record<string, number>;
  /** the induction task only: every head's prefix-matching score (layers × heads), its mean
   * attention from each letter of the repeat to the letter after that letter in the first copy,
   * over held-out examples (default 32, seed 2026); an induction head scores near 1 */
  prefixMatching(options: { count?: number; seed?: number }): MatrixData;
  /** the learning rate of steps 1 … totalSteps: warm-up, then cosine decay */
  schedule(): Float32Array;
  /** a Model holding a copy of the weights so far, with the task's vocabulary */
  model(): RawModel;
  /** one example of the task: tokens, the target at each position (−1: none), and its text */
  /** one example of a split; an encoder-decoder task's also has what the encoder reads */
  example(options: { split?: 'train' | 'heldOut'; seed?: number }): TrainingExample;
  delete(): void;
}

/** a sentence of the coreference language, with the positions of "it" and of both nouns */
export interface CoreferenceSentence {
  text: string;
  tokens: Int32Array;
  pronoun: number;
  referent: number;
  distractor: number;
}

/** the RASP programs compiled into weights by hand (see docs/models.md, "Models programmed by hand") */
export type ProgramName = 'reverse' | 'histogram' | 'sort';

/** A named subspace of a programmed model's residual stream: dimensions [offset, offset + width). */
export interface ProgramSubspace {
  /** "bos" (the flag of [BOS]), "tokens", "indices", a variable of the program, or "unused" (the
   * dimensions that fill d_model up to heads × d_k) */
  name: string;
  offset: number;
  width: number;
  /** one per dimension: a categorical variable's values, or a numeric variable's name */
  labels: string[];
}

/** What a programmed model is: its program and where each line sits in the weights. */
export interface ProgramDescription {
  name: ProgramName;
  /** the RASP program, line by line */
  lines: string[];
  /** the characters it reads ("abcdefghijklmnopqrstuvwxyz") */
  alphabet: string;
  /** the most characters it reads (10) */
  maxLength: number;
  /** the variable the model's head reads out */
  output: string;
  /** the score of a selected key above one that is not (30): hard attention in effect */
  beta: number;
  /** one per Select of the program: the attention head that implements it. An aggregate averages
   * a variable over the selected keys (BOS when none is); a selectorWidth head counts them, writing
   * 1/(w + 1), the share of attention on BOS (always selected), to `target` */
  heads: { layer: number; head: number; line: number; kind: 'aggregate' | 'selectorWidth'; target: string }[];
  /** the feed-forward parts: each turns a number into `target` (a number or a one-hot category) */
  feedForward: { layer: number; line: number; target: string }[];
  /** the residual stream, dimension 0 first */
  layout: ProgramSubspace[];
  /** the model's tokens: the six specials, the alphabet, then the output's values not among them */
  vocabulary: string[];
}

/** A text as a programmed model reads it, and the program run on plain values (no model). */
export interface ProgramInput {
  /** [BOS] and then one token a character: the model's input */
  tokens: Int32Array;
  /** "BOS" and the characters */
  labels: string[];
  /** one per head (as in ProgramDescription.heads), (n × (1 + n)) for n characters: the program's
   * select matrix, each row uniform over its selected keys (column 0 is BOS: with the keys of a
   * selectorWidth, alone for an aggregate that selects nothing) — what the head's attention rows
   * of the characters equal */
  patterns: MatrixData[];
  /** the program's answer at each character, by the program run on plain values */
  output: string[];
}

export type BenchmarkKernel = 'single_head' | 'naive' | 'flash' | 'projections' | 'feed_forward' | 'multi_head' | 'head' | 'matmul' | 'multiply_add_peak';

export interface AttnlabModule {
  buildInfo(): BuildInfo;
  /** threads used from now on, 1 … maxThreads; more is an error */
  setThreads(threads: number): number;
  /** bytes of the WebAssembly heap in use */
  memoryInUse(): number;
  /** the most bytes of the heap in use at once since the last reset (or the start); `reset` starts
   * a new high-water mark from what is in use now */
  memoryPeak(options: { reset?: boolean }): number;
  /** times a kernel in the engine (a measurement: median ms and GFLOP/s) on seeded random (n × d)
   * input: a warm-up (unless `warmUp` is false), then the median of at least `repeats` calls
   * lasting at least `minMs` (defaults 7 and 300). single_head: softmax(QKᵀ/√d)·V by the fused
   * path, blocks of query rows (d = 64, n ≤ 8192); naive: the same forming the whole n×n matrix;
   * flash: the same tile by tile with an online softmax (n ≤ 32768); projections: x·W for Q, K, V
   * and the output (d = 64); feed_forward: GELU FFN with d_ff = 4d (d = 64); multi_head: 8 heads,
   * d_model = d (512), with projections; head: one head from x as attention({ x, wQ, wK, wV })
   * computes it, the three (d × d) projections then single_head's path (d = 64). `peakBytes`: the
   * heap's high-water mark during the run above what was in use before (inputs, outputs and
   * workspace) */
  benchmark(options: { kernel: BenchmarkKernel; n: number; d?: number; repeats?: number; minMs?: number; warmUp?: boolean }): { medianMs: number; gflops: number; repeats: number; peakBytes: number };
  /** Node builds only: lets the process exit while engine threads wait for work */
  unrefThreads?(): void;

  /** sinusoidal, learned (seeded N(0, 0.02²)) or RoPE table (n × d: the rotation of a vector of
   * ones); ALiBi: the (n × n) bias of one head */
  positionalTable(options: { kind: 'sinusoidal' | 'learned' | 'rope' | 'alibi'; n: number; d?: number; base?: number; seed?: number; heads?: number; head?: number }): MatrixData;
  /** PE·PEᵀ for a given (n × d) table */
  positionSimilarity(options: { pe: Numbers; n: number; d: number }): MatrixData;
  /** T_k with PE(pos + k) = T_k·PE(pos); d even */
  sinusoidalShiftMatrix(options: { d: number; k: number; base?: number }): MatrixData;
  /** T_k·PE(pos) as a (1 × d) row, d even: position pos moved by k through the rotation alone; it
   * equals row pos + k of the table up to rounding */
  sinusoidalShift(options: { pos: number; k: number; d: number; base?: number }): MatrixData;
  /** LayerNorm and RMSNorm of one vector x (1 × d) with γ (default ones) and β (default zeros, LayerNorm
   * only): its mean, variance and mean square, both outputs, and both Jacobians J_ij = ∂y_i/∂x_j (d × d) */
  norms(options: { x: Numbers; d: number; gamma?: Numbers; beta?: Numbers; eps?: number }): {
    mean: number; variance: number; meanSquare: number;
    layerNorm: MatrixData; rmsNorm: MatrixData; layerNormJacobian: MatrixData; rmsNormJacobian: MatrixData;
  };
  /** what multi-head attention with g = kvHeads key/value heads (default h) costs over `layers`
   * layers (default 1), from the numbers alone: the parameters of W_Q, W_K, W_V, W_O and their
   * biases, and the KV cache after n tokens at bytesPerValue bytes a number (4 fp32, 2 fp16, 1 int8) */
  attentionBudget(options: { d: number; heads: number; kvHeads?: number; layers?: number; n: number; bytesPerValue?: number }): { parameters: number; kvCacheBytes: number };
  /** (rows × cols) of seeded N(0, std²) draws (std default 1), the same on every platform */
  randomNormal(options: { rows: number; cols: number; seed?: number; std?: number }): MatrixData;
  /** RoPE applied to the rows of x, row r at position pos0 + r */
  ropeApply(options: { x: Numbers; n: number; d: number; pos0?: number; base?: number; pairing?: RopePairing }): MatrixData;
  /** the rotation R_pos, (d × d): block-diagonal for interleaved pairs */
  ropeRotation(options: { d: number; pos: number; base?: number; pairing?: RopePairing }): MatrixData;
  alibiSlopes(options: { heads: number }): Float32Array;
  /** −slope_head·|i − j| for n queries (the last n positions) and m keys */
  alibiBias(options: { heads: number; head: number; n: number; m?: number }): MatrixData;

  /** a loss at the last position, back to every input: through a tanh RNN (vanishing) and through
   * one causal attention head (one step away) */
  rnnGradientFlow(options: RnnGradientFlowOptions): RnnGradientFlow;
  /** mean and variance of q·k for random q, k (≈ 0 and dK), and of q·k/√dK (variance ≈ 1): the
   * variance that 1/√d_k undoes */
  dotProductStatistics(options: DotProductStatisticsOptions): DotProductStatistics;
  /** softmax(scale·scores/temperature) with its entropy, largest weight and Jacobian */
  softmaxRow(options: SoftmaxRowOptions): SoftmaxRow;
  /** softmax(scale·scores) in float32 naively (overflowing to Infinity and NaN, as computed) and
   * with the maximum subtracted, for the lesson on numerical overflow */
  softmaxForms(options: SoftmaxFormsOptions): SoftmaxForms;
  /** gradient norms down a deep stack of blocks, with or without residuals and norms: a seeded
   * stack of `layers` blocks (default 12; d default 64, heads of 16, FFN 4·d; n default 16
   * positions, causal) at GPT-2's initialisation, and ℒ = Σ x_L ⊙ R for a fixed R ~ N(0, 1): the
   * gradient's norm at every block's input (entry L: the output), over every block's parameters,
   * and the stream's norm entering every block */
  depthGradients(options: { layers?: number; d?: number; n?: number; norm?: 'layer_norm' | 'rms_norm' | 'none'; preNorm?: boolean; residual?: boolean; seed?: number }): {
    inputGradientNorms: Float32Array; parameterGradientNorms: Float32Array; activationNorms: Float32Array;
  };
  /** an FFN non-linearity and its derivative, σ(x) and σ′(x), at every x; for 'swiglu', its gate's
   * Swish z·σ(z) */
  activationCurve(options: { activation: 'relu' | 'gelu' | 'gelu_tanh' | 'swiglu'; x: Numbers }): { y: Float32Array; derivative: Float32Array };
  /** an FFN's parameter count: 2·d·dFF + dFF + d, plus d·dFF + dFF for SwiGLU's gate */
  feedForwardParameters(options: { d: number; dFF: number; activation?: 'relu' | 'gelu' | 'gelu_tanh' | 'swiglu' }): number;
  /** an image as a sequence of embedded patches: a grey (height × width) image cut into
   * patch × patch squares in raster order, each flattened row by row (N × patch²), and embedded by
   * a seeded E ~ N(0, 1/patch²) of (patch² × d) */
  patchEmbedding(options: { image: Numbers; height: number; width: number; patch: number; d: number; seed?: number }): { patches: MatrixData; embedded: MatrixData };

  attentionSteps(options: SingleHeadInput | MultiHeadInput): RawAttentionSteps;
  /** attention in one call: the output by the fast path, or with `trace` the stages asked for */
  attention(options: AttentionOptions): AttentionResult;
  /** maxParameterBytes: the largest model to build (default 256 MiB, 268435456 bytes). vocab: a
   * vocab.json text; or tokenizer: a Hugging Face tokenizer.json text of a byte-level BPE
   * tokenizer (GPT-2, SmolLM2), with at most vocab_size tokens; not both. */
  modelFromConfig(options: { config: ModelConfig; seed?: number; vocab?: string; tokenizer?: string; maxParameterBytes?: number }): RawModel;
  /** a RASP program compiled into the weights of an ordinary encoder-only model (no norms, one-hot
   * learned positions, ReLU, an untied head reading the program's output): feed it programInput's
   * tokens; the argmax of each character's logits is the program's answer. An unknown program is
   * an error. */
  programmedModel(options: { program: ProgramName }): RawModel;
  /** the program's lines, heads, feed-forward parts and residual layout */
  describeProgram(options: { program: ProgramName }): ProgramDescription;
  /** the tokens of a text for the program, and the program's select matrices and answer on it; a
   * text longer than maxLength or a character outside the alphabet is an error naming it */
  programInput(options: { program: ProgramName; text: string }): ProgramInput;
  /** A checkpoint read in pieces (Engine.loadModel drives it). config: the text of config.json,
   * the engine's or a Hugging Face one (model_type gpt2 or llama), checked, with the parameters'
   * size against maxParameterBytes (default 256 MiB; 1.5 GiB, 1610612736 bytes, for a Hugging Face
   * checkpoint), before anything is read; vocab (the engine's vocab.json or a Hugging Face
   * tokenizer.json) is read here too, so that a bad one is refused before any weights are. */
  checkpointLoader(options: { config: string; maxParameterBytes?: number; weightStorage?: WeightStorage; vocab?: string }): RawCheckpointLoader;
  /** the length of a safetensors header, from the file's first 8 bytes and its size (checked) */
  safetensorsHeaderSize(options: { bytes: Uint8Array; fileSize: number }): number;

  createTrainer(options: TrainerOptions): RawTrainer;
  /** reads a sentence of the coreference language ("the cat sat on the mat because it was soft");
   * anything else is an error */
  coreferenceSentence(options: { text: string }): CoreferenceSentence;

  /** the classes, registered by Embind (instances come from the factories above) */
  AttentionSteps: unknown;
  CheckpointLoader: unknown;
  Model: unknown;
  Trainer: unknown;
}

export interface ModuleOptions {
  locateFile?: (path: string, prefix: string) => string;
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** the threaded build's workers load the module from here */
  mainScriptUrlOrBlob?: string;
}

declare function createAttnlab(options?: ModuleOptions): Promise<AttnlabModule>;
export default createAttnlab;
