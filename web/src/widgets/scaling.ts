// <attn-scaling>: why scores are divided by √d_k, measured by the engine. (a) the variance of q·k
// for random q, k ~ N(0, I) at widths 1 … 512 against Var = d_k, and after scaling; (b) one query's
// softmax over 8 keys at the chosen d_k, unscaled and scaled, at a chosen temperature; (c) how the
// softmax's gradient ‖∂a/∂z‖ dies without the scale as d_k grows.
// Settings: dk, temperature.
import type { RemoteEngine } from '../app/engine';
import { limitsOf } from '../app/state';
import type { DotProductStatistics } from '../engine/index';
import { formatNumber, formatSignificant } from '../math/format';
import { CANVAS_FONT, foreground, sharpCanvas } from '../primitives/canvas';
import { EngineElement } from '../primitives/engine-element';
import { Plot, SERIES_COLOURS, type Series } from '../primitives/plot';
import { ScreenReaderTable } from '../primitives/screen-reader-table';
import { slider } from '../primitives/slider';

const styles = `
.controls { display: flex; flex-wrap: wrap; gap: 6px 28px; margin: 0 0 4px; }
.controls output { min-width: 2.6em; }
.measured { margin: 0 0 8px; font-size: 14px; font-variant-numeric: tabular-nums; }
.grid { display: grid; grid-template-columns: 380px 380px; gap: 6px 18px; }
.grid h4 { margin: 0 0 2px; font-size: 14px; font-weight: 600; }
@media (max-width: 799px) { .grid { grid-template-columns: minmax(0, 1fr); } table.stats { font-size: 13px; } table.stats th { white-space: normal; } table.stats th, table.stats td { padding: 2px 4px; } }
.legend { font-size: 12px; }
table.stats { border-collapse: collapse; font-size: 14px; font-variant-numeric: tabular-nums; margin: 26px 0 10px; }
table.stats th { white-space: nowrap; }
table.stats th, table.stats td { padding: 2px 8px; text-align: right; border-bottom: 1px solid var(--border); }
table.stats th:first-child { text-align: left; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 6px; border-radius: 2px; }
`;

/** the widths measured for the curves: 1, 2, 4, … 512 */
const WIDTHS = Array.from({ length: 10 }, (_, e) => 2 ** e);
const KEYS = 8;
const SEED = 1;
const ROWS = [
  { name: 'unscaled, q·k', colour: SERIES_COLOURS.vermillion },
  { name: 'scaled, q·k/√dₖ', colour: SERIES_COLOURS.blue },
] as const;

export class Scaling extends EngineElement {
  static readonly observedAttributes = EngineElement.attributesOf('attn-scaling');
  private readonly variance = new Plot({ xLabel: 'dₖ', yLabel: 'variance', xLog: true, yLog: true, width: 380, height: 185 });
  private readonly gradient = new Plot({ xLabel: 'dₖ', yLabel: '‖∂a/∂z‖', xLog: true, yLog: true, width: 380, height: 185 });
  private readonly bars = sharpCanvas('softmax weights of one query over 8 keys, unscaled and scaled');
  private readonly statistics = new Map<number, Promise<DotProductStatistics>>();
  private sweep?: Promise<{ unscaled: number[]; scaled: number[] }>;
  private view?: ReturnType<Scaling['build']>;

  constructor() {
    super(styles, 'Var(q·k) follows dₖ, the scaled variance stays at 1, and the unscaled softmax turns one-hot.');
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const dK = this.value<number>('dk');
    const temperature = this.value<number>('temperature');
    const view = (this.view ??= this.build());
    if (!view.root.isConnected) this.body.replaceChildren(view.root);
    view.dk.set(Math.round(Math.log2(dK)));
    view.temperature.set(Math.log2(temperature));

    const measuredAt = (d: number) => {
      let measured = this.statistics.get(d);
      if (!measured) this.statistics.set(d, (measured = engine.dotProductStatistics({ dK: d, keys: KEYS, seed: SEED })));
      return measured;
    };
    this.sweep ??= Promise.all(WIDTHS.map(async (d) => {
      const { scores } = await measuredAt(d);
      const [unscaled, scaled] = await Promise.all([engine.softmaxRow({ scores }), engine.softmaxRow({ scores, scale: 1 / Math.sqrt(d) })]);
      return [unscaled.jacobianNorm, scaled.jacobianNorm];
    })).then((norms) => ({ unscaled: norms.map((n) => n[0]), scaled: norms.map((n) => n[1]) }));
    const [widths, sweep, current] = await Promise.all([Promise.all(WIDTHS.map(measuredAt)), this.sweep, measuredAt(dK)]);
    const rows = await Promise.all([1, 1 / Math.sqrt(dK)].map((scale) => engine.softmaxRow({ scores: current.scores, scale, temperature })));

    view.measured.textContent = `dₖ = ${dK}: Var(q·k) = ${formatSignificant(current.variance, 3)}, ` +
      `Var(q·k/√dₖ) = ${formatSignificant(current.scaledVariance, 3)}, mean ${formatNumber(current.mean, 2)} (4000 random pairs)`;
    this.variance.draw([
      { name: 'Var(q·k)', x: WIDTHS, y: widths.map((s) => s.variance), colour: SERIES_COLOURS.vermillion, style: 'points' },
      { name: 'Var = dₖ', x: WIDTHS, y: WIDTHS, colour: SERIES_COLOURS.purple, style: 'dashed' },
      { name: 'Var(q·k/√dₖ)', x: WIDTHS, y: widths.map((s) => s.scaledVariance), colour: SERIES_COLOURS.blue, style: 'line+points' },
      this.marker([current.variance, current.scaledVariance], dK),
    ]);
    this.gradient.draw([
      { name: ROWS[0].name, x: WIDTHS, y: sweep.unscaled, colour: ROWS[0].colour, style: 'line+points' },
      { name: ROWS[1].name, x: WIDTHS, y: sweep.scaled, colour: ROWS[1].colour, style: 'line+points' },
    ]);
    this.drawBars(rows.map((r) => r.weights));
    view.barsTitle.textContent = `(b) one query, ${KEYS} keys, dₖ = ${dK}, temperature ${formatSignificant(temperature, 3)}`;
    view.stats.replaceChildren(view.statsHead, ...rows.map((r, k) => {
      const tr = document.createElement('tr');
      const name = document.createElement('th');
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = ROWS[k].colour;
      name.append(swatch, ROWS[k].name);
      tr.append(name, ...[formatNumber(r.entropy, 3), formatNumber(r.maxWeight, 3), formatSignificant(r.jacobianNorm, 2)].map((text) => {
        const td = document.createElement('td');
        td.textContent = text;
        return td;
      }));
      return tr;
    }));
  }

  /** the chosen d_k's own measurements, drawn over the sweep */
  private marker(values: number[], dK: number): Series {
    return { name: `dₖ = ${dK}`, x: values.map(() => dK), y: values, colour: SERIES_COLOURS.green, style: 'points' };
  }

  /** grouped bars: for each key, the unscaled and the scaled weight */
  private drawBars(rows: Float32Array[]): void {
    const [width, height] = [380, 165];
    const margin = { left: 40, right: 8, top: 8, bottom: 22 };
    const plotWidth = width - margin.left - margin.right;
    const plotHeight = height - margin.top - margin.bottom;
    const canvas = this.bars.canvas;
    this.bars.draw(width, height, (g) => {
      const fg = foreground(canvas);
      g.font = CANVAS_FONT;
      g.fillStyle = fg;
      g.strokeStyle = fg;
      g.textAlign = 'right';
      g.textBaseline = 'middle';
      for (const v of [0, 0.5, 1]) {
        const y = margin.top + (1 - v) * plotHeight;
        g.globalAlpha = 0.18;
        g.beginPath(); g.moveTo(margin.left, y); g.lineTo(width - margin.right, y); g.stroke();
        g.globalAlpha = 1;
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
      g.beginPath(); g.moveTo(margin.left, margin.top + plotHeight); g.lineTo(width - margin.right, margin.top + plotHeight); g.stroke();
    });
    this.view!.barsTable.fill({
      head: ['', ...Array.from({ length: KEYS }, (_, j) => `key ${j + 1}`)],
      rows: rows.map((weights, k) => [ROWS[k].name, ...Array.from(weights)] as [string, ...number[]]),
    });
  }

  private build() {
    const root = document.createElement('div');
    const controls = document.createElement('div');
    controls.className = 'controls';
    const { min, max } = limitsOf(this.localName, 'dk');
    const dk = slider({ label: 'key width dₖ', min: Math.log2(min), max: Math.log2(max), step: 1, value: 6,
      format: (e) => String(2 ** e), onInput: (e) => this.change({ dk: 2 ** e }) });
    const t = limitsOf(this.localName, 'temperature');
    const temperature = slider({ label: 'temperature', min: Math.log2(t.min), max: Math.log2(t.max), step: 0.25, value: 0,
      format: (e) => formatSignificant(2 ** e, 3), onInput: (e) => this.change({ temperature: 2 ** e }) });
    dk.element.dataset.control = 'dk';
    temperature.element.dataset.control = 'temperature';
    controls.append(dk.element, temperature.element);
    const measured = document.createElement('p');
    measured.className = 'measured';
    const grid = document.createElement('div');
    grid.className = 'grid';
    const cell = (title: string, ...content: HTMLElement[]) => {
      const div = document.createElement('div');
      const h = document.createElement('h4');
      h.textContent = title;
      div.append(h, ...content);
      grid.append(div);
      return h;
    };
    cell('(a) variance of the scores, measured', this.variance.element);
    cell('(c) size of the softmax gradient, one row per dₖ', this.gradient.element);
    const barsTable = new ScreenReaderTable();
    const barsTitle = cell('(b)', this.bars.canvas, barsTable.element);
    const stats = document.createElement('table');
    stats.className = 'stats';
    const statsHead = document.createElement('tr');
    statsHead.append(...['', 'entropy', 'max weight', '‖∂a/∂z‖'].map((text) => Object.assign(document.createElement('th'), { textContent: text })));
    const note = document.createElement('p');
    note.className = 'muted';
    note.textContent = `Entropy in nats: ln ${KEYS} = ${formatNumber(Math.log(KEYS), 2)} for a uniform row over ${KEYS} keys, 0 for a one-hot row, whose gradient vanishes with it.`;
    cell('the same row, unscaled and scaled', stats, note);
    root.append(controls, measured, grid);
    return { root, dk, temperature, measured, barsTitle, barsTable, stats, statsHead };
  }
}

customElements.get('attn-scaling') ?? customElements.define('attn-scaling', Scaling);
