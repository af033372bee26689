// <attn-norms>: LayerNorm and RMSNorm of a vector the reader types, computed by the engine: its
// mean, variance and mean square, both outputs beside the input as bars, and both Jacobians
// ∂y/∂x (LayerNorm's rows sum to 0: adding a constant to x changes nothing; RMSNorm sends x to 0:
// scaling x changes nothing). Settings: vector (numbers separated by spaces), gamma, beta.
import type { RemoteEngine } from '../app/engine';
import { limitsOf } from '../app/state';
import { formatNumber, formatSignificant } from '../math/format';
import { parseInputEntry } from '../math/worked-example';
import { CANVAS_FONT, foreground, sharpCanvas } from '../primitives/canvas';
import { EngineElement } from '../primitives/engine-element';
import { Heatmap } from '../primitives/heatmap';
import { SERIES_COLOURS } from '../primitives/plot';
import { ScreenReaderTable } from '../primitives/screen-reader-table';
import { slider } from '../primitives/slider';

const styles = `
.controls { display: flex; flex-wrap: wrap; gap: 6px 20px; align-items: center; margin: 0 0 6px; font-size: 14px; }
.controls input[type="text"] { width: 17em; font-variant-numeric: tabular-nums; }
.controls input[type="range"] { width: 110px; }
.stats { margin: 0 0 6px; font-size: 15px; font-variant-numeric: tabular-nums; }
.legend { display: flex; gap: 14px; font-size: 13px; margin: 0 0 2px; }
.legend span::before { content: ''; display: inline-block; width: 10px; height: 10px; margin-right: 5px; background: var(--swatch); border-radius: 2px; }
.maps { display: flex; flex-wrap: wrap; gap: 6px 20px; margin-top: 6px; }
.maps h4 { margin: 0 0 2px; font-size: 14px; font-weight: 600; }
.maps p { margin: 0; font-size: 12px; color: var(--muted); max-width: 230px; }
[hidden] { display: none !important; }
`;

/** the smallest and largest width a reader may type */
const WIDTH = { min: 2, max: 16 };
const SERIES = [
  { name: 'x', colour: '#8a8f98' },
  { name: 'LayerNorm(x)', colour: SERIES_COLOURS.blue },
  { name: 'RMSNorm(x)', colour: SERIES_COLOURS.orange },
] as const;
const BARS = { width: 420, height: 170 };

/** "2 −1 0.5" → [2, −1, 0.5], or the reason it is not a vector */
function readVector(text: string): number[] {
  const entries = text.trim().split(/[\s;]+/).filter(Boolean);
  if (entries.length < WIDTH.min || entries.length > WIDTH.max) {
    throw new Error(`Type ${WIDTH.min} to ${WIDTH.max} numbers separated by spaces (got ${entries.length}).`);
  }
  return entries.map((entry, i) => {
    const parsed = parseInputEntry(entry);
    if (!parsed.ok) throw new Error(`Entry ${i + 1}, “${entry}”, ${parsed.problem}.`);
    return parsed.value;
  });
}

export class Norms extends EngineElement {
  static readonly observedAttributes = EngineElement.attributesOf('attn-norms');
  private readonly bars = sharpCanvas('the vector x and its LayerNorm and RMSNorm, one group of bars per dimension');
  private readonly numbers = new ScreenReaderTable();
  private readonly layerJacobian = new Heatmap({ xLabel: 'x_j', yLabel: 'y_i', tint: 'signed', width: 130, height: 130 });
  private readonly rmsJacobian = new Heatmap({ xLabel: 'x_j', yLabel: 'y_i', tint: 'signed', width: 130, height: 130 });
  private view?: ReturnType<Norms['build']>;

  constructor() {
    super(styles, 'LayerNorm centres and scales: its bars have mean β and spread γ; RMSNorm only scales, so the signs of x stay.');
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const text = this.value<string>('vector');
    const gamma = this.value<number>('gamma');
    const beta = this.value<number>('beta');
    const view = (this.view ??= this.build());
    if (!view.root.isConnected) this.body.replaceChildren(view.root);
    view.input.value = text;
    view.gamma.set(gamma);
    view.beta.set(beta);
    view.results.hidden = true;
    const x = readVector(text);
    const d = x.length;
    const r = await engine.norms({ x, d, gamma: new Array(d).fill(gamma), beta: new Array(d).fill(beta) });
    view.results.hidden = false;
    view.stats.textContent = [`μ = ${formatNumber(r.mean, 3)}`, `σ² = ${formatNumber(r.variance, 3)}`,
      `mean(x²) = ${formatNumber(r.meanSquare, 3)}`, 'ε = 10⁻⁵'].join('  ·  ');
    const rows = [x, Array.from(r.layerNorm.data), Array.from(r.rmsNorm.data)];
    this.drawBars(rows);
    this.numbers.fill({ caption: 'x and its two normalisations', head: ['', ...x.map((_, i) => `dimension ${i}`)],
      rows: SERIES.map((s, k) => [s.name, ...rows[k]!] as [string, ...number[]]) });
    this.layerJacobian.draw(r.layerNormJacobian);
    this.rmsJacobian.draw(r.rmsNormJacobian);
    const rowSum = Math.max(...Array.from({ length: d }, (_, i) =>
      Math.abs(r.layerNormJacobian.data.slice(i * d, (i + 1) * d).reduce((s, v) => s + v, 0))));
    view.layerNote.textContent = `each row sums to ${formatSignificant(rowSum, 2)}: adding a constant to x moves nothing`;
  }

  private drawBars(rows: number[][]): void {
    const d = rows[0]!.length;
    const limit = Math.max(1, ...rows.flat().map(Math.abs));
    const pad = { left: 34, right: 8, top: 8, bottom: 20 };
    this.bars.draw(BARS.width, BARS.height, (g, width, height) => {
      const plotWidth = width - pad.left - pad.right;
      const plotHeight = height - pad.top - pad.bottom;
      const zero = pad.top + plotHeight / 2;
      const scale = plotHeight / 2 / limit;
      const fg = foreground(this);
      g.font = CANVAS_FONT;
      g.fillStyle = fg;
      g.strokeStyle = fg;
      g.lineWidth = 1;
      g.beginPath();
      g.moveTo(pad.left, zero + 0.5);
      g.lineTo(width - pad.right, zero + 0.5);
      g.stroke();
      g.textAlign = 'right';
      g.textBaseline = 'middle';
      for (const v of [limit, 0, -limit]) g.fillText(formatNumber(v, 1), pad.left - 4, zero - v * scale);
      const group = plotWidth / d;
      const bar = Math.min(14, (group - 6) / 3);
      g.textAlign = 'center';
      g.textBaseline = 'top';
      for (let i = 0; i < d; i++) {
        const left = pad.left + i * group + (group - 3 * bar) / 2;
        rows.forEach((row, k) => {
          g.fillStyle = SERIES[k]!.colour;
          const v = row[i]!;
          g.fillRect(left + k * bar, v >= 0 ? zero - v * scale : zero, bar - 1, Math.abs(v) * scale);
        });
        g.fillStyle = fg;
        g.fillText(String(i), pad.left + (i + 0.5) * group, height - pad.bottom + 5);
      }
    });
  }

  private build() {
    const root = document.createElement('div');
    const controls = document.createElement('div');
    controls.className = 'controls';
    const label = document.createElement('label');
    label.textContent = 'vector x ';
    label.dataset.control = 'vector';
    const input = document.createElement('input');
    input.type = 'text';
    input.maxLength = 200;
    input.spellcheck = false;
    input.addEventListener('change', () => this.change({ vector: input.value }));
    label.append(input);
    const gamma = slider({ label: 'γ', ...limitsOf(this.localName, 'gamma'), value: 1, format: (v) => formatNumber(v, 2),
      onInput: (v) => this.change({ gamma: v }) });
    const beta = slider({ label: 'β', ...limitsOf(this.localName, 'beta'), value: 0, format: (v) => formatNumber(v, 2),
      onInput: (v) => this.change({ beta: v }) });
    gamma.element.dataset.control = 'gamma';
    beta.element.dataset.control = 'beta';
    controls.append(label, gamma.element, beta.element);

    const results = document.createElement('div');
    const stats = document.createElement('p');
    stats.className = 'stats';
    stats.setAttribute('aria-live', 'polite');
    const legend = document.createElement('div');
    legend.className = 'legend';
    for (const s of SERIES) {
      const item = document.createElement('span');
      item.textContent = s.name;
      item.style.setProperty('--swatch', s.colour);
      legend.append(item);
    }
    const maps = document.createElement('div');
    maps.className = 'maps';
    const figure = (title: string, map: Heatmap) => {
      const f = document.createElement('div');
      const h = document.createElement('h4');
      h.textContent = title;
      const note = document.createElement('p');
      f.append(h, map.element, note);
      maps.append(f);
      return note;
    };
    const layerNote = figure('LayerNorm: J = ∂y/∂x', this.layerJacobian);
    const rmsNote = figure('RMSNorm: J = ∂y/∂x', this.rmsJacobian);
    rmsNote.textContent = 'J·x ≈ 0: scaling x moves nothing';
    results.append(stats, legend, this.bars.canvas, this.numbers.element, maps);
    root.append(controls, results);
    return { root, input, gamma, beta, results, stats, layerNote };
  }
}

customElements.get('attn-norms') ?? customElements.define('attn-norms', Norms);
