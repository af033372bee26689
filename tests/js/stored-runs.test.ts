import { describe, expect, it } from 'vitest';
import { COMPLEXITY_TIMING, complexityPlan } from '../../web/src/math/complexity';
import { NAIVE_LONGEST, sweepPlan } from '../../web/src/math/flash';
import { fitPowerLaw } from '../../web/src/math/power-law';
import { fieldFor } from '../../web/src/runtime/state';
import { TOY_EXPERIMENT } from '../../web/src/math/scaling-laws';
import { describeMeasuredOn, shortMeasuredOn, STORED_COMPLEXITY, STORED_SEED, STORED_SWEEP, STORED_TOY_EXPERIMENT, storedTrainingRun, TRAINING_MEASURES } from '../../web/src/math/stored-runs';
import { bucketMeans, bucketSize, measureEvery } from '../../web/src/math/training';

// The stored runs and measurements (scripts/store-measurements.ts) have the shape the slides measure
// theirs in: the curves bucketed and the held-out loss at the steps the training slide uses, the toy
// experiment's five sizes, the flash sweep's every point; and each says where it was made.
// (The timed browser tests hold the page's own runs to the stored numbers.)

const on = { date: '2026-11-28', machine: 'Intel(R) Xeon(R) Processor, 2 cores', build: 'Node 20.20.2, engine simd-threads, 2 threads' };

describe('the stored runs and measurements', () => {
  it('hold a training run for every task the slide offers, measured at the slide\'s steps', () => {
    for (const task of ['copy', 'reverse', 'sort', 'coreference']) {
      const run = storedTrainingRun(task, STORED_SEED);
      expect(run, task).toBeDefined();
      if (!run) continue;
      expect(run.bucket).toBe(bucketSize(run.totalSteps, TRAINING_MEASURES.curvePoints));
      // the buckets' steps, as the slide would average a run of this length
      expect(run.loss.x).toEqual(bucketMeans(new Array(run.totalSteps).fill(0), run.bucket).x);
      expect(run.accuracy.x).toEqual(run.loss.x);
      const every = measureEvery(run.totalSteps, TRAINING_MEASURES.attentionEvery, TRAINING_MEASURES.heldOutPoints);
      expect(run.heldOut.x).toEqual(Array.from({ length: Math.ceil(run.totalSteps / every) }, (_, i) => Math.min(run.totalSteps, (i + 1) * every)));
      // a run that learnt: the loss falls, the accuracy rises
      expect(run.heldOut.y[run.heldOut.y.length - 1]).toBeLessThan(run.heldOut.y[0] / 4);
      expect(run.accuracy.y[run.accuracy.y.length - 1]).toBeGreaterThan(run.accuracy.y[0]);
      expect(run.heldOutAccuracy).toBeGreaterThan(0.5);
      expect(run.measuredOn.date).toMatch(/^\d{4}-\d\d-\d\d$/);
    }
    expect(storedTrainingRun('copy', STORED_SEED + 1)).toBeUndefined();
  });

  it('hold the toy experiment\'s five sizes: more parameters, less loss', () => {
    const sizes = STORED_TOY_EXPERIMENT.sizes;
    expect(STORED_TOY_EXPERIMENT.seed).toBe(TOY_EXPERIMENT.seed);
    expect(sizes).toHaveLength(TOY_EXPERIMENT.sizes.length);
    sizes.forEach((m, i) => {
      if (i === 0) return;
      expect(m.parameters).toBeGreaterThan(sizes[i - 1].parameters);
      expect(m.loss).toBeLessThan(sizes[i - 1].loss);
    });
    for (const m of sizes) expect(m.msPerStep).toBeGreaterThan(0);
  });

  it('hold every point of the flash sweep to its longest n', () => {
    expect(STORED_SWEEP.points.map(({ kernel, n }) => ({ kernel, n }))).toEqual(sweepPlan(STORED_SWEEP.longest, NAIVE_LONGEST));
    const flash = STORED_SWEEP.points.filter((p) => p.kernel === 'flash');
    // flash's peak grows like n, naive's like n²
    expect(flash[flash.length - 1].peakBytes).toBeLessThan(64e6);
    const naive = STORED_SWEEP.points.filter((p) => p.kernel === 'naive');
    expect(naive[naive.length - 1].peakBytes).toBeGreaterThanOrEqual(4 * NAIVE_LONGEST ** 2);
  });

  it('hold every point of the complexity slide\'s plan at its defaults, each the fastest of its passes', () => {
    const S = STORED_COMPLEXITY;
    expect([S.d, S.maxN]).toEqual(['d', 'maxN'].map((a) => Number(fieldFor('attn-complexity', a)!.default)));
    expect(S.points.map(({ kernel, n, d }) => ({ kernel, n, d }))).toEqual(complexityPlan(S.d, S.maxN));
    for (const p of S.points) {
      expect(p.medians.length).toBeGreaterThanOrEqual(COMPLEXITY_TIMING.passes.least);
      expect(p.medianMs).toBe(Math.min(...p.medians));
      expect(p.repeats).toBeGreaterThanOrEqual(COMPLEXITY_TIMING.repeats * p.medians.length);
    }
    // what the slide says of it: attention's time grows like n² over the upper lengths, the projections' like n
    const slope = (kernel: string, from: number) => fitPowerLaw(S.points.filter((p) => p.kernel === kernel && p.d === S.d && p.n >= from)
      .map((p) => [p.n, p.medianMs] as [number, number])).exponent;
    expect(slope('single_head', 512)).toBeGreaterThan(1.6);
    expect(slope('projections', 512)).toBeLessThan(1.4);
    expect(S.measuredOn.date).toMatch(/^\d{4}-\d\d-\d\d$/);
  });

  it('say where they were measured, in full and in short', () => {
    expect(describeMeasuredOn(on)).toBe('2026-11-28, Intel(R) Xeon(R) Processor, 2 cores; Node 20.20.2, engine simd-threads, 2 threads');
    expect(shortMeasuredOn(on)).toBe('2026-11-28 on Intel Xeon, 2 cores, Node 20.20.2');
  });
});
