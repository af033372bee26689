import { describe, expect, it } from 'vitest';
import { fusedProjection, kvHeadOf, sizeProblem } from '../../web/src/math/gqa';

describe('grouped-query attention', () => {
  it('gives each query head its group', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((h) => kvHeadOf(h, 8, 2))).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
    expect([0, 3, 7].map((h) => kvHeadOf(h, 8, 8))).toEqual([0, 3, 7]);
    expect([0, 7].map((h) => kvHeadOf(h, 8, 1))).toEqual([0, 0]);
  });
  it('says which sizes do not fit together', () => {
    expect(sizeProblem({ d: 4096, heads: 32, groups: 8 })).toBeUndefined();
    expect(sizeProblem({ d: 4096, heads: 3, groups: 1 })).toBe('h = 3 must divide d = 4096.');
    expect(sizeProblem({ d: 64, heads: 128, groups: 1 })).toBe('h = 128 must divide d = 64.');
    expect(sizeProblem({ d: 4096, heads: 32, groups: 5 })).toBe("GQA's g = 5 must divide h = 32.");
  });
  it('fuses W_Q with the first columns of W_K and W_V, row by row', () => {
    const wq = Float32Array.of(1, 2, 3, 4);
    const wk = Float32Array.of(5, 6, 7, 8);
    const wv = Float32Array.of(9, 10, 11, 12);
    expect(Array.from(fusedProjection(wq, wk, wv, 2, 1))).toEqual([1, 2, 5, 9, 3, 4, 7, 11]);
    expect(Array.from(fusedProjection(wq, wk, wv, 2, 2))).toEqual([1, 2, 5, 6, 9, 10, 3, 4, 7, 8, 11, 12]);
  });
});
