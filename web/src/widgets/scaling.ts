// <attn-scaling>: why scores are divided by √d_k, measured by the engine. (a) the variance of q·k
// for random q, k ~ N(0, I) at widths 1 … 512 against Var = d_k, and after scaling; (b) one query's
// softmax over 8 keys at the chosen d_k, unscaled and scaled, at a chosen temperature; (c) how the
// softmax's gradient ‖∂a/∂z‖ dies without the scale as d_k grows.
// Settings: dk, temperature.
import type { RemoteEngine } from '../runtime/engine';
import type { DotProductStatistics } from '../engine/index';
import { formatNumber, formatSignificant } from '../math/format';
import { CANVAS_FONT, foreground, gridColour, sharpCanvas } from '../primitives/canvas';
import { h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { Plot, SERIES_COLOURS } from '../primitives/plot';
import { ScreenReaderTable } from '../primitives/screen-reader-table';

const styles = `
.toolbar output { min-width: 2.6em; }
.measured { margin: 0 0 8px; font-size: 14px; font-variant-numeric: tabular-nums; }
.grid { display: grid; grid-template-columns: 380px 380px; gap: 6px 18px; }
.grid h4 { margin: 0 0 2px; font-size: 14px; font-weight: 600; }
table.stats { border-collapse: collapse; font-size: 14px; font-variant-numeric: tabular-nums; margin: 8px 0 10px; }
table.stats th { white-space: nowrap; }
table.stats th, table.stats td { padding: 2px 8px; text-align: right; border-bottom: 1px solid var(--border); }
table.stats th:first-child { text-align: left; }
@media (max-width: 799px) { .grid { grid-template-columns: minmax(0, 1fr); } table.stats { font-size: 14px; } table.stats th { white-space: normal; } table.stats th, table.stats td { padding: 2px 4px; } }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 6px; border-radius: 2px; }
.bar-legend { display: flex; flex-wrap: wrap; gap: 0 16px; margin: 2px 0 0; font-size: 14px; }
`;

/** the widths measured for the curves: 1, 2, 4, … 512 */
const WIDTHS = Array.from({ length: 10 }, (_, e) => 2 ** e);
const KEYS = 8;
const SEED = 1;
/** the two rows compared, and the scale each applies to the scores */
const ROWS = [
  { name: 'unscaled, q·k', colour: SERIES_COLOURS.vermillion, scale: (_dK: number) => 1 },
  { name: 'scaled, q·k/√dₖ', colour: SERIES_COLOURS.blue, scale: (dK: number) => 1 / Math.sqrt(dK) },
] as const;

export default class Scaling extends EngineElement {
  private readonly variance = new Plot({ xLabel: 'dₖ', yLabel: 'variance', xLog: true, yLog: true, width: 380, height: 185 });
  private readonly gradient = new Plot({ xLabel: 'dₖ', yLabel: '‖∂a/∂z‖', xLog: true, yLog: true, width: 380, height: 185 });
  private readonly bars = sharpCanvas('softmax weights of one query over 8 keys, unscaled and scaled');
  private readonly statistics = new Map<number, Promise<DotProductStatistics>>();
  /** ‖∂a/∂z‖ at every width, one list per row */
  private sweep?: Promise<number[][]>;
  private readonly dk = this.bound.slider('dk', { scale: 'log2' });
  private readonly temperature = this.bound.slider('temperature', { scale: 'log2', format: (t) => formatSignificant(t, 3) });
  private readonly measured = h('p', 'measured');
  private readonly barsTitle = h('h4');
  private readonly barsTable = new ScreenReaderTable();
  private readonly stats = h('table', 'stats');

  constructor() {
    super(styles, 'Var(q·k) follows dₖ, the scaled variance stays at 1, and the unscaled softmax turns one-hot.');
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const dK = this.value<number>('dk');
    const temperature = this.value<number>('temperature');

    // each width is measured once
    const measuredAt = (d: number) => this.statistics.get(d)
      ?? this.statistics.set(d, engine.dotProductStatistics({ dK: d, keys: KEYS, seed: SEED })).get(d)!;
    this.sweep ??= Promise.all(WIDTHS.map(async (d) => {
      const { scores } = await measuredAt(d);
      return Promise.all(ROWS.map(async (r) => (await engine.softmaxRow({ scores, scale: r.scale(d) })).jacobianNorm));
    })).then((norms) => ROWS.map((_, k) => norms.map((n) => n[k]!)));
    const [widths, sweep, current] = await Promise.all([Promise.all(WIDTHS.map(measuredAt)), this.sweep, measuredAt(dK)]);
    const rows = await Promise.all(ROWS.map((r) => engine.softmaxRow({ scores: current.scores, scale: r.scale(dK), temperature })));

    this.measured.textContent = `dₖ = ${dK}: Var(q·k) = ${formatSignificant(current.variance, 3)}, ` +
      `Var(q·k/√dₖ) = ${formatSignificant(current.scaledVariance, 3)}, mean ${formatNumber(current.mean, 2)} (4000 random pairs)`;
    this.variance.draw([
      { name: 'Var(q·k)', x: WIDTHS, y: widths.map((s) => s.variance), colour: SERIES_COLOURS.vermillion, style: 'points' },
      { name: 'Var = dₖ', x: WIDTHS, y: WIDTHS, colour: SERIES_COLOURS.purple, style: 'dashed' },
      { name: 'Var(q·k/√dₖ)', x: WIDTHS, y: widths.map((s) => s.scaledVariance), colour: SERIES_COLOURS.blue, style: 'line+points' },
      // the chosen d_k's own measurements, over the sweep
      { name: `dₖ = ${dK}`, x: [dK, dK], y: [current.variance, current.scaledVariance], colour: SERIES_COLOURS.green, style: 'points' },
    ]);
    this.gradient.draw(ROWS.map((r, k) => ({ name: r.name, x: WIDTHS, y: sweep[k]!, colour: r.colour, style: 'line+points' })));
    this.drawBars(rows.map((r) => r.weights));
    this.barsTitle.textContent = `(b) one query, ${KEYS} keys, dₖ = ${dK}, temperature ${formatSignificant(temperature, 3)}`;
    const cells = (tag: 'th' | 'td', texts: string[]) => texts.map((text) => h(tag, { textContent: text }));
    this.stats.replaceChildren(h('tr', {}, ...cells('th', ['', 'entropy', 'max weight', '‖∂a/∂z‖'])), ...rows.map((r, k) => h('tr', {},
      h('th', {}, h('span', { className: 'swatch', attrs: { style: `background: ${ROWS[k].colour}` } }), ROWS[k].name),
      ...cells('td', [formatNumber(r.entropy, 3), formatNumber(r.maxWeight, 3), formatSignificant(r.jacobianNorm, 2)]))));
  }

  /** grouped bars: for each key, the unscaled and the scaled weight */
  private drawBars(rows: Float32Array[]): void {
    const [width, height] = [380, 165];
    const margin = { left: 40, right: 8, top: 8, bottom: 22 };
    const plotHeight = height - margin.top - margin.bottom;
    this.bars.draw(width, height, (g, shownWidth) => {
      const plotWidth = shownWidth - margin.left - margin.right;
      const fg = foreground(this.bars.canvas);
      g.font = CANVAS_FONT;
      g.fillStyle = fg;
      g.strokeStyle = fg;
      g.textAlign = 'right';
      g.textBaseline = 'middle';
      for (const v of [0, 0.5, 1]) {
        const y = margin.top + (1 - v) * plotHeight;
        g.strokeStyle = gridColour(this.bars.canvas);
        g.beginPath(); g.moveTo(margin.left, y); g.lineTo(shownWidth - margin.right, y); g.stroke();
        g.fillText(String(v), margin.left - 6, y);
      }
      const slot = plotWidth / KEYS;
      const bar = (slot * 0.8) / rows.length;
      g.textAlign = 'center';
      g.textBaseline = 'top';
      for (let j = 0; j < KEYS; j++) {
        rows.forEach((weights, k) => {
          g.fillStyle = ROWS[k].colour;
          const h = weights[j] * plotHeight;
          g.fillRect(margin.left + j * slot + slot * 0.1 + k * bar, margin.top + plotHeight - h, bar - 1, h);
        });
        g.fillStyle = fg;
        g.fillText(`k${j + 1}`, margin.left + (j + 0.5) * slot, margin.top + plotHeight + 5);
      }
      g.strokeStyle = fg;
      g.beginPath(); g.moveTo(margin.left, margin.top + plotHeight); g.lineTo(shownWidth - margin.right, margin.top + plotHeight); g.stroke();
    }, { min: 240 });
    this.barsTable.fill({
      head: ['', ...Array.from({ length: KEYS }, (_, j) => `key ${j + 1}`)],
      rows: rows.map((weights, k) => [ROWS[k].name, ...Array.from(weights)] as [string, ...number[]]),
    });
  }

  protected override layout(): HTMLElement {
    // a quarter of a doubling a step
    this.temperature.input.step = '0.25';
    const cell = (title: HTMLElement | string, ...content: HTMLElement[]) =>
      h('div', {}, typeof title === 'string' ? h('h4', { textContent: title }) : title, ...content);
    const note = `Entropy in nats: ln ${KEYS} = ${formatNumber(Math.log(KEYS), 2)} for a uniform row over ${KEYS} keys, ` +
      '0 for a one-hot row, whose gradient vanishes with it.';
    // the bars' colours, named as the plots name theirs
    const legend = h('p', 'bar-legend', ...ROWS.map((r) => h('span', {},
      h('span', { className: 'swatch', attrs: { style: `background: ${r.colour}` } }), r.name)));
    // read in order: (a) and (b) side by side, then (c) under (a) and the row's numbers under (b)
    return h('div', {},
      h('div', 'toolbar', this.dk.element, this.temperature.element),
      this.measured,
      h('div', 'grid',
        cell('(a) variance of the scores, measured', this.variance.element),
        cell(this.barsTitle, this.bars.canvas, legend, this.barsTable.element),
        cell('(c) size of the softmax gradient, one row per dₖ', this.gradient.element),
        cell('the row of (b), unscaled and scaled', this.stats, h('p', { className: 'muted', textContent: note }))));
  }
}
