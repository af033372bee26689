import { describe, expect, it } from 'vitest';
import { DECK_EXAMPLE, WRITEUP_EXAMPLE } from '../../web/src/math/seminar';
import { fromRows, row } from '../../web/src/math/matrix';
import {
  customFrom, decodeCustom, encodeCustom, exactDecimals, float32Text, grade, gradeMark, gradeSummary, parseEntry, parseInputEntry, provenance, provenanceText,
  resizeCustom, slips, STAGES, stageTex, stageTitle, type CustomExample,
} from '../../web/src/math/worked-example';

const deck: CustomExample = { n: 3, d: 4, dK: 2, dV: 2, ...DECK_EXAMPLE };

describe('the stages', () => {
  it('compute every matrix once, each from what an earlier stage computed', () => {
    const computed = STAGES.flatMap((s) => s.results);
    expect(new Set(computed).size).toBe(computed.length);
    STAGES.forEach((stage, i) => {
      for (const m of stage.operands) expect(STAGES.slice(0, i).flatMap((s) => s.results)).toContain(m);
    });
  });
  it('are titled and written as the switches have them', () => {
    const scale = STAGES.find((s) => s.name === 'scale')!;
    const mask = STAGES.find((s) => s.name === 'mask')!;
    expect(stageTitle(scale, { causal: false, scaled: false })).toBe('Scaling switched off (factor 1)');
    expect(stageTitle(mask, { causal: true, scaled: true })).toBe('Hide the future: −∞ above the diagonal');
    expect(stageTitle(STAGES[0]!, { causal: true, scaled: false })).toBe('Project every token');
    expect(stageTex(2, { dK: 2, scale: Math.SQRT1_2, causal: false, scaled: true })).toBe('S/\\sqrt{d_k} = S \\cdot 0.7071\\quad (d_k = 2)');
    expect(stageTex(2, { dK: 2, scale: 1, causal: false, scaled: false })).toContain('scaling off');
    expect(stageTex(3, { dK: 2, scale: 1, causal: true, scaled: true })).toContain('j > i');
    expect(STAGES.map((_, step) => stageTex(step, { dK: 2, scale: 1, causal: false, scaled: true })).every(Boolean)).toBe(true);
  });
  it("start the reader's own example from a document's", () => {
    const { x, wQ, wK, wV } = DECK_EXAMPLE;
    expect(customFrom(DECK_EXAMPLE)).toEqual({ n: 3, d: 4, dK: 2, dV: 2, x, wQ, wK, wV });
  });
});

describe('reading typed numbers', () => {
  it('reads decimals, exponents and a true minus sign', () => {
    expect(parseEntry('−1.5')).toEqual({ ok: true, value: -1.5 });
    expect(parseEntry(' 2e-3 ')).toEqual({ ok: true, value: 0.002 });
    expect(parseEntry('.5')).toEqual({ ok: true, value: 0.5 });
  });
  it('names what is wrong with hostile text', () => {
    expect(parseEntry('NaN')).toEqual({ ok: false, problem: 'is not a number' });
    expect(parseEntry('abc')).toEqual({ ok: false, problem: 'is not a number' });
    expect(parseEntry('0x10')).toEqual({ ok: false, problem: 'is not a number' });
    expect(parseEntry('1e999')).toEqual({ ok: false, problem: 'is not a finite number' });
    expect(parseEntry('')).toEqual({ ok: false, problem: 'is empty' });
    expect(parseEntry('-inf').ok).toBe(false);
    expect(parseEntry('−∞', { infinite: true })).toEqual({ ok: true, value: -Infinity });
  });
  it('keeps inputs within the entry limit', () => {
    expect(parseInputEntry('1e5')).toEqual({ ok: false, problem: 'is outside ±1000' });
    expect(parseInputEntry('-999')).toEqual({ ok: true, value: -999 });
  });
});

describe("the reader's own matrices as URL text", () => {
  it('round-trip, with float32 entries written short', () => {
    const example = { ...deck, x: fromRows([[0.1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, -2.5]]) };
    const text = encodeCustom(example);
    expect(text.startsWith('3_4_2_2_0.1_0_1_0_')).toBe(true);
    expect(text).toMatch(/^[0-9._e-]+$/);
    const back = decodeCustom(text);
    expect(back && row(back.x, 2)).toEqual([1, 1, 0, -2.5]);
    expect(back?.wV).toEqual(deck.wV);
    expect(float32Text(Math.fround(0.1))).toBe('0.1');
  });
  it('reject anything malformed or beyond the limits', () => {
    expect(decodeCustom('')).toBeUndefined();
    expect(decodeCustom('3_4_2_2_1')).toBeUndefined();
    expect(decodeCustom(encodeCustom(deck).replace(/^3/, '9'))).toBeUndefined();
    expect(decodeCustom(encodeCustom(deck).replace(/_0_/, '_NaN_'))).toBeUndefined();
    expect(decodeCustom(encodeCustom(deck).replace(/_0_/, '_1e999_'))).toBeUndefined();
  });
  it('resize, keeping the entries that still fit and padding with zeros', () => {
    const bigger = resizeCustom(deck, { n: 4, d: 4, dK: 3, dV: 2 });
    expect(row(bigger.x, 3)).toEqual([0, 0, 0, 0]);
    expect(row(bigger.wQ, 0)).toEqual([1, 0, 0]);
    const smaller = resizeCustom(deck, { n: 2, d: 2, dK: 1, dV: 1 });
    expect(Array.from(smaller.x.data)).toEqual([1, 0, 0, 1]);
    expect(decodeCustom(encodeCustom(smaller))).toEqual(smaller);
  });
});

describe("a document's inputs as printed", () => {
  it('take as many decimals as their entries need, at most 3', () => {
    expect(exactDecimals(fromRows([[1, 0], [-2, 3]]))).toBe(0);
    expect(exactDecimals(fromRows([[0.5, 1], [0.25, 0]]))).toBe(2);
    expect(exactDecimals(fromRows([[Math.fround(0.1), 0.3]]))).toBe(1);
    expect(exactDecimals(fromRows([[1 / 3]]))).toBe(3);
  });
});

describe('provenance', () => {
  it('traces each stage to the rows and columns it reads', () => {
    expect(provenance('q', 2, 1)).toEqual([{ matrix: 'x', row: 2 }, { matrix: 'wQ', col: 1 }]);
    expect(provenance('scores', 0, 2)).toEqual([{ matrix: 'q', row: 0 }, { matrix: 'k', row: 2 }]);
    expect(provenance('weights', 1, 0)).toEqual([{ matrix: 'masked', row: 1 }]);
    expect(provenance('output', 1, 0)).toEqual([{ matrix: 'weights', row: 1 }, { matrix: 'v', col: 0 }]);
    expect(provenance('x', 0, 0)).toEqual([]);
  });
});

describe('provenance in words', () => {
  const tokens = ['A', 'B', 'C'];
  it('names tokens in quotes and dimensions by number', () => {
    expect(provenanceText('scores', 0, 1, tokens)).toBe('QKᵀ[“A”, “B”] ← row “A” of Q and row “B” of K');
    expect(provenanceText('q', 2, 0, tokens)).toBe('Q[“C”, 1] ← row “C” of X and column 1 of W_Q');
    expect(provenanceText('output', 1, 0, tokens)).toBe('output[“B”, 1] ← row “B” of A and column 1 of V (every token’s value)');
    expect(provenanceText('scaled', 1, 2, tokens)).toBe('QKᵀ/√d_k[“B”, “C”] ← entry [“B”, “C”] of QKᵀ');
  });
  it('says when an entry is an input', () => {
    expect(provenanceText('x', 0, 3, tokens)).toBe('X[“A”, 4]: an input');
    expect(provenanceText('wK', 1, 0, tokens)).toBe('W_K[2, 1]: an input');
  });
});

describe('printed numbers against the engine', () => {
  it("flags the deck's first softmax row, not rows that round to what is printed", () => {
    const engine = fromRows([[0.0454, 0.7679, 0.1867], [0.7679, 0.0454, 0.1867], [1 / 3, 1 / 3, 1 / 3]]);
    const found = slips(engine, DECK_EXAMPLE.printed.weights ?? []);
    expect(found.map((s) => s.row)).toEqual([0, 1]);
    expect(found[0].printed).toEqual(['0.05', '0.78', '0.17']);
  });
  it("flags the write-up's third row of Q", () => {
    const q = fromRows([[0.6, 0.5], [1.2, 1.0], [0.65, 0.95]]);
    expect(slips(q, WRITEUP_EXAMPLE.printed.q ?? [])).toEqual([{ row: 2, printed: ['0.65', '1.1'], engine: [0.65, 0.95].map(Math.fround) }]);
  });
});

describe('grading a hand calculation', () => {
  it('accepts entries within the tolerance and reports the difference otherwise', () => {
    expect(grade('0.05', 0.0454)).toEqual({ kind: 'right', typed: 0.05 });
    expect(grade('0.77', 0.7679)).toEqual({ kind: 'right', typed: 0.77 });
    const wrong = grade('0.78', 0.7679);
    expect(wrong.kind).toBe('wrong');
    expect(wrong.kind === 'wrong' && wrong.difference).toBeCloseTo(0.0121, 6);
  });
  it('handles masked entries, blanks and unreadable text', () => {
    expect(grade('-inf', -Infinity).kind).toBe('right');
    expect(grade('0', -Infinity).kind).toBe('wrong');
    expect(grade('  ', 1)).toEqual({ kind: 'empty' });
    expect(grade('abc', 1)).toEqual({ kind: 'unreadable', problem: 'is not a number' });
  });
});

describe('marking a hand calculation', () => {
  it("marks each entry with the engine's value and the difference, and counts them", () => {
    const entries: [string, number][] = [['0.05', 0.0454], ['0.78', 0.7679], ['1/3', 1 / 3], ['', 0.2], ['-inf', -Infinity]];
    const grades = entries.map(([text, engine]) => grade(text, engine));
    expect(entries.map(([, engine], k) => gradeMark(grades[k]!, engine))).toEqual(
      ['✓ right', '✗ 0.7679 (Δ +0.0121)', '✗ 0.3333 (is not a number)', undefined, '✓ right']);
    expect(gradeSummary(grades)).toBe('2 right, 2 wrong, 1 left empty.');
    expect(gradeSummary(grades.slice(0, 2))).toBe('1 right, 1 wrong.');
  });
});
