// <attn-scaling-laws>: the scaling laws of Kaplan et al. (2020), L(N), L(D) and L(C) on log-log
// axes, one drawn large at a time, with their published exponents and constants; beside them a
// toy-scale measurement in this browser: the engine trains five sizes of one model on the sort task
// in its worker, one AdamW step per call, for the same number of steps, and the held-out loss of
// each is plotted against its parameter count with a fitted power law. Training starts the first
// time the widget is on screen (never while it is drawn in the background), pauses while it is off
// screen, can be cancelled (the sizes done are kept), and "Run again" trains anew with the next seed.
// Settings: law ('N', 'D' or 'C': the law drawn).
import type { RemoteEngine } from '../runtime/engine';
import { SCALING_LAWS_SHOWN } from '../runtime/registry';
import type { RemoteTrainer } from '../engine/worker-client';
import { formatCount, formatNumber, formatSignificant } from '../math/format';
import { formatMagnitude } from '../math/magnitude';
import { fitPowerLaw, powerLawAt, type PowerLaw } from '../math/power-law';
import { decreasesStrictly, KAPLAN_2020, lawCurve, median, PUBLISHED_LAWS, type PublishedLaw, type ScalingResource } from '../math/scaling-laws';
import { BackgroundJob, type JobState } from '../primitives/background-job';
import { EngineElement } from '../runtime/engine-element';
import { Plot, SERIES_COLOURS } from '../primitives/plot';

type Law = (typeof SCALING_LAWS_SHOWN)[number] & ScalingResource;

/** the tab of each law, and the name of its x axis */
const LAW_NAMES: Record<Law, { tab: string; axis: string }> = {
  N: { tab: 'parameters N', axis: 'N, non-embedding parameters' },
  D: { tab: 'data D', axis: 'D, tokens of data' },
  C: { tab: 'compute C', axis: 'C, compute (PF-days)' },
};

/** The measurement: one task, one step budget, five widths (heads and d_ff growing with them). The
 * budget is short enough for a few seconds per size on two cores, and long enough that the loss
 * falls with every size at every seed tried (1 … 20). */
const TASK = 'sort';
const STEPS = 200;
const BATCH = 32;
const LEARNING_RATE = 3e-3;
const WARMUP = 20;
const LAYERS = 2;
const SIZES: readonly { dModel: number; heads: number }[] = [
  { dModel: 8, heads: 1 }, { dModel: 16, heads: 2 }, { dModel: 32, heads: 4 }, { dModel: 48, heads: 4 }, { dModel: 64, heads: 4 },
];
const FFN_FACTOR = 4;
/** held-out strings the loss is averaged over */
const EVALUATED = 200;
/** how long one slice trains before the page has its turn (it paints the progress in between) */
const SLICE_MS = 120;
/** what the run's state is called on the page (data-state) */
const RUN_STATES: Record<JobState, string> = { waiting: 'waiting', running: 'training', stopping: 'stopping', stopped: 'cancelled', done: 'done' };

interface Measured {
  parameters: number;
  loss: number;
  /** the median round trip of one training step: what the size costs, not the calls of other widgets it waited behind */
  msPerStep: number;
  /** its engine calls, waits included */
  ms: number;
}

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
.tabs { display: flex; gap: 4px; margin: 0 0 4px; }
.tabs button { padding: 1px 8px; font-size: 13px; }
.constants, .source, .setup, .fit { margin: 3px 0 0; font-size: 12.5px; line-height: 1.35; }
.source, .setup { color: var(--muted); }
.fit strong { font-variant-numeric: tabular-nums; font-size: 14px; }
.run { display: flex; flex-wrap: wrap; gap: 2px 8px; align-items: center; margin: 4px 0; font-size: 12.5px; line-height: 1.3; color: var(--muted); }
.run progress { width: 96px; }
.run button { padding: 0 8px; font-size: 13px; color: var(--fg); }
.run .status { flex: 1 1 100%; min-height: 2.6em; }
table.sizes { border-collapse: collapse; font-size: 12.5px; font-variant-numeric: tabular-nums; margin: 4px 0 0; }
table.sizes th, table.sizes td { padding: 0 5px; text-align: right; border-bottom: 1px solid var(--border); white-space: nowrap; }
table.sizes th { font-weight: 600; color: var(--muted); }
table.sizes tr.training td { color: var(--accent); font-weight: 600; }
`;

export default class ScalingLaws extends EngineElement {
  private readonly lawPlot = new Plot({ xLabel: '', yLabel: 'test loss (nats/token)', xLog: true, yLog: true, width: 296, height: 290 });
  private readonly measuredPlot = new Plot({ xLabel: 'parameters P (all)', yLabel: 'held-out loss (nats)',
    xLog: true, yLog: true, width: 296, height: 180 });
  private view?: ReturnType<ScalingLaws['build']>;
  private drawnLaw?: Law;
  /** the sizes measured in the current run, in order */
  private measured: Measured[] = [];
  /** the parameter count of each size, from the engine */
  private parameters?: number[];
  private current?: Training;
  /** the seed of the current run; "Run again" takes the next */
  private seed = 1;
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
    const view = (this.view ??= this.build());
    if (!view.root.isConnected) this.body.replaceChildren(view.root);
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
    const view = this.view!;
    const published: PublishedLaw = PUBLISHED_LAWS[law];
    for (const [key, button] of view.tabs) button.setAttribute('aria-pressed', String(key === law));
    const curve = lawCurve(published);
    // three decimals, as the paper gives them (0.050)
    const alpha = published.alpha.toFixed(3);
    this.lawPlot.configure({ xLabel: LAW_NAMES[law].axis });
    this.lawPlot.draw([{ name: `L(${law}) = (${law}_c / ${law})^${alpha}: slope −${alpha}`, colour: SERIES_COLOURS.blue, ...curve }]);
    view.constants.textContent = `α_${law} = ${alpha}, ${law}_c = ${formatMagnitude(published.scale)} ${published.unit}; `
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
      const { dModel, heads } = SIZES[index];
      const trainer = await engine.createTrainer({ task: TASK, seed, steps: STEPS, batchSize: BATCH, learningRate: LEARNING_RATE,
        warmupSteps: WARMUP, size: { dModel, heads, layers: LAYERS, dFF: FFN_FACTOR * dModel } });
      // a Cancel or Run again while it was made
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

  /** the measured points, the fitted line and the table */
  private drawMeasured(): void {
    const view = this.view!;
    const parameters = this.parameters ?? [];
    const points = this.measured.map((m) => [m.parameters, m.loss] as [number, number]);
    const fit: PowerLaw | undefined = points.length >= 2 ? fitPowerLaw(points) : undefined;
    // the axis spans every size from the start, so that it stays put as the points come in, with
    // room beyond the smallest and largest so that no point sits on the frame
    const xRange: [number, number] | undefined = parameters.length ? [Math.min(...parameters) / 1.3, Math.max(...parameters) * 1.3] : undefined;
    this.measuredPlot.configure({ xRange });
    const ends = fit ? [points[0][0], points[points.length - 1][0]] : [];
    this.measuredPlot.draw([
      { name: 'measured', colour: SERIES_COLOURS.vermillion, style: 'points', x: points.map(([p]) => p), y: points.map(([, l]) => l) },
      ...(fit ? [{ name: `fit: P^${formatExponent(fit.exponent)}`, colour: SERIES_COLOURS.blue, style: 'dashed' as const,
        x: ends, y: ends.map((p) => powerLawAt(fit, p)) }] : []),
    ]);
    view.fit.hidden = !fit;
    if (fit) {
      view.exponent.textContent = formatExponent(fit.exponent);
      view.fit.dataset.exponent = String(fit.exponent);
      view.fitDetail.textContent = ` (R² = ${formatNumber(fit.r2, 2)}) over ${points.length} sizes; Kaplan et al.’s L(N): −${PUBLISHED_LAWS.N.alpha.toFixed(3)}.`;
    }
    view.rows.forEach((row, i) => {
      const m = this.measured[i];
      const count = parameters[i];
      row.parameters.textContent = count === undefined ? '—' : formatCount(count);
      row.loss.textContent = m ? formatNumber(m.loss, 3) : '—';
      row.msPerStep.textContent = m ? formatNumber(m.msPerStep, 1) : '—';
    });
  }

  /** the progress bar, what is being done, the buttons, and the size in training */
  private report(): void {
    const view = this.view;
    if (!view || !this.training) return;
    // (the job says so once its last slice has returned)
    const state = this.finished ? 'done' : RUN_STATES[this.training.state];
    // a stopped run keeps the sizes measured, not the one it was training
    if (state === 'cancelled') this.discardTraining();
    const done = this.measured.length;
    const steps = this.current?.steps ?? 0;
    view.bar.max = SIZES.length * STEPS;
    view.bar.value = done * STEPS + steps;
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
      text = done === 0 && steps === 0 ? `Trains ${SIZES.length} sizes once it is on screen.` : 'Paused while off screen.';
    }
    // written in place, once per training step: no new node for the garbage collector each time
    view.run.dataset.state = state;
    view.status.data = text;
    view.seed.data = ` Seed ${this.seed}.`;
    const focused = this.root.activeElement;
    view.cancel.hidden = state === 'cancelled' || state === 'done';
    view.cancel.disabled = state === 'stopping';
    view.again.hidden = !view.cancel.hidden;
    // a button that disappears under the keyboard hands the focus to the one that replaces it
    if (focused instanceof HTMLButtonElement && focused.hidden) (view.cancel.hidden ? view.again : view.cancel).focus();
    view.rows.forEach((row, i) => row.element.classList.toggle('training', state === 'training' && i === done));
  }

  private build() {
    const root = document.createElement('div');
    const panes = document.createElement('div');
    panes.className = 'panes';

    // the published laws
    const published = document.createElement('section');
    published.className = 'pane';
    const publishedTitle = document.createElement('h3');
    publishedTitle.textContent = `Published: ${KAPLAN_2020.authors} (${KAPLAN_2020.year})`;
    const tabBar = document.createElement('div');
    tabBar.className = 'tabs';
    tabBar.setAttribute('role', 'group');
    tabBar.setAttribute('aria-label', 'the law drawn');
    tabBar.dataset.control = 'law';
    const tabs = new Map<Law, HTMLButtonElement>();
    for (const law of SCALING_LAWS_SHOWN) {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = LAW_NAMES[law].tab;
      b.addEventListener('click', () => this.change({ law }));
      tabs.set(law, b);
      tabBar.append(b);
    }
    const constants = document.createElement('p');
    constants.className = 'constants';
    const source = document.createElement('p');
    source.className = 'source';
    source.textContent = `L(X) = (X_c / X)^α_X when the other two resources do not limit it: `
      + `${KAPLAN_2020.authors} (${KAPLAN_2020.year}), “${KAPLAN_2020.title}”, arXiv:${KAPLAN_2020.arxiv}, eqs. 1.1–1.3.`;
    published.append(publishedTitle, tabBar, this.lawPlot.element, constants, source);

    // the measurement
    const measuredPane = document.createElement('section');
    measuredPane.className = 'pane';
    const measuredTitle = document.createElement('h3');
    measuredTitle.innerHTML = 'Measured here <span class="muted">(toy scale, this browser)</span>';
    const setup = document.createElement('p');
    setup.className = 'setup';
    setup.textContent = `Task “${TASK}”, ${STEPS} steps × batch ${BATCH}, ${LAYERS} layers, d_ff = ${FFN_FACTOR}·d_model, `
      + `loss on ${EVALUATED} held-out strings.`;
    const seed = document.createTextNode('');
    setup.append(seed);
    const run = document.createElement('div');
    run.className = 'run';
    run.dataset.control = 'run';
    const bar = document.createElement('progress');
    bar.setAttribute('aria-label', 'training steps done');
    const statusLine = document.createElement('span');
    statusLine.className = 'status';
    statusLine.setAttribute('role', 'status');
    const status = document.createTextNode('');
    statusLine.append(status);
    const button = (text: string, onClick: () => void) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = text;
      b.addEventListener('click', onClick);
      return b;
    };
    const cancel = button('Cancel', () => void this.training?.stop());
    const again = button('Run again', () => {
      this.discardTraining();
      this.measured = [];
      this.seed += 1;
      this.drawMeasured();
      this.train();
    });
    run.append(bar, cancel, again, statusLine);

    const fit = document.createElement('p');
    fit.className = 'fit';
    fit.hidden = true;
    const exponent = document.createElement('strong');
    const fitDetail = document.createElement('span');
    fit.append('Fitted exponent ', exponent, fitDetail);

    const table = document.createElement('table');
    table.className = 'sizes';
    table.innerHTML = '<caption class="sr-only">the sizes trained: width, heads, parameters, held-out loss, and the median time of one training step</caption>'
      + '<thead><tr><th>d_model</th><th>heads</th><th>params</th><th>loss</th><th title="the median time of one training step">ms/step</th></tr></thead>';
    const body = document.createElement('tbody');
    const rows = SIZES.map(({ dModel, heads }) => {
      const element = document.createElement('tr');
      const cell = (text = '—') => Object.assign(document.createElement('td'), { textContent: text });
      const parameters = cell();
      const loss = cell();
      const msPerStep = cell();
      element.append(cell(String(dModel)), cell(String(heads)), parameters, loss, msPerStep);
      body.append(element);
      return { element, parameters, loss, msPerStep };
    });
    table.append(body);
    measuredPane.append(measuredTitle, setup, run, this.measuredPlot.element, fit, table);

    panes.append(published, measuredPane);
    root.append(panes);
    return { root, tabs, constants, seed, bar, status, cancel, again, run, fit, exponent, fitDetail, rows };
  }
}

/** the parameter count of each size: its model made, counted and freed */
async function countParameters(engine: RemoteEngine): Promise<number[]> {
  const counts: number[] = [];
  for (const { dModel, heads } of SIZES) {
    const trainer = await engine.createTrainer({ task: TASK, size: { dModel, heads, layers: LAYERS, dFF: FFN_FACTOR * dModel } });
    counts.push(await trainer.parameters());
    release(trainer);
  }
  return counts;
}

/** frees a trainer in the worker; one whose worker is gone has nothing left to free */
function release(trainer: RemoteTrainer): void {
  trainer.dispose().catch(() => undefined);
}

/** an exponent with a true minus sign and two decimals: "−0.47" */
function formatExponent(k: number): string {
  return formatNumber(k, 2);
}
