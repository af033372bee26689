import { describe, expect, it } from 'vitest';
import { at, fromRows, identity, largestDifference, maxAbsFinite, row, rowArgmax, submatrix } from '../../web/src/math/matrix';

describe('row-major matrices', () => {
  it('reads entries and rows', () => {
    const m = fromRows([[1, 2, 3], [4, 5, 6]]);
    expect([m.rows, m.cols]).toEqual([2, 3]);
    expect(at(m, 1, 2)).toBe(6);
    expect(row(m, 0)).toEqual([1, 2, 3]);
  });

  it('writes the identity out row by row', () => {
    expect(identity(3)).toEqual([1, 0, 0, 0, 1, 0, 0, 0, 1]);
    expect(identity(1)).toEqual([1]);
  });

  it('cuts out a block of rows and columns', () => {
    const m = fromRows([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]);
    expect(submatrix(m, { rows: [1, 3], cols: [2, 4] })).toEqual(fromRows([[7, 8], [11, 12]]));
    expect(submatrix(m, { rows: [0, 1], cols: [0, 1] })).toEqual(fromRows([[1]]));
  });

  it('finds the largest finite magnitude', () => {
    expect(maxAbsFinite(fromRows([[1, -7], [Number.NaN, -Infinity]]))).toBe(7);
  });

  it('measures the largest difference of two lists', () => {
    expect(largestDifference([1, 2, 3], Float32Array.of(1, 2.5, 2))).toBe(1);
    expect(largestDifference([], [])).toBe(0);
    expect(() => largestDifference([1], [])).toThrow(/differ/);
  });

  it('finds each row\'s largest entry, the first of equals', () => {
    expect(rowArgmax(fromRows([[0, 2, 1], [5, 5, -1], [-3, -2, -1]]))).toEqual([1, 0, 2]);
    expect(rowArgmax({ rows: 0, cols: 3, data: new Float32Array(0) })).toEqual([]);
  });
});
