import { describe, expect, it } from 'vitest';
import { css, diverging, sequential, textOn } from '../../web/src/math/colormap';
import { formatBytes, formatCount, formatNumber, formatSignificant, subscript } from '../../web/src/math/format';
import { at, fromRows, maxAbsFinite, row } from '../../web/src/math/matrix';

describe('subscript', () => {
  it('writes each digit as a subscript', () => {
    expect(subscript(0)).toBe('₀');
    expect(subscript(1207)).toBe('₁₂₀₇');
  });
});

describe('formatCount', () => {
  it('groups thousands as English does', () => {
    for (const n of [0, 7, 999, 1000, 12345, 999999, 1000000, 124439808, 2 ** 40]) expect(formatCount(n)).toBe(n.toLocaleString('en'));
    expect(formatCount(-1234)).toBe('−1,234');
    expect(formatCount(Infinity)).toBe('∞');
  });
});

describe('formatBytes', () => {
  it('writes binary units with three significant digits', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(2 * 32 * 4096 * 1024 * 2)).toBe('512 MiB');
  });
});

describe('formatNumber', () => {
  it('uses a true minus sign and never prints -0', () => {
    expect(formatNumber(-1.5, 2)).toBe('−1.50');
    expect(formatNumber(-0.0001, 2)).toBe('0.00');
    expect(formatNumber(0.76791, 4)).toBe('0.7679');
  });
  it('names infinities and NaN', () => {
    expect(formatNumber(-Infinity)).toBe('−∞');
    expect(formatNumber(Infinity)).toBe('∞');
    expect(formatNumber(NaN)).toBe('NaN');
  });
});

describe('formatSignificant', () => {
  it('keeps significant digits across many orders of magnitude', () => {
    expect(formatSignificant(0.012345, 2)).toBe('0.012');
    expect(formatSignificant(63.87, 3)).toBe('63.9');
    expect(formatSignificant(3.21e-9, 2)).toBe('3.2e−9');
    expect(formatSignificant(-4.5e7, 2)).toBe('−4.5e7');
    expect(formatSignificant(0)).toBe('0');
  });
});

describe('matrix helpers', () => {
  const m = fromRows([[1, -4], [2, -Infinity]]);
  it('index row-major', () => {
    expect(at(m, 1, 0)).toBe(2);
    expect(row(m, 0)).toEqual([1, -4]);
  });
  it('ignore infinities for the colour range', () => {
    expect(maxAbsFinite(m)).toBe(4);
  });
  it('reject ragged rows', () => {
    expect(() => fromRows([[1, 2], [3]])).toThrow(/differ in length/);
  });
});

describe('colour scales', () => {
  it('are white at zero and saturate at the ends', () => {
    expect(css(diverging(0, 1))).toBe('rgb(247, 247, 247)');
    expect(css(diverging(5, 1))).toBe('rgb(178, 24, 43)');
    expect(css(sequential(-1))).toBe('rgb(247, 251, 255)');
    expect(css(sequential(1))).toBe('rgb(8, 48, 107)');
  });
  it('pick readable text', () => {
    expect(textOn(sequential(0))).toBe('#111');
    expect(textOn(sequential(1))).toBe('#fff');
  });
});

describe('csv', () => {
  it('writes tables with exact numbers and quotes what needs it', async () => {
    const { toCsv } = await import('../../web/src/math/csv');
    const csv = toCsv([
      { caption: 'weights, layer 1', head: ['', 'the', 'say "hi"'], rows: [['the', 0.1 + 0.2, -Infinity], ['a,b', 1e-9, NaN]] },
      { rows: [['x', 2]] },
    ]);
    expect(csv).toBe('"weights, layer 1"\r\n,the,"say ""hi"""\r\nthe,0.30000000000000004,-inf\r\n"a,b",1e-9,nan\r\n\r\nx,2\r\n');
  });
});
