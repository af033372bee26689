// The head finder's arithmetic, DOM-free: how much of each attention head's weight follows the
// patterns interpretability names (previous token, induction, first-token sink, self, a local
// window), each set against what a uniform causal head would score on the same text, and the
// repeated random tokens that show induction (Olsson et al. 2022). The weights are the engine's.
import type { MatrixData } from './matrix';
import { mulberry32 } from './permutation';

export const HEAD_PATTERNS = ['previous-token', 'induction', 'first-token', 'self', 'local'] as const;
export type HeadPattern = (typeof HEAD_PATTERNS)[number];

/** w, the keys i − w … i − 1 that the local pattern counts for query i */
export const LOCAL_WINDOW = 3;

/** The excess a head needs to be named for a pattern. A head that mixes the pattern with share α
 * and uniform attention with share 1 − α has excess exactly α, so 0.5 names the heads for which
 * the pattern is at least half of what they do beyond chance: a pure pattern head is at 1, a
 * near-uniform head (a random model's) near 0. */
export const HEAD_PATTERN_THRESHOLD = 0.5;

export interface HeadScore {
  layer: number;
  head: number;
  /** s = mean over the pattern's rows of the weight on the pattern's keys */
  score: number;
  /** u = the same mean for a uniform causal head, 1/(i + 1) on each key of row i */
  uniform: number;
  /** (s − u)/(1 − u): 0 for a uniform head, 1 for a pure pattern head, NaN when no row counts */
  excess: number;
}

export interface PatternScores {
  /** query rows the pattern counts on this text (the same for every head) */
  rows: number;
  /** [layer][head] */
  heads: HeadScore[][];
}

export type HeadScores = Record<HeadPattern, PatternScores>;

/** keys[i] = the key positions pattern p names for query i of n tokens, undefined where row i does
 * not count: row 0 never (its one key is forced), and no row where the pattern is forced or
 * coincides with another (row 1's previous token is the first token) */
function patternKeys(pattern: HeadPattern, tokens: ArrayLike<number>): (number[] | undefined)[] {
  return Array.from({ length: tokens.length }, (_, i) => {
    switch (pattern) {
      case 'previous-token':
        return i >= 2 ? [i - 1] : undefined;
      case 'first-token':
        return i >= 2 ? [0] : undefined;
      case 'self':
        return i >= 1 ? [i] : undefined;
      case 'local':
        return i > LOCAL_WINDOW ? Array.from({ length: LOCAL_WINDOW }, (_, k) => i - LOCAL_WINDOW + k) : undefined;
      case 'induction': {
        const after: number[] = [];
        for (let j = 0; j < i - 1; j++) if (tokens[j] === tokens[i]) after.push(j + 1);
        return after.length > 0 ? after : undefined;
      }
    }
  });
}

/** s = mean over counted rows i of Σ_{j ∈ keys[i]} A_ij, for attention weights A (n × n) */
function meanWeightOnKeys(weights: MatrixData, keys: readonly (number[] | undefined)[]): number {
  let sum = 0;
  let rows = 0;
  keys.forEach((row, i) => {
    if (!row) return;
    for (const j of row) sum += weights.data[i * weights.cols + j]!;
    rows++;
  });
  return sum / rows;
}

/** u = mean over counted rows i of |keys[i]|/(i + 1): a uniform causal head's score */
function uniformScore(keys: readonly (number[] | undefined)[]): number {
  let sum = 0;
  let rows = 0;
  keys.forEach((row, i) => {
    if (!row) return;
    sum += row.length / (i + 1);
    rows++;
  });
  return sum / rows;
}

/** every head's score s, uniform baseline u and excess (s − u)/(1 − u) for every pattern, from n
 * token ids and weights[layer][head] = A (n × n, causal, rows summing to 1) */
export function scoreHeads(tokens: ArrayLike<number>, weights: readonly (readonly MatrixData[])[]): HeadScores {
  const n = tokens.length;
  weights.forEach((heads, layer) =>
    heads.forEach((m, head) => {
      if (m.rows !== n || m.cols !== n) {
        throw new Error(`scoreHeads: layer ${layer} head ${head}'s weights are ${m.rows} × ${m.cols}, but the text has ${n} tokens`);
      }
    }),
  );
  const scores = {} as HeadScores;
  for (const pattern of HEAD_PATTERNS) {
    const keys = patternKeys(pattern, tokens);
    const uniform = uniformScore(keys);
    scores[pattern] = {
      rows: keys.filter(Boolean).length,
      heads: weights.map((heads, layer) =>
        heads.map((m, head) => {
          const score = meanWeightOnKeys(m, keys);
          return { layer, head, score, uniform, excess: (score - uniform) / (1 - uniform) };
        }),
      ),
    };
  }
  return scores;
}

/** the heads with a finite excess for `pattern`, largest excess first (earlier layer, then head, on ties) */
export function rankHeads(scores: HeadScores, pattern: HeadPattern): HeadScore[] {
  return scores[pattern].heads
    .flat()
    .filter((h) => Number.isFinite(h.excess))
    .sort((a, b) => b.excess - a.excess || a.layer - b.layer || a.head - b.head);
}

/** the ranked heads whose excess for `pattern` reaches HEAD_PATTERN_THRESHOLD */
export function headsAbove(scores: HeadScores, pattern: HeadPattern): HeadScore[] {
  return rankHeads(scores, pattern).filter((h) => h.excess >= HEAD_PATTERN_THRESHOLD);
}

/** [prefix] r₁ … r_L r₁ … r_L, (L·2 [+ 1]) ids: r drawn uniformly from 0 … vocabSize − 1 without
 * `exclude` by mulberry32(seed), so the second half is predictable only by induction */
export function repeatedRandomTokens({ vocabSize, length, seed, exclude = [], prefix }: {
  vocabSize: number; length: number; seed: number; exclude?: readonly number[]; prefix?: number;
}): Int32Array {
  if (!Number.isInteger(vocabSize) || vocabSize < 1) throw new Error(`repeatedRandomTokens: vocabSize ${vocabSize} is not a positive integer`);
  if (!Number.isInteger(length) || length < 1) throw new Error(`repeatedRandomTokens: length ${length} is not a positive integer`);
  if (prefix !== undefined && !(Number.isInteger(prefix) && prefix >= 0 && prefix < vocabSize)) {
    throw new Error(`repeatedRandomTokens: prefix ${prefix} is not an id below ${vocabSize}`);
  }
  const excluded = new Set(exclude);
  const allowed = Array.from({ length: vocabSize }, (_, id) => id).filter((id) => !excluded.has(id));
  if (allowed.length === 0) throw new Error(`repeatedRandomTokens: every id below ${vocabSize} is excluded`);
  const random = mulberry32(seed);
  const half = Array.from({ length }, () => allowed[Math.floor(random() * allowed.length)]!);
  return Int32Array.from([...(prefix === undefined ? [] : [prefix]), ...half, ...half]);
}
