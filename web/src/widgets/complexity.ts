// <attn-complexity>: what attention, the projections and the feed-forward network cost, timed by
// the engine in this browser's worker, one measured point per call. Time against n on log-log axes
// at width d, and against d at n = 512, each kernel with its least-squares slope: attention (one
// head forming the n×n weights: scores QKᵀ, softmax, weighted sum of V), the projections x·W_Q,
// x·W_K, x·W_V and ·W_O, and the GELU FFN (d_ff = 4d); the layer is their sum. Beside them, the
// table of write-up 002 §10 with the measured slopes next to the theoretical exponents (a measured
// slope shows its points in the plots), and the steps an RNN takes one after another against one
// attention layer's one. Measuring starts the first time the widget is on screen (never while it
// is drawn in the background), pauses while it is off screen, and can be cancelled, keeping the
// points measured; a point once measured is kept until "Measure again". Until the measuring here has
// ended (or been stopped with points), the plots show a stored earlier measurement at the default
// settings (math/stored-runs.ts), named with its date, machine and build.
// Settings: d (the width of the n sweep), maxN (the longest n).
import type { RemoteEngine } from '../runtime/engine';
import {
  COMPLEXITY_TIMING, complexityKey, complexityPlan, doublings, endSlopes, nextMeasurement, overtakes, passesNeeded, timingsAgree,
  type ComplexityKernel, type ComplexityPoint,
} from '../math/complexity';
import { describeMeasuredOn, shortMeasuredOn, STORED_COMPLEXITY, type StoredTiming } from '../math/stored-runs';
import { formatNumber, formatSignificant } from '../math/format';
import { fitPowerLaw, powerLawAt, type PowerLaw } from '../math/power-law';
import { BackgroundJob } from '../primitives/background-job';
import { button, h, showButtons } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { Plot, SERIES_COLOURS, type Series } from '../primitives/plot';
import { ScreenReaderTable } from '../primitives/screen-reader-table';

type Kernel = ComplexityKernel;
type SeriesKey = 'attention' | 'projections' | 'ffn' | 'layer';

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

const { shortestN: SHORTEST_N, dSweepN: D_SWEEP_N, dSweep: D_SWEEP, repeats: REPEATS, minMs: MIN_MS, passes: PASSES } = COMPLEXITY_TIMING;
/** attention's slope in d below this is explained by its softmax, which d does not change */
const SOFTMAX_SHOWS = 0.9;
/** the longest sequence the engine's RNN runs (rnnGradientFlow's T) */
const RNN_LONGEST = 512;

/** write-up 002 §10, and which measured series each operation is part of */
const ROWS: readonly { operation: string; cost: string; n: string; d: string; series: SeriesKey }[] = [
  { operation: 'projections Q, K, V, O', cost: 'O(n·d²)', n: '1', d: '2', series: 'projections' },
  { operation: 'attention scores QKᵀ', cost: 'O(n²·d_k)', n: '2', d: '1', series: 'attention' },
  { operation: 'softmax', cost: 'O(n²)', n: '2', d: '0', series: 'attention' },
  { operation: 'attention output A·V', cost: 'O(n²·d_v)', n: '2', d: '1', series: 'attention' },
  { operation: 'feed-forward (d_ff = 4d)', cost: 'O(n·d·d_ff)', n: '1', d: '2', series: 'ffn' },
  { operation: 'single layer', cost: 'O(n²·d + n·d²)', n: '1 → 2', d: '1 → 2', series: 'layer' },
];

const styles = `
.controls { display: flex; flex-wrap: wrap; gap: 6px 20px; align-items: center; margin: 0 0 4px; font-size: 14px; }
.actions button { padding: 1px 9px; font-size: 14px; }
.actions { display: inline-flex; gap: 6px; margin-left: auto; }
.progress { display: flex; gap: 10px; align-items: center; margin: 0 0 4px; font-size: 14px; color: var(--muted); min-height: 20px; }
.progress progress { width: 100px; flex: none; }
.plots { display: flex; flex-wrap: wrap; gap: 2px 12px; align-items: flex-start; }
.plots figure { margin: 0; max-width: 100%; }
.dot { display: inline-block; width: 9px; height: 9px; border-radius: 50%; margin-right: 4px; vertical-align: baseline; }
.bar { display: inline-block; width: 14px; height: 3px; margin-right: 4px; vertical-align: middle; }
table.costs { border-collapse: collapse; font-size: 14px; font-variant-numeric: tabular-nums; }
table.costs th, table.costs td { padding: 0 3px; border-bottom: 1px solid var(--border); text-align: center; line-height: 1.5; }
table.costs th { font-weight: 600; color: var(--muted); font-size: 14px; }
table.costs th:first-child, table.costs td:first-child { text-align: left; }
table.costs td.cost { white-space: nowrap; }
table.costs button { min-width: 3.8em; padding: 0 5px; font-size: 14px; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.costs tr.chosen td:first-child { font-weight: 600; }
/* the costs beside the RNN's steps: the costs' longest names wrap rather than push the steps below */
.lower { display: flex; gap: 4px 12px; align-items: flex-start; margin: 4px 0 0; }
@media (max-width: 799px) { .lower { flex-wrap: wrap; } }
/* a phone: each cost under its operation rather than in a column of its own, so that the table fits
   (and what still does not fit scrolls sideways in its box rather than spill past the screen) */
.costs-box { max-width: 100%; overflow-x: auto; }
table.costs .cost-below { display: none; color: var(--muted); }
@media (max-width: 799px) {
  table.costs .cost-below { display: block; }
  table.costs td.cost, table.costs th.cost { display: none; }
  table.costs button { min-width: 0; white-space: normal; }
  table.costs th, table.costs td { padding: 0 1px; }
}
table.steps { border-collapse: collapse; font-size: 14px; font-variant-numeric: tabular-nums; width: 140px; }
table.steps caption { font-size: 12px; font-weight: 600; color: var(--muted); text-align: left; }
table.steps tfoot td { font-size: 14px; color: var(--muted); text-align: left; border: 0; line-height: 1.3; padding-top: 2px; }
table.steps th, table.steps td { padding: 0 5px; border-bottom: 1px solid var(--border); text-align: right; line-height: 1.5; }
table.steps th { font-weight: 600; color: var(--muted); font-size: 14px; }
.note, .summary { margin: 3px 0 0; font-size: 14px; }
.summary .stored { color: var(--muted); }
.note { color: var(--muted); font-size: 14px; }
`;

/** a point's median in each pass so far, the rate of its fastest, and the calls timed over every pass */
type Measured = StoredTiming;
type Point = ComplexityPoint;
const keyOf = complexityKey;

/** one kernel's (or the layer's) measured points in a plot, with its fitted law */
interface Curve { key: SeriesKey; points: [number, number][]; fit?: PowerLaw }

/** the factor by which a log axis reaches beyond its first and last value */
const MARGIN = 1.15;

export default class Complexity extends EngineElement {
  private readonly byN = new Plot({ xLabel: 'n', yLabel: 'time (ms, log)', xLog: true, yLog: true, width: 420, height: 144 });
  private readonly byD = new Plot({ xLabel: 'd', yLabel: 'time (ms, log)', xLog: true, yLog: true, width: 345, height: 144 });
  private readonly numbers = new ScreenReaderTable();
  private readonly widths = this.bound.choices('d');
  private readonly lengths = this.bound.choices('maxN');
  private readonly cancel = button('Cancel', () => void this.measuring?.stop());
  private readonly resume = button('Continue', () => this.measure());
  private readonly again = button('Measure again', () => {
    this.measured.clear();
    this.elapsedMs = 0;
    this.showsHere = false;
    this.draw();
    this.measure();
  });
  private readonly bar = h('progress', { attrs: { 'aria-label': 'measurements done' } });
  private readonly statusText = h('span');
  /** where the measurement ended, for screen readers (not every step of it) */
  private readonly said = h('span', { className: 'sr-only', attrs: { role: 'status' } });
  private readonly progress = h('div', 'progress', this.bar, this.statusText, this.said);
  /** the measured slope of each series in n and in d ("attention n"), a button that picks the series out */
  private readonly slopes = new Map<string, HTMLButtonElement>();
  private readonly costRows = ROWS.map((row, i) => this.costRow(row, i));
  /** the sequential steps of the RNN and of one attention layer, a row per n */
  private readonly stepRows = h('tbody');
  private readonly summary = h('p', 'summary');
  /** every point measured, by kernel, n and d, kept until "Measure again" */
  private readonly measured = new Map<string, Measured>();
  /** sequential steps of the engine's RNN and of one attention layer, by n */
  private readonly steps = new Map<number, { rnn: number; attention: number }>();
  /** kernels run once already (their first call warms up the engine) */
  private readonly warmed = new Set<Kernel>();
  private chosen?: SeriesKey;
  /** the measurement: one point per slice, while the widget is on screen */
  private measuring?: BackgroundJob;
  private settings = '';
  private elapsedMs = 0;
  /** whether the plots show the points measured here: once the measuring has ended, or been
   * stopped with points; until then (and after "Measure again") the stored earlier measurement,
   * said so, where it was made at these settings */
  private showsHere = false;
  private storedPoints?: Map<string, Measured>;
  private threads?: number;

  constructor() {
    super(styles, 'slope ≈ 2 in n for attention, ≈ 1 for the projections and the FFN; in d, the other way round.');
  }

  /** the points to measure at the current settings, in order */
  private plan(): Point[] {
    return complexityPlan(Number(this.value<string>('d')), Number(this.value<string>('maxN')));
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const d = Number(this.value<string>('d'));
    const maxN = Number(this.value<string>('maxN'));
    const lengths = doublings(SHORTEST_N, maxN);
    for (const n of lengths.filter((n) => n <= RNN_LONGEST && !this.steps.has(n))) {
      this.steps.set(n, (await engine.rnnGradientFlow({ length: n, hidden: 1, input: 1 })).sequentialSteps);
    }
    this.threads ??= (await engine.info()).threadsUsed;
    this.measuring ??= new BackgroundJob(this, {
      remaining: () => this.next(this.plan()) !== undefined,
      slice: () => this.measureNext(engine),
      report: () => this.report(),
    });
    this.draw();
    // a new setting measures what it lacks, even after a cancel
    if (`${d} ${maxN}` !== this.settings) {
      this.settings = `${d} ${maxN}`;
      this.measure();
    }
    this.report();
  }

  /** starts (or continues) measuring; an engine call that fails stops it, keeping the points */
  private measure(): void {
    this.measuring?.start().catch((error: unknown) => this.showError(error instanceof Error ? error.message : String(error)));
  }

  /** measures the next point of the plan, and draws it */
  private async measureNext(engine: RemoteEngine): Promise<void> {
    const next = this.next(this.plan());
    if (!next) return;
    const start = performance.now();
    const result = await engine.benchmark({ ...next.point, repeats: REPEATS, minMs: MIN_MS, warmUp: !this.warmed.has(next.point.kernel) });
    this.elapsedMs += performance.now() - start;
    this.warmed.add(next.point.kernel);
    const before = this.measured.get(keyOf(next.point));
    const fastest = before && before.medianMs <= result.medianMs ? before : result;
    this.measured.set(keyOf(next.point), { medians: [...before?.medians ?? [], result.medianMs], medianMs: fastest.medianMs,
      gflops: fastest.gflops, repeats: result.repeats + (before?.repeats ?? 0) });
    this.draw();
  }

  /** a point's medians so far, one per pass */
  private medians(point: Point): number[] {
    return this.measured.get(keyOf(point))?.medians ?? [];
  }

  /** the next measurement of the plan: its point and pass */
  private next(plan: readonly Point[]): { point: Point; pass: number } | undefined {
    return nextMeasurement(plan, (point) => this.medians(point), PASSES);
  }

  /** the progress bar (one step per measurement; a point that needs another pass adds one), what
   * the measurement is doing, and the buttons; the table of numbers once it stops */
  private report(): void {
    const state = this.measuring?.state;
    if (!state) return;
    const plan = this.plan();
    // the points measured here replace the stored ones once the measuring ends, or stops with some
    if (!this.showsHere && (state === 'done' || (state === 'stopped' && this.measured.size > 0))) {
      this.showsHere = true;
      this.draw();
    }
    const total = plan.reduce((sum, point) => sum + passesNeeded(this.medians(point), PASSES), 0);
    const done = plan.reduce((sum, point) => sum + this.medians(point).length, 0);
    this.bar.max = total;
    this.bar.value = done;
    const threads = `${this.threads} thread${this.threads === 1 ? '' : 's'}`;
    const agreement = `${formatNumber(100 * (PASSES.agreement - 1), 0)} %`;
    const next = this.next(plan);
    const active = state === 'running' || state === 'stopping';
    let text: string;
    if (state === 'stopping') text = 'Stopping after the point being measured…';
    else if (active && next) {
      const { point, pass } = next;
      const name = NAMES[KERNELS.find((k) => k.kernel === point.kernel)!.key];
      text = `Measuring ${name} at n = ${point.n}, d = ${point.d}, pass ${pass}: ${done + 1} of ${total}…`;
    } else if (!next) {
      const apart = plan.filter((point) => !timingsAgree(this.medians(point), PASSES.agreement)).length;
      text = `${plan.length} points, ${done} calls, ${formatNumber(this.elapsedMs / 1000, 1)} s on ${threads}; `
        + (apart === 0 ? `every point’s two fastest passes agree within ${agreement}.`
          : `${apart} ${apart === 1 ? 'point still varies' : 'points still vary'} by over ${agreement} (a busy machine).`);
    } else if (state === 'stopped') text = `Stopped after ${done} of ${total} measurements; the points measured are kept.`;
    else if (done === 0) text = `Measures when this slide is shown: ${plan.length} points, at least ${PASSES.least} passes.`;
    else text = `Paused after ${done} of ${total} measurements while the slide is hidden.`;
    this.statusText.textContent = text;
    this.progress.dataset.state = active ? 'measuring' : !next ? 'done' : state === 'stopped' ? 'cancelled' : 'waiting';
    this.said.textContent = active ? '' : text;
    // laying the table out at every point would cost the page
    if (!active) this.fillNumbers();
    this.cancel.disabled = state === 'stopping';
    showButtons([[this.cancel, active || state === 'waiting'], [this.resume, state === 'stopped' && next !== undefined], [this.again, state === 'stopped' || state === 'done']]);
  }

  /** the plots, the table and the lines below from the points measured so far */
  private draw(): void {
    const d = Number(this.value<string>('d'));
    const maxN = Number(this.value<string>('maxN'));
    const lengths = doublings(SHORTEST_N, maxN);
    const stored = this.stored();
    const shown = stored ?? this.measured;
    this.dataset.shows = stored ? 'stored' : 'here';
    const curve = (sizes: number[], point: (size: number) => Point): [number, number][] =>
      sizes.flatMap((size) => {
        const m = shown.get(keyOf(point(size)));
        return m ? [[size, m.medianMs] as [number, number]] : [];
      });
    const fitted = (key: SeriesKey, points: [number, number][]): Curve =>
      ({ key, points, fit: points.length >= 2 ? fitPowerLaw(points) : undefined });
    /** the three kernels and their sum where all three are measured */
    const curves = (sizes: number[], point: (kernel: Kernel, size: number) => Point): Curve[] => {
      const kernels = KERNELS.map((k) => fitted(k.key, curve(sizes, (size) => point(k.kernel, size))));
      const layer = sizes.flatMap((size) => {
        const parts = KERNELS.map((k) => shown.get(keyOf(point(k.kernel, size))));
        return parts.every(Boolean) ? [[size, parts.reduce((sum, m) => sum + m!.medianMs, 0)] as [number, number]] : [];
      });
      return [...kernels, { key: 'layer', points: layer }];
    };
    const inN = curves(lengths, (kernel, n) => ({ kernel, n, d }));
    const inD = curves(D_SWEEP, (kernel, width) => ({ kernel, n: D_SWEEP_N, d: width }));
    this.plotCurves(this.byN, inN, lengths, `n (tokens), at d = ${d}`);
    this.plotCurves(this.byD, inD, D_SWEEP, `d (width), at n = ${D_SWEEP_N}`);

    const slopeText = (c: Curve) => {
      if (c.key !== 'layer') return c.fit ? formatNumber(c.fit.exponent, 2) : '—';
      const ends = endSlopes(c.points);
      return ends ? ends.map((k) => formatNumber(k, 2)).join(' → ') : '—';
    };
    for (const [axis, list] of [['n', inN], ['d', inD]] as const) {
      for (const c of list) {
        const button = this.slopes.get(`${c.key} ${axis}`)!;
        button.textContent = slopeText(c);
        const what = c.key === 'layer' ? 'slope fitted to its first three points, then to its last three,' : 'fitted slope';
        button.setAttribute('aria-label', `${NAMES[c.key]}: measured ${what} in ${axis}, ${button.textContent}; show its points`);
      }
    }
    for (const row of this.costRows) row.classList.toggle('chosen', row.dataset.series === this.chosen);
    for (const [name, button] of this.slopes) button.setAttribute('aria-pressed', String(name.startsWith(`${this.chosen} `)));

    // the RNN's steps one after another, and one attention layer's (new rows only for new lengths)
    const stepped = lengths.filter((n) => this.steps.has(n));
    if (this.stepRows.rows.length !== stepped.length) this.stepRows.replaceChildren(...stepped.map((n) => {
      const { rnn, attention } = this.steps.get(n)!;
      return h('tr', {}, h('th', { textContent: String(n) }), ...[rnn, attention].map((count) => h('td', { textContent: String(count) })));
    }));
    // the stored measurement is named before its numbers: when, where and on what build
    const on = STORED_COMPLEXITY.measuredOn;
    this.summary.replaceChildren(...(stored ? [h('span', { className: 'stored', textContent: `Stored (${shortMeasuredOn(on)}) until the measuring here ends: `,
      attrs: { title: describeMeasuredOn(on) } })] : []), [this.crossing(inN, d, maxN), this.softmaxShare(inD)].filter(Boolean).join(' '));
  }

  /** the stored earlier measurement's points, while it is shown: made at these settings, and nothing here has ended yet */
  private stored(): Map<string, Measured> | undefined {
    const S = STORED_COMPLEXITY;
    if (this.showsHere || S.d !== Number(this.value<string>('d')) || S.maxN !== Number(this.value<string>('maxN'))) return undefined;
    this.storedPoints ??= new Map(S.points.map((p) => [keyOf(p), p]));
    return this.storedPoints;
  }

  /** every point measured, for screen readers and Download CSV */
  private fillNumbers(): void {
    const stored = this.stored();
    this.numbers.fill({
      caption: stored ? `stored, measured ${describeMeasuredOn(STORED_COMPLEXITY.measuredOn)}: the fastest median of its passes`
        : 'measured times: the fastest median of the passes so far',
      head: ['kernel', 'n', 'd', 'median ms', 'GFLOP/s', 'calls timed', 'passes'],
      rows: [...(stored ?? this.measured).entries()].map(([key, m]) => {
        const [kernel, n, width] = key.split(' ');
        return [NAMES[KERNELS.find((k) => k.kernel === kernel)!.key], Number(n), Number(width), m.medianMs, m.gflops, m.repeats, m.medians.length] as [string, ...number[]];
      }),
      format: (v, column) => (column === 2 || column === 3 ? formatSignificant(v, 4) : String(v)),
    });
  }

  /** Measured times on log-log axes, x ticks at the sizes measured: each kernel's points with its
   * fitted law dashed and its slope at the end, and their sum as a line; the chosen series picked out. */
  private plotCurves(plot: Plot, curves: readonly Curve[], sizes: readonly number[], xLabel: string): void {
    const times = curves.flatMap((c) => c.points.map(([, y]) => y));
    // a little room beyond the first and last size, the fastest and slowest time, so that no point
    // sits on the frame; no y ticks until something is measured
    plot.configure({ xLabel, xTicks: sizes, xRange: [sizes[0] / MARGIN, sizes[sizes.length - 1] * MARGIN],
      yRange: times.length ? [Math.min(...times) / MARGIN, Math.max(...times) * MARGIN] : undefined, yTicks: times.length ? undefined : [] });
    plot.draw(curves.flatMap((c): Series[] => {
      const common = { colour: COLOURS[c.key], emphasised: c.key === this.chosen };
      const xs = c.points.map(([x]) => x);
      const measured: Series = { ...common, name: NAMES[c.key], style: c.key === 'layer' ? 'line' : 'points', x: xs, y: c.points.map(([, y]) => y) };
      if (!c.fit || xs.length < 2) return [measured];
      const ends = [xs[0], xs[xs.length - 1]];
      const fit = c.fit;
      return [measured, { ...common, name: `${NAMES[c.key]}: fitted slope ${formatNumber(fit.exponent, 2)}`, style: 'dashed', legend: false,
        label: formatNumber(fit.exponent, 2), x: ends, y: ends.map((x) => powerLawAt(fit, x)) }];
    }));
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
    this.draw();
  }

  /** a row of the table of costs: the operation, its cost and exponents, and (on the first row of
   * each series) the slopes measured in n and d, which operations timed in one call share */
  private costRow(row: (typeof ROWS)[number], i: number): HTMLTableRowElement {
    const swatch = h('span', { className: row.series === 'layer' ? 'bar' : 'dot', attrs: { style: `background: ${COLOURS[row.series]}` } });
    const tr = h('tr', { data: { series: row.series } }, h('td', {}, swatch, row.operation, h('span', { className: 'cost-below', textContent: row.cost })),
      h('td', { className: 'cost', textContent: row.cost }));
    const first = i === 0 || ROWS[i - 1].series !== row.series;
    const span = ROWS.slice(i).findIndex((r) => r.series !== row.series);
    for (const axis of ['n', 'd'] as const) {
      tr.append(h('td', { textContent: row[axis] }));
      if (!first) continue;
      const slope = button('—', () => this.choose(row.series), { data: { series: row.series, axis } });
      this.slopes.set(`${row.series} ${axis}`, slope);
      tr.append(h('td', { rowSpan: span === -1 ? ROWS.length - i : span }, slope));
    }
    return tr;
  }

  protected override layout(): HTMLElement {
    const costs = h('table', 'costs');
    costs.innerHTML = '<caption class="sr-only">Costs of write-up 002 §10: the theoretical exponent of n and of d, and the slope measured here</caption>'
      + '<thead><tr><th rowspan="2">operation</th><th rowspan="2" class="cost">cost</th><th colspan="2">slope in n</th><th colspan="2">slope in d</th></tr>'
      + '<tr><th>theory</th><th>measured</th><th>theory</th><th>measured</th></tr></thead>';
    costs.append(h('tbody', {}, ...this.costRows));
    // as on the first slide: the steps that must run one after another
    const steps = h('table', 'steps');
    steps.innerHTML = '<caption>steps one after another</caption><thead><tr><th>n</th><th>RNN</th><th>attention</th></tr></thead>';
    steps.append(this.stepRows, h('tfoot', {}, h('tr', {}, h('td', { colSpan: 3, textContent: `the engine’s RNN runs up to n\u00a0=\u00a0${RNN_LONGEST}` }))));
    return h('div', {},
      h('div', 'controls', this.widths.element, this.lengths.element, h('div', { className: 'actions', data: { control: 'measure' } }, this.cancel, this.resume, this.again)),
      this.progress,
      h('div', 'plots', this.byN.element, this.byD.element),
      h('div', 'lower', h('div', 'costs-box', costs), steps),
      h('p', { className: 'note', textContent: '┄ fits, slopes at their ends; ━ the layer. A point: the fastest median of ≥ '
        + `${REPEATS} calls over ≥ ${MIN_MS} ms, ${PASSES.least}–${PASSES.most} passes; attention: one head, d_k = d_v = d.` }),
      this.summary, this.numbers.element);
  }
}
