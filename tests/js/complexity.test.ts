import { describe, expect, it } from 'vitest';
import { doublings, endSlopes, nextMeasurement, overtakes, passesNeeded, timingsAgree } from '../../web/src/math/complexity';

describe('doublings', () => {
  it('doubles from the start up to the end', () => {
    expect(doublings(128, 2048)).toEqual([128, 256, 512, 1024, 2048]);
    expect(doublings(32, 256)).toEqual([32, 64, 128, 256]);
    expect(doublings(128, 1000)).toEqual([128, 256, 512]);
    expect(doublings(128, 64)).toEqual([]);
    expect(() => doublings(0, 8)).toThrow(/positive/);
  });
});

describe('timingsAgree', () => {
  it('compares the two fastest timings, whatever came slower', () => {
    expect(timingsAgree([10, 12], 1.25)).toBe(true);
    expect(timingsAgree([10, 13], 1.25)).toBe(false);
    expect(timingsAgree([31, 10, 12.5], 1.25)).toBe(true);
    expect(timingsAgree([10], 1.25)).toBe(false);
  });
});

describe('endSlopes', () => {
  it('fits the first and the last few points, which bend where a cost changes shape', () => {
    const quadratic = [128, 256, 512, 1024].map((n) => [n, 5e-6 * n * n] as const);
    const [first, last] = endSlopes(quadratic)!;
    expect(first).toBeCloseTo(2, 12);
    expect(last).toBeCloseTo(2, 12);
    // n·d² + n²·d with d = 64: near 1 for n ≪ d, towards 2 for n ≫ d
    const layer = [4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096].map((n) => [n, n * 64 * 64 + n * n * 64] as const);
    const [short, long] = endSlopes(layer)!;
    expect(short).toBeGreaterThan(1);
    expect(short).toBeLessThan(1.2);
    expect(long).toBeGreaterThan(1.9);
    expect(long).toBeLessThan(2);
    expect(endSlopes(layer, 10)![0]).toBeLessThan(endSlopes(layer, 10)![1]);
  });
  it('needs more points than it fits at each end', () => {
    expect(endSlopes([[1, 1], [2, 4], [4, 16]])).toBeUndefined();
    expect(endSlopes([[1, 1], [2, 4], [4, 16], [8, 64]])).toHaveLength(2);
  });
});

describe('overtakes', () => {
  const n = [128, 256, 512, 1024];
  it('finds where a quadratic cost passes a linear one, on log-log axes', () => {
    // n² = 384·n at n = 384, between the measured 256 and 512
    const at = overtakes(n, n.map((x) => x * x), n.map((x) => 384 * x));
    expect(at).toBeCloseTo(384, 9);
  });
  it('says nothing when the cost is already larger, or never becomes larger', () => {
    expect(overtakes(n, n.map((x) => x * x), n.map((x) => x))).toBeUndefined();
    expect(overtakes(n, n.map((x) => x), n.map((x) => x * x))).toBeUndefined();
  });
  it('counts a tie at a measured point as overtaking there', () => {
    expect(overtakes(n, [1, 2, 4, 8], [2, 3, 4, 5])).toBeCloseTo(512, 9);
  });
});

describe('measuring in passes', () => {
  const rule = { least: 2, most: 4, agreement: 1.25 };
  it('asks for the least passes, then one more while the two fastest disagree, up to the most', () => {
    expect(passesNeeded([], rule)).toBe(2);
    expect(passesNeeded([10], rule)).toBe(2);
    expect(passesNeeded([10, 11], rule)).toBe(2);
    expect(passesNeeded([10, 20], rule)).toBe(3);
    expect(passesNeeded([10, 20, 12], rule)).toBe(3);
    expect(passesNeeded([10, 20, 30], rule)).toBe(4);
    expect(passesNeeded([10, 20, 30, 40], rule)).toBe(4);
  });
  it('measures the whole plan in one pass before the next', () => {
    const medians = new Map<string, number[]>([['a', [1]], ['b', []], ['c', []]]);
    const of = (p: string) => medians.get(p)!;
    expect(nextMeasurement(['a', 'b', 'c'], of, rule)).toEqual({ point: 'b', pass: 1 });
    medians.set('b', [1]).set('c', [1]);
    expect(nextMeasurement(['a', 'b', 'c'], of, rule)).toEqual({ point: 'a', pass: 2 });
    // agreeing points are done; one that does not takes a third pass
    medians.set('a', [1, 1.1]).set('b', [1, 2]).set('c', [1, 1]);
    expect(nextMeasurement(['a', 'b', 'c'], of, rule)).toEqual({ point: 'b', pass: 3 });
    medians.set('b', [1, 2, 1.1]);
    expect(nextMeasurement(['a', 'b', 'c'], of, rule)).toBeUndefined();
  });
});
