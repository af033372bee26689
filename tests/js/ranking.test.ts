import { describe, expect, it } from 'vitest';
import { argmax, topIndices } from '../../web/src/math/ranking';
import { shortLabel, wellFormed } from '../../web/src/math/text';

describe('ranking', () => {
  it('finds the largest finite entry, the first on ties', () => {
    expect(argmax([0.1, 0.7, 0.2])).toBe(1);
    expect(argmax([3, 3, 1])).toBe(0);
    expect(argmax([NaN, -Infinity, -2])).toBe(2);
    expect(argmax([])).toBe(-1);
  });
  it('lists the k largest, largest first', () => {
    expect(topIndices([0.1, 0.5, 0.3, 0.1], 3)).toEqual([1, 2, 0]);
    expect(topIndices([1, 2], 5)).toEqual([1, 0]);
    expect(topIndices([1, NaN, 2], 2)).toEqual([2, 0]);
    expect(topIndices([1, 2], 0)).toEqual([]);
  });
});

describe('text', () => {
  it('replaces lone surrogates and keeps pairs', () => {
    expect(wellFormed('a\uD800b')).toBe('a\uFFFDb');
    expect(wellFormed('\uDC00')).toBe('\uFFFD');
    expect(wellFormed('cat 🐈')).toBe('cat 🐈');
  });
  it('shortens by code points', () => {
    expect(shortLabel('because', 12)).toBe('because');
    expect(shortLabel('abcdefgh', 5)).toBe('abcd…');
    expect(shortLabel('🐈🐈🐈', 2)).toBe('🐈…');
  });
});
