// Axes: which ticks to show over a range, how to write them, and where labels go so that none
// overlaps another. DOM-free.
import { formatNumber } from './format';
import { isPowerOfTen, powerOfTen, superscript } from './magnitude';

/** Round tick values covering [lo, hi]: 1-2-5 steps on a linear axis, powers of ten on a log
 * axis (with 2 and 5 between them when the range spans less than three decades). */
export function niceTicks(lo: number, hi: number, log = false, target = 6): number[] {
  if (!(hi > lo)) return [lo];
  if (log) {
    const a = Math.floor(Math.log10(lo));
    const b = Math.ceil(Math.log10(hi));
    const decades = b - a;
    const every = Math.max(1, Math.ceil(decades / target));
    const ticks: number[] = [];
    for (let e = a; e <= b; e += every) {
      ticks.push(10 ** e);
      if (decades < 3 && e < b) ticks.push(2 * 10 ** e, 5 * 10 ** e);
    }
    return ticks.filter((v) => v >= 10 ** a && v <= 10 ** b);
  }
  const raw = (hi - lo) / target;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((k) => k * magnitude).find((s) => s >= raw) ?? 10 * magnitude;
  const ticks: number[] = [];
  for (let v = Math.floor(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  if (ticks[ticks.length - 1] < hi) ticks.push(Number((ticks[ticks.length - 1] + step).toPrecision(12)));
  return ticks;
}

/** Ticks of a logarithmic axis over [lo, hi] (0 < lo ≤ hi) and the axis's ends. Over three decades
 * or more: powers of ten every k decades (k from 1, 2, 3, 4, 5, 10, 15, 20, … so that at most
 * `target` + 1 ticks show), at multiples of k, with the axis ending on a tick at both ends; over
 * fewer: niceTicks' 1-2-5 steps from the last at or below lo to the first at or above hi. */
export function logAxis(lo: number, hi: number, target = 6): { ticks: number[]; range: [number, number] } {
  const a = Math.floor(Math.log10(lo));
  const b = Math.ceil(Math.log10(hi));
  if (b - a < 3) {
    const all = niceTicks(lo, hi, true);
    const below = all.filter((v) => v <= lo).length;
    const last = all.findIndex((v) => v >= hi);
    const ticks = all.slice(Math.max(0, below - 1), last === -1 ? all.length : last + 1);
    return { ticks, range: [Math.min(lo, ticks[0]), Math.max(hi, ticks[ticks.length - 1])] };
  }
  const steps = [1, 2, 3, 4, 5, 10, 15, 20, 25, 30, 40, 50, 100];
  const every = steps.find((k) => Math.ceil(b / k) - Math.floor(a / k) <= target) ?? Math.ceil((b - a) / target);
  const start = Math.floor(a / every) * every;
  const end = Math.ceil(b / every) * every;
  const ticks: number[] = [];
  for (let e = start; e <= end; e += every) ticks.push(10 ** e);
  return { ticks, range: [ticks[0], ticks[ticks.length - 1]] };
}

/** The ticks and ends of an axis over [lo, hi]: round values reaching just past the data (a log
 * axis as logAxis chooses them), or `chosen` ticks (the sizes measured, say) with the axis spanning
 * them and the data. A `fixed` range is kept as it is, with the ticks inside it. */
export function axisTicks(lo: number, hi: number, { log = false, chosen, fixed }: {
  log?: boolean; chosen?: readonly number[]; fixed?: [number, number];
} = {}): { ticks: number[]; range: [number, number] } {
  if (fixed) {
    const [a, b] = fixed;
    const inside = (chosen ?? (log ? logAxis(a, b).ticks : niceTicks(a, b))).filter((v) => v >= a * (1 - 1e-9) && v <= b * (1 + 1e-9));
    return { ticks: inside, range: fixed };
  }
  if (chosen) {
    return { ticks: [...chosen], range: chosen.length ? [Math.min(lo, ...chosen), Math.max(hi, ...chosen)] : [lo, hi] };
  }
  if (log) return logAxis(lo, hi);
  const ticks = niceTicks(lo, hi);
  return { ticks, range: [Math.min(lo, ticks[0]), Math.max(hi, ticks[ticks.length - 1])] };
}

/** A tick's label: as few decimals as write it exactly ("0.25", "16384"); on a log axis a power of
 * ten from 1000 up or below 0.01 as "10³"; beyond 10⁵ (or under 0.001) "2 × 10⁵" on either axis. */
export function formatTick(v: number, log = false): string {
  const a = Math.abs(v);
  if (a === 0 || !Number.isFinite(v)) return formatNumber(v, 0);
  if (log && isPowerOfTen(a) && (a >= 1000 || a < 0.01)) return `${v < 0 ? '−' : ''}${powerOfTen(Math.round(Math.log10(a)))}`;
  if (a >= 1e5 || a < 1e-3) {
    const exponent = Math.floor(Math.log10(a));
    const mantissa = Number((v / 10 ** exponent).toPrecision(3));
    return `${mantissa === 1 ? '' : `${formatNumber(mantissa, decimalsOf(mantissa))} × `}10${superscript(exponent)}`;
  }
  return formatNumber(v, decimalsOf(v));
}

/** the fewest decimals (up to 4) that write v exactly */
function decimalsOf(v: number): number {
  return [0, 1, 2, 3].find((d) => Math.abs(Number(v.toFixed(d)) - v) <= 1e-9 * Math.max(1, Math.abs(v))) ?? 4;
}

/** Which of a row of labels to write, so that none touches the next: every k-th from the first
 * (the smallest k that leaves `gap` pixels between them), given each label's centre and width. */
export function thinTicks(centres: readonly number[], widths: readonly number[], gap = 6): number[] {
  const all = centres.map((_, i) => i);
  for (let every = 1; every < centres.length; every++) {
    const kept = all.filter((i) => i % every === 0);
    const fits = kept.every((i, k) => k === 0
      || Math.abs(centres[i] - centres[kept[k - 1]]) >= (widths[i] + widths[kept[k - 1]]) / 2 + gap);
    if (fits) return kept;
  }
  return all.slice(0, 1);
}

/** Positions for labels that want to sit at `wanted` (in any order) along one line, at least `gap`
 * apart and inside [lo, hi], each moved as little as keeps them apart; returned in the same order. */
export function spreadLabels(wanted: readonly number[], gap: number, lo: number, hi: number): number[] {
  const order = wanted.map((_, i) => i).sort((i, j) => wanted[i] - wanted[j]);
  const placed = order.map((i) => Math.min(hi, Math.max(lo, wanted[i])));
  for (let k = 1; k < placed.length; k++) placed[k] = Math.max(placed[k], placed[k - 1] + gap);
  // pushed past the end: back up from it
  if (placed.length && placed[placed.length - 1] > hi) {
    placed[placed.length - 1] = hi;
    for (let k = placed.length - 2; k >= 0; k--) placed[k] = Math.min(placed[k], placed[k + 1] - gap);
  }
  const result = new Array<number>(wanted.length);
  order.forEach((i, k) => { result[i] = placed[k]; });
  return result;
}

/** the smallest k of 1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 50, 64, 100, … (then multiples of 100)
 * with k · `pitch` ≥ `extent`: every k-th of labels `pitch` apart that each need `extent` */
export function labelStep(pitch: number, extent: number): number {
  if (!(pitch > 0)) return Number.MAX_SAFE_INTEGER;
  const candidates = [1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 50, 64, 100];
  return candidates.find((k) => k * pitch >= extent) ?? 100 * Math.ceil(extent / pitch / 100);
}

/** Which of `count` labels at an even `pitch` (px between neighbours along the axis, each needing
 * `extent` px there) to write so that none touches another: every k-th from the first (labelStep),
 * and those of `keep` (a hovered or a chosen label, written whatever the step; one too close to an
 * earlier one of `keep` is left out), with the thinned ones too close to a kept one left out. In
 * increasing order. */
export function thinLabels(count: number, pitch: number, extent: number, keep: readonly number[] = []): number[] {
  const kept: number[] = [];
  for (const i of keep) {
    if (Number.isInteger(i) && i >= 0 && i < count && kept.every((k) => Math.abs(k - i) * pitch >= extent)) kept.push(i);
  }
  const step = labelStep(pitch, extent);
  const shown: number[] = [];
  for (let i = 0; i < count; i += step) if (kept.every((k) => Math.abs(k - i) * pitch >= extent)) shown.push(i);
  return [...shown, ...kept].sort((a, b) => a - b);
}
