import { describe, expect, it } from 'vitest';
import { bucketMeans, bucketSize, formatDuration, letterAnswer, longestLetters, measureEvery, thinned } from '../../web/src/math/training';

describe('bucketSize', () => {
  it('keeps a run to at most the points asked for', () => {
    expect(bucketSize(600, 120)).toBe(5);
    expect(bucketSize(8000, 120)).toBe(67);
    expect(Math.ceil(8000 / bucketSize(8000, 120))).toBeLessThanOrEqual(120);
    expect(bucketSize(50, 120)).toBe(1);
    expect(bucketSize(10, 0)).toBe(10);
  });
});

describe('bucketMeans', () => {
  it('averages whole buckets at their mean step, and a partial last one', () => {
    expect(bucketMeans([1, 2, 3, 4, 5, 6, 7], 3)).toEqual({ x: [2, 5, 7], y: [2, 5, 7] });
    expect(bucketMeans([4, 2], 1)).toEqual({ x: [1, 2], y: [4, 2] });
    expect(bucketMeans([], 5)).toEqual({ x: [], y: [] });
  });
});

describe('thinned', () => {
  it('keeps every k-th value and the last', () => {
    expect(thinned(new Float32Array([10, 20, 30, 40, 50]), 2)).toEqual({ x: [1, 3, 5], y: [10, 30, 50] });
    expect(thinned([10, 20, 30, 40], 2)).toEqual({ x: [1, 3, 4], y: [10, 30, 40] });
    expect(thinned([], 3)).toEqual({ x: [], y: [] });
  });
  it('keeps the values asked for, in order, once', () => {
    expect(thinned([0, 5, 9, 7, 5, 3, 1], 3, [2, 3, 99])).toEqual({ x: [1, 3, 4, 7], y: [0, 9, 7, 1] });
  });
});

describe('letterAnswer', () => {
  it('copies, reverses and sorts', () => {
    expect(letterAnswer('copy', 'hello')).toBe('hello');
    expect(letterAnswer('reverse', 'hello')).toBe('olleh');
    expect(letterAnswer('sort', 'hello')).toBe('ehllo');
  });
});

describe('formatDuration', () => {
  it('reads as seconds, then minutes and seconds', () => {
    expect(formatDuration(12_400)).toBe('12 s');
    expect(formatDuration(185_000)).toBe('3 min 05 s');
    expect(formatDuration(-5)).toBe('0 s');
  });
});

describe('longestLetters', () => {
  it('leaves room for [BOS], [SEP], [EOS] and the answer', () => {
    expect(longestLetters(19)).toBe(8);
    expect(longestLetters(20)).toBe(8);
    expect(longestLetters(3)).toBe(0);
  });
});

describe('measureEvery', () => {
  it('falls on the cheaper measurements and gives about the points asked for', () => {
    expect(measureEvery(600, 25, 40)).toBe(25);
    expect(measureEvery(8000, 25, 40)).toBe(200);
    expect(measureEvery(1500, 25, 40)).toBe(50);
    expect(Math.floor(8000 / measureEvery(8000, 25, 40))).toBeLessThanOrEqual(40);
    expect(measureEvery(0, 25, 40)).toBe(25);
  });
});
