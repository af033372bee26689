// The scaling laws of Kaplan et al. (2020): a language model's test loss as a power law in its
// parameters N, its data D and its compute C, each when the other two do not limit it,
//   L(X) = (X_c / X)^α_X   (nats per token),
// with the paper's fitted constants, and the curves the slide draws of them. DOM-free.
import { powerLawAt, type PowerLaw } from './power-law';

export const KAPLAN_2020 = {
  authors: 'Kaplan et al.',
  year: 2020,
  title: 'Scaling Laws for Neural Language Models',
  arxiv: '2001.08361',
} as const;

export type ScalingResource = 'N' | 'D' | 'C';

export interface PublishedLaw {
  resource: ScalingResource;
  /** what X counts, for an axis */
  quantity: string;
  unit: string;
  /** α_X: the loss falls as X^−α */
  alpha: number;
  /** X_c: where the law's loss would be 1 nat per token */
  scale: number;
  /** the range of X the slide draws the law over: about the paper's, a decade per tick */
  range: readonly [number, number];
}

/** Kaplan et al. (2020), equations 1.1–1.3 */
export const PUBLISHED_LAWS: Readonly<Record<ScalingResource, PublishedLaw>> = {
  N: { resource: 'N', quantity: 'parameters (non-embedding)', unit: 'parameters', alpha: 0.076, scale: 8.8e13, range: [1e6, 1e10] },
  D: { resource: 'D', quantity: 'data', unit: 'tokens', alpha: 0.095, scale: 5.4e13, range: [1e8, 1e12] },
  C: { resource: 'C', quantity: 'compute (C_min)', unit: 'PF-days', alpha: 0.05, scale: 3.1e8, range: [1e-4, 1e3] },
};

/** the law as y = c·x^k: k = −α, c = X_c^α */
export function asPowerLaw(law: PublishedLaw): Pick<PowerLaw, 'exponent' | 'coefficient'> {
  return { exponent: -law.alpha, coefficient: law.scale ** law.alpha };
}

/** the law's loss at x, in nats per token */
export function publishedLoss(law: PublishedLaw, x: number): number {
  return powerLawAt(asPowerLaw(law), x);
}

/** `count` points evenly spaced in log x over [lo, hi] (count ≥ 2), both ends included */
export function logSpaced(lo: number, hi: number, count: number): number[] {
  const [a, b] = [Math.log(lo), Math.log(hi)];
  return Array.from({ length: count }, (_, i) => Math.exp(a + ((b - a) * i) / (count - 1)));
}

/** the law over its range, one point per decade (a straight line on log-log axes): x and the loss */
export function lawCurve(law: PublishedLaw): { x: number[]; y: number[] } {
  const [lo, hi] = law.range;
  const x = logSpaced(lo, hi, Math.max(2, Math.round(Math.log10(hi / lo)) + 1));
  return { x, y: x.map((v) => publishedLoss(law, v)) };
}

/** whether every value is smaller than the one before it */
export function decreasesStrictly(values: readonly number[]): boolean {
  return values.every((v, i) => i === 0 || v < values[i - 1]);
}

/** The toy experiment the slide measures (and scripts/store-measurements.ts stored): one task, one
 * step budget, five widths (heads and d_ff growing with them). The budget is short enough for a few
 * seconds per size on two cores, and long enough that the loss falls with every size at every seed
 * tried (1 … 20). */
export const TOY_EXPERIMENT = {
  task: 'sort',
  steps: 200,
  batch: 32,
  learningRate: 3e-3,
  warmup: 20,
  layers: 2,
  sizes: [{ dModel: 8, heads: 1 }, { dModel: 16, heads: 2 }, { dModel: 32, heads: 4 }, { dModel: 48, heads: 4 }, { dModel: 64, heads: 4 }],
  ffnFactor: 4,
  /** held-out strings the loss is averaged over */
  evaluated: 200,
  /** the first run's seed ("Measure again" takes the next) */
  seed: 1,
} as const;

/** the engine's trainer options for one size of the toy experiment at a seed */
export function toyTrainerOptions(size: { dModel: number; heads: number }, seed: number) {
  const e = TOY_EXPERIMENT;
  return { task: e.task, seed, steps: e.steps, batchSize: e.batch, learningRate: e.learningRate, warmupSteps: e.warmup,
    size: { dModel: size.dModel, heads: size.heads, layers: e.layers, dFF: e.ffnFactor * size.dModel } };
}

/** one size of the toy experiment, measured */
export interface ToyMeasurement {
  parameters: number;
  loss: number;
  /** the median round trip of one training step */
  msPerStep: number;
  /** its engine calls, waits included */
  ms: number;
}

