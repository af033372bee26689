// <attn-flash>: flash attention, exact tile by tile, computed by the engine. On the left a small
// case (n queries and keys, one head of width 8, seeded inputs) walked one tile at a time: the n×n
// scores cut into B_r × B_c tiles (done tiles filled, the current one outlined, later ones empty)
// and each query row's running max m and sum ℓ after the current tile, with the factor e^{m−m′}
// by which a new max rescaled what the row had summed so far; after the last tile, m, ℓ and the
// output are checked against the engine's naive computation. On the right both kernels timed in
// this browser as n doubles (d = 64): time and peak heap memory against n on log-log axes with
// their fitted slopes; naive stops at the engine's limit, beyond which only the size of its n×n
// matrix is drawn. The timing starts once the widget is on screen, one engine call per point (the
// longest take seconds, and the page's other widgets wait for the shared engine meanwhile); it
// pauses while the widget is out of view, and Cancel stops it. Until it has ended (or been stopped),
// the plots show a stored earlier timing of the same sweep (math/stored-runs.ts), named with its
// date, machine and build; "Measure again" times anew.
// Settings: n, blockRows, blockCols, step (tiles done), maxN (the longest n timed).
import type { RemoteEngine } from '../runtime/engine';
import type { HeadResult } from '../engine/index';
import { css } from '../math/colormap';
import {
  FIT_FROM, fittedSlope, NAIVE_LONGEST, normalisersFromWeights, rowMaxima, rowsAfter, squareThroughMiddle, sweepPlan, sweepShare, tileCount,
  TIMED_WIDTH, timingOptions,
  type RowState, type SweepKernel, type SweepPoint,
} from '../math/flash';
import { formatBytes, formatCount, formatDuration, formatNumber, formatSignificant } from '../math/format';
import { describeMeasuredOn, shortMeasuredOn, STORED_SWEEP } from '../math/stored-runs';
import { at, largestDifference, maxAbsFinite } from '../math/matrix';
import { BackgroundJob, type JobState } from '../primitives/background-job';
import { CANVAS_FONT, foreground, gridColour, sharpCanvas, themeColours } from '../primitives/canvas';
import { button, h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { tickStep } from '../primitives/heatmap';
import { Plot, SERIES_COLOURS, type Series } from '../primitives/plot';
import { ScreenReaderTable } from '../primitives/screen-reader-table';

/** the small case: one head as wide as its input (d = d_k = 8), seeded; scores spread about ±2 */
const SMALL = { d: 8, inputSeed: 11, weightSeed: 12, std: 0.5 } as const;
const MIB = 2 ** 20;

const KERNEL_COLOURS: Record<SweepKernel, string> = { flash: SERIES_COLOURS.blue, naive: SERIES_COLOURS.vermillion };

/** the score grid's side and the columns of numbers beside it, in CSS pixels */
const GRID = { side: 204, left: 22, top: 18, gap: 6 } as const;
/** the grid's least side in a narrow box */
const MIN_GRID = 160;
const NUMBER_COLUMNS = [
  { title: 'm', width: 38 },
  { title: 'ℓ', width: 38 },
  { title: 'rescale', width: 64 },
] as const;
const CURRENT = SERIES_COLOURS.orange;
const RESCALED = SERIES_COLOURS.vermillion;
const PLOT_SIZE = { width: 314, height: 132 };

const styles = `
.controls { display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: center; margin: 0 0 4px; font-size: 14px; }
.controls input[type="range"] { width: 76px; }
.controls output { min-width: 1.4em; }
.controls select, .sweep select { padding: 1px 3px; }
.controls button { padding: 2px 8px; }
/* the tile's sides as "tile 4 × 4": their names are their drop-downs' labels */
.tile { display: inline-flex; gap: 4px; align-items: center; }
.tile .control > span { display: none; }
.animation { display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: flex-start; }
.animation canvas { display: block; flex: none; }
.words { flex: 1 1 14em; min-width: 0; font-size: 14px; line-height: 1.4; }
.words p { margin: 0 0 6px; }
h4 { margin: 0 0 4px; font-size: 14px; font-weight: 600; }
.check { font-variant-numeric: tabular-nums; }
.same { color: var(--good); font-weight: 600; }
.moved { color: var(--bad); font-weight: 600; }
.sweep { display: flex; flex-wrap: wrap; gap: 2px 10px; align-items: center; font-size: 14px; margin: 6px 0 2px; }
.sweep h4 { margin: 0; }
.sweep .control { font-size: 14px; }
.sweep progress { width: 64px; }
.sweep button { padding: 1px 8px; font-size: 14px; }
.sweep .state { color: var(--muted); }
.plots { display: flex; flex-wrap: wrap; gap: 2px 12px; }
.plots figure { width: ${PLOT_SIZE.width}px; max-width: 100%; }
.plots figcaption { font-size: 12px; }
.summary { margin: 2px 0 0; font-size: 14px; line-height: 1.35; font-variant-numeric: tabular-nums; }
.summary .not-run { color: var(--muted); font-style: italic; }
.summary .stored { color: var(--muted); }
`;

/** what the engine returned for one small case: flash's tiles and output, and the naive computation */
interface SmallCase {
  key: string;
  flash: HeadResult;
  naive: HeadResult;
}

interface Measurement {
  medianMs: number;
  peakBytes: number;
}

/** what the sweep's state is called on the page (data-sweep) */
const SWEEP_STATES: Record<JobState, string> = { waiting: 'paused', running: 'running', stopping: 'stopping', stopped: 'stopped', done: 'done' };

const pointKey = (p: SweepPoint) => `${p.kernel}:${p.n}`;

export default class Flash extends EngineElement {
  private readonly grid = sharpCanvas('the score matrix in tiles: done tiles filled, the current one outlined; each row\'s running max m and sum ℓ beside it');
  private readonly rowsTable = new ScreenReaderTable();
  private readonly timePlot = new Plot({ xLabel: 'n', yLabel: 'time (ms)', xLog: true, yLog: true, ...PLOT_SIZE });
  private readonly memoryPlot = new Plot({ xLabel: 'n', yLabel: 'peak (MiB)', xLog: true, yLog: true, ...PLOT_SIZE });
  private readonly measurementsTable = new ScreenReaderTable();
  /** a new n or tile starts the small case from its first tile */
  private readonly nSlider = this.bound.slider('n', { also: () => ({ step: 0 }) });
  private readonly tileRows = this.bound.choices('blockRows', { select: true, also: () => ({ step: 0 }) });
  private readonly tileCols = this.bound.choices('blockCols', { select: true, also: () => ({ step: 0 }) });
  private readonly stepper = this.bound.stepper('step', 'next tile ▶');
  private readonly longestChoice = this.bound.choices<string>('maxN', { select: true, text: (v) => formatCount(Number(v)) });
  private readonly heading = h('h4');
  private readonly explanation = h('p');
  private readonly check = h('p', 'check');
  private readonly action = button('', () => this.onAction());
  private readonly progress = h('progress', { max: 1, attrs: { 'aria-label': 'share of the timing done' } });
  private readonly sweepState = h('span', { className: 'state', attrs: { role: 'status' } });
  private readonly summary = h('p', 'summary');
  private small?: SmallCase;
  /** the sweep's results by point (an Error when the engine refused it) */
  private readonly measured = new Map<string, Measurement | Error>();
  /** the timing: one engine call per slice, while the widget is on screen */
  private sweep?: BackgroundJob;
  /** the longest n asked for last: asking for another starts the timing again after a cancel */
  private longest = 0;
  /** whether the plots show the timing here: once it has ended or been stopped with points; until
   * then (and after "Measure again"), the stored earlier timing, said so */
  private showsHere = false;
  private readonly sweepTitle = h('h4');

  constructor() {
    super(styles, 'new maxima rescale ℓ; flash’s memory grows like n, naive’s like n².');
  }

  /** the deck's → and ← walk the tiles of the small case */
  protected override readonly stepping = { attribute: 'step', last: () => this.smallSettings().tiles };

  /** the small case's settings: n, the tile's sides, its tiles and how many of them are done */
  private smallSettings(): { n: number; blockRows: number; blockCols: number; tiles: number; step: number } {
    const n = this.value<number>('n');
    const blockRows = Number(this.value<string>('blockRows'));
    const blockCols = Number(this.value<string>('blockCols'));
    const tiles = tileCount(n, blockRows, blockCols);
    return { n, blockRows, blockCols, tiles, step: Math.min(this.value<number>('step'), tiles) };
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const { n, blockRows, blockCols, tiles, step } = this.smallSettings();
    this.stepper.set(step, tiles);
    const small = await this.smallCase(engine, n, blockRows, blockCols);
    const rows = rowsAfter(small.flash.flash!.tiles, step, n, blockRows);
    this.drawGrid(small, rows, step, blockRows, blockCols);
    this.explain(small, rows, step, blockRows, blockCols);

    this.sweep ??= new BackgroundJob(this, {
      remaining: () => this.pending().length > 0,
      slice: () => this.timeNext(engine),
      report: () => this.reportSweep(),
    });
    this.drawSweep();
    // a new longest n times what it lacks, even after a cancel
    const longest = Number(this.value<string>('maxN'));
    if (longest !== this.longest) {
      this.longest = longest;
      this.startSweep();
    }
  }

  /** starts (or continues) the timing; a failure other than the engine refusing a point stops it */
  private startSweep(): void {
    this.sweep?.start().catch((error: unknown) => this.showError(`The timing failed: ${error instanceof Error ? error.message : String(error)}`));
  }

  /** flash and naive attention on the same seeded input (one head: W_Q, W_K, W_V are d × d) */
  private async smallCase(engine: RemoteEngine, n: number, blockRows: number, blockCols: number): Promise<SmallCase> {
    const key = `${n}:${blockRows}:${blockCols}`;
    if (this.small?.key === key) return this.small;
    const { d, inputSeed, weightSeed, std } = SMALL;
    const [x, weights, projection] = await Promise.all([
      engine.randomNormal({ rows: n, cols: d, seed: inputSeed }),
      engine.randomNormal({ rows: d, cols: 3 * d, seed: weightSeed, std }),
      engine.randomNormal({ rows: d, cols: d, seed: weightSeed + 1, std }),
    ]);
    const input = { x: x.data, n, d, heads: 1, cAttnWeight: weights.data, cAttnBias: new Float32Array(3 * d),
      cProjWeight: projection.data, cProjBias: new Float32Array(d) };
    const [flash, naive] = await Promise.all([
      engine.attention({ ...input, flash: { blockRows, blockCols }, trace: ['flash', 'output'] }),
      engine.attention({ ...input, trace: ['scaled', 'weights', 'output'] }),
    ]);
    if (!flash.heads[0]?.flash || !naive.heads[0]?.scaled) throw new Error('the engine returned no flash tiles or no scores');
    return (this.small = { key, flash: flash.heads[0], naive: naive.heads[0] });
  }

  /** the n×n scores in tiles, and each row's m, ℓ and rescale factor beside them */
  private drawGrid(small: SmallCase, rows: RowState[], step: number, blockRows: number, blockCols: number): void {
    const scores = small.naive.scaled!;
    const tiles = small.flash.flash!.tiles;
    const n = scores.rows;
    const range = maxAbsFinite(scores) || 1;
    const numbers = NUMBER_COLUMNS.reduce((s, c) => s + c.width, 0);
    const width = GRID.left + GRID.side + GRID.gap + numbers;
    // a narrower box narrows the grid; the numbers keep their columns
    const sideAt = (shownWidth: number) => GRID.side - (width - shownWidth);
    const canvas = this.grid.canvas;
    this.grid.draw(width, GRID.top + GRID.side + 2, (g, shownWidth) => {
      const side = sideAt(shownWidth);
      const cell = side / n;
      const numbersLeft = GRID.left + side + GRID.gap;
      const fg = foreground(canvas);
      const muted = getComputedStyle(canvas).getPropertyValue('--muted').trim() || fg;
      const x = (j: number) => GRID.left + j * cell;
      const y = (i: number) => GRID.top + i * cell;
      // the rows of the current tile, across the numbers too
      const current = step > 0 ? tiles[step - 1] : undefined;
      if (current) {
        const first = current.queryBlock * blockRows;
        const last = Math.min(n, first + blockRows);
        g.fillStyle = CURRENT;
        g.globalAlpha = 0.16;
        g.fillRect(numbersLeft - 4, y(first), shownWidth - numbersLeft + 4, y(last) - y(first));
        g.globalAlpha = 1;
      }
      // done tiles show their scores
      const colours = themeColours(g.canvas);
      for (const tile of tiles.slice(0, step)) {
        for (let i = tile.queryBlock * blockRows; i < Math.min(n, (tile.queryBlock + 1) * blockRows); i++) {
          for (let j = tile.keyBlock * blockCols; j < Math.min(n, (tile.keyBlock + 1) * blockCols); j++) {
            g.fillStyle = css(colours.diverging(at(scores, i, j), range));
            g.fillRect(x(j), y(i), cell, cell);
          }
        }
      }
      // faint lines between the cells (where they are large enough), stronger ones between the tiles
      const line = (x0: number, y0: number, x1: number, y1: number) => { g.beginPath(); g.moveTo(x0, y0); g.lineTo(x1, y1); g.stroke(); };
      g.strokeStyle = gridColour(canvas);
      g.lineWidth = 1;
      for (let k = 1; k < n && cell >= 6; k++) { line(x(k), y(0), x(k), y(n)); line(x(0), y(k), x(n), y(k)); }
      g.strokeStyle = muted;
      for (let k = blockCols; k < n; k += blockCols) line(x(k), y(0), x(k), y(n));
      for (let k = blockRows; k < n; k += blockRows) line(x(0), y(k), x(n), y(k));
      g.strokeRect(x(0), y(0), side, side);
      if (current) {
        g.strokeStyle = CURRENT;
        g.lineWidth = 3;
        const [r0, c0] = [current.queryBlock * blockRows, current.keyBlock * blockCols];
        g.strokeRect(x(c0), y(r0), x(Math.min(n, c0 + blockCols)) - x(c0), y(Math.min(n, r0 + blockRows)) - y(r0));
      }

      g.fillStyle = fg;
      g.font = CANVAS_FONT;
      g.textBaseline = 'bottom';
      g.textAlign = 'left';
      g.fillText('query i ↓, key j →', GRID.left, GRID.top - 3);
      g.textAlign = 'right';
      let left = numbersLeft;
      for (const column of NUMBER_COLUMNS) {
        left += column.width;
        g.fillText(column.title, left - 4, GRID.top - 3);
      }
      g.textBaseline = 'middle';
      const every = tickStep(n, cell, 13);
      for (let i = 0; i < n; i += every) g.fillText(String(i), GRID.left - 4, y(i + 0.5));
      // the row numbers: as large as a row allows
      g.font = `${Math.max(9, Math.min(12, Math.round(cell)))}px system-ui, "DejaVu Sans", sans-serif`;
      rows.forEach((row, i) => {
        const started = Number.isFinite(row.max);
        const texts = [formatNumber(row.max, 2), formatNumber(row.sum, 2), row.rescale === undefined ? '' : `×${formatSignificant(row.rescale, 2)}`];
        let right = numbersLeft;
        texts.forEach((text, k) => {
          right += NUMBER_COLUMNS[k].width;
          g.fillStyle = k === 2 ? RESCALED : fg;
          g.globalAlpha = started ? 1 : 0.45;
          g.fillText(text, right - 4, y(i + 0.5));
        });
        g.globalAlpha = 1;
      });
    }, { min: width - GRID.side + MIN_GRID, height: (shownWidth) => GRID.top + sideAt(shownWidth) + 2 });
    this.rowsTable.fill({
      caption: `each query row after ${step} of ${tiles.length} tiles: running max m, running sum ℓ, and e^(m−m′) where this tile raised the max`,
      head: ['query', 'm', 'ℓ', 'e^(m−m′)'],
      rows: rows.map((row, i) => [String(i), row.max, row.sum, row.rescale ?? ''] as [string, number, number, number | string]),
      format: (v) => formatSignificant(v, 7),
    });
  }

  /** what the current tile did, and after the last one the check against the naive computation */
  private explain(small: SmallCase, rows: RowState[], step: number, blockRows: number, blockCols: number): void {
    const tiles = small.flash.flash!.tiles;
    const n = rows.length;
    this.heading.textContent = `S = QKᵀ/√d in ${blockRows}×${blockCols} tiles`;
    if (step === 0) {
      this.explanation.textContent = `No tile yet: every row starts at m = −∞, ℓ = 0, O = 0. Press → for the first of ${tiles.length} tiles. `
        + `Flash holds ${blockRows * blockCols} scores at a time; naive holds all n² = ${n * n}.`;
    } else {
      const tile = tiles[step - 1];
      const span = (block: number, size: number) => `${block * size}–${Math.min(n, (block + 1) * size) - 1}`;
      const rescaled = rows.filter((r) => r.rescale !== undefined).length;
      const what = tile.keyBlock === 0
        ? 'These rows’ first tile: m and ℓ start here.'
        : rescaled > 0
          ? `${rescaled} row${rescaled === 1 ? '’s max' : 's’ maxima'} grew to m′: ℓ and O were scaled by e^(m−m′) (rescale), then this tile’s terms added.`
          : 'No row’s max grew: ℓ and O only gained this tile’s terms.';
      this.explanation.textContent = `Tile ${step} of ${tiles.length}: queries ${span(tile.queryBlock, blockRows)} × keys ${span(tile.keyBlock, blockCols)}. ${what}`;
    }
    if (step < tiles.length) {
      this.check.className = 'check muted';
      this.check.textContent = 'After the last tile, m, ℓ and out are checked against naive attention.';
      return;
    }
    // naive: the row maxima of S, the softmax normalisers read off its weights, and its output
    const gaps = [
      largestDifference(rows.map((r) => r.max), rowMaxima(small.naive.scaled!)),
      largestDifference(rows.map((r) => r.sum), normalisersFromWeights(small.naive.weights!)),
      largestDifference(small.flash.output!.data, small.naive.output!.data),
    ];
    const verdict = (gap: number) => `<span class="${gap < 1e-4 ? 'same' : 'moved'}">max |Δ| = ${gap === 0 ? '0' : formatSignificant(gap, 2)}</span>`;
    this.check.className = 'check';
    this.check.innerHTML = 'Against naive attention on all n×n scores at once:<br>'
      + `m vs max<sub>j</sub> S<sub>ij</sub>: ${verdict(gaps[0])}<br>`
      + `ℓ vs Σ<sub>j</sub> e<sup>S<sub>ij</sub>−max</sup>: ${verdict(gaps[1])}<br>`
      + `out vs softmax(S)·V: ${verdict(gaps[2])}`;
  }

  /** the points of the sweep up to the longest n not measured yet, in the order they run */
  private pending(): SweepPoint[] {
    return sweepPlan(Number(this.value<string>('maxN')), NAIVE_LONGEST).filter((p) => !this.measured.has(pointKey(p)));
  }

  /** times the next point (an Error is kept as its result: the engine refused it), and draws it */
  private async timeNext(engine: RemoteEngine): Promise<void> {
    const next = this.pending()[0];
    if (!next) return;
    let result: Measurement | Error;
    try {
      result = await engine.benchmark({ kernel: next.kernel, n: next.n, d: TIMED_WIDTH, ...timingOptions(next.n) });
    } catch (error) {
      result = error instanceof Error ? error : new Error(String(error));
    }
    this.measured.set(pointKey(next), result);
    this.drawSweep();
  }

  /** the timing's progress, state and button */
  private reportSweep(): void {
    const state = this.sweep?.state ?? 'waiting';
    this.dataset.sweep = SWEEP_STATES[state];
    if (!this.showsHere && (state === 'done' || (state === 'stopped' && this.measured.size > 0))) {
      this.showsHere = true;
      this.drawSweep();
      return;
    }
    const plan = sweepPlan(Number(this.value<string>('maxN')), NAIVE_LONGEST);
    const done = plan.filter((p) => this.measured.has(pointKey(p))).length;
    this.progress.value = sweepShare(plan, (p) => this.measured.has(pointKey(p)));
    this.progress.hidden = state === 'done';
    const next = this.pending()[0];
    this.action.textContent = state === 'done' ? 'Measure again' : state === 'stopped' ? 'Measure' : 'Cancel';
    this.action.disabled = state === 'stopping';
    this.sweepState.textContent = {
      running: next ? `${next.kernel}, n = ${formatCount(next.n)} (${done + 1}/${plan.length})…` : 'timing…',
      waiting: done === 0 ? 'starts when on screen' : 'paused while out of view',
      stopping: 'stopping after this call…',
      stopped: `stopped: ${done} of ${plan.length} points`,
      done: `${plan.length} calls; slopes fitted from n = ${formatCount(FIT_FROM)}`,
    }[state];
  }

  /** Cancel while timing; Measure (on from where it stopped) or Measure again (anew) after */
  private onAction(): void {
    const state = this.sweep?.state;
    if (state === 'running' || state === 'waiting' || state === 'stopping') {
      void this.sweep?.stop();
      return;
    }
    if (state === 'done') {
      this.measured.clear();
      this.showsHere = false;
    }
    this.drawSweep();
    this.startSweep();
  }

  /** the measured points so far: time and peak memory against n, the fitted slopes, and what naive could not run */
  private drawSweep(): void {
    const plan = sweepPlan(Number(this.value<string>('maxN')), NAIVE_LONGEST);
    const lengths = [...new Set(plan.map((p) => p.n))];
    const stored = new Map<string, Measurement>(STORED_SWEEP.points.map((p) => [pointKey(p), p]));
    const results = plan.map((p) => ({ ...p, result: (this.showsHere ? this.measured : stored).get(pointKey(p)) }));
    this.dataset.shows = this.showsHere ? 'here' : 'stored';
    this.sweepTitle.textContent = `Timed ${this.showsHere ? 'here' : 'earlier'} (d = ${TIMED_WIDTH}):`;
    const timed = results.flatMap(({ kernel, n, result }) => (result && !(result instanceof Error) ? [{ kernel, n, ...result }] : []));
    const points = (kernel: SweepKernel) => timed.filter((p) => p.kernel === kernel);
    const named = (kernel: SweepKernel, k: number | undefined) => `${kernel}${k === undefined ? '' : `, slope ${formatNumber(k, 2)}`}`;
    const kernels: SweepKernel[] = ['flash', 'naive'];
    const flash = points('flash');
    // n² through the middle of flash's fitted points
    const middle = squareThroughMiddle(flash.map((p) => [p.n, p.medianMs]));
    const reference: Series[] = middle !== undefined ? [{
      name: '∝ n² (slope 2)', colour: SERIES_COLOURS.purple, style: 'dashed',
      x: [lengths[0], lengths[lengths.length - 1]], y: [lengths[0], lengths[lengths.length - 1]].map((n) => middle * n ** 2),
    }] : [];
    // ticks at the lengths timed, a little room beyond the first and last so that no point sits on the frame
    const xAxis = { xTicks: lengths, xRange: [lengths[0] / 1.15, lengths[lengths.length - 1] * 1.15] as [number, number] };
    const notRun = lengths.filter((n) => n > NAIVE_LONGEST);
    const floats = (n: number) => (4 * n * n) / MIB;
    this.timePlot.configure(xAxis);
    this.memoryPlot.configure(xAxis);
    /** each kernel's points of one measure against n, named with its fitted slope */
    const measuredSeries = (value: (m: Measurement) => number) => kernels.map((kernel): Series => {
      const xy = points(kernel).map((p): [number, number] => [p.n, value(p)]);
      return { name: named(kernel, fittedSlope(xy)), colour: KERNEL_COLOURS[kernel], style: 'line+points', x: xy.map((p) => p[0]), y: xy.map((p) => p[1]) };
    });
    this.timePlot.draw([...measuredSeries((m) => m.medianMs), ...reference]);
    this.memoryPlot.draw([
      ...measuredSeries((m) => m.peakBytes / MIB),
      { name: '4n² B: n×n floats', colour: SERIES_COLOURS.purple, style: 'dashed', x: lengths, y: lengths.map(floats) },
      ...(notRun.length > 0 ? [{ name: 'naive not run', colour: SERIES_COLOURS.purple, style: 'points', x: notRun, y: notRun.map(floats) } as const] : []),
    ]);

    const failed = results.flatMap(({ kernel, n, result }) => (result instanceof Error ? [`${kernel} at n = ${formatCount(n)}: ${result.message}`] : []));
    const naive = points('naive');
    const lines: string[] = [];
    const last = flash[flash.length - 1];
    if (last) lines.push(`Flash, n = ${formatCount(last.n)}: ${formatDuration(last.medianMs)}, peak ${formatBytes(last.peakBytes)}.`);
    const lastNaive = naive[naive.length - 1];
    if (lastNaive) {
      lines.push(`Naive, n = ${formatCount(lastNaive.n)}: ${formatDuration(lastNaive.medianMs)}, peak ${formatBytes(lastNaive.peakBytes)} `
        + `(n×n weights: ${formatBytes(4 * lastNaive.n ** 2)}).`);
    }
    const notes = notRun.length === 0 ? [] : [` Naive stops at ${formatCount(NAIVE_LONGEST)}: at n = ${notRun.map(formatCount).join(' and ')} `
      + `its n×n matrix alone would take ${notRun.map((n) => formatBytes(4 * n * n)).join(' and ')}.`];
    // the stored timing is named before its numbers: when, where and on what build
    const earlier = this.showsHere ? [] : [h('span', { className: 'stored', textContent: `Stored (${shortMeasuredOn(STORED_SWEEP.measuredOn)}) until the timing here ends: `, attrs: { title: describeMeasuredOn(STORED_SWEEP.measuredOn) } })];
    this.summary.replaceChildren(...earlier, lines.join(' '), ...notes.map((text) => h('span', { className: 'not-run', textContent: text })),
      ...failed.map((text) => h('span', { className: 'error', textContent: ` ${text}` })));

    this.measurementsTable.fill({
      caption: `${this.showsHere ? 'measured in this browser' : `stored, measured ${describeMeasuredOn(STORED_SWEEP.measuredOn)}`}: `
        + 'median time and peak heap above what was in use before',
      head: ['kernel', 'n', 'time (ms)', 'peak (bytes)'],
      rows: [
        ...timed.map((p) => [p.kernel, p.n, p.medianMs, p.peakBytes] as [string, number, number, number]),
        ...notRun.map((n) => ['naive: not run', n, '', `n×n float32 alone: ${4 * n * n}`] as [string, number, string, string]),
      ],
      format: (v, column) => (column === 1 ? formatSignificant(v, 4) : String(v)),
    });
    this.reportSweep();
  }

  protected override layout(): HTMLElement {
    return h('div', {},
      h('div', 'controls', this.nSlider.element, h('span', 'tile', 'tile', this.tileRows.element, '×', this.tileCols.element), ...this.stepper.elements),
      h('div', 'animation', this.grid.canvas, h('div', 'words', this.heading, this.explanation, this.check), this.rowsTable.element),
      h('div', 'sweep', this.sweepTitle, this.longestChoice.element, this.action, this.progress, this.sweepState),
      h('div', 'plots', this.timePlot.element, this.memoryPlot.element),
      this.summary, this.measurementsTable.element);
  }
}
