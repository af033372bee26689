// The plots' series colours read on both themes: 3:1 contrast (WCAG's for graphics) against the
// light page and the dark page of web/src/app/theme.css.
import { describe, expect, it } from 'vitest';
import { SERIES_COLOURS } from '../../web/src/primitives/plot';

const PAGES = { light: '#ffffff', dark: '#12151c' };

/** WCAG's relative luminance of "#rrggbb" */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};

describe('SERIES_COLOURS', () => {
  for (const [name, colour] of Object.entries(SERIES_COLOURS)) {
    it(`${name} keeps 3:1 contrast on the light and the dark page`, () => {
      expect(contrast(colour, PAGES.light)).toBeGreaterThanOrEqual(3);
      expect(contrast(colour, PAGES.dark)).toBeGreaterThanOrEqual(3);
    });
  }
});
