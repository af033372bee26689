// Colour scales for heatmaps and matrix cells. DOM-free: returns CSS colour strings.

type Rgb = readonly [number, number, number];

// A perceptually ordered light-to-dark blue ramp (for weights in [0, 1]).
const SEQUENTIAL: readonly Rgb[] = [
  [247, 251, 255], [198, 219, 239], [107, 174, 214], [33, 113, 181], [8, 48, 107],
];
// Blue (negative) – white – red (positive), for signed values.
const DIVERGING: readonly Rgb[] = [
  [33, 102, 172], [146, 197, 222], [247, 247, 247], [244, 165, 130], [178, 24, 43],
];

function sample(ramp: readonly Rgb[], t: number): Rgb {
  const x = Math.min(1, Math.max(0, t)) * (ramp.length - 1);
  const i = Math.min(ramp.length - 2, Math.floor(x));
  const f = x - i;
  const [a, b] = [ramp[i], ramp[i + 1]];
  return [0, 1, 2].map((c) => Math.round(a[c] + (b[c] - a[c]) * f)) as unknown as Rgb;
}

/** t ∈ [0, 1] → colour on the sequential ramp. */
export function sequential(t: number): Rgb {
  return sample(SEQUENTIAL, t);
}

/** v ∈ [−range, range] → colour on the diverging ramp (white at 0). */
export function diverging(v: number, range: number): Rgb {
  return sample(DIVERGING, range > 0 ? 0.5 + v / (2 * range) : 0.5);
}

export function css([r, g, b]: Rgb): string {
  return `rgb(${r}, ${g}, ${b})`;
}

/** Black or white text, whichever reads better on the given background. */
export function textOn([r, g, b]: Rgb): string {
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? '#111' : '#fff';
}
