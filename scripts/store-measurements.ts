// npx vite-node scripts/store-measurements.ts training [TASK…] | scaling-laws | flash
//
// Writes the runs and measurements the deck shows before it has made its own
// (web/src/math/stored/, read by web/src/math/stored-runs.ts): the engine of build/package in Node,
// with the page's own settings and measured the way its widgets measure.
//   training: the training slide's run of each task's demo model at the slide's default seed
//             (copy, reverse and coreference by default; sort takes 8,000 steps, about 15 minutes)
//   scaling-laws: the scaling-laws slide's toy experiment, five sizes trained on sort (a minute)
//   flash: the flash slide's timing of naive and flash attention as n doubles to 16,384 (a minute)
//   complexity: the complexity slide's timing of attention, projections and FFN at its defaults (a minute)
// Each record says when, on what machine and with which build it was made. Build the package
// first (bash scripts/build.sh engine web package).
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { bucketMeans, bucketSize, measureEvery } from '../web/src/math/training';
import { STORED_SEED, TRAINING_MEASURES, type MeasuredOn, type StoredToyExperiment, type StoredTrainingRun } from '../web/src/math/stored-runs';
import { TOY_EXPERIMENT, toyTrainerOptions, type ToyMeasurement } from '../web/src/math/scaling-laws';
import { median } from '../web/src/math/ranking';
import { NAIVE_LONGEST, sweepPlan, TIMED_WIDTH, timingOptions } from '../web/src/math/flash';
import type { StoredComplexity, StoredSweep, StoredTiming } from '../web/src/math/stored-runs';
import { COMPLEXITY_TIMING, complexityKey, complexityPlan, nextMeasurement } from '../web/src/math/complexity';
import { fieldFor } from '../web/src/runtime/state';

const STORED = new URL('../web/src/math/stored/', import.meta.url);
const PACKAGE = new URL('../build/package/index.js', import.meta.url);

const [what, ...rest] = process.argv.slice(2);
const { loadAttnlab } = await import(PACKAGE.href);
const engine = await loadAttnlab({ threads: 2 });

/** where and how this is measured */
function measuredOn(): MeasuredOn {
  const { build, threadsUsed } = engine.info;
  return {
    date: new Date().toISOString().slice(0, 10),
    machine: `${cpus()[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown processor'}, ${cpus().length} cores`,
    build: `Node ${process.versions.node}, engine ${build}, ${threadsUsed} thread${threadsUsed === 1 ? '' : 's'}`,
  };
}

/** four significant digits: the curves are drawn, not read to the last bit */
const rounded = (values: number[]) => values.map((v) => Number(v.toPrecision(4)));
const curve = ({ x, y }: { x: number[]; y: number[] }) => ({ x, y: rounded(y) });

/** one run as the training slide measures it (widgets/training.ts, trainStep and measureModel) */
function trainingRun(task: string): StoredTrainingRun {
  const trainer = engine.createTrainer({ task, seed: STORED_SEED });
  const total: number = trainer.totalSteps;
  const heldOutEvery = measureEvery(total, TRAINING_MEASURES.attentionEvery, TRAINING_MEASURES.heldOutPoints);
  const loss: number[] = [];
  const accuracy: number[] = [];
  const heldOut = { x: [] as number[], y: [] as number[] };
  for (let step = 1; step <= total; step++) {
    const result = trainer.step();
    loss.push(result.loss);
    accuracy.push(result.accuracy);
    if (step % heldOutEvery === 0 || step === total) {
      heldOut.x.push(step);
      heldOut.y.push(trainer.heldOutLoss({ count: TRAINING_MEASURES.heldOut }));
    }
    if (step % 500 === 0) console.log(`${task}: step ${step} of ${total}`);
  }
  const bucket = bucketSize(total, TRAINING_MEASURES.curvePoints);
  const run: StoredTrainingRun = {
    task, seed: STORED_SEED, totalSteps: total, bucket,
    loss: curve(bucketMeans(loss, bucket)), accuracy: curve(bucketMeans(accuracy, bucket)), heldOut: curve(heldOut),
    heldOutAccuracy: trainer.heldOutAccuracy({ count: TRAINING_MEASURES.heldOut }),
    measuredOn: measuredOn(),
  };
  trainer.dispose();
  return run;
}

/** one size of the scaling-laws slide's toy experiment, measured as the slide measures it
 * (widgets/scaling-laws.ts, trainSlice): every step timed, then the held-out loss */
function toyMeasurement(size: { dModel: number; heads: number }): ToyMeasurement {
  const trainer = engine.createTrainer(toyTrainerOptions(size, TOY_EXPERIMENT.seed));
  const stepMs: number[] = [];
  for (let step = 0; step < TOY_EXPERIMENT.steps; step++) {
    const start = performance.now();
    trainer.step();
    stepMs.push(performance.now() - start);
  }
  const start = performance.now();
  const loss: number = trainer.heldOutLoss({ count: TOY_EXPERIMENT.evaluated });
  const ms = stepMs.reduce((a, b) => a + b, 0) + performance.now() - start;
  const measured = { parameters: trainer.parameters as number, loss, msPerStep: Number(median(stepMs).toPrecision(4)), ms: Math.round(ms) };
  trainer.dispose();
  console.log(`d_model ${size.dModel}: ${JSON.stringify(measured)}`);
  return measured;
}

/** a stored file, with `update` applied to what it held */
function store<T>(name: string, update: (old: T | undefined) => T): void {
  const path = new URL(name, STORED);
  let old: T | undefined;
  try {
    old = JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    old = undefined;
  }
  writeFileSync(path, `${JSON.stringify(update(old))}\n`);
  console.log(`wrote ${path.pathname}`);
}

if (what === 'training') {
  const tasks = rest.length ? rest : ['copy', 'reverse', 'coreference'];
  const runs = Object.fromEntries(tasks.map((task) => [task, trainingRun(task)]));
  store<{ runs: Record<string, StoredTrainingRun> }>('training-runs.json', (old) => ({ runs: { ...old?.runs, ...runs } }));
} else if (what === 'scaling-laws') {
  // the engine of the page trains its sizes in a worker, one call a step; here the calls are direct
  const sizes = TOY_EXPERIMENT.sizes.map(toyMeasurement);
  store<StoredToyExperiment>('scaling-laws.json', () => ({ seed: TOY_EXPERIMENT.seed, sizes, measuredOn: measuredOn() }));
} else if (what === 'flash') {
  // the slide's default longest n; each point timed as the slide times it (widgets/flash.ts, timeNext)
  const longest = 16384;
  const points = sweepPlan(longest, NAIVE_LONGEST).map(({ kernel, n }) => {
    const { medianMs, peakBytes } = engine.benchmark({ kernel, n, d: TIMED_WIDTH, ...timingOptions(n) });
    console.log(`${kernel}, n = ${n}: ${medianMs.toFixed(1)} ms, ${peakBytes} bytes`);
    return { kernel, n, medianMs: Number(medianMs.toPrecision(4)), peakBytes };
  });
  store<StoredSweep>('flash.json', () => ({ longest, points, measuredOn: measuredOn() }));
} else if (what === 'complexity') {
  // the slide's defaults, measured in passes as the slide measures them (widgets/complexity.ts, measureNext)
  const [d, maxN] = ['d', 'maxN'].map((attribute) => Number(fieldFor('attn-complexity', attribute)!.default));
  const plan = complexityPlan(d, maxN);
  const T = COMPLEXITY_TIMING;
  const measured = new Map<string, StoredTiming>();
  const warmed = new Set<string>();
  for (let next = nextMeasurement(plan, (p) => measured.get(complexityKey(p))?.medians ?? [], T.passes); next;
    next = nextMeasurement(plan, (p) => measured.get(complexityKey(p))?.medians ?? [], T.passes)) {
    const { point } = next;
    const result = engine.benchmark({ ...point, repeats: T.repeats, minMs: T.minMs, warmUp: !warmed.has(point.kernel) });
    warmed.add(point.kernel);
    const before = measured.get(complexityKey(point));
    const fastest = before && before.medianMs <= result.medianMs ? before : result;
    measured.set(complexityKey(point), { medians: [...before?.medians ?? [], Number(result.medianMs.toPrecision(4))],
      medianMs: Number(fastest.medianMs.toPrecision(4)), gflops: Number(fastest.gflops.toPrecision(4)), repeats: result.repeats + (before?.repeats ?? 0) });
    console.log(`${point.kernel}, n = ${point.n}, d = ${point.d}, pass ${next.pass}: ${result.medianMs.toFixed(2)} ms`);
  }
  const points = plan.map((p) => ({ ...p, ...measured.get(complexityKey(p))! }));
  store<StoredComplexity>('complexity.json', () => ({ d, maxN, points, measuredOn: measuredOn() }));
} else {
  console.error('usage: npx vite-node scripts/store-measurements.ts training [TASK…] | scaling-laws | flash | complexity');
  process.exit(1);
}
process.exit(0);
