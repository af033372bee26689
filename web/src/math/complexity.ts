// What the complexity slide reads off its measured times: the sizes it sweeps, when repeated
// timings of a point agree (and so which point to measure next), how the slope of a cost bends from
// the short end to the long end, and where one cost overtakes another. DOM-free.
import { fitPowerLaw } from './power-law';

/** from, 2·from, 4·from, … up to `to` (inclusive when reached by doubling) */
export function doublings(from: number, to: number): number[] {
  if (!(from > 0) || !Number.isFinite(to)) throw new Error('doublings: need a positive start and a finite end');
  const sizes: number[] = [];
  for (let x = from; x <= to; x *= 2) sizes.push(x);
  return sizes;
}

/** Whether repeated timings of one point agree: the two fastest within a factor `tolerance` of each
 * other. Another program busy for a while slows a timing down, never speeds one up, so the fastest
 * two agreeing says neither was slowed much. */
export function timingsAgree(times: readonly number[], tolerance: number): boolean {
  if (times.length < 2) return false;
  const [fastest, next] = [...times].sort((a, b) => a - b);
  return next <= fastest * tolerance;
}

/** The fitted slopes over the first `span` points and over the last `span`: how a cost that is not
 * one power law (n·d² + n²·d) bends, from a few points at each end rather than two, which noise
 * would swing. `undefined` unless there are more than `span` points (else both ends are the same). */
export function endSlopes(points: readonly (readonly [number, number])[], span = 3): [number, number] | undefined {
  if (points.length <= span) return undefined;
  return [fitPowerLaw(points.slice(0, span)).exponent, fitPowerLaw(points.slice(-span)).exponent];
}

/** The x at which `rising` first becomes larger than `other` (both measured at the same increasing
 * x), interpolating ln(rising/other) linearly in ln x between the two measured x on either side.
 * `undefined` if it is larger from the first x on, or never. */
export function overtakes(x: readonly number[], rising: readonly number[], other: readonly number[]): number | undefined {
  const gap = x.map((_, i) => Math.log(rising[i] / other[i]));
  if (!(gap[0] < 0)) return undefined;
  for (let i = 1; i < x.length; i++) {
    if (gap[i] >= 0) {
      const share = -gap[i - 1] / (gap[i] - gap[i - 1]);
      return Math.exp(Math.log(x[i - 1]) + share * Math.log(x[i] / x[i - 1]));
    }
  }
  return undefined;
}

/** How often each point is measured: at least `least` passes, then one more while its two fastest
 * medians differ by more than the factor `agreement`, up to `most`. */
export interface PassRule {
  least: number;
  most: number;
  agreement: number;
}

/** the passes a point needs, as far as its medians so far tell */
export function passesNeeded(medians: readonly number[], { least, most, agreement }: PassRule): number {
  const passes = medians.length;
  if (passes < least) return least;
  return passes >= most || timingsAgree(medians, agreement) ? passes : passes + 1;
}

/** The next measurement of a plan measured in passes over the whole plan: the first point in the
 * earliest pass not done, and that pass (counted from 1); undefined once every point has its passes. */
export function nextMeasurement<P>(plan: readonly P[], medians: (point: P) => readonly number[], rule: PassRule): { point: P; pass: number } | undefined {
  const pending = plan.filter((point) => medians(point).length < passesNeeded(medians(point), rule));
  if (pending.length === 0) return undefined;
  const pass = Math.min(...pending.map((point) => medians(point).length)) + 1;
  return { point: pending.find((point) => medians(point).length + 1 === pass)!, pass };
}

/** what the complexity slide times: one head's attention, the four projections, the GELU FFN */
export type ComplexityKernel = 'single_head' | 'projections' | 'feed_forward';
export const COMPLEXITY_KERNELS: readonly ComplexityKernel[] = ['single_head', 'projections', 'feed_forward'];

/** How the complexity slide measures: n doubles from `shortestN` at the chosen width, d doubles
 * over `dSweep` at n = `dSweepN`; a point is the median of at least `repeats` calls lasting at
 * least `minMs` together, measured in passes over the whole plan until its two fastest medians
 * agree within a factor 1.25, keeping its fastest: another program busy for a while slows
 * measurements down, never speeds one up, and a whole pass lies between two measurements of a point. */
export const COMPLEXITY_TIMING = {
  shortestN: 128,
  dSweepN: 512,
  dSweep: doublings(32, 256),
  repeats: 5,
  minMs: 80,
  passes: { least: 2, most: 4, agreement: 1.25 } as PassRule,
} as const;

/** one point of the complexity slide's plan */
export interface ComplexityPoint { kernel: ComplexityKernel; n: number; d: number }
export const complexityKey = ({ kernel, n, d }: ComplexityPoint) => `${kernel} ${n} ${d}`;

/** the points to measure at width `d` up to `maxN`, in order: each n for the three kernels in
 * turn, then the d sweep (a point in both is measured once) */
export function complexityPlan(d: number, maxN: number): ComplexityPoint[] {
  const T = COMPLEXITY_TIMING;
  const points = new Map<string, ComplexityPoint>();
  const add = (n: number, width: number) => {
    for (const kernel of COMPLEXITY_KERNELS) points.set(complexityKey({ kernel, n, d: width }), { kernel, n, d: width });
  };
  for (const n of doublings(T.shortestN, maxN)) add(n, d);
  for (const width of T.dSweep) add(T.dSweepN, width);
  return [...points.values()];
}
