// <attn-in-context>: in-context learning, the induction head forming. Left: the held-out loss on
// the first copy of a random sequence and on its repeat, and every head's prefix-matching score,
// against the training step — first the curves of the run that trained the shipped model
// (training.json), then, on "Train here", those of a fresh run in the engine's worker, measured as
// attnlab-train measures them. Right: the weights frozen, the model reads the reader's letters:
// its prediction at every position, its greedy continuation, the induction head's attention, and
// the weights' fingerprint before and after (unchanged: nothing was learned from the prompt).
// Settings: letters (what the frozen model reads), seed (of a run trained here).
import type { RemoteEngine, RemoteModel, TrainingLog } from '../runtime/engine';
import type { RemoteTrainer } from '../engine/worker-client';
import { formatNumber } from '../math/format';
import { scoreHeads } from '../math/head-patterns';
import { rowArgmax, type MatrixData } from '../math/matrix';
import { argmax } from '../math/ranking';
import { BackgroundJob } from '../primitives/background-job';
import { button, h } from '../primitives/controls';
import { Heatmap } from '../primitives/heatmap';
import { Plot, SERIES_COLOURS, type Series } from '../primitives/plot';
import { weightsName } from '../runtime/coreference-reading';
import { EngineElement } from '../runtime/engine-element';
import { pageModel, promptIn, shippedTrainingLog } from '../runtime/engine';

const styles = `
.panes { display: flex; flex-wrap: wrap; gap: 8px 20px; align-items: flex-start; }
.curves { flex: 0 0 310px; }
.reading { flex: 1 1 360px; min-width: 0; }
.table-box { overflow-x: auto; }
.run { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: center; margin: 0 0 4px; font-size: 14px; }
.letters { border-collapse: collapse; font-family: ui-monospace, monospace; font-size: 14px; margin: 6px 0; }
.letters th { font: 14px system-ui, sans-serif; color: var(--muted); text-align: right; padding-right: 6px; }
.letters td { padding: 1px 2px; text-align: center; min-width: 1em; }
.letters td.right { color: var(--good, #009E73); font-weight: 700; }
.letters td.wrong { color: var(--muted); }
.verdict { margin: 4px 0; font-size: 14px; max-width: 30em; }
.verdict strong { color: var(--accent); }
.frozen { font-size: 14px; line-height: 1.3; color: var(--muted); margin: 0; font-variant-numeric: tabular-nums; }
`;

/** measured every this many steps, on as many held-out sequences as attnlab-train's training.json */
const MEASURE_EVERY = 20;
const LOSS_SEQUENCES = 64;
const PREFIX_SEQUENCES = 16;
/** letters the frozen model writes after the reader's */
const CONTINUED = 8;
/** the least time between two redraws while training */
const SLICE_MS = 300;
const PLOT = { width: 250, height: 115 };

/** a run trained here: its trainer, and its curves so far */
interface Run {
  trainer: RemoteTrainer;
  seed: number;
  totalSteps: number;
  log: TrainingLog;
  /** the weights once the run is done, read by the frozen demo */
  model?: RemoteModel;
}

const stepsDone = (run: Run) => run.log.steps[run.log.steps.length - 1] ?? 0;

export default class InContext extends EngineElement {
  private readonly letters = this.bound.text('letters', { commit: 'input' });
  private readonly seed = this.bound.number('seed');
  private readonly trainButton = button('Train here', () => this.train());
  private readonly runStatus = h('span', { attrs: { role: 'status' } });
  private readonly lossPlot = new Plot({ title: 'held-out loss', xLabel: 'training step', yLabel: 'nats', ...PLOT, yRange: [0, 4.5] });
  private readonly prefixPlot = new Plot({ title: 'prefix-matching score of each head', xLabel: 'training step', yLabel: 'score', ...PLOT, yRange: [0, 1] });
  private readonly lettersTable = h('table', 'letters');
  private readonly verdict = h('p', { className: 'verdict', attrs: { 'aria-live': 'polite' } });
  private readonly frozen = h('p', 'frozen');
  private readonly map = new Heatmap({ xLabel: 'key (looked at)', yLabel: 'query', tint: 'weights', width: 210, height: 210 });
  private shipped?: TrainingLog;
  private engineInUse?: RemoteEngine;
  private run?: Run;
  private job?: BackgroundJob;

  constructor() {
    super(styles, 'watch the repeat’s loss fall as two layer-1 heads start matching prefixes; then type letters and repeat some: the frozen model continues them.');
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    void this.discard();
  }

  protected override layout(): HTMLElement {
    return h('div', 'panes',
      h('section', 'curves', h('div', 'run', this.trainButton, this.seed.element, this.runStatus), this.lossPlot.element, this.prefixPlot.element),
      h('section', 'reading', this.letters.element, h('div', 'table-box', this.lettersTable), this.verdict, this.map.element, this.frozen));
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    this.engineInUse = engine;
    this.shipped ??= await shippedTrainingLog('induction');
    if (this.run && this.run.seed !== this.value<number>('seed')) await this.discard();
    this.drawCurves();
    await this.readLetters();
  }

  // ---- the curves ----

  private drawCurves(): void {
    const log = this.run?.log ?? this.shipped!;
    const total = this.run?.totalSteps ?? log.steps[log.steps.length - 1];
    const xRange: [number, number] = [0, total];
    this.lossPlot.configure({ xRange });
    this.prefixPlot.configure({ xRange });
    this.lossPlot.draw([
      { name: 'first copy (unpredictable)', colour: SERIES_COLOURS.orange, x: log.steps, y: log.first },
      { name: 'repeat', colour: SERIES_COLOURS.blue, x: log.steps, y: log.repeat },
    ]);
    const heads = log.prefixMatching[0]?.length ?? 0;
    const perLayer = heads / 2;
    this.prefixPlot.draw(Array.from({ length: heads }, (_, k): Series => {
      const layer = Math.floor(k / perLayer);
      return {
        name: layer === 0 && k === 0 ? 'layer 0 heads' : `layer ${layer} head ${k % perLayer}`, x: log.steps, y: log.prefixMatching.map((scores) => scores[k]),
        colour: layer === 0 ? SERIES_COLOURS.sky : [SERIES_COLOURS.vermillion, SERIES_COLOURS.green, SERIES_COLOURS.purple, SERIES_COLOURS.blue][k % perLayer],
        // layer 0's heads, none of which matches prefixes, share one entry
        style: layer === 0 ? 'dashed' : 'line', legend: layer === 1 || k === 0,
      };
    }));
    const steps = log.steps[log.steps.length - 1] ?? 0;
    this.runStatus.textContent = this.run
      ? `${this.run.model ? 'Trained here' : 'Training'}: step ${steps} of ${total}, seed ${this.run.seed}`
      : `The shipped model’s run, ${total} steps`;
    this.trainButton.textContent = this.job?.state === 'running' ? 'Pause' : this.run && !this.run.model ? 'Go on' : 'Train here';
  }

  // ---- training here ----

  private train(): void {
    if (this.job?.state === 'running') {
      void this.job.stop();
      return;
    }
    void (async () => {
      if (!this.run || this.run.model) await this.startRun();
      await this.job!.start();
    })().catch((error: unknown) => this.showError(`Training stopped: ${error instanceof Error ? error.message : String(error)}`));
  }

  private async startRun(): Promise<void> {
    await this.discard();
    const engine = this.engineInUse!;
    const seed = this.value<number>('seed');
    const trainer = await engine.createTrainer({ task: 'induction', seed });
    const run: Run = { trainer, seed, totalSteps: await trainer.totalSteps(), log: { steps: [], first: [], repeat: [], prefixMatching: [] } };
    this.run = run;
    await this.measure(run, 0);
    const remaining = () => stepsDone(run) < run.totalSteps;
    this.job = new BackgroundJob(this, {
      remaining,
      slice: () => this.trainSlice(run),
      settle: async () => {
        // done: the frozen model reads with these weights from now on
        if (this.run === run && !remaining()) {
          run.model = await run.trainer.model();
          this.update();
        }
      },
      report: () => this.drawCurves(),
    });
  }

  /** steps for SLICE_MS, measuring every MEASURE_EVERY steps as training.json does */
  private async trainSlice(run: Run): Promise<void> {
    const start = performance.now();
    do {
      const { step } = await run.trainer.step();
      if (step % MEASURE_EVERY === 0 || step === run.totalSteps) await this.measure(run, step);
    } while (this.job?.state === 'running' && performance.now() - start < SLICE_MS && stepsDone(run) < run.totalSteps);
    this.drawCurves();
  }

  private async measure(run: Run, step: number): Promise<void> {
    const [losses, prefix] = await Promise.all([
      run.trainer.heldOutLossByPart({ count: LOSS_SEQUENCES }), run.trainer.prefixMatching({ count: PREFIX_SEQUENCES }),
    ]);
    run.log.steps.push(step);
    run.log.first.push(losses.first);
    run.log.repeat.push(losses.repeat);
    run.log.prefixMatching.push(Array.from(prefix.data));
  }

  private async discard(): Promise<void> {
    const run = this.run;
    if (!run) return;
    this.run = undefined;
    await this.job?.stop();
    this.job = undefined;
    run.model?.dispose();
    run.trainer.dispose();
  }

  // ---- the frozen model on the reader's letters ----

  private async readLetters(): Promise<void> {
    const model = this.run?.model ?? await pageModel('induction');
    const typed = this.value<string>('letters');
    const { config, prompt, room } = await promptIn(model, typed, 'few letters', 'letters');
    const before = await model.fingerprint();
    const layer = config.n_layers - 1;
    const names = Array.from({ length: config.n_heads }, (_, head) => weightsName(layer, head));
    const [{ logits, trace }, written] = await Promise.all([
      model.forward({ tokens: prompt, trace: names }),
      model.generate({ tokens: prompt, maxNew: Math.min(CONTINUED, room), temperature: 0 }),
    ]);
    const after = await model.fingerprint();
    // the head the run scored highest at its last measurement
    const log = this.run?.model ? this.run.log : this.shipped!;
    const last = log.prefixMatching[log.prefixMatching.length - 1];
    const head = argmax(last.slice(layer * config.n_heads, (layer + 1) * config.n_heads));
    const weights = trace![weightsName(layer, head)];
    // one label a token, as the model read the text (a character it does not know is [UNK])
    const labels = await Promise.all(prompt.map((id) => model.decode([id])));
    const predicted = await Promise.all(rowArgmax(logits).map((id) => model.decode([id])));
    const continuation = await model.decode(written.slice(prompt.length));
    this.drawLetters(labels.slice(1), predicted);
    this.drawHead(prompt, weights, labels, layer, head, last[layer * config.n_heads + head], continuation);
    this.frozen.textContent = `Weights’ fingerprint before reading: ${before}, after: ${after} — `
      + (before === after ? 'unchanged: the prompt changed activations, not weights.' : 'CHANGED.');
  }

  /** the letters, and under each the model's guess at the letter after it (green where it is right) */
  private drawLetters(read: string[], predicted: string[]): void {
    const row = (name: string, cells: HTMLElement[]) => h('tr', {}, h('th', { textContent: name, attrs: { scope: 'row' } }), ...cells);
    const guesses = predicted.slice(0, read.length).map((guess, i) => {
      const next = read[i];
      return h('td', { className: guess === next ? 'right' : 'wrong', textContent: guess.replace(/^\[(EOS|PAD|UNK|SEP|MASK|BOS)\]$/, '·') });
    });
    this.lettersTable.replaceChildren(
      row('letters', read.map((c) => h('td', { textContent: c }))),
      row('guess before it', guesses));
  }

  private drawHead(prompt: number[], weights: MatrixData, labels: string[], layer: number, head: number, score: number, continuation: string): void {
    this.map.configure({ rowLabels: labels, colLabels: labels });
    this.map.draw(weights);
    const induction = scoreHeads(prompt, [[weights]]).induction.heads[0][0];
    const reading = Number.isFinite(induction.score)
      ? `on your letters it puts ${formatNumber(induction.score, 2)} of a repeated letter’s attention on the letter after its earlier occurrence (a uniform head: ${formatNumber(induction.uniform, 2)})`
      : 'your letters repeat nothing yet: repeat a few to see it look back';
    this.verdict.replaceChildren(
      'It writes on: ', h('strong', { textContent: continuation || '(nothing: the context is full)' }), '. ',
      `The induction head, layer ${layer} head ${head} (prefix-matching score ${formatNumber(score, 2)} in training), `, reading, '.');
  }
}
