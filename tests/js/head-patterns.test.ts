import { describe, expect, it } from 'vitest';
import {
  HEAD_PATTERN_THRESHOLD, HEAD_PATTERNS, LOCAL_WINDOW, headsAbove, rankHeads, repeatedRandomTokens, scoreHeads, type HeadPattern,
} from '../../web/src/math/head-patterns';
import type { MatrixData } from '../../web/src/math/matrix';

/** a causal head (n × n) whose row i is keysOf(i) weighted evenly, or uniform over 0 … i where keysOf gives none */
function headAttending(n: number, keysOf: (i: number) => number[]): MatrixData {
  const data = new Float32Array(n * n);
  for (let i = 0; i < n; i++) {
    const keys = keysOf(i).filter((j) => j >= 0 && j <= i);
    const spread = keys.length > 0 ? keys : Array.from({ length: i + 1 }, (_, j) => j);
    for (const j of spread) data[i * n + j] = 1 / spread.length;
  }
  return { rows: n, cols: n, data };
}

/** (1 − α)·a + α·b, entrywise */
function mixed(a: MatrixData, b: MatrixData, alpha: number): MatrixData {
  return { ...a, data: a.data.map((v, k) => (1 - alpha) * v + alpha * b.data[k]!) };
}

const BOS = 0;
const tokens = repeatedRandomTokens({ vocabSize: 40, length: 12, seed: 11, exclude: [BOS], prefix: BOS });
const n = tokens.length;
const earlierNext = (i: number) => [...tokens.keys()].filter((j) => j < i - 1 && tokens[j] === tokens[i]).map((j) => j + 1);
const HAND_BUILT: Record<HeadPattern | 'uniform', MatrixData> = {
  'previous-token': headAttending(n, (i) => [i - 1]),
  induction: headAttending(n, earlierNext),
  'first-token': headAttending(n, () => [0]),
  self: headAttending(n, (i) => [i]),
  local: headAttending(n, (i) => (i > LOCAL_WINDOW ? Array.from({ length: LOCAL_WINDOW }, (_, k) => i - 1 - k) : [])),
  uniform: headAttending(n, () => []),
};
const NAMES = Object.keys(HAND_BUILT) as (HeadPattern | 'uniform')[];
// layer 0 holds the first three heads, layer 1 the rest, so that ranks cross layers
const model = [NAMES.slice(0, 3).map((name) => HAND_BUILT[name]), NAMES.slice(3).map((name) => HAND_BUILT[name])];
const nameOf = ({ layer, head }: { layer: number; head: number }) => NAMES[layer * 3 + head];

describe('scoreHeads', () => {
  const scores = scoreHeads(tokens, model);

  it('ranks each pure head first on its own pattern, at excess 1 and above the threshold', () => {
    for (const pattern of HEAD_PATTERNS) {
      const ranked = rankHeads(scores, pattern);
      expect(ranked.length, pattern).toBe(NAMES.length);
      expect(ranked[0]!.excess, pattern).toBeCloseTo(1, 5);
      expect(ranked.find((h) => nameOf(h) === pattern)!.excess, pattern).toBeCloseTo(1, 5);
      expect(headsAbove(scores, pattern).map(nameOf), pattern).toContain(pattern);
    }
    // a previous-token head is a local head of width 1; every other pure head is named only for its own
    expect(headsAbove(scores, 'local').map(nameOf).sort()).toEqual(['local', 'previous-token']);
    for (const pattern of ['previous-token', 'induction', 'first-token', 'self'] as const) {
      expect(headsAbove(scores, pattern).map(nameOf), pattern).toEqual([pattern]);
    }
  });

  it('puts the uniform head at its baseline, excess 0, above no threshold', () => {
    for (const pattern of HEAD_PATTERNS) {
      const uniform = scores[pattern].heads[1]![2]!;
      expect(nameOf(uniform)).toBe('uniform');
      expect(uniform.score, pattern).toBeCloseTo(uniform.uniform, 6);
      expect(uniform.excess, pattern).toBeCloseTo(0, 5);
      expect(headsAbove(scores, pattern).map(nameOf), pattern).not.toContain('uniform');
    }
  });

  it('reads a mixture of a pattern and uniform attention as the pattern\'s share', () => {
    for (const alpha of [0.2, 0.5, 0.9]) {
      const head = mixed(HAND_BUILT.uniform, HAND_BUILT['previous-token'], alpha);
      expect(scoreHeads(tokens, [[head]])['previous-token'].heads[0]![0]!.excess).toBeCloseTo(alpha, 5);
    }
    expect(HEAD_PATTERN_THRESHOLD).toBeGreaterThan(0);
    expect(HEAD_PATTERN_THRESHOLD).toBeLessThan(1);
  });

  it('leaves out the rows where a pattern is forced, and gives the uniform baseline over the rest', () => {
    const five = scoreHeads([7, 8, 9, 7, 8], [[headAttending(5, () => [])]]);
    expect(five['previous-token'].rows).toBe(3);
    expect(five['previous-token'].heads[0]![0]!.uniform).toBeCloseTo((1 / 3 + 1 / 4 + 1 / 5) / 3, 6);
    expect(five['first-token'].rows).toBe(3);
    expect(five.self.rows).toBe(4);
    expect(five.self.heads[0]![0]!.uniform).toBeCloseTo((1 / 2 + 1 / 3 + 1 / 4 + 1 / 5) / 4, 6);
    expect(five.local.rows).toBe(1);
    expect(five.local.heads[0]![0]!.uniform).toBeCloseTo(3 / 5, 6);
    // 7 at 3 follows 7 at 0 (key 1), 8 at 4 follows 8 at 1 (key 2)
    expect(five.induction.rows).toBe(2);
    expect(five.induction.heads[0]![0]!.uniform).toBeCloseTo((1 / 4 + 1 / 5) / 2, 6);
  });

  it('counts an earlier occurrence only when the token after it is not the query itself', () => {
    const onKey = (key: number) => headAttending(3, (i) => (i === 2 ? [key] : [i]));
    // "a a a": row 2's earlier occurrences are 0 (key 1) and 1 (key 2, the diagonal: left out); row 1's is the diagonal
    const scores = scoreHeads([4, 4, 4], [[onKey(1), onKey(2)]]);
    expect(scores.induction.rows).toBe(1);
    expect(scores.induction.heads[0]!.map((h) => h.score)).toEqual([1, 0]);
  });

  it('scores nothing on a single token or, for induction, a text without repeats', () => {
    const single = scoreHeads([3], [[{ rows: 1, cols: 1, data: Float32Array.of(1) }]]);
    for (const pattern of HEAD_PATTERNS) {
      expect(single[pattern].rows, pattern).toBe(0);
      expect(single[pattern].heads[0]![0]!.excess, pattern).toBeNaN();
      expect(rankHeads(single, pattern), pattern).toEqual([]);
      expect(headsAbove(single, pattern), pattern).toEqual([]);
    }
    const distinct = scoreHeads([1, 2, 3, 4, 5, 6], [[headAttending(6, (i) => [i - 1])]]);
    expect(distinct.induction.rows).toBe(0);
    expect(rankHeads(distinct, 'induction')).toEqual([]);
    expect(headsAbove(distinct, 'previous-token')).toHaveLength(1);
  });

  it('refuses weights that do not match the tokens, naming the head', () => {
    const three = headAttending(3, () => []);
    expect(() => scoreHeads([1, 2, 3, 4], [[headAttending(4, () => []), three]])).toThrow(
      /layer 0 head 1's weights are 3 × 3, but the text has 4 tokens/,
    );
    expect(() => scoreHeads([1, 2, 3], [[three], [{ rows: 3, cols: 2, data: new Float32Array(6) }]])).toThrow(/layer 1 head 0.*3 × 2/);
  });
});

describe('repeatedRandomTokens', () => {
  it('is the same for a seed and differs between seeds', () => {
    const options = { vocabSize: 100, length: 20, seed: 5 };
    expect(repeatedRandomTokens(options)).toEqual(repeatedRandomTokens(options));
    expect(repeatedRandomTokens(options)).not.toEqual(repeatedRandomTokens({ ...options, seed: 6 }));
  });

  it('repeats its first half, after the prefix', () => {
    const withPrefix = repeatedRandomTokens({ vocabSize: 30, length: 9, seed: 2, prefix: 0 });
    expect(withPrefix).toHaveLength(19);
    expect(withPrefix[0]).toBe(0);
    expect([...withPrefix.subarray(10)]).toEqual([...withPrefix.subarray(1, 10)]);
    const plain = repeatedRandomTokens({ vocabSize: 30, length: 9, seed: 2 });
    expect(plain).toHaveLength(18);
    expect([...plain.subarray(9)]).toEqual([...plain.subarray(0, 9)]);
    expect(repeatedRandomTokens({ vocabSize: 30, length: 1, seed: 2, prefix: 4 })).toHaveLength(3);
  });

  it('draws every allowed id and never an excluded one', () => {
    const specials = [0, 1, 2, 3, 4, 5];
    const ids = repeatedRandomTokens({ vocabSize: 12, length: 400, seed: 9, exclude: specials });
    expect(new Set(ids)).toEqual(new Set([6, 7, 8, 9, 10, 11]));
    expect(repeatedRandomTokens({ vocabSize: 3, length: 5, seed: 1, exclude: [0, 2] })).toEqual(new Int32Array(10).fill(1));
  });

  it('refuses sizes it cannot draw from', () => {
    expect(() => repeatedRandomTokens({ vocabSize: 2, length: 3, seed: 1, exclude: [0, 1] })).toThrow(/every id below 2 is excluded/);
    expect(() => repeatedRandomTokens({ vocabSize: 10, length: 0, seed: 1 })).toThrow(/length 0/);
    expect(() => repeatedRandomTokens({ vocabSize: 0, length: 3, seed: 1 })).toThrow(/vocabSize 0/);
    expect(() => repeatedRandomTokens({ vocabSize: 10, length: 3, seed: 1, prefix: 10 })).toThrow(/prefix 10/);
  });
});
