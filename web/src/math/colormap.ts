// The page's one colour language: a sequential map for weights in [0, 1] and a diverging map for
// signed values, made for the background they are drawn on. Zero is the background colour itself
// (white on the light page, the dark page's own colour on the dark one), so that weights near zero
// read as nothing and only strong ones stand out; on a dark background strength grows brighter, as
// it grows darker on a light one. DOM-free: colours are [r, g, b] and CSS strings.

export type Rgb = readonly [number, number, number];

export interface ColourMaps {
  /** t ∈ [0, 1] → colour, from the background (0) to the strongest (1) */
  sequential(t: number): Rgb;
  /** v ∈ [−range, range] → colour: blue below zero, the background at zero, red above */
  diverging(v: number, range: number): Rgb;
}

// the stops after the background, from weak to strong: blues for weights; for signed values the
// negative side is listed strong to weak, the positive side weak to strong
const RAMPS = {
  light: {
    sequential: [[198, 219, 239], [107, 174, 214], [33, 113, 181], [8, 48, 107]],
    negative: [[33, 102, 172], [146, 197, 222]],
    positive: [[244, 165, 130], [178, 24, 43]],
  },
  dark: {
    sequential: [[18, 58, 108], [33, 108, 174], [98, 166, 218], [206, 230, 250]],
    negative: [[150, 200, 245], [44, 104, 170]],
    positive: [[176, 48, 52], [255, 162, 132]],
  },
} as const;

function sample(ramp: readonly Rgb[], t: number): Rgb {
  const x = Math.min(1, Math.max(0, t)) * (ramp.length - 1);
  const i = Math.min(ramp.length - 2, Math.floor(x));
  const f = x - i;
  const [a, b] = [ramp[i], ramp[i + 1]];
  return [0, 1, 2].map((c) => Math.round(a[c] + (b[c] - a[c]) * f)) as unknown as Rgb;
}

/** perceived brightness of a colour, 0 … 255 */
const brightness = ([r, g, b]: Rgb) => 0.299 * r + 0.587 * g + 0.114 * b;

/** The two maps for pictures drawn on `background`: the dark ramps on a dark one. */
export function colourMaps(background: Rgb): ColourMaps {
  const ramps = brightness(background) < 128 ? RAMPS.dark : RAMPS.light;
  const sequentialRamp = [background, ...ramps.sequential];
  const divergingRamp = [...ramps.negative, background, ...ramps.positive];
  return {
    sequential: (t) => sample(sequentialRamp, t),
    diverging: (v, range) => sample(divergingRamp, range > 0 ? 0.5 + v / (2 * range) : 0.5),
  };
}

/** The strength a mask's open cell (a key the query may see) is drawn at on the sequential map: a
 * clear blue in both themes, as attention that may flow; a closed cell (−∞) is the background, as
 * the weight it gets. The same in every picture of a mask, on either page. */
export const MASK_OPEN = 0.65;

/** the maps on a white page (where no element says otherwise) */
export const LIGHT_PAGE = colourMaps([255, 255, 255]);

/** "#abc", "#aabbcc", "rgb(1, 2, 3)" or "rgba(1, 2, 3, 0.5)" → [r, g, b]; undefined for anything else */
export function parseColour(text: string): Rgb | undefined {
  const value = text.trim();
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(value)?.[1];
  if (hex) {
    const digits = hex.length === 3 ? [...hex].map((d) => d + d) : [hex.slice(0, 2), hex.slice(2, 4), hex.slice(4, 6)];
    return digits.map((d) => parseInt(d, 16)) as unknown as Rgb;
  }
  const rgb = /^rgba?\(\s*(\d+(?:\.\d+)?)[\s,]+(\d+(?:\.\d+)?)[\s,]+(\d+(?:\.\d+)?)/i.exec(value);
  return rgb ? [Number(rgb[1]), Number(rgb[2]), Number(rgb[3])] : undefined;
}

export function css([r, g, b]: Rgb): string {
  return `rgb(${r}, ${g}, ${b})`;
}

/** WCAG's relative luminance of a colour, 0 … 1 */
export function luminance(colour: Rgb): number {
  const linear = (c: number) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
  return 0.2126 * linear(colour[0]) + 0.7152 * linear(colour[1]) + 0.0722 * linear(colour[2]);
}

/** WCAG's contrast ratio of two colours, 1 … 21 */
export function contrastRatio(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

const NEAR_BLACK: Rgb = [17, 17, 17];
const WHITE: Rgb = [255, 255, 255];

/** Black or white text, whichever has the higher contrast on the given background (a mid-tone
 * such as salmon takes black: white on it falls near 2:1). */
export function textOn(colour: Rgb): string {
  return contrastRatio(colour, NEAR_BLACK) >= contrastRatio(colour, WHITE) ? '#111' : '#fff';
}
