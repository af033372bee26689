// <attn-complexity>: what attention, the projections and the feed-forward network cost, timed by
// the engine in this browser's worker, one measured point per call. Time against n on log-log axes
// at width d, and against d at n = 512, each kernel with its least-squares slope: attention (one
// head forming the n×n weights: scores QKᵀ, softmax, weighted sum of V), the projections x·W_Q,
// x·W_K, x·W_V and ·W_O, and the GELU FFN (d_ff = 4d); the layer is their sum. Beside them, the
// table of write-up 002 §10 with the measured slopes next to the theoretical exponents (a measured
// slope shows its points in the plots), and the steps an RNN takes one after another against one
// attention layer's one. Measuring starts the first time the widget is on screen (never while it
// is drawn in the background), pauses while it is off screen, and can be cancelled, keeping the
// points measured; a point once measured is kept until "Measure again".
// Settings: d (the width of the n sweep), maxN (the longest n).
import type { RemoteEngine } from '../app/engine';
import { COMPLEXITY_LENGTHS, COMPLEXITY_WIDTHS } from '../app/state';
import { doublings, endSlopes, overtakes, timingsAgree } from '../math/complexity';
import { formatNumber, formatSignificant } from '../math/format';
import { formatMagnitude, logAxis } from '../math/magnitude';
import { fitPowerLaw, powerLawAt, type PowerLaw } from '../math/power-law';
import { CANVAS_FONT, foreground, sharpCanvas, type SharpCanvas } from '../primitives/canvas';
import { EngineElement } from '../primitives/engine-element';
import { SERIES_COLOURS } from '../primitives/plot';
import { ScreenReaderTable } from '../primitives/screen-reader-table';

type Kernel = 'single_head' | 'projections' | 'feed_forward';
type SeriesKey = 'attention' | 'projections' | 'ffn' | 'layer';
type Axis = 'n' | 'd';

/** what the engine times for each measured series; the layer is their sum */
const KERNELS: readonly { key: Exclude<SeriesKey, 'layer'>; kernel: Kernel }[] = [
  { key: 'attention', kernel: 'single_head' },
  { key: 'projections', kernel: 'projections' },
  { key: 'ffn', kernel: 'feed_forward' },
];
const COLOURS: Record<SeriesKey, string> = {
  attention: SERIES_COLOURS.blue, projections: SERIES_COLOURS.orange, ffn: SERIES_COLOURS.green, layer: SERIES_COLOURS.purple,
};
const NAMES: Record<SeriesKey, string> = { attention: 'attention', projections: 'projections', ffn: 'FFN', layer: 'sum' };

const SHORTEST_N = 128;
/** the d sweep runs at this n */
const D_SWEEP_N = 512;
const D_SWEEP = doublings(32, 256);
/** one measurement: the median of at least this many calls lasting at least this long together */
const REPEATS = 5;
const MIN_MS = 80;
/** Every point is measured in passes over the whole plan, until its two fastest medians agree within
 * AGREEMENT, and keeps its fastest: another program busy for a while slows measurements down, never
 * speeds one up, and a whole pass lies between two measurements of a point. */
const MIN_PASSES = 2;
const MAX_PASSES = 4;
const AGREEMENT = 1.25;
/** attention's slope in d below this is explained by its softmax, which d does not change */
const SOFTMAX_SHOWS = 0.9;
/** the longest sequence the engine's RNN runs (rnnGradientFlow's T) */
const RNN_LONGEST = 512;

/** write-up 002 §10, and which measured series each operation is part of */
const ROWS: readonly { operation: string; cost: string; n: string; d: string; series: SeriesKey }[] = [
  { operation: 'Q, K, V projections (+ W_O)', cost: 'O(n·d²)', n: '1', d: '2', series: 'projections' },
  { operation: 'attention scores QKᵀ', cost: 'O(n²·d_k)', n: '2', d: '1', series: 'attention' },
  { operation: 'softmax', cost: 'O(n²)', n: '2', d: '0', series: 'attention' },
  { operation: 'attention output A·V', cost: 'O(n²·d_v)', n: '2', d: '1', series: 'attention' },
  { operation: 'feed-forward (d_ff = 4d)', cost: 'O(n·d·d_ff)', n: '1', d: '2', series: 'ffn' },
  { operation: 'single layer', cost: 'O(n²·d + n·d²)', n: '1 → 2', d: '1 → 2', series: 'layer' },
];

const styles = `
.controls { display: flex; flex-wrap: wrap; gap: 6px 20px; align-items: center; margin: 0 0 4px; font-size: 14px; }
.group { display: inline-flex; gap: 4px; align-items: center; }
.group .name { color: var(--muted); margin-right: 2px; }
.group button, .actions button { padding: 1px 9px; font-size: 14px; }
.actions { display: inline-flex; gap: 6px; margin-left: auto; }
.progress { display: flex; gap: 10px; align-items: center; margin: 0 0 4px; font-size: 13px; color: var(--muted); min-height: 20px; }
.progress progress { width: 100px; flex: none; }
.plots { display: flex; flex-wrap: wrap; gap: 2px 12px; align-items: flex-start; }
.plots figure { margin: 0; max-width: 100%; }
.legend { display: flex; flex-wrap: wrap; gap: 0 9px; font-size: 12px; margin: 0; font-variant-numeric: tabular-nums; }
.legend .dim { opacity: 0.45; }
.dot { display: inline-block; width: 9px; height: 9px; border-radius: 50%; margin-right: 4px; vertical-align: baseline; }
.bar { display: inline-block; width: 14px; height: 3px; margin-right: 4px; vertical-align: middle; }
table.costs { border-collapse: collapse; font-size: 13px; font-variant-numeric: tabular-nums; }
table.costs th, table.costs td { padding: 0 4px; border-bottom: 1px solid var(--border); text-align: center; line-height: 1.5; }
table.costs th { font-weight: 600; color: var(--muted); font-size: 12px; }
table.costs th:first-child, table.costs td:first-child { text-align: left; }
table.costs td.cost { white-space: nowrap; }
table.costs button { min-width: 3.8em; padding: 0 5px; font-size: 13px; font-variant-numeric: tabular-nums; }
table.costs tr.chosen td:first-child { font-weight: 600; }
.lower { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: flex-start; margin: 4px 0 0; }
table.steps { border-collapse: collapse; font-size: 13px; font-variant-numeric: tabular-nums; width: 160px; }
table.steps caption { font-size: 12px; font-weight: 600; color: var(--muted); text-align: left; }
table.steps tfoot td { font-size: 12px; color: var(--muted); text-align: left; border: 0; line-height: 1.3; padding-top: 2px; }
table.steps th, table.steps td { padding: 0 5px; border-bottom: 1px solid var(--border); text-align: right; line-height: 1.5; }
table.steps th { font-weight: 600; color: var(--muted); font-size: 12px; }
.note, .summary { margin: 3px 0 0; font-size: 13px; }
.note { color: var(--muted); font-size: 12px; }
`;

/** a point's median in each pass so far, the rate of its fastest, and the calls timed over every pass */
interface Measured { medians: number[]; medianMs: number; gflops: number; repeats: number }
interface Job { kernel: Kernel; n: number; d: number }
const keyOf = ({ kernel, n, d }: Job) => `${kernel} ${n} ${d}`;

/** one kernel's (or the layer's) measured points in a plot, with its fitted law */
interface Curve { key: SeriesKey; points: [number, number][]; fit?: PowerLaw }

/** the factor by which a log axis reaches beyond its first and last value */
const MARGIN = 1.15;

/** measured times on log-log axes, x ticks at the measured sizes; one series can be picked out */
class LogLogPlot {
  readonly element = document.createElement('figure');
  readonly legend = document.createElement('figcaption');
  private readonly picture: SharpCanvas;

  constructor(label: string, private readonly size: { width: number; height: number; xLabel: string }) {
    this.picture = sharpCanvas(label);
    this.legend.className = 'legend';
    this.element.style.width = `${size.width}px`;
    this.element.append(this.picture.canvas, this.legend);
  }

  draw(curves: readonly Curve[], xTicks: readonly number[], xLabel: string, chosen?: SeriesKey): void {
    this.picture.draw(this.size.width, this.size.height, (g) => this.paint(g, curves, xTicks, xLabel, chosen));
  }

  private paint(g: CanvasRenderingContext2D, curves: readonly Curve[], xTicks: readonly number[], xLabel: string, chosen?: SeriesKey): void {
    const { width, height } = this.size;
    const times = curves.flatMap((c) => c.points.map(([, y]) => y)).filter((y) => y > 0 && Number.isFinite(y));
    // no y ticks until something is measured: the axis has no numbers to show yet; a little room
    // beyond the fastest and slowest time, so that no point sits on the frame
    const yAxis = times.length ? logAxis(Math.min(...times) / MARGIN, Math.max(...times) * MARGIN) : undefined;
    g.font = CANVAS_FONT;
    const fg = foreground(this.element);
    const left = 26 + Math.max(16, ...(yAxis?.ticks ?? []).map((v) => g.measureText(formatMagnitude(v)).width));
    const [top, right, bottom] = [8, 12, 34];
    const pw = width - left - right;
    const ph = height - top - bottom;
    const [x0, x1] = [xTicks[0] / MARGIN, xTicks[xTicks.length - 1] * MARGIN];
    const px = (x: number) => left + (Math.log(x / x0) / Math.log(x1 / x0)) * pw;
    const [y0, y1] = yAxis?.range ?? [1, 10];
    const py = (y: number) => top + (1 - Math.log(y / y0) / Math.log(y1 / y0)) * ph;

    g.strokeStyle = fg;
    g.lineWidth = 1;
    g.globalAlpha = 0.18;
    for (const x of xTicks) { g.beginPath(); g.moveTo(px(x), top); g.lineTo(px(x), top + ph); g.stroke(); }
    for (const y of yAxis?.ticks ?? []) { g.beginPath(); g.moveTo(left, py(y)); g.lineTo(left + pw, py(y)); g.stroke(); }
    g.globalAlpha = 1;
    g.strokeRect(left, top, pw, ph);
    g.fillStyle = fg;
    g.textAlign = 'center';
    g.textBaseline = 'top';
    for (const x of xTicks) g.fillText(String(x), px(x), top + ph + 4);
    g.fillText(xLabel, left + pw / 2, top + ph + 19);
    g.textAlign = 'right';
    g.textBaseline = 'middle';
    for (const y of yAxis?.ticks ?? []) g.fillText(formatMagnitude(y), left - 5, py(y));
    g.save();
    g.translate(11, top + ph / 2);
    g.rotate(-Math.PI / 2);
    g.textAlign = 'center';
    g.fillText('time (ms, log)', 0, 0);
    g.restore();
    if (!yAxis) return;

    g.save();
    g.beginPath();
    g.rect(left, top, pw, ph);
    g.clip();
    // the chosen series on top, the others faded behind it
    const order = [...curves].sort((a, b) => Number(a.key === chosen) - Number(b.key === chosen));
    for (const curve of order) {
      const picked = curve.key === chosen;
      g.globalAlpha = chosen === undefined || picked ? 1 : 0.22;
      g.strokeStyle = g.fillStyle = COLOURS[curve.key];
      const xs = curve.points.map(([x]) => x);
      if (curve.fit && xs.length >= 2) {
        g.lineWidth = picked ? 2.5 : 1.5;
        g.setLineDash([6, 4]);
        g.beginPath();
        g.moveTo(px(xs[0]), py(powerLawAt(curve.fit, xs[0])));
        g.lineTo(px(xs[xs.length - 1]), py(powerLawAt(curve.fit, xs[xs.length - 1])));
        g.stroke();
        g.setLineDash([]);
      }
      if (curve.key === 'layer') {
        g.lineWidth = picked ? 3 : 2;
        g.beginPath();
        curve.points.forEach(([x, y], i) => (i === 0 ? g.moveTo(px(x), py(y)) : g.lineTo(px(x), py(y))));
        g.stroke();
      } else {
        for (const [x, y] of curve.points) {
          g.beginPath();
          g.arc(px(x), py(y), picked ? 5 : 3.5, 0, 2 * Math.PI);
          g.fill();
          if (picked) {
            // a ring in the text colour picks the points out in either theme
            g.lineWidth = 1.5;
            g.strokeStyle = fg;
            g.stroke();
            g.strokeStyle = COLOURS[curve.key];
          }
        }
      }
    }
    g.restore();
  }
}

export class Complexity extends EngineElement {
  static readonly observedAttributes = EngineElement.attributesOf('attn-complexity');
  private readonly byN = new LogLogPlot('measured time against n on log-log axes, with fitted lines', { width: 420, height: 200, xLabel: 'n' });
  private readonly byD = new LogLogPlot('measured time against d on log-log axes, with fitted lines', { width: 345, height: 200, xLabel: 'd' });
  private readonly numbers = new ScreenReaderTable();
  /** every point measured, by kernel, n and d, kept until "Measure again" */
  private readonly measured = new Map<string, Measured>();
  /** sequential steps of the engine's RNN and of one attention layer, by n */
  private readonly steps = new Map<number, { rnn: number; attention: number }>();
  /** kernels run once already (their first call warms up the engine) */
  private readonly warmed = new Set<Kernel>();
  private view?: ReturnType<Complexity['build']>;
  private chosen?: SeriesKey;
  /** the reader stopped the measurement; a new setting or a button starts it again */
  private cancelled = false;
  /** a point is being measured, and more follow */
  private measuring = false;
  /** points are missing and nothing stops them but the widget being off screen */
  private due = false;
  private settings = '';
  private elapsedMs = 0;
  private threads?: number;
  /** whether the widget's box meets the viewport, as the observer last said */
  private intersecting = false;
  private readonly watcher = new IntersectionObserver((entries) => {
    this.intersecting = entries[entries.length - 1].isIntersecting;
    this.resumeIfShown();
  });
  private readonly onRedraw = () => this.resumeIfShown();

  constructor() {
    super(styles, 'slope ≈ 2 in n for attention, ≈ 1 for the projections and the FFN; in d, the other way round.');
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.watcher.observe(this);
    // a deck shows a slide by making it visible, which an IntersectionObserver does not report
    addEventListener('attn-redraw', this.onRedraw);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.watcher.unobserve(this);
    removeEventListener('attn-redraw', this.onRedraw);
  }

  /** on screen now: not scrolled away (the observer's word, which costs no layout), and not on a
   * hidden slide (every slide of a deck lies in the viewport, only the shown one visible) */
  private onScreen(): boolean {
    return this.isConnected && this.intersecting && this.checkVisibility({ visibilityProperty: true });
  }

  private resumeIfShown(): void {
    if (this.due && !this.measuring && this.onScreen()) this.update();
  }

  /** the points to measure, in order: each n for the three kernels in turn, then the d sweep */
  private plan(d: number, maxN: number): Job[] {
    const jobs = new Map<string, Job>();
    const add = (n: number, width: number) => {
      for (const k of KERNELS) jobs.set(keyOf({ kernel: k.kernel, n, d: width }), { kernel: k.kernel, n, d: width });
    };
    for (const n of doublings(SHORTEST_N, maxN)) add(n, d);
    for (const width of D_SWEEP) add(D_SWEEP_N, width);
    return [...jobs.values()];
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const d = Number(this.value<string>('d'));
    const maxN = Number(this.value<string>('maxN'));
    const view = (this.view ??= this.build());
    if (!view.root.isConnected) this.body.replaceChildren(view.root);
    for (const [value, button] of view.widths) button.setAttribute('aria-pressed', String(Number(value) === d));
    for (const [value, button] of view.lengths) button.setAttribute('aria-pressed', String(Number(value) === maxN));
    // a new setting measures what it lacks, even after a cancel
    if (`${d} ${maxN}` !== this.settings) {
      this.settings = `${d} ${maxN}`;
      this.cancelled = false;
    }
    const lengths = doublings(SHORTEST_N, maxN);
    for (const n of lengths.filter((n) => n <= RNN_LONGEST && !this.steps.has(n))) {
      this.steps.set(n, (await engine.rnnGradientFlow({ length: n, hidden: 1, input: 1 })).sequentialSteps);
    }
    this.threads ??= (await engine.info()).threadsUsed;

    const plan = this.plan(d, maxN);
    let next = this.nextMeasurement(plan);
    this.measuring = next !== undefined && !this.cancelled && this.onScreen();
    this.syncButtons(next !== undefined);
    if (this.measuring && next) {
      this.report(plan, next);
      const start = performance.now();
      let result: Awaited<ReturnType<RemoteEngine['benchmark']>>;
      try {
        result = await engine.benchmark({ ...next.job, repeats: REPEATS, minMs: MIN_MS, warmUp: !this.warmed.has(next.job.kernel) });
      } catch (error) {
        // stopped, as by Cancel: the message shows, the points stay, and Continue tries again
        this.measuring = false;
        this.cancelled = true;
        this.report(plan);
        this.syncButtons(true);
        throw error;
      }
      this.elapsedMs += performance.now() - start;
      this.warmed.add(next.job.kernel);
      const before = this.measured.get(keyOf(next.job));
      const fastest = before && before.medianMs <= result.medianMs ? before : result;
      this.measured.set(keyOf(next.job), { medians: [...before?.medians ?? [], result.medianMs], medianMs: fastest.medianMs,
        gflops: fastest.gflops, repeats: result.repeats + (before?.repeats ?? 0) });
      next = this.nextMeasurement(plan);
    }
    this.due = next !== undefined && !this.cancelled;
    this.draw(d, maxN);
    // the next measurement in a render of its own: the page paints in between, and the widget
    // stays busy (aria-busy) until the last one is in
    this.measuring &&= this.due && this.onScreen();
    if (this.measuring) this.update();
    // the table of numbers once a measurement ends: laying it out at every point would cost the page
    else this.fillNumbers();
    this.report(plan, this.measuring ? next : undefined);
    this.syncButtons(next !== undefined);
  }

  private passes(job: Job): number {
    return this.measured.get(keyOf(job))?.medians.length ?? 0;
  }

  /** the passes a point needs, as far as its timings so far tell */
  private passesNeeded(job: Job): number {
    const passes = this.passes(job);
    if (passes < MIN_PASSES) return MIN_PASSES;
    return passes >= MAX_PASSES || timingsAgree(this.measured.get(keyOf(job))!.medians, AGREEMENT) ? passes : passes + 1;
  }

  /** the next measurement: the first point of the plan in the earliest pass not done */
  private nextMeasurement(plan: readonly Job[]): { job: Job; pass: number } | undefined {
    const pending = plan.filter((job) => this.passes(job) < this.passesNeeded(job));
    if (pending.length === 0) return undefined;
    const pass = Math.min(...pending.map((job) => this.passes(job))) + 1;
    return { job: pending.find((job) => this.passes(job) + 1 === pass)!, pass };
  }

  /** the progress bar (one step per measurement; a point that needs another pass adds one) and
   * what it is doing; `next`: the measurement running, or coming next */
  private report(plan: readonly Job[], next?: { job: Job; pass: number }): void {
    const view = this.view!;
    const total = plan.reduce((sum, job) => sum + this.passesNeeded(job), 0);
    const done = plan.reduce((sum, job) => sum + this.passes(job), 0);
    view.bar.max = total;
    view.bar.value = done;
    const threads = `${this.threads} thread${this.threads === 1 ? '' : 's'}`;
    const agreement = `${formatNumber(100 * (AGREEMENT - 1), 0)} %`;
    let text: string;
    if (next) {
      const { job, pass } = next;
      const name = NAMES[KERNELS.find((k) => k.kernel === job.kernel)!.key];
      text = `Measuring ${name} at n = ${job.n}, d = ${job.d}, pass ${pass}: ${done + 1} of ${total}…`;
    } else if (done === total) {
      const apart = plan.filter((job) => !timingsAgree(this.measured.get(keyOf(job))!.medians, AGREEMENT)).length;
      text = `${plan.length} points, ${done} calls, ${formatNumber(this.elapsedMs / 1000, 1)} s on ${threads}; `
        + (apart === 0 ? `every point’s two fastest passes agree within ${agreement}.`
          : `${apart} ${apart === 1 ? 'point still varies' : 'points still vary'} by over ${agreement} (a busy machine).`);
    } else if (this.cancelled) text = `Stopped after ${done} of ${total} measurements; the points measured are kept.`;
    else if (done === 0) text = `Measures when this slide is shown: ${plan.length} points, at least ${MIN_PASSES} passes.`;
    else text = `Paused after ${done} of ${total} measurements while the slide is hidden.`;
    view.status.textContent = text;
    view.progress.dataset.state = next ? 'measuring' : done === total ? 'done' : this.cancelled ? 'cancelled' : 'waiting';
    // screen readers hear where the measurement ended, not every step of it
    view.said.textContent = next ? '' : text;
  }

  private syncButtons(missing: boolean): void {
    const view = this.view!;
    const focused = this.root.activeElement;
    view.cancel.hidden = !this.measuring;
    view.cancel.disabled = this.cancelled;
    view.resume.hidden = this.measuring || !missing || !this.cancelled;
    view.again.hidden = this.measuring;
    // a button that disappears under the keyboard hands the focus to the one that replaces it
    if (focused instanceof HTMLButtonElement && focused.hidden) (view.resume.hidden ? view.again : view.resume).focus();
  }

  /** the plots, the table and the lines below from the points measured so far */
  private draw(d: number, maxN: number): void {
    const view = this.view!;
    const lengths = doublings(SHORTEST_N, maxN);
    const curve = (sizes: number[], job: (size: number) => Job): [number, number][] =>
      sizes.flatMap((size) => {
        const m = this.measured.get(keyOf(job(size)));
        return m ? [[size, m.medianMs] as [number, number]] : [];
      });
    const fitted = (key: SeriesKey, points: [number, number][]): Curve =>
      ({ key, points, fit: points.length >= 2 ? fitPowerLaw(points) : undefined });
    /** the three kernels and their sum where all three are measured */
    const curves = (sizes: number[], job: (kernel: Kernel, size: number) => Job): Curve[] => {
      const kernels = KERNELS.map((k) => fitted(k.key, curve(sizes, (size) => job(k.kernel, size))));
      const layer = sizes.flatMap((size) => {
        const parts = KERNELS.map((k) => this.measured.get(keyOf(job(k.kernel, size))));
        return parts.every(Boolean) ? [[size, parts.reduce((sum, m) => sum + m!.medianMs, 0)] as [number, number]] : [];
      });
      return [...kernels, { key: 'layer', points: layer }];
    };
    const inN = curves(lengths, (kernel, n) => ({ kernel, n, d }));
    const inD = curves(D_SWEEP, (kernel, width) => ({ kernel, n: D_SWEEP_N, d: width }));
    this.byN.draw(inN, lengths, `n (tokens), at d = ${d}`, this.chosen);
    this.byD.draw(inD, D_SWEEP, `d (width), at n = ${D_SWEEP_N}`, this.chosen);
    this.fillLegend(this.byN.legend, inN);
    this.fillLegend(this.byD.legend, inD);

    const slopeText = (c: Curve) => {
      if (c.key !== 'layer') return c.fit ? formatNumber(c.fit.exponent, 2) : '—';
      const ends = endSlopes(c.points);
      return ends ? ends.map((k) => formatNumber(k, 2)).join(' → ') : '—';
    };
    for (const [axis, list] of [['n', inN], ['d', inD]] as const) {
      for (const c of list) {
        const button = view.slopes.get(`${c.key} ${axis}`)!;
        button.textContent = slopeText(c);
        const what = c.key === 'layer' ? 'slope fitted to its first three points, then to its last three,' : 'fitted slope';
        button.setAttribute('aria-label', `${NAMES[c.key]}: measured ${what} in ${axis}, ${button.textContent}; show its points`);
      }
    }
    for (const row of view.rows) row.classList.toggle('chosen', row.dataset.series === this.chosen);
    for (const [name, button] of view.slopes) button.setAttribute('aria-pressed', String(name.startsWith(`${this.chosen} `)));

    // the RNN's steps one after another, and one attention layer's (new rows only for new lengths)
    const stepped = lengths.filter((n) => this.steps.has(n));
    if (view.steps.rows.length !== stepped.length) view.steps.replaceChildren(...stepped.map((n) => {
      const tr = document.createElement('tr');
      const { rnn, attention } = this.steps.get(n)!;
      tr.append(Object.assign(document.createElement('th'), { textContent: String(n) }),
        ...[rnn, attention].map((count) => Object.assign(document.createElement('td'), { textContent: String(count) })));
      return tr;
    }));
    view.summary.textContent = [this.crossing(inN, d, maxN), this.softmaxShare(inD)].filter(Boolean).join(' ');
  }

  /** every point measured, for screen readers and Download CSV */
  private fillNumbers(): void {
    this.numbers.fill({
      caption: 'measured times: the fastest median of the passes so far',
      head: ['kernel', 'n', 'd', 'median ms', 'GFLOP/s', 'calls timed', 'passes'],
      rows: [...this.measured.entries()].map(([key, m]) => {
        const [kernel, n, width] = key.split(' ');
        return [NAMES[KERNELS.find((k) => k.kernel === kernel)!.key], Number(n), Number(width), m.medianMs, m.gflops, m.repeats, m.medians.length] as [string, ...number[]];
      }),
      format: (v, column) => (column === 2 || column === 3 ? formatSignificant(v, 4) : String(v)),
    });
  }

  /** each series' name and fitted slope under a plot, the ones not chosen faded */
  private fillLegend(legend: HTMLElement, curves: readonly Curve[]): void {
    if (legend.childElementCount !== curves.length) {
      legend.replaceChildren(...curves.map((c) => {
        const swatch = document.createElement('span');
        swatch.className = c.key === 'layer' ? 'bar' : 'dot';
        swatch.style.background = COLOURS[c.key];
        const item = document.createElement('span');
        item.append(swatch, document.createElement('span'));
        return item;
      }));
    }
    curves.forEach((c, i) => {
      const item = legend.children[i];
      item.classList.toggle('dim', this.chosen !== undefined && this.chosen !== c.key);
      item.lastElementChild!.textContent = `${NAMES[c.key]}${c.fit ? ` ${formatNumber(c.fit.exponent, 2)}` : ''}`;
    });
  }

  /** where attention overtakes the rest of the layer, from the measured times */
  private crossing(inN: readonly Curve[], d: number, maxN: number): string {
    const [attention, projections, ffn] = inN;
    const lengths = attention.points.map(([n]) => n).filter((n) =>
      projections.points.some(([m]) => m === n) && ffn.points.some(([m]) => m === n));
    if (lengths.length < 2) return '';
    const time = (c: Curve, n: number) => c.points.find(([m]) => m === n)![1];
    const rest = lengths.map((n) => time(projections, n) + time(ffn, n));
    const mine = lengths.map((n) => time(attention, n));
    const at = overtakes(lengths, mine, rest);
    const longest = lengths[lengths.length - 1];
    const share = `${formatNumber((100 * mine[mine.length - 1]) / (mine[mine.length - 1] + rest[rest.length - 1]), 0)} % of the layer’s time at n = ${longest}`;
    if (at !== undefined) return `At d = ${d}, attention costs more than projections + FFN from n ≈ ${formatSignificant(at, 2)}, and ${share}.`;
    if (mine[0] >= rest[0]) return `At d = ${d}, attention costs more than projections + FFN at every n measured, and ${share}.`;
    return `At d = ${d}, attention costs less than projections + FFN up to n = ${longest}${longest < maxN ? ' so far' : ''}: ${share}.`;
  }

  /** why attention's slope in d falls short of 1, when it does */
  private softmaxShare(inD: readonly Curve[]): string {
    const k = inD[0].fit?.exponent;
    if (k === undefined || k >= SOFTMAX_SHOWS) return '';
    return `In d, attention’s slope is ${formatNumber(k, 2)}, under 1: its softmax over the n² scores costs the same at every d.`;
  }

  private choose(series: SeriesKey): void {
    this.chosen = this.chosen === series ? undefined : series;
    this.draw(Number(this.value<string>('d')), Number(this.value<string>('maxN')));
  }

  private build() {
    const root = document.createElement('div');
    const controls = document.createElement('div');
    controls.className = 'controls';
    const group = (label: string, control: string, values: readonly string[], onPick: (value: string) => void) => {
      const element = document.createElement('div');
      element.className = 'group';
      element.setAttribute('role', 'group');
      element.setAttribute('aria-label', label);
      element.dataset.control = control;
      element.append(Object.assign(document.createElement('span'), { className: 'name', textContent: label }));
      const buttons = new Map<string, HTMLButtonElement>();
      for (const value of values) {
        const b = document.createElement('button');
        b.type = 'button';
        b.textContent = value;
        b.addEventListener('click', () => onPick(value));
        buttons.set(value, b);
        element.append(b);
      }
      return { element, buttons };
    };
    const widths = group('width d', 'd', COMPLEXITY_WIDTHS, (value) => this.change({ d: value }));
    const lengths = group('longest n', 'maxN', COMPLEXITY_LENGTHS, (value) => this.change({ maxN: value }));
    const progress = document.createElement('div');
    progress.className = 'progress';
    const bar = document.createElement('progress');
    bar.setAttribute('aria-label', 'measurements done');
    const status = document.createElement('span');
    const said = document.createElement('span');
    said.className = 'sr-only';
    said.setAttribute('role', 'status');
    progress.append(bar, status, said);

    const actions = document.createElement('div');
    actions.className = 'actions';
    actions.dataset.control = 'measure';
    const action = (text: string, onClick: () => void) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = text;
      b.addEventListener('click', onClick);
      actions.append(b);
      return b;
    };
    const cancel = action('Cancel', () => {
      this.cancelled = true;
      cancel.disabled = true;
      status.textContent = 'Stopping after the point being measured…';
    });
    const resume = action('Continue', () => {
      this.cancelled = false;
      this.update();
    });
    const again = action('Measure again', () => {
      this.measured.clear();
      this.elapsedMs = 0;
      this.cancelled = false;
      this.update();
    });
    controls.append(widths.element, lengths.element, actions);

    const plots = document.createElement('div');
    plots.className = 'plots';
    plots.append(this.byN.element, this.byD.element);

    const table = document.createElement('table');
    table.className = 'costs';
    table.innerHTML = '<caption class="sr-only">Costs of write-up 002 §10: the theoretical exponent of n and of d, and the slope measured here</caption>'
      + '<thead><tr><th rowspan="2">operation (write-up 002 §10)</th><th rowspan="2">cost</th><th colspan="2">slope in n</th><th colspan="2">slope in d</th></tr>'
      + '<tr><th>theory</th><th>measured</th><th>theory</th><th>measured</th></tr></thead>';
    const tbody = document.createElement('tbody');
    const slopes = new Map<string, HTMLButtonElement>();
    const rows = ROWS.map((row, i) => {
      const tr = document.createElement('tr');
      tr.dataset.series = row.series;
      const name = document.createElement('td');
      const swatch = document.createElement('span');
      swatch.className = row.series === 'layer' ? 'bar' : 'dot';
      swatch.style.background = COLOURS[row.series];
      name.append(swatch, row.operation);
      const cell = (text: string, className = '') => Object.assign(document.createElement('td'), { textContent: text, className });
      tr.append(name, cell(row.cost, 'cost'));
      // operations timed in one call share one measured cell
      const first = i === 0 || ROWS[i - 1].series !== row.series;
      const span = ROWS.slice(i).findIndex((r) => r.series !== row.series);
      for (const axis of ['n', 'd'] as Axis[]) {
        tr.append(cell(row[axis]));
        if (!first) continue;
        const measured = document.createElement('td');
        measured.rowSpan = span === -1 ? ROWS.length - i : span;
        const button = document.createElement('button');
        button.type = 'button';
        button.dataset.series = row.series;
        button.dataset.axis = axis;
        button.textContent = '—';
        button.addEventListener('click', () => this.choose(row.series));
        slopes.set(`${row.series} ${axis}`, button);
        measured.append(button);
        tr.append(measured);
      }
      tbody.append(tr);
      return tr;
    });
    table.append(tbody);
    const note = document.createElement('p');
    note.className = 'note';
    note.textContent = `┄ least-squares fits, their slopes beside the names; ━ the sum: the layer. Each point is its fastest median `
      + `of at least ${REPEATS} calls over at least ${MIN_MS} ms, over ${MIN_PASSES}–${MAX_PASSES} passes; attention is one head (d_k = d_v = d), the projections x·W_Q, x·W_K, x·W_V and ·W_O.`;
    // as on the first slide: the steps that must run one after another
    const stepsTable = document.createElement('table');
    stepsTable.className = 'steps';
    stepsTable.innerHTML = '<caption>steps one after another</caption>'
      + '<thead><tr><th>n</th><th>RNN</th><th>attention</th></tr></thead>';
    const steps = document.createElement('tbody');
    const limit = document.createElement('tfoot');
    limit.innerHTML = `<tr><td colspan="3">the engine’s RNN runs up to n\u00a0=\u00a0${RNN_LONGEST}</td></tr>`;
    stepsTable.append(steps, limit);
    const lower = document.createElement('div');
    lower.className = 'lower';
    lower.append(table, stepsTable);
    const summary = document.createElement('p');
    summary.className = 'summary';
    root.append(controls, progress, plots, lower, note, summary, this.numbers.element);
    return { root, widths: widths.buttons, lengths: lengths.buttons, cancel, resume, again, progress, bar, status, said, rows, slopes, steps, summary };
  }
}

customElements.get('attn-complexity') ?? customElements.define('attn-complexity', Complexity);
