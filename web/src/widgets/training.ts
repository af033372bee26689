// <attn-training>: trains a small Transformer on one of the engine's built-in tasks, in the page's
// engine worker, one AdamW step per call, so the page stays responsive while it learns. Shown as it
// runs: the progress, the batch loss and accuracy (averaged over buckets of steps) with the
// held-out loss, the learning-rate schedule with the current step, and the attention of one fixed
// held-out example in a chosen layer and head, measured again every few steps. Once paused or done:
// the held-out accuracy, the model on the reader's own letters (or sentence), its three files to
// download, and for coreference the explorer reading it. Before the first step, the curves are those
// of a stored run of the same settings (math/stored-runs.ts), said so. Training starts only when the
// reader presses Train, and waits while the widget is off screen (the page's other widgets, which time
// and train with the same engine, have it to themselves); changing a setting stops it and starts
// a fresh model.
// Settings: task (copy | reverse | sort | coreference), size (small | demo | large: the task's demo
// shape, or a narrower or a deeper model), seed (initialisation and batches).
import { pageEngine, type RemoteEngine, type RemoteModel } from '../runtime/engine';
import { readIt, readingNotes, readSentence, runModel, weightsName } from '../runtime/coreference-reading';
import { SEMINAR_SENTENCE, TRAINING_SIZES, TRAINING_TASKS } from '../runtime/registry';
import { registerTrainedModel, showTrainedModel } from '../runtime/trained-models';
import type { MatrixData } from '../engine/index';
import type { RemoteTrainer } from '../engine/worker-client';
import { formatCount, formatNumber } from '../math/format';
import { argmax } from '../math/ranking';
import { bucketMeans, bucketSize, formatDuration, letterAnswer, longestLetters, measureEvery, thinned, type LetterTask } from '../math/training';
import { storedTrainingRun, TRAINING_MEASURES } from '../math/stored-runs';
import { BackgroundJob, type JobState } from '../primitives/background-job';
import { canvasesPainted } from '../primitives/canvas';
import { button, choiceSelect, h, type Choice, type Props } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { download } from '../primitives/export';
import { Heatmap } from '../primitives/heatmap';
import { Plot, SERIES_COLOURS, type Series } from '../primitives/plot';

type Task = (typeof TRAINING_TASKS)[number];
type Size = (typeof TRAINING_SIZES)[number];
/** ready: a fresh model; stopping: finishing its step and measuring before it pauses */
type Phase = 'ready' | 'training' | 'stopping' | 'paused' | 'done';

/** the sizes beside each task's demo model (d_model 64, 4 heads, 2 layers) */
const SIZES: Record<Exclude<Size, 'demo'>, { dModel: number; heads: number; layers: number; dFF: number }> = {
  small: { dModel: 32, heads: 2, layers: 1, dFF: 128 },
  large: { dModel: 96, heads: 4, layers: 3, dFF: 384 },
};
/** how a run is measured (as the stored runs were): held-out examples, the steps between two
 * measurements of the example's attention, held-out losses over a run, points per curve */
const { heldOut: HELD_OUT, attentionEvery: ATTENTION_EVERY, heldOutPoints: HELD_OUT_POINTS, curvePoints: CURVE_POINTS } = TRAINING_MEASURES;
/** the held-out example whose attention is drawn: "lurbjt" (its letters all differ, none in order),
 * and "the dog did not cross the mat because it was too soft" */
const EXAMPLE_SEEDS: Record<Task, number> = { copy: 2, reverse: 2, sort: 2, coreference: 1 };
/** the schedule is smooth: fewer points do */
const SCHEDULE_POINTS = 40;
/** the least time between two redraws while training: the steps of one slice */
const DRAW_EVERY_MS = 400;
const PLOT = { width: 350, height: 130 };
const RATE_PLOT = { width: 310, height: 96 };
const MAP = { width: 225, height: 225 };
const FILES = ['model.safetensors', 'config.json', 'vocab.json'] as const;

const HINTS: Record<Task, string> = {
  copy: 'press Train; after [SEP], a head’s rows sharpen onto the letter to write next.',
  reverse: 'press Train; after [SEP], a head’s rows sharpen onto the mirrored letter.',
  sort: 'press Train: sorting takes thousands of steps to find the next letter in order.',
  coreference: 'press Train; the rows of “it” sharpen, onto the noun it refers to or onto the adjective that decides it.',
};
/** what the held-out accuracy counts */
const SOLVED: Record<Task, string> = {
  copy: 'held-out strings it copies exactly', reverse: 'held-out strings it reverses exactly',
  sort: 'held-out strings it sorts exactly', coreference: 'held-out sentences whose “it” it reads right',
};

const styles = `
.toolbar { gap: 4px 14px; margin: 0 0 4px; }
.group button { padding: 2px 9px; }
.toolbar input[type="number"] { width: 4.2em; }
.run { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: center; margin: 0 0 4px; font-size: 14px; }
.run button.primary { min-width: 6.2em; font-weight: 600; }
.run progress { width: 130px; }
.run .stats { font-variant-numeric: tabular-nums; }
.note:empty { display: none; }
.note { margin: 0 0 4px; font-size: 14px; color: var(--muted); }
.results .stored { font-size: 14px; color: var(--muted); }
.stored:empty { display: none; }
.plots { display: flex; gap: 12px; margin: 0 0 4px; }
.lower { display: flex; gap: 18px; align-items: flex-start; }
.attention h4 { margin: 0 0 2px; font-size: 14px; font-weight: 600; }
.attention .pick { display: flex; gap: 6px; align-items: center; margin: 0 0 2px; font-size: 14px; }
.attention select { font-size: 14px; padding: 1px 2px; }
.attention .readout { display: none; }
.results { flex: 1; min-width: 0; font-size: 14px; }
.results p { margin: 0 0 4px; }
.results label { display: flex; gap: 6px; align-items: center; }
.results .accuracy strong { font-size: 20px; font-variant-numeric: tabular-nums; }
.results .accuracy .muted { display: block; font-size: 14px; }
.results input[type="text"] { width: 11em; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
.results input.sentence { flex: 1; min-width: 0; font-family: inherit; }
.results .answer { font-family: ui-monospace, "DejaVu Sans Mono", monospace; overflow-wrap: anywhere; }
.results .right { color: var(--good); font-weight: 600; }
.results .wrong { color: var(--bad); font-weight: 600; }
.results .files { display: flex; flex-wrap: wrap; gap: 4px 5px; align-items: center; margin: 0 0 4px; }
.results .files button { font-size: 14px; padding: 1px 6px; }
.results a { color: var(--accent); }
/* a phone: the plots and the results under each other, at a readable size */
@media (max-width: 799px) { .plots, .lower { flex-wrap: wrap; } }
/* the parts redrawn while it trains are laid out on their own, not with the whole slide */
@media (min-width: 800px) {
  .run { contain: strict; height: 32px; flex-wrap: nowrap; }
  .plots { contain: strict; height: 154px; }
  .results > figure { contain: strict; width: ${RATE_PLOT.width}px; height: ${RATE_PLOT.height + 26}px; }
}
`;

interface Run {
  key: string;
  task: Task;
  size: Size;
  seed: number;
  trainer: RemoteTrainer;
  totalSteps: number;
  schedule: Float32Array;
  parameters: number;
  /** the fixed held-out example: its ids and one label per token */
  example: { tokens: Int32Array; labels: string[] };
  layers: number;
  heads: number;
  /** d_model of the model, and n_ctx: how long a string the letter tasks can take */
  width: number;
  context: number;
  /** the training: steps for DRAW_EVERY_MS at a time while the widget is on screen, until paused or done */
  job: BackgroundJob;
  /** batch loss and accuracy of every step so far */
  loss: number[];
  accuracy: number[];
  /** held-out loss at some steps */
  heldOut: { x: number[]; y: number[] };
  /** attention weights of the example, [layer][head], and the step they were measured after */
  attention: { step: number; maps: MatrixData[][] };
  /** held-out accuracy, measured when training last stopped */
  result?: { step: number; accuracy: number };
  /** a copy of the weights when training last stopped: tried and downloaded */
  snapshot?: RemoteModel;
  /** speed of the current stretch of training */
  since?: { time: number; step: number };
}

/** what the run shows as: a job waiting off screen is still training, one stopped before its first step is ready */
function phaseOf(run: Run): Phase {
  const phases: Record<JobState, Phase> = {
    waiting: 'training', running: 'training', stopping: 'stopping', done: 'done',
    stopped: run.loss.length === 0 && !run.result ? 'ready' : 'paused',
  };
  return phases[run.job.state];
}

/** changes an element's text only when it differs: each change lays the slide out again */
function setText(element: HTMLElement, text: string): void {
  if (element.textContent !== text) element.textContent = text;
}

/** layer 1 … layer `count` */
const numberedFromOne = (count: number): Choice<number>[] => Array.from({ length: count }, (_, i) => ({ value: i, text: String(i + 1) }));

export default class Training extends EngineElement {
  private run?: Run;
  /** Reset was pressed: the next render starts a fresh model with the same settings */
  private resetting = false;
  private layer = 0;
  private head = 0;
  private drawPending = false;
  private lastDraw = 0;
  /** what the attention map shows, so that it is drawn again only when that changes */
  private mapShows?: { run: Run; step: number; layer: number; head: number };
  private readonly lossPlot = new Plot({ xLabel: 'step', yLabel: 'loss', yLog: true, ...PLOT });
  private readonly accuracyPlot = new Plot({ xLabel: 'step', yLabel: 'accuracy', yRange: [0, 1], ...PLOT });
  /** in units of 10⁻³, so that its ticks stay short */
  private readonly ratePlot = new Plot({ xLabel: 'step', yLabel: 'η (10⁻³)', ...RATE_PLOT });
  private readonly map = new Heatmap({ xLabel: 'key', yLabel: 'query', tint: 'weights', ...MAP });
  // the settings: each starts a fresh model
  private readonly task = this.bound.choices<Task>('task');
  private readonly size = this.bound.choices<Size>('size', { select: true });
  private readonly seed = this.bound.number('seed');
  // the run: Train / Pause / Resume, Reset, its progress
  private readonly primary = button('Train', () => (this.run && phaseOf(this.run) === 'training' ? this.pause() : this.train()), { className: 'primary' });
  private readonly resetButton = button('Reset', () => this.reset(), { title: 'stop and start again from a fresh model' });
  private readonly progress = h('progress', { attrs: { 'aria-label': 'training progress' } });
  private readonly stepText = h('span', 'stats');
  private readonly stats = h('span', 'stats muted');
  private readonly note = h('p', { className: 'note', attrs: { role: 'status' } });
  /** what the curves are before the first step here: a stored run, with when it was made */
  private readonly storedNote = h('p', 'stored');
  // the attention of the example, in the layer and head picked here (not settings of the page)
  private readonly attentionTitle = h('h4');
  private readonly layerPick = choiceSelect({ name: 'layer', control: 'layer', onChoose: (v: number) => { this.layer = v; this.draw(); } });
  private readonly headPick = choiceSelect({ name: 'head', control: 'head', onChoose: (v: number) => { this.head = v; this.draw(); } });
  // the model once stopped: its accuracy, the reader's own input, its files
  private readonly waiting = h('p', 'muted');
  private readonly accuracy = h('p', { className: 'accuracy', attrs: { role: 'status' } });
  private readonly letters = this.tryIt({ value: 'tokens', attrs: { 'aria-label': 'letters to try' } }, 'input');
  private readonly sentence = this.tryIt({ value: SEMINAR_SENTENCE, className: 'sentence', maxLength: 200, attrs: { 'aria-label': 'sentence to try' } }, 'change');
  // the deck follows the link; the explorer switches to the model trained here
  private readonly explorer = h('p', {}, h('a', { href: '#explorer', textContent: 'Open this model in the explorer →', onclick: () => showTrainedModel('coreference') }));
  private readonly finished = h('div', {}, this.accuracy, this.letters.element, this.sentence.element,
    h('div', { className: 'files', attrs: { role: 'group', 'aria-label': 'download the model' } }, ...FILES.map((name, i) =>
      button(i === 0 ? `↓ ${name}` : name, () => this.save(name).catch((error: unknown) => this.showError(`Not saved: ${String(error)}`)),
        { attrs: { 'aria-label': `download ${name}` } }))),
    this.explorer);

  constructor() {
    super(styles, HINTS.copy);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.pause();
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const task = this.value<Task>('task');
    const size = this.value<Size>('size');
    const seed = this.value<number>('seed');
    this.setHint(HINTS[task]);

    const key = `${task} ${size} ${seed}`;
    if (this.run?.key !== key || this.resetting) {
      const old = this.run;
      this.run = undefined;
      const wasTraining = old && (phaseOf(old) === 'training' || phaseOf(old) === 'stopping');
      this.note.textContent = wasTraining && old.key !== key
        ? 'The settings changed, so training stopped; a fresh model waits at step 0.' : '';
      this.resetting = false;
      if (old) await this.discard(old);
      this.draw();
      this.run = await this.start(engine, task, size, seed);
    }
    this.draw();
  }

  /** a fresh trainer for these settings, its schedule, the fixed example and its attention at step 0 */
  private async start(engine: RemoteEngine, task: Task, size: Size, seed: number): Promise<Run> {
    const trainer = await engine.createTrainer({ task, seed, ...(size === 'demo' ? {} : { size: SIZES[size] }) });
    try {
      const [totalSteps, schedule, parameters, example, model] = await Promise.all([
        trainer.totalSteps(), trainer.schedule(), trainer.parameters(),
        trainer.example({ split: 'heldOut', seed: EXAMPLE_SEEDS[task] }), trainer.model(),
      ]);
      try {
        const [config, labels] = await Promise.all([
          model.config(),
          Promise.all(Array.from(example.tokens, (id) => model.decode([id]))),
        ]);
        const run: Run = {
          key: `${task} ${size} ${seed}`, task, size, seed, trainer, totalSteps, schedule, parameters,
          example: { tokens: example.tokens, labels }, layers: config.n_layers, heads: config.n_heads, width: config.d_model,
          context: config.n_ctx,
          loss: [], accuracy: [], heldOut: { x: [], y: [] }, attention: { step: 0, maps: [] },
          job: new BackgroundJob(this, {
            remaining: () => run.loss.length < run.totalSteps,
            slice: () => this.trainSlice(run),
            settle: () => this.measureModel(run),
            report: (state) => {
              // while it trains the picture is drawn between the slices; here only a change of state
              const running = state === 'running';
              if (running && run.since) return;
              // the speed of this stretch: from when it runs again, after a pause or a wait off screen
              run.since = running ? { time: performance.now(), step: run.loss.length } : undefined;
              this.drawSoon();
            },
          }),
        };
        run.attention = await this.attentionOf(run, model);
        return run;
      } finally {
        model.dispose();
      }
    } catch (error) {
      trainer.dispose();
      throw error;
    }
  }

  /** stops a run's training and frees what it holds in the worker */
  private async discard(run: Run): Promise<void> {
    await run.job.stop();
    run.snapshot?.dispose();
    run.trainer.dispose();
  }

  /** the example's attention weights in every layer and head of `model` */
  private async attentionOf(run: Run, model: RemoteModel): Promise<Run['attention']> {
    const names = Array.from({ length: run.layers * run.heads }, (_, k) => weightsName(Math.floor(k / run.heads), k % run.heads));
    const { trace } = await model.forward({ tokens: run.example.tokens, trace: names });
    const maps = Array.from({ length: run.layers }, (_, l) => Array.from({ length: run.heads }, (_, h) => trace![weightsName(l, h)]));
    return { step: run.loss.length, maps };
  }

  // ---- training ----

  /** trains (or resumes) the run, while the widget is on screen */
  private train(): void {
    const run = this.run;
    if (!run || phaseOf(run) === 'done') return;
    this.note.textContent = '';
    run.snapshot?.dispose();
    run.snapshot = undefined;
    run.job.start().catch((error: unknown) => {
      if (this.run === run) this.showError(`Training stopped: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  /** pauses after the step running; the model is then measured and offered */
  private pause(): void {
    if (this.run && phaseOf(this.run) === 'training') void this.run.job.stop();
  }

  private reset(): void {
    this.resetting = true;
    this.note.textContent = '';
    this.update();
  }

  /** one step per worker call for DRAW_EVERY_MS (or to the end, or a pause), then the picture */
  private async trainSlice(run: Run): Promise<void> {
    const start = performance.now();
    do await this.trainStep(run);
    while (run.job.state === 'running' && run.loss.length < run.totalSteps && performance.now() - start < DRAW_EVERY_MS);
    await this.drawBetweenSteps();
  }

  /** one step, and every few steps the example's attention and the held-out loss */
  private async trainStep(run: Run): Promise<void> {
    const heldOutEvery = measureEvery(run.totalSteps, ATTENTION_EVERY, HELD_OUT_POINTS);
    const step = await run.trainer.step();
    run.loss.push(step.loss);
    run.accuracy.push(step.accuracy);
    const done = step.step === run.totalSteps;
    if (step.step % ATTENTION_EVERY === 0 || done) {
      const model = await run.trainer.model();
      try {
        run.attention = await this.attentionOf(run, model);
      } finally {
        model.dispose();
      }
    }
    if (step.step % heldOutEvery === 0 || done) {
      const loss = await run.trainer.heldOutLoss({ count: HELD_OUT });
      run.heldOut.x.push(step.step);
      run.heldOut.y.push(loss);
    }
  }

  /** once training pauses or ends: the held-out accuracy, a copy of the model to try and download,
   * and for coreference the model handed to the explorer */
  private async measureModel(run: Run): Promise<void> {
    if (this.run !== run) return;  // reset or replaced meanwhile: nothing to show
    const [accuracy, snapshot] = await Promise.all([run.trainer.heldOutAccuracy({ count: HELD_OUT }), run.trainer.model()]);
    run.result = { step: run.loss.length, accuracy };
    run.snapshot = snapshot;
    if (this.run !== run) return;
    if (run.task === 'coreference') await this.offerToExplorer(run);
    this.tryOwn();
  }

  /** the coreference model so far, for the explorer (a copy of its own: the explorer keeps it) */
  private async offerToExplorer(run: Run): Promise<void> {
    const steps = run.loss.length;
    registerTrainedModel('coreference', {
      model: await run.trainer.model(),
      about: `${run.size} size, seed ${run.seed}, ${steps} of ${run.totalSteps} steps`,
      steps,
    });
  }

  // ---- drawing ----

  /** redraws in the next frame, at most once per DRAW_EVERY_MS, so that training never floods the page */
  private drawSoon(): void {
    if (this.drawPending) return;
    this.drawPending = true;
    const wait = Math.max(0, this.lastDraw + DRAW_EVERY_MS - performance.now());
    setTimeout(() => requestAnimationFrame(() => {
      this.drawPending = false;
      this.lastDraw = performance.now();
      this.draw();
    }), wait);
  }

  /** Redraws, and lets the frame paint, before the next step is asked for: the engine's threads
   * rest meanwhile, so on a two-core machine the page's frame never competes with them. While
   * training, the page is drawn only here. */
  private async drawBetweenSteps(): Promise<void> {
    // a page hidden meanwhile draws no frames: then training goes on after a moment
    const soon = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
    await Promise.race([new Promise((resolve) => requestAnimationFrame(resolve)), soon(100)]);
    this.lastDraw = performance.now();
    this.draw();
    await Promise.race([canvasesPainted(), soon(200)]);
    await soon(0);
  }

  private draw(): void {
    const run = this.run;
    const phase = run && phaseOf(run);
    const steps = run?.loss.length ?? 0;
    const total = run?.totalSteps ?? 1;
    this.dataset.phase = phase ?? 'starting';

    setText(this.primary, phase === 'training' ? 'Pause' : phase === 'stopping' ? 'Pausing…'
      : phase === 'paused' ? 'Resume' : phase === 'done' ? 'Trained' : 'Train');
    this.primary.disabled = !run || phase === 'stopping' || phase === 'done';
    this.resetButton.disabled = !run || (steps === 0 && phase === 'ready');
    this.progress.max = total;
    this.progress.value = steps;
    setText(this.stepText, run ? `step ${steps} / ${total}` : 'preparing a model…');
    this.showStats(run);
    if (!run) return;

    const x = [0, total] as [number, number];
    // before the first step here, the curves of a stored run of the same settings, named as such
    const stored = steps === 0 && run.size === 'demo' ? storedTrainingRun(run.task, run.seed) : undefined;
    const bucket = stored?.bucket ?? bucketSize(total, CURVE_POINTS);
    const loss = stored?.loss ?? bucketMeans(run.loss, bucket);
    const accuracy = stored?.accuracy ?? bucketMeans(run.accuracy, bucket);
    const batch = bucket === 1 ? 'batch' : `batch, mean of ${bucket}`;
    // a line needs two points: the first bucket of a long run shows as a dot
    const style = loss.x.length < 2 ? 'points' : 'line';
    const lossSeries: Series[] = [
      { name: batch, colour: SERIES_COLOURS.blue, style, ...loss },
      { name: 'held-out', colour: SERIES_COLOURS.vermillion, style: 'points', ...(stored?.heldOut ?? run.heldOut) },
    ];
    this.lossPlot.configure({ xRange: x });
    this.lossPlot.draw(lossSeries);
    this.accuracyPlot.configure({ xRange: x });
    this.accuracyPlot.draw([{ name: `${batch}, per token`, colour: SERIES_COLOURS.green, style, ...accuracy }]);
    // the engine trains the same bits anywhere: the run here will retrace these curves
    this.dataset.curves = stored ? 'stored' : 'here';
    setText(this.storedNote, stored ? `The loss and accuracy above are a stored run of these settings (the engine in Node, ${stored.measuredOn.date}); `
      + 'Train replaces them, step by step.' : '');
    const rates = thinned(run.schedule.map((rate) => 1000 * rate), bucketSize(total, SCHEDULE_POINTS), [argmax(run.schedule)]);
    const rateSeries: Series[] = [{ name: 'learning-rate schedule', colour: SERIES_COLOURS.purple, ...rates }];
    if (steps > 0) rateSeries.push({ name: `step ${steps}`, colour: SERIES_COLOURS.orange, style: 'points', x: [steps], y: [1000 * run.schedule[steps - 1]] });
    // the peak in float32 lies a hair above its round value: the axis should end there, not a tick later
    this.ratePlot.configure({ xRange: x, yRange: [0, Number((1000 * run.schedule[argmax(run.schedule)]).toPrecision(6))] });
    this.ratePlot.draw(rateSeries);
    this.drawAttention(run);
    this.drawResults(run);
  }

  /** the speed while it trains, else the model's parameter count (its shape in the tooltip) */
  private showStats(run: Run | undefined): void {
    const shown = this.stats;
    const steps = run?.loss.length ?? 0;
    if (run && phaseOf(run) === 'training' && run.since && steps > run.since.step) {
      const perStep = (performance.now() - run.since.time) / (steps - run.since.step);
      setText(shown, `${formatNumber(1000 / perStep, 1)} steps/s · about ${formatDuration(perStep * (run.totalSteps - steps))} left`);
      shown.title = '';
      return;
    }
    const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
    setText(shown, run ? `${formatCount(run.parameters)} parameters` : '');
    shown.title = run ? `d_model ${run.width}, ${plural(run.heads, 'head')}, ${plural(run.layers, 'layer')}` : '';
  }

  private drawAttention(run: Run): void {
    this.layer = Math.min(this.layer, run.layers - 1);
    this.head = Math.min(this.head, run.heads - 1);
    const weights = run.attention.maps[this.layer]?.[this.head];
    const shows = { run, step: run.attention.step, layer: this.layer, head: this.head };
    const drawn = this.mapShows;
    if (!weights || (drawn && Object.entries(shows).every(([k, v]) => drawn[k as keyof typeof shows] === v))) return;
    this.mapShows = shows;
    this.layerPick.offer(numberedFromOne(run.layers));
    this.layerPick.set(this.layer);
    this.headPick.offer(numberedFromOne(run.heads));
    this.headPick.set(this.head);
    this.attentionTitle.textContent = `Attention, step ${run.attention.step}`;
    this.map.configure({ rowLabels: run.example.labels, colLabels: run.example.labels });
    this.map.draw(weights);
  }

  private drawResults(run: Run): void {
    const phase = phaseOf(run);
    const stopped = phase === 'paused' || phase === 'done';
    const { result } = run;
    this.waiting.hidden = stopped && result !== undefined;
    setText(this.waiting, phase === 'training' || phase === 'stopping'
      ? 'Training… pause or wait for the end to measure the held-out accuracy, try the model and download it.'
      : 'Press Train. When it pauses or ends: the held-out accuracy, the model on your own input, and its files.');
    this.finished.hidden = !this.waiting.hidden;
    if (!result || this.finished.hidden) return;
    this.accuracy.replaceChildren('Held-out accuracy ', h('strong', { textContent: `${formatNumber(100 * result.accuracy, 1)}\u00a0%` }),
      h('span', { className: 'muted', textContent: `of ${HELD_OUT} unseen examples, after step ${result.step}` }));
    this.accuracy.title = `the share of ${HELD_OUT} ${SOLVED[run.task]}`;
    this.accuracy.dataset.value = String(result.accuracy);
    const letters = run.task !== 'coreference';
    this.letters.element.hidden = !letters;
    this.sentence.element.hidden = letters;
    this.explorer.hidden = letters;
    const most = longestLetters(run.context);
    this.letters.input.maxLength = most;
    this.letters.input.placeholder = `2 to ${most} letters`;
  }

  // ---- trying the model, and its files ----

  /** the stopped model on the reader's letters (letter tasks) or sentence (coreference) */
  private tryOwn(): void {
    const run = this.run;
    const model = run?.snapshot;
    if (!run || !model) return;
    const { answer: shown } = run.task === 'coreference' ? this.sentence : this.letters;
    const attempt = run.task === 'coreference' ? this.readSentence(model, this.sentence.input.value)
      : this.continueLetters(run, model, this.letters.input.value);
    attempt.then(
      (nodes) => { if (this.run?.snapshot === model) shown.replaceChildren(...nodes); },
      (error: unknown) => { if (this.run?.snapshot === model) shown.replaceChildren(`The model could not run: ${error instanceof Error ? error.message : String(error)}`); },
    );
  }

  private async continueLetters(run: Run, model: RemoteModel, typed: string): Promise<(Node | string)[]> {
    const letters = typed.trim().toLowerCase();
    const most = longestLetters(run.context);
    if (!/^[a-z]+$/.test(letters) || letters.length > most) return [`Type 1 to ${most} letters a–z (it learnt on 2 to ${most}).`];
    const [prompt, end] = await Promise.all([model.tokenize(`[BOS]${letters}[SEP]`), model.tokenize('[EOS]')]);
    const eos = end.ids[0];
    const written = await model.generate({ tokens: prompt.ids, maxNew: letters.length + 1, stop: eos, temperature: 0 });
    const answer = Array.from(written.slice(prompt.ids.length)).filter((id) => id !== eos);
    const text = await model.decode(answer);
    const asked = letterAnswer(run.task as LetterTask, letters);
    const right = text === asked;
    return ['It writes ', h('span', { className: 'answer', textContent: text || '(nothing)' }), ' — ',
      h('span', { className: right ? 'right' : 'wrong', textContent: right ? 'right' : `wrong: ${asked}` })];
  }

  private async readSentence(model: RemoteModel, text: string): Promise<(Node | string)[]> {
    const engine = await pageEngine();
    // the shipped model's tokenizer is the task's: the same vocabulary, so its reading serves this model
    const shipped = await readSentence(engine, text);
    const reading = { ...shipped, model, config: await model.config() };
    if (!reading.sentence) return [readingNotes(reading)[0] ?? 'Type a sentence.'];
    const { logits } = await runModel(reading, []);
    const it = await readIt(engine, reading, logits);
    if (!it) return [];
    const referent = reading.labels[reading.sentence.referent];
    return ['“it” = ', h('span', { className: 'answer', textContent: it.word }), ` (p = ${formatNumber(it.probability, 3)}) — `,
      h('span', { className: it.right ? 'right' : 'wrong', textContent: it.right ? 'right' : `wrong: the ${referent}` })];
  }

  private async save(file: (typeof FILES)[number]): Promise<void> {
    const model = this.run?.snapshot;
    if (!model) return;
    const files = await model.save();
    if (file === 'model.safetensors') download(file, new Blob([files.weights as Uint8Array<ArrayBuffer>]), 'application/octet-stream');
    else if (file === 'config.json') download(file, files.config, 'application/json');
    else download(file, files.vocab ?? '', 'application/json');
  }

  // ---- the view ----

  /** "Try it:", a text field (its answer below it) whose input runs the stopped model */
  private tryIt(props: Props<HTMLInputElement>, commit: 'input' | 'change') {
    const input = h('input', { type: 'text', spellcheck: false, ...props });
    input.addEventListener(commit, () => this.tryOwn());
    const answer = h('p', { attrs: { 'aria-live': 'polite' } });
    return { element: h('div', {}, h('label', {}, 'Try it: ', input), answer), input, answer };
  }

  protected override layout(): HTMLElement[] {
    this.task.element.title = 'choose the task (stops training and starts a fresh model)';
    return [
      h('div', 'toolbar', this.task.element, this.size.element, this.seed.element),
      h('div', 'run', this.primary, this.resetButton, this.progress, this.stepText, this.stats),
      this.note,
      h('div', 'plots', this.lossPlot.element, this.accuracyPlot.element),
      h('div', 'lower',
        h('div', 'attention', h('div', 'pick', this.attentionTitle, this.layerPick.element, this.headPick.element), this.map.element),
        h('div', 'results', this.ratePlot.element, this.storedNote, this.waiting, this.finished)),
    ];
  }
}
