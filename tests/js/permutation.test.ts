import { describe, expect, it } from 'vitest';
import { seededPermutation, unshuffleRows } from '../../web/src/math/permutation';

describe('seededPermutation', () => {
  it('keeps the order for seed 0 and is a permutation for every seed', () => {
    expect(seededPermutation(5, 0)).toEqual([0, 1, 2, 3, 4]);
    for (let seed = 1; seed < 200; seed++) {
      const order = seededPermutation(7, seed);
      expect([...order].sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
      expect(order).not.toEqual([0, 1, 2, 3, 4, 5, 6]);
    }
  });
  it('is reproducible and depends on the seed', () => {
    expect(seededPermutation(10, 3)).toEqual(seededPermutation(10, 3));
    expect(seededPermutation(10, 3)).not.toEqual(seededPermutation(10, 4));
    expect(seededPermutation(1, 5)).toEqual([0]);
    expect(seededPermutation(2, 9)).toEqual([1, 0]);
  });
});

describe('unshuffleRows', () => {
  it('puts each row back at the position it came from', () => {
    const order = [2, 0, 1];
    // rows of the shuffled sequence: row i holds the value of position order[i]
    const shuffled = { rows: 3, cols: 2, data: Float32Array.from([20, 21, 0, 1, 10, 11]) };
    expect(Array.from(unshuffleRows(shuffled, order).data)).toEqual([0, 1, 10, 11, 20, 21]);
    expect(() => unshuffleRows(shuffled, [0, 1])).toThrow(/2 positions for 3 rows/);
  });
});
