import { describe, expect, it } from 'vitest';
import { axisTicks, formatTick, labelStep, logAxis, niceTicks, spreadLabels, thinLabels, thinTicks } from '../../web/src/math/ticks';

describe('niceTicks', () => {
  it('steps a linear axis by 1, 2 or 5 times a power of ten, covering the range', () => {
    expect(niceTicks(0, 600)).toEqual([0, 100, 200, 300, 400, 500, 600]);
    expect(niceTicks(-0.2, 1.2)).toEqual([-0.5, 0, 0.5, 1, 1.5]);
    expect(niceTicks(0.13, 0.91)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
  });
  it('puts 2 and 5 between the powers of ten of a log axis over fewer than three decades', () => {
    expect(niceTicks(0.03, 0.4, true)).toEqual([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1]);
    expect(niceTicks(3, 90000, true)).toEqual([1, 10, 100, 1000, 10000, 100000]);
  });
});

describe('logAxis', () => {
  it('puts powers of ten at aligned multiples of a round number of decades, ending on ticks', () => {
    const { ticks, range } = logAxis(4e-45, 87);
    expect(ticks.map((t) => Math.round(Math.log10(t)))).toEqual([-50, -40, -30, -20, -10, 0, 10]);
    expect(range).toEqual([1e-50, 1e10]);
    const small = logAxis(0.05, 300);
    expect(small.ticks.map((t) => Math.round(Math.log10(t)))).toEqual([-2, -1, 0, 1, 2, 3]);
  });
  it('uses 1-2-5 steps over fewer than three decades, from just below the data to just above', () => {
    const { ticks, range } = logAxis(84, 253);
    expect(ticks).toEqual([50, 100, 200, 500]);
    expect(range).toEqual([50, 500]);
    expect(logAxis(0.35, 2.14).ticks).toEqual([0.2, 0.5, 1, 2, 5]);
    expect(logAxis(0.1, 2).ticks).toEqual([0.1, 0.2, 0.5, 1, 2]);
  });
});

describe('axisTicks', () => {
  it('reaches just past the data to round ticks', () => {
    expect(axisTicks(0.13, 0.91)).toEqual({ ticks: [0, 0.2, 0.4, 0.6, 0.8, 1], range: [0, 1] });
    expect(axisTicks(84, 253, { log: true }).range).toEqual([50, 500]);
  });
  it('keeps a fixed range, with the ticks inside it', () => {
    expect(axisTicks(0, 0, { fixed: [-0.2, 1.2] })).toEqual({ ticks: [0, 0.5, 1], range: [-0.2, 1.2] });
    expect(axisTicks(0, 0, { log: true, fixed: [256, 16384] }).ticks).toEqual([1000, 10000]);
  });
  it('takes chosen ticks, spanning them and the data', () => {
    expect(axisTicks(100, 300, { chosen: [128, 256] })).toEqual({ ticks: [128, 256], range: [100, 300] });
    expect(axisTicks(150, 200, { log: true, chosen: [128, 256], fixed: [110, 300] })).toEqual({ ticks: [128, 256], range: [110, 300] });
    expect(axisTicks(1, 10, { chosen: [] })).toEqual({ ticks: [], range: [1, 10] });
  });
});

describe('formatTick', () => {
  it('writes ticks exactly, with as few decimals as they need', () => {
    expect(formatTick(16384)).toBe('16384');
    expect(formatTick(0.25)).toBe('0.25');
    expect(formatTick(2.5)).toBe('2.5');
    expect(formatTick(-0.2)).toBe('−0.2');
    expect(formatTick(0)).toBe('0');
  });
  it('writes powers of ten on a log axis as superscripts from 1000 up and under 0.01', () => {
    expect(formatTick(1000, true)).toBe('10³');
    expect(formatTick(1e-30, true)).toBe('10⁻³⁰');
    expect(formatTick(100, true)).toBe('100');
    expect(formatTick(0.01, true)).toBe('0.01');
    expect(formatTick(1000)).toBe('1000');
  });
  it('writes very large and very small values with a power of ten on any axis', () => {
    expect(formatTick(2e5)).toBe('2 × 10⁵');
    expect(formatTick(2.5e-5, true)).toBe('2.5 × 10⁻⁵');
    expect(formatTick(1e6)).toBe('10⁶');
  });
});

describe('thinTicks', () => {
  it('keeps every label that fits', () => {
    expect(thinTicks([0, 40, 80], [20, 20, 20])).toEqual([0, 1, 2]);
  });
  it('keeps every k-th label from the first when they would touch', () => {
    expect(thinTicks([0, 20, 40, 60, 80], [20, 20, 20, 20, 20])).toEqual([0, 2, 4]);
    expect(thinTicks([0, 40, 80, 120], [60, 60, 60, 60])).toEqual([0, 2]);
    expect(thinTicks([0, 10, 20], [40, 40, 40])).toEqual([0]);
  });
});

describe('spreadLabels', () => {
  it('leaves labels far enough apart where they are', () => {
    expect(spreadLabels([50, 10, 90], 12, 0, 100)).toEqual([50, 10, 90]);
  });
  it('moves labels that would overlap apart, keeping their order', () => {
    expect(spreadLabels([50, 48, 10], 12, 0, 100)).toEqual([60, 48, 10]);
  });
  it('keeps them inside the range, backing up from its end', () => {
    expect(spreadLabels([99, 98, 97], 10, 0, 100)).toEqual([100, 90, 80]);
    expect(spreadLabels([-5], 10, 0, 100)).toEqual([0]);
  });
});

describe('labelStep', () => {
  it('is the smallest round step that spaces labels far enough apart', () => {
    expect(labelStep(20, 15)).toBe(1);
    expect(labelStep(4.84, 15)).toBe(4);
    expect(labelStep(2.42, 15)).toBe(8);
    expect(labelStep(0.1, 15)).toBe(200);
    expect(labelStep(0, 15)).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe('thinLabels', () => {
  /** the gaps between neighbouring labels kept, in px */
  const gaps = (kept: number[], pitch: number) => kept.slice(1).map((i, k) => (i - kept[k]) * pitch);

  // the explorer's sentences of 64 and 128 tokens: a 310 px heatmap (rows; columns written at 60°,
  // so sin 60° · the cell apart across their lines), a 440 px head view, a 122 px thumbnail
  for (const count of [64, 128]) {
    for (const [name, pitch] of [['rows', 310 / count], ['columns', (310 / count) * Math.sin(Math.PI / 3)], ['head view', 440 / count], ['thumbnail', 122 / count]] as const) {
      it(`keeps ${count} ${name} labels apart, the hovered one among them wherever it is`, () => {
        for (const hovered of [undefined, 0, 1, 5, 31, count - 2, count - 1]) {
          const kept = thinLabels(count, pitch, 15, hovered === undefined ? [] : [hovered]);
          expect(Math.min(...gaps(kept, pitch))).toBeGreaterThanOrEqual(15 - 1e-9);
          if (hovered !== undefined) expect(kept).toContain(hovered);
          expect(kept.length).toBeGreaterThanOrEqual(Math.floor((count * pitch) / 15 / 2.5));
          expect(kept).toEqual([...kept].sort((a, b) => a - b));
        }
      });
    }
  }
  it('keeps every label when there is room, and the first of those to keep that are too close', () => {
    expect(thinLabels(5, 20, 15)).toEqual([0, 1, 2, 3, 4]);
    expect(thinLabels(10, 5, 15)).toEqual([0, 4, 8]);
    expect(thinLabels(10, 5, 15, [5])).toEqual([0, 5, 8]);
    expect(thinLabels(10, 5, 15, [5, 6, 9])).toEqual([0, 5, 9]);
    expect(thinLabels(10, 5, 15, [-1, 10, 2.5])).toEqual([0, 4, 8]);
  });
});
