import { describe, expect, it } from 'vitest';
import { colourMaps, contrastRatio, css, LIGHT_PAGE, parseColour, textOn } from '../../web/src/math/colormap';
import { formatBytes, formatCount, formatDuration, formatNumber, formatSigned, formatSignificant, subscript } from '../../web/src/math/format';
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

describe('formatDuration', () => {
  it('writes milliseconds, and seconds from one on, to three significant digits', () => {
    expect(formatDuration(1.7649)).toBe('1.76 ms');
    expect(formatDuration(999)).toBe('999 ms');
    expect(formatDuration(2345)).toBe('2.35 s');
  });
});

describe('formatSigned', () => {
  it('puts a plus sign before a positive difference, a true minus before a negative one', () => {
    expect(formatSigned(0.0121, 4)).toBe('+0.0121');
    expect(formatSigned(-0.5, 4)).toBe('−0.5000');
    expect(formatSigned(0)).toBe('0.00');
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

describe('colour maps', () => {
  const page = { light: [255, 255, 255], dark: [18, 21, 28] } as const;
  const brightness = ([r, g, b]: readonly number[]) => 0.299 * r + 0.587 * g + 0.114 * b;
  it('are the background at zero, on either theme', () => {
    for (const background of Object.values(page)) {
      const maps = colourMaps(background);
      expect(maps.sequential(0)).toEqual(background);
      expect(maps.sequential(-1)).toEqual(background);
      expect(maps.diverging(0, 1)).toEqual(background);
      expect(maps.diverging(0.3, 0)).toEqual(background);
    }
  });
  it('saturate at the ends: darker on the light page, brighter on the dark one', () => {
    const light = colourMaps(page.light);
    expect(css(light.sequential(1))).toBe('rgb(8, 48, 107)');
    expect(css(light.diverging(5, 1))).toBe('rgb(178, 24, 43)');
    expect(css(light.diverging(-5, 1))).toBe('rgb(33, 102, 172)');
    const dark = colourMaps(page.dark);
    for (let t = 0.1; t <= 1; t += 0.1) {
      expect(brightness(dark.sequential(t))).toBeGreaterThan(brightness(dark.sequential(t - 0.1)));
      expect(brightness(light.sequential(t))).toBeLessThan(brightness(light.sequential(t - 0.1)));
      expect(brightness(dark.diverging(t, 1))).toBeGreaterThan(brightness(page.dark));
      expect(brightness(dark.diverging(-t, 1))).toBeGreaterThan(brightness(page.dark));
    }
    // blue below zero, red above, on both
    for (const maps of [light, dark]) {
      const [r1, , b1] = maps.diverging(-1, 1);
      const [r2, , b2] = maps.diverging(1, 1);
      expect(b1).toBeGreaterThan(r1);
      expect(r2).toBeGreaterThan(b2);
    }
  });
  it('pick readable text', () => {
    expect(textOn(LIGHT_PAGE.sequential(0))).toBe('#111');
    expect(textOn(LIGHT_PAGE.sequential(1))).toBe('#fff');
    expect(textOn(colourMaps(page.dark).sequential(0))).toBe('#fff');
    expect(textOn(colourMaps(page.dark).sequential(1))).toBe('#111');
    // on every colour of both maps, at both ends and between, the text chosen reads at 4:1 or better
    // (a mid-tone lets neither black nor white reach much more)
    const text = (t: string): [number, number, number] => (t === '#111' ? [17, 17, 17] : [255, 255, 255]);
    for (const maps of [LIGHT_PAGE, colourMaps(page.dark)]) {
      for (let k = 0; k <= 20; k++) {
        for (const colour of [maps.sequential(k / 20), maps.diverging(k / 10 - 1, 1)]) {
          expect(contrastRatio(colour, text(textOn(colour))), String(colour)).toBeGreaterThanOrEqual(4);
        }
      }
    }
    // a salmon red of the diverging map takes black, where white falls near 2:1
    expect(textOn([244, 165, 130])).toBe('#111');
    expect(contrastRatio([255, 255, 255], [0, 0, 0])).toBeCloseTo(21, 5);
  });
  it('read CSS colours', () => {
    expect(parseColour(' #12151c')).toEqual([18, 21, 28]);
    expect(parseColour('#fff')).toEqual([255, 255, 255]);
    expect(parseColour('rgb(1, 2, 3)')).toEqual([1, 2, 3]);
    expect(parseColour('rgba(10 20 30 / 50%)')).toEqual([10, 20, 30]);
    expect(parseColour('var(--x)')).toBeUndefined();
    expect(parseColour('')).toBeUndefined();
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
