// Runs and measurements the deck shows at once, before the page has trained or timed anything
// itself: made earlier by `npx vite-node scripts/store-measurements.ts` (docs/models.md, "Stored
// runs and measurements") with the page's own settings, by the same engine in Node, and kept as
// JSON in stored/. The page replaces each with its own once it has one. DOM-free.
import type { SweepKernel } from './flash';
import type { ToyMeasurement } from './scaling-laws';
import type { ComplexityPoint } from './complexity';
import complexityFile from './stored/complexity.json';
import flashFile from './stored/flash.json';
import scalingLawsFile from './stored/scaling-laws.json';
import trainingFile from './stored/training-runs.json';

/** where a stored measurement was made */
export interface MeasuredOn {
  /** the day, YYYY-MM-DD */
  date: string;
  /** the processor and its cores */
  machine: string;
  /** Node's version, the engine's build and the threads it used */
  build: string;
}

/** A run of the training slide, measured as the slide measures it: the batch loss and accuracy of
 * every step in buckets of `bucket` steps (math/training.ts, bucketMeans), the held-out loss every
 * few steps, and the held-out accuracy at the end. */
export interface StoredTrainingRun {
  task: string;
  seed: number;
  totalSteps: number;
  bucket: number;
  loss: { x: number[]; y: number[] };
  accuracy: { x: number[]; y: number[] };
  heldOut: { x: number[]; y: number[] };
  heldOutAccuracy: number;
  measuredOn: MeasuredOn;
}

/** How the training slide measures a run (the stored runs were measured the same way). */
export const TRAINING_MEASURES = {
  /** held-out examples measured (the engine's default set: seed 2026) */
  heldOut: 200,
  /** steps between two measurements of the example's attention */
  attentionEvery: 25,
  /** about this many held-out losses over a run */
  heldOutPoints: 40,
  /** points per curve, however long the run */
  curvePoints: 60,
} as const;

/** the seed whose runs are stored: the slide's default */
export const STORED_SEED = 7;

const trainingRuns = trainingFile as { runs: Record<string, StoredTrainingRun> };

/** the stored run of a task's demo model at a seed, if one was stored */
export function storedTrainingRun(task: string, seed: number): StoredTrainingRun | undefined {
  const run = trainingRuns.runs[task];
  return run && run.seed === seed ? run : undefined;
}

/** "2026-11-28 on Intel Xeon, 2 cores, Node": for a line of text (describeMeasuredOn has the rest) */
export function shortMeasuredOn(on: MeasuredOn): string {
  const machine = on.machine.replace(/\((R|TM)\)|\b(Processor|CPU)\b/g, '').replace(/\s+/g, ' ').replace(/ ,/g, ',').trim();
  return `${on.date} on ${machine}, ${on.build.split(',')[0]}`;
}

/** "2026-11-28, Intel(R) Xeon(R) Processor, 2 cores; Node 20.20.2, engine simd-threads, 2 threads" */
export function describeMeasuredOn(on: MeasuredOn): string {
  return `${on.date}, ${on.machine}; ${on.build}`;
}

/** The scaling-laws slide's toy experiment (math/scaling-laws.ts, TOY_EXPERIMENT) at one seed:
 * each size's measurement, in order. */
export interface StoredToyExperiment {
  seed: number;
  sizes: ToyMeasurement[];
  measuredOn: MeasuredOn;
}

export const STORED_TOY_EXPERIMENT = scalingLawsFile as StoredToyExperiment;

/** The flash slide's timing (math/flash.ts, sweepPlan) up to the slide's default longest n: each
 * kernel's median time and peak heap at each n it ran at. */
export interface StoredSweep {
  longest: number;
  points: { kernel: SweepKernel; n: number; medianMs: number; peakBytes: number }[];
  measuredOn: MeasuredOn;
}

export const STORED_SWEEP = flashFile as StoredSweep;


/** One point's timing as the complexity slide measures it: its median in each pass, the fastest
 * of them and that pass's rate, and the calls timed over every pass. */
export interface StoredTiming { medians: number[]; medianMs: number; gflops: number; repeats: number }

/** The complexity slide's measurement (math/complexity.ts, complexityPlan) at its default width and
 * longest n: every point of the plan. */
export interface StoredComplexity {
  d: number;
  maxN: number;
  points: (ComplexityPoint & StoredTiming)[];
  measuredOn: MeasuredOn;
}

export const STORED_COMPLEXITY = complexityFile as StoredComplexity;
