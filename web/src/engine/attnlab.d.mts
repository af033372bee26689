/**
 * The contract of the WebAssembly engine as seen from JavaScript (the Embind exports of
 * src/bindings/bindings.cpp). Every function takes one options object and returns plain objects
 * of Float32Arrays that JavaScript owns; nothing needs to be freed. Bad input throws an `Error`
 * whose message starts with "attnlab:" and names the problem; the module stays usable.
 */

/** A row-major matrix: entry (i, j) is `data[i * cols + j]`. */
export interface MatrixData {
  rows: number;
  cols: number;
  data: Float32Array;
}

/** Numbers may be given as a Float32Array or a plain array, row-major. */
export type Numbers = Float32Array | ArrayLike<number>;

export interface BuildInfo {
  /** "simd" (single thread) or "simd-threads" */
  build: 'simd' | 'simd-threads';
  simd: boolean;
  threads: boolean;
  version: string;
}

export interface AttentionHeadOptions {
  /** queries' input X, (n × d) */
  x: Numbers;
  n: number;
  d: number;
  /** projections W_Q, W_K (d × dK) and W_V (d × dV) */
  wQ: Numbers;
  wK: Numbers;
  wV: Numbers;
  dK: number;
  dV: number;
  /** cross-attention: keys and values come from this (m × d) sequence instead of X */
  memory?: Numbers;
  m?: number;
  /** default "none"; causal queries sit at the last n of the m key positions */
  mask?: 'none' | 'causal';
  /** m flags, non-zero = padding key that no query may attend to */
  keyPadding?: Numbers;
  /** divide scores by √dK (default true) */
  scaled?: boolean;
}

/** Every stage of one head: softmax(QKᵀ·scale + M)·V */
export interface AttentionHeadTrace {
  q: MatrixData;
  k: MatrixData;
  v: MatrixData;
  /** QKᵀ, (n × m) */
  scores: MatrixData;
  /** 1/√dK, or 1 with scaling off */
  scale: number;
  scaled: MatrixData;
  /** scaled + M; hidden entries are -Infinity */
  masked: MatrixData;
  /** rows sum to 1; a fully masked row is all zeros */
  weights: MatrixData;
  output: MatrixData;
}

export interface AttnlabModule {
  buildInfo(): BuildInfo;
  attentionHead(options: AttentionHeadOptions): AttentionHeadTrace;
  /** PE(pos, 2i) = sin(pos·base^(−2i/d)), PE(pos, 2i+1) = cos(…); base defaults to 10000 */
  sinusoidalTable(options: { n: number; d: number; base?: number }): MatrixData;
  /** PE·PEᵀ for a given (n × d) table */
  positionSimilarity(options: { pe: Numbers; n: number; d: number }): MatrixData;
  /** T_k with PE(pos + k) = T_k·PE(pos); d must be even */
  sinusoidalShiftMatrix(options: { d: number; k: number; base?: number }): MatrixData;
}

export interface ModuleOptions {
  locateFile?: (path: string, prefix: string) => string;
  wasmBinary?: ArrayBuffer | Uint8Array;
}

declare function createAttnlab(options?: ModuleOptions): Promise<AttnlabModule>;
export default createAttnlab;
