// <attn-scaling-laws>: the scaling laws of Kaplan et al. (2020), L(N), L(D) and L(C) on log-log
// axes, one drawn large at a time, with their published exponents and constants; beside them a
// toy-scale measurement in this browser: the engine trains five sizes of one model on the sort task
// in its worker, one AdamW step per call, for the same number of steps, and the held-out loss of
// each is plotted against its parameter count with a fitted power law. Until that run is finished
// (or stopped), the plot and the table show a stored earlier measurement of the same experiment
// (math/stored-runs.ts), named with its date, machine and build. Training starts the first time the
// widget is on screen (never while it is drawn in the background), pauses while it is off screen,
// can be cancelled (the sizes done are kept), and "Measure again" trains anew with the next seed.
// Settings: law ('N', 'D' or 'C': the law drawn).
import type { RemoteEngine } from '../runtime/engine';
import type { SCALING_LAWS_SHOWN } from '../runtime/registry';
import type { RemoteTrainer } from '../engine/worker-client';
import { formatCount, formatNumber, formatSignificant } from '../math/format';
import { formatMagnitude } from '../math/magnitude';
import { fitPowerLaw, powerLawAt, type PowerLaw } from '../math/power-law';
import { median } from '../math/ranking';
import {
  decreasesStrictly, KAPLAN_2020, lawCurve, PUBLISHED_LAWS, TOY_EXPERIMENT, toyTrainerOptions, type PublishedLaw, type ScalingResource, type ToyMeasurement,
} from '../math/scaling-laws';
import { describeMeasuredOn, shortMeasuredOn, STORED_TOY_EXPERIMENT } from '../math/stored-runs';
import { BackgroundJob, type JobState } from '../primitives/background-job';
import { button, h, showButtons } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { Plot, SERIES_COLOURS } from '../primitives/plot';

type Law = (typeof SCALING_LAWS_SHOWN)[number] & ScalingResource;

/** the tab of each law, and the name of its x axis */
const LAW_NAMES: Record<Law, { tab: string; axis: string }> = {
  N: { tab: 'parameters N', axis: 'N, non-embedding parameters' },
  D: { tab: 'data D', axis: 'D, tokens of data' },
  C: { tab: 'compute C', axis: 'C, compute (PF-days)' },
};

/** the measurement: one task, one step budget, five widths (math/scaling-laws.ts) */
const { task: TASK, steps: STEPS, batch: BATCH, layers: LAYERS, sizes: SIZES, ffnFactor: FFN_FACTOR, evaluated: EVALUATED } = TOY_EXPERIMENT;
/** how long one slice trains before the page has its turn (it paints the progress in between) */
const SLICE_MS = 120;
/** what the run's state is called on the page (data-state) */
const RUN_STATES: Record<JobState, string> = { waiting: 'waiting', running: 'training', stopping: 'stopping', stopped: 'cancelled', done: 'done' };

/** one size measured; its msPerStep is the median round trip of one training step: what the size
 * costs, not the calls of other widgets it waited behind */
type Measured = ToyMeasurement;

/** the size being trained */
interface Training {
  trainer: RemoteTrainer;
  steps: number;
  /** milliseconds of each step's call */
  stepMs: number[];
  /** milliseconds of its engine calls so far */
  ms: number;
}

const styles = `
.panes { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: flex-start; }
.pane { flex: 1 1 296px; min-width: 0; max-width: 420px; }
.pane h3 { margin: 0 0 3px; font-size: 15px; line-height: 1.3; }
.pane h3 .muted { font-weight: 400; }
.pane .group { display: flex; margin: 0 0 4px; }
.pane .group button { padding: 1px 8px; font-size: 14px; }
.constants, .source, .setup, .fit { margin: 3px 0 0; font-size: 14px; line-height: 1.35; }
.source, .setup { color: var(--muted); }
.fit strong { font-variant-numeric: tabular-nums; font-size: 14px; }
.run { display: flex; flex-wrap: wrap; gap: 2px 8px; align-items: center; margin: 4px 0; font-size: 14px; line-height: 1.3; color: var(--muted); }
.run progress { width: 96px; }
.run button { padding: 0 8px; font-size: 14px; color: var(--fg); }
.run .status { flex: 1 1 100%; min-height: 1.3em; }
table.sizes { border-collapse: collapse; font-size: 14px; font-variant-numeric: tabular-nums; margin: 4px 0 0; }
table.sizes th, table.sizes td { padding: 0 5px; text-align: right; border-bottom: 1px solid var(--border); white-space: nowrap; }
table.sizes th { font-weight: 600; color: var(--muted); }
table.sizes tr.training td { color: var(--accent); font-weight: 600; }
`;

export default class ScalingLaws extends EngineElement {
  private readonly lawPlot = new Plot({ xLabel: '', yLabel: 'test loss (nats/token)', xLog: true, yLog: true, width: 296, height: 290 });
  private readonly measuredPlot = new Plot({ xLabel: 'parameters P (all)', yLabel: 'held-out loss (nats)',
    xLog: true, yLog: true, width: 296, height: 180 });
  private readonly law = this.bound.choices<Law>('law', { text: (law) => LAW_NAMES[law].tab, showName: false });
  private readonly constants = h('p', 'constants');
  private readonly seedText = new Text();
  private readonly bar = h('progress', { attrs: { 'aria-label': 'training steps done' } });
  private readonly statusText = new Text();
  private readonly cancel = button('Cancel', () => void this.training?.stop());
  private readonly again = button('Measure again', () => {
    this.discardTraining();
    this.measured = [];
    this.seed += 1;
    this.drawMeasured();
    this.train();
  });
  private readonly run = h('div', { className: 'run', data: { control: 'run' } },
    this.bar, this.cancel, this.again, h('span', { className: 'status', attrs: { role: 'status' } }, this.statusText));
  /** "Measured here", or "Measured earlier" over the stored measurement, which the setup's line dates */
  private readonly measuredTitle = h('h3');
  private readonly storedText = new Text();
  private readonly setup = h('p', { className: 'setup', textContent: `Task “${TASK}”, ${STEPS} steps × batch ${BATCH}, ${LAYERS} layers, `
    + `d_ff = ${FFN_FACTOR}·d_model, loss on ${EVALUATED} held-out strings.` }, this.seedText, this.storedText);
  private readonly exponent = h('strong');
  private readonly fitDetail = h('span');
  private readonly fit = h('p', { className: 'fit', hidden: true }, 'Fitted exponent ', this.exponent, this.fitDetail);
  /** the table's row of each size, with the cells that are measured */
  private readonly sizeRows = SIZES.map(({ dModel, heads }) => {
    const [parameters, loss, msPerStep] = [0, 1, 2].map(() => h('td', { textContent: '—' }));
    const element = h('tr', {}, h('td', { textContent: String(dModel) }), h('td', { textContent: String(heads) }), parameters, loss, msPerStep);
    return { element, parameters, loss, msPerStep };
  });
  private drawnLaw?: Law;
  /** the sizes measured in the current run, in order */
  private measured: Measured[] = [];
  /** the parameter count of each size, from the engine */
  private parameters?: number[];
  private current?: Training;
  /** the seed of the current run; "Measure again" takes the next */
  private seed: number = TOY_EXPERIMENT.seed;
  /** what the plot and the table show: the stored measurement until a run here is finished or stopped */
  private showing?: 'stored' | 'here';
  /** the training: a slice of steps at a time, while the widget is on screen */
  private training?: BackgroundJob;

  constructor() {
    super(styles, 'on log-log axes a power law is a straight line, its slope the exponent: in the published laws and in the toy models.');
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    // taken off the page: the size in training starts over if it comes back
    this.discardTraining();
  }

  private get finished(): boolean {
    return this.measured.length === SIZES.length;
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const law = this.value<Law>('law');
    if (law !== this.drawnLaw) this.drawLaw(law);
    if (!this.parameters) {
      this.parameters = await countParameters(engine);
      this.drawMeasured();
      this.training = new BackgroundJob(this, {
        remaining: () => !this.finished,
        slice: () => this.trainSlice(engine),
        report: () => this.report(),
      });
      this.train();
    }
    this.report();
  }

  /** trains the sizes not measured yet, from where it stopped; a failed call stops it (the sizes measured stay) */
  private train(): void {
    this.training?.start().catch((error: unknown) => this.showError(error instanceof Error ? error.message : String(error)));
  }

  /** the chosen law, large: its curve, exponent and constants */
  private drawLaw(law: Law): void {
    const published: PublishedLaw = PUBLISHED_LAWS[law];
    const curve = lawCurve(published);
    // three decimals, as the paper gives them (0.050)
    const alpha = published.alpha.toFixed(3);
    this.lawPlot.configure({ xLabel: LAW_NAMES[law].axis });
    this.lawPlot.draw([{ name: `L(${law}) = (${law}_c / ${law})^${alpha}: slope −${alpha}`, colour: SERIES_COLOURS.blue, ...curve }]);
    this.constants.textContent = `α_${law} = ${alpha}, ${law}_c = ${formatMagnitude(published.scale)} ${published.unit}; `
      + `L = ${formatSignificant(curve.y[0], 3)} nats/token at ${formatMagnitude(curve.x[0])}, `
      + `${formatSignificant(curve.y[curve.y.length - 1], 3)} at ${formatMagnitude(curve.x[curve.x.length - 1])}.`;
    this.drawnLaw = law;
  }

  /** trains the size due for about SLICE_MS (creating its trainer first), and evaluates it once its steps are done */
  private async trainSlice(engine: RemoteEngine): Promise<void> {
    const sliceStart = performance.now();
    const index = this.measured.length;
    if (!this.current) {
      const { seed } = this;
      const trainer = await engine.createTrainer(toyTrainerOptions(SIZES[index], seed));
      // a Cancel or Measure again while it was made
      if (seed !== this.seed || this.training?.state !== 'running') return release(trainer);
      this.current = { trainer, steps: 0, stepMs: [], ms: 0 };
    }
    const current = this.current;
    while (current.steps < STEPS && performance.now() - sliceStart < SLICE_MS) {
      const start = performance.now();
      await current.trainer.step();
      if (this.current !== current || this.training?.state !== 'running') return;
      const ms = performance.now() - start;
      current.stepMs.push(ms);
      current.ms += ms;
      current.steps++;
      this.report();
    }
    if (current.steps < STEPS) return;
    const start = performance.now();
    const loss = await current.trainer.heldOutLoss({ count: EVALUATED });
    if (this.current !== current) return;
    current.ms += performance.now() - start;
    this.measured.push({ parameters: this.parameters![index], loss, msPerStep: median(current.stepMs), ms: current.ms });
    this.discardTraining();
    this.drawMeasured();
  }

  /** frees the trainer of the size in training (done, cancelled, a new run, the widget taken off the page) */
  private discardTraining(): void {
    if (this.current) release(this.current.trainer);
    this.current = undefined;
  }

  /** whether the run here is what is shown: once it has all its sizes, or was stopped with some */
  private get showsHere(): boolean {
    return this.finished || (this.training?.state === 'stopped' && this.measured.length > 0);
  }

  /** the measured points, the fitted line and the table: the run here's, or until it is finished
   * (or stopped), the stored measurement's, said so */
  private drawMeasured(): void {
    const parameters = this.parameters ?? STORED_TOY_EXPERIMENT.sizes.map((m) => m.parameters);
    this.showing = this.showsHere ? 'here' : 'stored';
    const shown = this.showing === 'here' ? this.measured : STORED_TOY_EXPERIMENT.sizes;
    this.dataset.shows = this.showing;
    const stored = STORED_TOY_EXPERIMENT.measuredOn;
    this.measuredTitle.replaceChildren(this.showing === 'here' ? 'Measured here ' : 'Measured earlier ',
      h('span', { className: 'muted', textContent: this.showing === 'here' ? '(toy scale, this browser)' : '(toy scale, stored)' }));
    // the stored run's seed is named when it is not the one the setting asks for
    const storedSeed = STORED_TOY_EXPERIMENT.seed === this.seed ? '' : `seed ${STORED_TOY_EXPERIMENT.seed}, `;
    this.storedText.data = this.showing === 'here' ? '' : ` Shown: ${storedSeed}measured ${shortMeasuredOn(stored)}.`;
    this.setup.title = this.showing === 'here' ? '' : `the stored measurement: ${describeMeasuredOn(stored)}`;
    const points = shown.map((m) => [m.parameters, m.loss] as [number, number]);
    const fit: PowerLaw | undefined = points.length >= 2 ? fitPowerLaw(points) : undefined;
    // the axis spans every size from the start, so that it stays put as the points come in, with
    // room beyond the smallest and largest so that no point sits on the frame
    const xRange: [number, number] | undefined = parameters.length ? [Math.min(...parameters) / 1.3, Math.max(...parameters) * 1.3] : undefined;
    this.measuredPlot.configure({ xRange });
    const ends = fit ? [points[0][0], points[points.length - 1][0]] : [];
    this.measuredPlot.draw([
      { name: 'measured', colour: SERIES_COLOURS.vermillion, style: 'points', x: points.map(([p]) => p), y: points.map(([, l]) => l) },
      ...(fit ? [{ name: `fit: P^${formatNumber(fit.exponent, 2)}`, colour: SERIES_COLOURS.blue, style: 'dashed' as const,
        x: ends, y: ends.map((p) => powerLawAt(fit, p)) }] : []),
    ]);
    this.fit.hidden = !fit;
    if (fit) {
      this.exponent.textContent = formatNumber(fit.exponent, 2);
      this.fit.dataset.exponent = String(fit.exponent);
      this.fitDetail.textContent = ` (R² = ${formatNumber(fit.r2, 2)}) over ${points.length} sizes; Kaplan et al.’s L(N): −${PUBLISHED_LAWS.N.alpha.toFixed(3)}.`;
    }
    this.sizeRows.forEach((row, i) => {
      const m = shown[i];
      const count = parameters[i];
      row.parameters.textContent = count === undefined ? '—' : formatCount(count);
      row.loss.textContent = m ? formatNumber(m.loss, 3) : '—';
      row.msPerStep.textContent = m ? formatNumber(m.msPerStep, 1) : '—';
    });
  }

  /** the progress bar, what is being done, the buttons, and the size in training */
  private report(): void {
    if (!this.training) return;
    // (the job says so once its last slice has returned)
    const state = this.finished ? 'done' : RUN_STATES[this.training.state];
    // a stopped run keeps the sizes measured, not the one it was training
    if (state === 'cancelled') this.discardTraining();
    if ((this.showsHere ? 'here' : 'stored') !== this.showing) this.drawMeasured();
    const done = this.measured.length;
    const steps = this.current?.steps ?? 0;
    this.bar.max = SIZES.length * STEPS;
    this.bar.value = done * STEPS + steps;
    let text: string;
    if (state === 'done') {
      const falling = decreasesStrictly(this.measured.map((m) => m.loss));
      text = `${SIZES.length} sizes trained in ${formatNumber(this.measured.reduce((s, m) => s + m.ms, 0) / 1000, 1)} s, one worker call per step; `
        + (falling ? 'the loss falls with every size.' : 'at this seed the loss does not fall with every size.');
    } else if (state === 'training') {
      text = `Training d_model = ${SIZES[done].dModel} (size ${done + 1} of ${SIZES.length}): step ${steps} of ${STEPS}…`;
    } else if (state === 'stopping') {
      text = 'Stopping after this step…';
    } else if (state === 'cancelled') {
      text = `Stopped after ${done} of ${SIZES.length} sizes; the ${done} measured are kept.`;
    } else {
      text = done === 0 && steps === 0 ? `Trains ${SIZES.length} sizes here once it is on screen.` : 'Paused while off screen.';
    }
    // written in place, once per training step: no new node for the garbage collector each time
    this.run.dataset.state = state;
    this.statusText.data = text;
    this.seedText.data = ` Seed ${this.seed}.`;
    const over = state === 'cancelled' || state === 'done';
    this.cancel.disabled = state === 'stopping';
    showButtons([[this.cancel, !over], [this.again, over]]);
    this.sizeRows.forEach((row, i) => row.element.classList.toggle('training', state === 'training' && i === done));
  }

  protected override layout(): HTMLElement {
    const sizes = h('table', 'sizes');
    sizes.innerHTML = '<caption class="sr-only">the sizes trained: width, heads, parameters, held-out loss, and the median time of one training step</caption>'
      + '<thead><tr><th>d_model</th><th>heads</th><th>params</th><th>loss</th><th title="the median time of one training step">ms/step</th></tr></thead>';
    sizes.append(h('tbody', {}, ...this.sizeRows.map((row) => row.element)));
    const measuredTitle = this.measuredTitle;
    return h('div', 'panes',
      h('section', 'pane', h('h3', { textContent: `Published: ${KAPLAN_2020.authors} (${KAPLAN_2020.year})` }), this.law.element, this.lawPlot.element, this.constants,
        h('p', { className: 'source', textContent: 'L(X) = (X_c / X)^α_X when the other two resources do not limit it: '
          + `${KAPLAN_2020.authors} (${KAPLAN_2020.year}), “${KAPLAN_2020.title}”, arXiv:${KAPLAN_2020.arxiv}, eqs. 1.1–1.3.` })),
      h('section', 'pane', measuredTitle,
        this.setup,
        this.run, this.measuredPlot.element, this.fit, sizes));
  }
}

/** the parameter count of each size: its model made, counted and freed */
async function countParameters(engine: RemoteEngine): Promise<number[]> {
  const counts: number[] = [];
  for (const size of SIZES) {
    const trainer = await engine.createTrainer(toyTrainerOptions(size, TOY_EXPERIMENT.seed));
    counts.push(await trainer.parameters());
    release(trainer);
  }
  return counts;
}

/** frees a trainer in the worker; one whose worker is gone has nothing left to free */
function release(trainer: RemoteTrainer): void {
  trainer.dispose().catch(() => undefined);
}
