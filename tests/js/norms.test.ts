import { describe, expect, it } from 'vitest';
import { largestRowSum, readVector } from '../../web/src/math/norms';

describe('readVector', () => {
  it('reads numbers separated by spaces or semicolons, minus signs as typed', () => {
    expect(readVector(' 2 −1  0.5;3 ')).toEqual([2, -1, 0.5, 3]);
    expect(readVector('1e-3 4')).toEqual([0.001, 4]);
  });
  it('names what is wrong', () => {
    expect(() => readVector('5')).toThrow('Type 2 to 16 numbers separated by spaces (got 1).');
    expect(() => readVector(Array(17).fill('1').join(' '))).toThrow('(got 17)');
    expect(() => readVector('1 2 abc')).toThrow('Entry 3, “abc”, is not a number.');
    expect(() => readVector('1 5000')).toThrow('Entry 2, “5000”, is outside ±1000.');
  });
});

describe('largestRowSum', () => {
  it('is the largest |row sum|', () => {
    expect(largestRowSum({ rows: 2, cols: 2, data: Float32Array.from([1, -1, 2, -5]) })).toBe(3);
    expect(largestRowSum({ rows: 1, cols: 3, data: Float32Array.from([0.5, 0.25, -0.75]) })).toBe(0);
  });
});
