/**
 * attnlab: a Transformer engine in WebAssembly.
 *
 *   import { loadAttnlab } from 'attnlab';
 *   const engine = await loadAttnlab();
 *   const result = engine.attention({ x, n: 3, d: 4, wQ, wK, wV, dK: 2, dV: 2 });
 *
 * `loadAttnlab` picks the threaded build where it can run (Node, or a cross-origin-isolated page
 * with SharedArrayBuffer and working atomics) and the single-thread build elsewhere. Objects that
 * hold engine memory (AttentionStepper, Model, Trainer) free it when garbage-collected or on dispose().
 */
import type {
  AttentionResult, AttentionStage, AttnlabModule, BuildInfo, CheckpointDescription, RawCheckpointLoader, CoreferenceSentence, GenerationOutputs, GenerationState,
  MatrixData, ModelConfig, MultiHeadInput, RawAttentionSteps, RawModel, RawTrainer, SamplingOptions, SingleHeadInput,
  ProgramName, TaskName, TrainerOptions, TrainingExample, TrainingStep, WeightStorage,
} from './attnlab.mjs';

export type {
  AttentionInput, AttentionOptions, AttentionPart, AttentionResult, AttentionStage, BuildInfo, DotProductStatistics, DotProductStatisticsOptions,
  FlashTile, ForwardOptions, GenerationOutputs, GenerationState, HeadResult, MatrixData, ModelConfig, MultiHeadInput, Numbers, RnnGradientFlow,
  RnnGradientFlowOptions, SamplingOptions, SingleHeadInput, SoftmaxForms, SoftmaxFormsOptions, SoftmaxRow, SoftmaxRowOptions, SoftmaxTerms,
  SpecialTokens, ByteBpeSpecialTokens, TaskName, TrainerOptions, TrainingExample, TrainingStep, CoreferenceSentence, CheckpointDescription,
  RopePairing, ProgramName, ProgramDescription, ProgramInput, ProgramSubspace, WeightStorage,
} from './attnlab.mjs';

export interface LoadOptions {
  /** "auto" (default): the threaded build where it can run; 1: always the single-thread build;
   * a number n: the threaded build with n threads (an error if n is beyond what it has) */
  threads?: 'auto' | number;
  /** browsers: the URL of the folder holding attnlab.mjs, attnlab.wasm, attnlab-threads.*
   * (default: engine/web/ beside this module) */
  engineUrl?: string | URL;
  /** browsers: URLs of individual engine files by name (e.g. "attnlab.wasm"), for bundlers that
   * rename assets; files not listed are looked up in engineUrl */
  files?: Record<string, string>;
  /** browsers: called as the engine's WebAssembly downloads (bytes so far, total or 0 if unknown) */
  onProgress?: (loaded: number, total: number) => void;
  /** With threads, where the runtime validates relaxed SIMD (a probe module: Chromium; Node with
   * --experimental-wasm-relaxed-simd), the engine whose products use its fused multiply-add
   * (attnlab-threads-relaxed.wasm); elsewhere the usual one. Its inference differs from the usual
   * engine's in the last bits (one rounding a multiply-add, not two); training and its held-out
   * measurements round as the usual engine does, so runs reproduce bit for bit on either.
   * engine.info.relaxedSimd says which was loaded (the usual one also where the relaxed one's file
   * cannot be had). false: always the usual engine. Default true. */
  relaxedSimd?: boolean;
}

/** A checkpoint file: bytes in memory, or a Blob or File (a browser's file picker, Node's
 * fs.openAsBlob), which is read in pieces and never held whole. */
export type CheckpointFile = Uint8Array | Blob;

export interface LoadModelOptions {
  /** model.safetensors, or a sharded checkpoint's shards (with `index`) */
  weights: CheckpointFile | CheckpointFile[];
  /** config.json: the engine's own, or a Hugging Face one (model_type "gpt2" or "llama") */
  config: string;
  /** the tokenizer: the engine's vocab.json or a Hugging Face tokenizer.json (either name).
   * Without one, a GPT-2 checkpoint with GPT-2's vocabulary (vocab_size ≥ 50,257) gets GPT-2's
   * tokenizer (gpt2Tokenizer()) and any other model none. */
  vocab?: string;
  tokenizer?: string;
  /** model.safetensors.index.json of a sharded checkpoint: Files are matched to it by name, other
   * shards are taken in the order of its sorted file names */
  index?: string;
  /** the largest model to build (default 256 MiB, 268435456 bytes; 1.5 GiB for a Hugging Face checkpoint) */
  maxParameterBytes?: number;
  /** 'as-stored': keep F16/BF16 weight matrices in 16 bits (see WeightStorage); default 'float32' */
  weightStorage?: WeightStorage;
  /** called as the weights are read: bytes so far, bytes in all, the tensor being read */
  onProgress?: (read: number, total: number, tensor: string) => void;
}

/** whether a checkpoint is a GPT-2 whose vocabulary holds GPT-2's tokenizer (50,000 merges, 256
 * bytes and <|endoftext|>: 50,257 tokens) */
function hasGpt2Vocabulary({ family, config }: CheckpointDescription): boolean {
  return family === 'gpt2' && config.vocab_size >= 50257;
}

/** Bytes that loading asks for: [begin, end) of one shard. */
interface ByteRange { shard: number; begin: number; end: number }

/** Pieces of a read handed to the engine at a time: small beside any model, whole values of every dtype. */
const LOAD_PIECE_BYTES = 4 << 20;

/** One checkpoint file, read once from the caller's options: its bytes or Blob, size and name. */
interface CheckpointSource { file: CheckpointFile; size: number; name: string }

/** LoadModelOptions read once (a getter runs once), the weights checked and copied. */
interface CheckpointRequest extends Omit<LoadModelOptions, 'weights' | 'tokenizer'> { sources: CheckpointSource[] }

/** Loading a checkpoint as a sequence of byte requests, so that one procedure serves bytes in
 * memory (answered at once) and Blobs (answered when read). The tokenizer is read first: a bad
 * one is refused before any weights are. */
function* checkpointSteps(raw: AttnlabModule, request: CheckpointRequest): Generator<ByteRange, RawModel, Uint8Array> {
  const { config, maxParameterBytes, weightStorage, vocab, index, onProgress, sources } = request;
  const loader: RawCheckpointLoader = raw.checkpointLoader({ config, maxParameterBytes, weightStorage, ...(vocab === undefined ? {} : { vocab }) });
  try {
    for (const [shard, { size: fileSize, name }] of sources.entries()) {
      const first = yield { shard, begin: 0, end: Math.min(8, fileSize) };
      const headerSize = raw.safetensorsHeaderSize({ bytes: first, fileSize });
      const header = yield { shard, begin: 8, end: 8 + headerSize };
      loader.addShard({ header, fileSize, name });
    }
    if (index !== undefined) loader.useIndex(index);
    const reads = loader.start();
    const total = reads.reduce((sum, r) => sum + (r.end - r.begin), 0);
    let done = 0;
    for (const [read, range] of reads.entries()) {
      for (let at = range.begin; at < range.end; at += LOAD_PIECE_BYTES) {
        const bytes = yield { shard: range.shard, begin: at, end: Math.min(at + LOAD_PIECE_BYTES, range.end) };
        loader.feed({ read, offset: at - range.begin, bytes });
        done += bytes.byteLength;
        onProgress?.(done, total, range.name);
      }
    }
    return loader.finish();
  } finally {
    loader.delete();
  }
}

/** whether a value is a real Uint8Array, by its internal slot (a proxy or a re-prototyped view is not) */
function isBytes(value: unknown): value is Uint8Array {
  const typedArray = Object.getPrototypeOf(Int8Array.prototype) as object;
  return Object.getOwnPropertyDescriptor(typedArray, Symbol.toStringTag)!.get!.call(value) === 'Uint8Array';
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** options read once: the weights checked to be files, each Blob's size a whole number of bytes */
function checkpointRequest(options: LoadModelOptions): CheckpointRequest {
  const { weights, config, vocab, tokenizer, index, maxParameterBytes, weightStorage, onProgress } = options ?? ({} as LoadModelOptions);
  if (vocab !== undefined && tokenizer !== undefined) throw new Error('attnlab: give vocab or tokenizer, not both');
  const files = Array.isArray(weights) ? [...weights] : [weights];
  const sources = files.map((file, i): CheckpointSource => {
    if (isBytes(file)) return { file, size: file.byteLength, name: '' };
    if (typeof Blob === 'undefined' || !(file instanceof Blob))
      throw new Error('attnlab: weights must be a Uint8Array, a Blob or a list of them (the shards)');
    let size: unknown, name: unknown;
    try {
      size = file.size;
      name = (file as Partial<File>).name;
    } catch (error) {
      throw new Error(`attnlab: weights[${i}] could not be read (${reason(error)})`);
    }
    if (!Number.isSafeInteger(size) || (size as number) < 0) throw new Error(`attnlab: weights[${i}] has a size of ${String(size)}, not a whole number of bytes`);
    return { file, size: size as number, name: typeof name === 'string' ? name : '' };
  });
  return { config, vocab: vocab ?? tokenizer, index, maxParameterBytes, weightStorage, onProgress, sources };
}

/** the bytes [begin, end) of one source: at once from memory, as a Promise from a Blob; a failed or
 * short read is an Error naming the file and the bytes */
function readPiece(request: CheckpointRequest, { shard, begin, end }: ByteRange): Uint8Array | Promise<Uint8Array> {
  const { file, name } = request.sources[shard];
  const fail = (cause: string) => new Error(`attnlab: weights[${shard}]${name ? ` (${name})` : ''}: reading bytes ${begin}–${end} failed (${cause})`);
  const checked = (bytes: Uint8Array) => {
    if (bytes.byteLength !== end - begin) throw fail(`got ${bytes.byteLength} bytes`);
    return bytes;
  };
  try {
    if (isBytes(file)) return checked(file.subarray(begin, end));
    return file.slice(begin, end).arrayBuffer().then((buffer) => checked(new Uint8Array(buffer)), (error) => { throw fail(reason(error)); });
  } catch (error) {
    throw error instanceof Error && error.message.startsWith('attnlab:') ? error : fail(reason(error));
  }
}

export interface EngineInfo extends BuildInfo {
  /** threads in use now */
  threadsUsed: number;
}

const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined';

/** Whether a threaded WebAssembly module can run here: shared memory and atomics, and in a browser
 * a cross-origin-isolated context. */
export function threadsSupported(): boolean {
  if (typeof SharedArrayBuffer === 'undefined' || typeof Atomics === 'undefined') return false;
  if (!isNode && !(globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated) return false;
  try {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
    const cells = new Int32Array(memory.buffer);
    Atomics.store(cells, 0, 7);
    return memory.buffer instanceof SharedArrayBuffer && Atomics.load(cells, 0) === 7;
  } catch {
    return false;
  }
}

async function hardwareThreads(): Promise<number> {
  if (isNode) {
    const nodeOs = 'node:os';
    return ((await import(/* @vite-ignore */ nodeOs)) as { availableParallelism(): number }).availableParallelism();
  }
  const n = (globalThis.navigator as { hardwareConcurrency?: number } | undefined)?.hardwareConcurrency;
  return n && n > 0 ? n : 2;
}

// where the package keeps the engine builds, beside this module
function enginePath(platform: 'node' | 'web'): string {
  return `./engine/${platform}/`;
}

/** A module whose one function is f32x4.relaxed_madd (opcode 0xfd 0x105): valid where the runtime
 * has relaxed SIMD. */
const RELAXED_SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,  // magic, version
  0x01, 0x08, 0x01, 0x60, 0x03, 0x7b, 0x7b, 0x7b, 0x01, 0x7b,  // type: (v128, v128, v128) → v128
  0x03, 0x02, 0x01, 0x00,  // one function of that type
  0x0a, 0x0d, 0x01, 0x0b, 0x00, 0x20, 0x00, 0x20, 0x01, 0x20, 0x02, 0xfd, 0x85, 0x02, 0x0b,  // a·b + c
]);

function relaxedSimdSupported(): boolean {
  try {
    return WebAssembly.validate(RELAXED_SIMD_PROBE);
  } catch {
    return false;
  }
}

/** the engine `name` (its .js/.mjs and its .wasm, or `wasmFile` in place of the .wasm) */
async function instantiate(name: string, options: LoadOptions, wasmFile = `${name}.wasm`): Promise<AttnlabModule> {
  if (isNode) {
    // module names in variables: bundlers for the browser should not try to resolve them
    const [nodeModule, nodeFs, nodeUrl] = ['node:module', 'node:fs/promises', 'node:url'];
    const { createRequire } = (await import(/* @vite-ignore */ nodeModule)) as typeof import('node:module');
    const { readFile } = (await import(/* @vite-ignore */ nodeFs)) as typeof import('node:fs/promises');
    const { fileURLToPath } = (await import(/* @vite-ignore */ nodeUrl)) as typeof import('node:url');
    const folder = new URL(enginePath('node'), import.meta.url);
    const factory = createRequire(import.meta.url)(fileURLToPath(new URL(`${name}.js`, folder)));
    // Node's global fetch cannot load file paths: hand the module its bytes
    const wasmBinary = await readFile(new URL(wasmFile, folder));
    return factory({ wasmBinary });
  }
  // (the folder only when a file is not named: a bundle that inlines the engine may have no module URL)
  const folder = () => {
    const base = new URL(String(options.engineUrl ?? new URL(enginePath('web'), import.meta.url)), globalThis.location?.href);
    return base.href.endsWith('/') ? base.href : `${base.href}/`;
  };
  const locate = (requested: string) => {
    const file = requested === `${name}.wasm` ? wasmFile : requested;
    return new URL(options.files?.[file] ?? `${folder()}${file}`, globalThis.location?.href).href;
  };
  const script = locate(`${name}.mjs`);
  const [factory, wasmBinary] = await Promise.all([
    import(/* @vite-ignore */ script).then((m) => m.default),
    options.onProgress ? download(locate(`${name}.wasm`), options.onProgress) : undefined,
  ]);
  // pthread workers import the module again: tell them its (possibly renamed) URL
  return factory({ locateFile: (path: string) => locate(path), mainScriptUrlOrBlob: script, wasmBinary });
}

/** the bytes at url, reporting progress as they arrive */
async function download(url: string, onProgress: (loaded: number, total: number) => void): Promise<Uint8Array> {
  const response = await fetch(url);
  if (!response.ok || !response.body) throw new Error(`attnlab: ${url}: HTTP ${response.status}`);
  const total = Number(response.headers.get('Content-Length')) || 0;
  const chunks: Uint8Array[] = [];
  let loaded = 0;
  for (const reader = response.body.getReader(); ;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.byteLength;
    onProgress(loaded, total);
  }
  const bytes = new Uint8Array(loaded);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The text of GPT-2's tokenizer.json (byte-level BPE, 50,257 tokens, "<|endoftext|>" = 50256),
 * derived from js-tiktoken's ranks and shipped beside this module as gpt2-tokenizer.json: read
 * from disk in Node, fetched in a browser (from `url` when given). Pass it as createModel's
 * `tokenizer`. */
export async function gpt2Tokenizer(options: { url?: string | URL } = {}): Promise<string> {
  // the name in a function call: bundlers should not try to resolve the file
  const file = new URL(gpt2TokenizerFile(), import.meta.url);
  if (isNode && options.url === undefined) {
    const nodeFs = 'node:fs/promises';
    const { readFile } = (await import(/* @vite-ignore */ nodeFs)) as typeof import('node:fs/promises');
    return readFile(file, 'utf8');
  }
  const response = await fetch(new URL(String(options.url ?? file), globalThis.location?.href));
  if (!response.ok) throw new Error(`attnlab: ${String(options.url ?? file)}: HTTP ${response.status}`);
  return response.text();
}

function gpt2TokenizerFile(): string {
  return './gpt2-tokenizer.json';
}

/** Loads the engine (one instance per call). */
export async function loadAttnlab(options: LoadOptions = {}): Promise<Engine> {
  const wanted = options.threads ?? 'auto';
  if (wanted !== 'auto' && !(Number.isInteger(wanted) && wanted >= 1)) {
    throw new Error(`attnlab: threads must be "auto" or a whole number ≥ 1, got ${String(wanted)}`);
  }
  if (options.relaxedSimd !== undefined && typeof options.relaxedSimd !== 'boolean') {
    throw new Error(`attnlab: relaxedSimd must be true or false, got ${String(options.relaxedSimd)}`);
  }
  const threaded = wanted !== 1 && threadsSupported();
  if (!threaded && typeof wanted === 'number' && wanted > 1) {
    throw new Error(`attnlab: ${wanted} threads requested, but threads are unavailable here (they need SharedArrayBuffer and a cross-origin-isolated page)`);
  }
  const name = threaded ? 'attnlab-threads' : 'attnlab';
  const relaxed = threaded && options.relaxedSimd !== false && relaxedSimdSupported();
  // a host that serves only the usual engine's files (copied before the relaxed one existed) still
  // gets an engine: the usual one
  const raw = (relaxed ? await instantiate(name, options, 'attnlab-threads-relaxed.wasm').catch(() => undefined) : undefined)
    ?? (await instantiate(name, options));
  const engine = new Engine(raw);
  if (threaded) engine.setThreads(wanted === 'auto' ? Math.min(await hardwareThreads(), engine.info.maxThreads) : wanted);
  return engine;
}

/** Defines each of `calls` on the prototype as the same call of the object `target` gives for the
 * instance: the wrappers' calls that change nothing on the way, declared once (in attnlab.d.mts). */
function forwardCalls<Instance, Target>(prototype: Instance, calls: readonly (keyof Target & string)[], target: (self: Instance) => Target): void {
  for (const call of calls) {
    Object.defineProperty(prototype, call, {
      value(this: Instance, ...args: unknown[]) {
        const object = target(this);
        const method = object[call] as (...args: unknown[]) => unknown;
        // exactly the arguments it declares (Embind refuses another count): a missing options
        // object reaches the engine as undefined, and is refused there with an attnlab error
        return method.apply(object, Array.from({ length: method.length }, (_, i) => args[i]));
      },
      writable: true,
      configurable: true,
    });
  }
}

// Engine memory held by a wrapper is freed when the wrapper is collected, unless disposed first.
const registry = new FinalizationRegistry<{ delete(): void }>((handle) => handle.delete());

/** A JavaScript object that owns an engine object (C++ memory). */
abstract class EngineObject<Handle extends { delete(): void }> {
  private handle?: Handle;

  constructor(handle: Handle, private readonly kind: string) {
    this.handle = handle;
    registry.register(this, handle, this);
  }

  /** the engine object, or an error once disposed (a field: the worker hands out only the
   * classes' methods and getters) */
  protected readonly live = (): Handle => {
    if (!this.handle) throw new Error(`attnlab: this ${this.kind} was disposed`);
    return this.handle;
  };

  /** frees the engine memory now rather than when collected */
  dispose(): void {
    if (!this.handle) return;
    registry.unregister(this);
    this.handle.delete();
    this.handle = undefined;
  }
}

/** Attention one stage per call. */
export class AttentionStepper extends EngineObject<RawAttentionSteps> {
  constructor(handle: RawAttentionSteps) {
    super(handle, 'AttentionStepper');
  }

  /** all stages, "start" first */
  get stages(): AttentionStage[] { return this.live().stages(); }
  /** the last stage that ran */
  get stage(): AttentionStage { return this.live().stage(); }
  get finished(): boolean { const s = this.stages; return this.stage === s[s.length - 1]; }
  /** runs the next stage; returns everything computed so far */
  advance(): AttentionResult {
    this.live().advance();
    return this.live().result();
  }
  runAll(): AttentionResult {
    this.live().runAll();
    return this.live().result();
  }
  result(): AttentionResult { return this.live().result(); }
}

/** Model calls that take their arguments and return their result as RawModel's do */
const MODEL_CALLS = ['tokenize', 'decode', 'pieces', 'specialTokens', 'forward', 'nextTokenProbabilities', 'generate', 'save', 'fingerprint', 'weightDtype', 'parameter'] as const satisfies
  readonly (keyof RawModel)[];

export interface Model extends Pick<RawModel, typeof MODEL_CALLS[number]> {}

/** A Transformer with its tokenizer and a KV cache for generation. */
export class Model extends EngineObject<RawModel> {
  static {
    forwardCalls(this.prototype, MODEL_CALLS, (model: Model) => model.live());
  }

  constructor(handle: RawModel) {
    super(handle, 'Model');
  }

  get config(): Required<ModelConfig> { return this.live().config(); }
  startGeneration(tokens: ArrayLike<number>, outputs: GenerationOutputs = {}): GenerationState {
    return this.live().startGeneration({ tokens, ...outputs });
  }
  generateStep(options: SamplingOptions & GenerationOutputs = {}): ReturnType<RawModel['generateStep']> {
    return this.live().generateStep(options);
  }
  /** one layer's KV cache so far: a row of keys and of values per position */
  kvCache(layer: number): { keys: MatrixData; values: MatrixData } { return this.live().kvCache({ layer }); }
  /** one layer's attention on these tokens, stage by stage (cross: an encoder-decoder's cross-attention) */
  attentionSteps(options: { tokens: ArrayLike<number>; layer: number; source?: ArrayLike<number>; cross?: boolean }): AttentionStepper {
    return new AttentionStepper(this.live().attentionSteps(options));
  }
}

/** Trains a built-in task one optimiser step per call (deterministic for a seed). */
export class Trainer extends EngineObject<RawTrainer> {
  constructor(handle: RawTrainer) {
    super(handle, 'Trainer');
  }

  /** one AdamW step on a fresh batch: loss and accuracy before the update, and the trace of the
   * batch's first example when asked for (true: every tensor; or a list of names) */
  step(options: { trace?: boolean | string[] } = {}): TrainingStep { return this.live().step(options); }
  get stepsDone(): number { return this.live().progress().stepsDone; }
  get totalSteps(): number { return this.live().progress().totalSteps; }
  get task(): TaskName { return this.live().progress().task; }
  /** share of held-out examples solved exactly */
  heldOutAccuracy(options: { count?: number; seed?: number } = {}): number { return this.live().heldOutAccuracy(options); }
  /** mean cross-entropy (nats per target) over held-out examples (default 200, seed 2026) */
  heldOutLoss(options: { count?: number; seed?: number } = {}): number { return this.live().heldOutLoss(options); }
  /** the same per part of the task's targets (the induction task: "first" and "repeat") */
  heldOutLossByPart(options: { count?: number; seed?: number } = {}): Record<string, number> { return this.live().heldOutLossByPart(options); }
  /** the induction task: every head's prefix-matching score, (layers × heads) */
  prefixMatching(options: { count?: number; seed?: number } = {}): MatrixData { return this.live().prefixMatching(options); }
  /** the learning rate of steps 1 … totalSteps */
  get schedule(): Float32Array { return this.live().schedule(); }
  /** the model's parameter count */
  get parameters(): number { return this.live().progress().parameters; }
  /** a Model with a copy of the weights so far (it does not follow later steps) */
  model(): Model { return new Model(this.live().model()); }
  example(options: { split?: 'train' | 'heldOut'; seed?: number } = {}): TrainingExample {
    return this.live().example(options);
  }
}

/** Engine calls that take their arguments and return their result as the module's do */
const ENGINE_CALLS = [
  'memoryInUse', 'benchmark',
  'positionalTable', 'positionSimilarity', 'sinusoidalShiftMatrix', 'sinusoidalShift', 'norms', 'attentionBudget',
  'randomNormal', 'ropeApply', 'ropeRotation', 'alibiSlopes', 'alibiBias',
  'rnnGradientFlow', 'dotProductStatistics', 'softmaxRow', 'softmaxForms', 'depthGradients', 'activationCurve', 'feedForwardParameters',
  'patchEmbedding', 'attention', 'describeProgram', 'programInput',
] as const satisfies readonly (keyof AttnlabModule)[];

export interface Engine extends Pick<AttnlabModule, typeof ENGINE_CALLS[number]> {}

/** The loaded engine: the module's calls (attnlab.d.mts), with its objects wrapped and its threads counted. */
export class Engine {
  static {
    forwardCalls(this.prototype, ENGINE_CALLS, (engine: Engine) => engine.raw);
  }

  private threadsUsed = 1;

  constructor(private readonly raw: AttnlabModule) {}

  get info(): EngineInfo {
    return { ...this.raw.buildInfo(), threadsUsed: this.threadsUsed };
  }

  /** threads from now on: 1 … info.maxThreads */
  setThreads(threads: number): number {
    this.threadsUsed = this.raw.setThreads(threads);
    this.raw.unrefThreads?.();  // Node: idle engine threads must not keep the process alive
    return this.threadsUsed;
  }
  /** the most heap bytes in use at once since the last reset; `reset` starts a new mark from now */
  memoryPeak(options: { reset?: boolean } = {}): number { return this.raw.memoryPeak(options); }

  /** a stepper for attention, advanced by the caller */
  attentionSteps(options: SingleHeadInput | MultiHeadInput): AttentionStepper {
    return new AttentionStepper(this.raw.attentionSteps(options));
  }

  /** a model with freshly initialised, seeded weights (and a vocab.json text, or a Hugging Face
   * byte-level BPE tokenizer.json text as `tokenizer`, to tokenize with) */
  createModel(options: { config: ModelConfig; seed?: number; vocab?: string; tokenizer?: string }): Model {
    return new Model(this.raw.modelFromConfig(options));
  }
  /** a RASP program compiled by hand into an ordinary model (see describeProgram, programInput) */
  programmedModel(options: { program: ProgramName }): Model {
    return new Model(this.raw.programmedModel(options));
  }
  /** A saved model or a Hugging Face checkpoint (GPT-2, Llama): its weights, config.json and
   * tokenizer. Bytes in memory with a tokenizer load at once; Blobs and Files are read in pieces,
   * and a GPT-2 checkpoint without a tokenizer gets GPT-2's, so those calls return a Promise. The
   * config and every tensor's name, shape and dtype are checked before the model is allocated. */
  loadModel(options: LoadModelOptions & { weights: Uint8Array | Uint8Array[] } & ({ vocab: string } | { tokenizer: string })): Model;
  loadModel(options: LoadModelOptions): Promise<Model>;
  loadModel(options: LoadModelOptions): Model | Promise<Model> {
    const request = checkpointRequest(options);
    if (request.sources.every((source) => isBytes(source.file)) && request.vocab !== undefined) {
      const steps = checkpointSteps(this.raw, request);
      try {
        let step = steps.next();
        while (!step.done) step = steps.next(readPiece(request, step.value) as Uint8Array);
        return new Model(step.value);
      } finally {
        steps.return(undefined as never);  // a failed read: the loader's memory is freed now
      }
    }
    return (async () => {
      if (request.vocab === undefined && hasGpt2Vocabulary(this.describeCheckpoint(request))) request.vocab = await gpt2Tokenizer();
      const steps = checkpointSteps(this.raw, request);
      try {
        let step = steps.next();
        while (!step.done) step = steps.next(await readPiece(request, step.value));
        return new Model(step.value);
      } finally {
        steps.return(undefined as never);
      }
    })();
  }
  /** what a checkpoint's config.json describes (family, the engine's config, parameter bytes), before any weights are read */
  describeCheckpoint(options: { config: string; maxParameterBytes?: number }): CheckpointDescription {
    const loader = this.raw.checkpointLoader({ config: options?.config, maxParameterBytes: options?.maxParameterBytes });
    try {
      return loader.describe();
    } finally {
      loader.delete();
    }
  }
  /** a trainer for one of the built-in tasks, with a fresh model */
  createTrainer(options: TrainerOptions): Trainer {
    return new Trainer(this.raw.createTrainer(options));
  }
  /** the positions of "it", its referent and the other noun in a sentence of the coreference language */
  coreferenceSentence(text: string): CoreferenceSentence {
    return this.raw.coreferenceSentence({ text });
  }
}
