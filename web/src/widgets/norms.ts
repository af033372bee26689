// <attn-norms>: LayerNorm and RMSNorm of a vector the reader types, computed by the engine: its
// mean, variance and mean square, both outputs beside the input as bars, and both Jacobians
// ∂y/∂x (LayerNorm's rows sum to 0: adding a constant to x changes nothing; RMSNorm sends x to 0:
// scaling x changes nothing). Settings: vector (numbers separated by spaces), gamma, beta.
import type { RemoteEngine } from '../runtime/engine';
import { formatNumber, formatSignificant } from '../math/format';
import { largestRowSum, readVector } from '../math/norms';
import { CANVAS_FONT, foreground, sharpCanvas } from '../primitives/canvas';
import { h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { Heatmap } from '../primitives/heatmap';
import { SERIES_COLOURS } from '../primitives/plot';
import { ScreenReaderTable } from '../primitives/screen-reader-table';

const styles = `
.toolbar input[type="text"] { width: 17em; font-variant-numeric: tabular-nums; }
.toolbar input[type="range"] { width: 110px; }
.stats { margin: 0 0 6px; font-size: 15px; font-variant-numeric: tabular-nums; }
.legend { display: flex; gap: 14px; font-size: 13px; margin: 0 0 2px; }
.legend span::before { content: ''; display: inline-block; width: 10px; height: 10px; margin-right: 5px; background: var(--swatch); border-radius: 2px; }
.maps { display: flex; flex-wrap: wrap; gap: 6px 20px; margin-top: 6px; }
.maps h4 { margin: 0 0 2px; font-size: 14px; font-weight: 600; }
.maps p { margin: 0; font-size: 14px; color: var(--muted); max-width: 230px; }
`;

const SERIES = [
  { name: 'x', colour: '#8a8f98' },
  { name: 'LayerNorm(x)', colour: SERIES_COLOURS.blue },
  { name: 'RMSNorm(x)', colour: SERIES_COLOURS.orange },
] as const;
const BARS = { width: 420, height: 146 };

export default class Norms extends EngineElement {
  private readonly bars = sharpCanvas('the vector x and its LayerNorm and RMSNorm, one group of bars per dimension');
  private readonly numbers = new ScreenReaderTable();
  private readonly layerJacobian = new Heatmap({ xLabel: 'x_j', yLabel: 'y_i', tint: 'signed', width: 130, height: 130 });
  private readonly rmsJacobian = new Heatmap({ xLabel: 'x_j', yLabel: 'y_i', tint: 'signed', width: 130, height: 130 });
  private readonly vector = this.bound.text('vector', { commit: 'change' });
  private readonly gamma = this.bound.slider('gamma', { format: (v) => formatNumber(v, 2) });
  private readonly beta = this.bound.slider('beta', { format: (v) => formatNumber(v, 2) });
  private readonly stats = h('p', { className: 'stats', attrs: { 'aria-live': 'polite' } });
  private readonly layerNote = h('p');
  private readonly results = h('div');

  constructor() {
    super(styles, 'LayerNorm centres and scales: its bars have mean β and spread γ; RMSNorm only scales, so the signs of x stay.');
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    // the controls stay, to correct a vector the widget refuses
    this.results.hidden = true;
    const x = readVector(this.value<string>('vector'));
    const [gamma, beta] = (['gamma', 'beta'] as const).map((setting) => new Array<number>(x.length).fill(this.value<number>(setting)));
    const r = await engine.norms({ x, d: x.length, gamma, beta });
    this.results.hidden = false;
    this.stats.textContent = [`μ = ${formatNumber(r.mean, 3)}`, `σ² = ${formatNumber(r.variance, 3)}`,
      `mean(x²) = ${formatNumber(r.meanSquare, 3)}`, 'ε = 10⁻⁵'].join('  ·  ');
    const rows = [x, Array.from(r.layerNorm.data), Array.from(r.rmsNorm.data)];
    this.drawBars(rows);
    this.numbers.fill({ caption: 'x and its two normalisations', head: ['', ...x.map((_, i) => `dimension ${i}`)],
      rows: SERIES.map((s, k) => [s.name, ...rows[k]!] as [string, ...number[]]) });
    this.layerJacobian.draw(r.layerNormJacobian);
    this.rmsJacobian.draw(r.rmsNormJacobian);
    this.layerNote.textContent = `each row sums to ${formatSignificant(largestRowSum(r.layerNormJacobian), 2)}: adding a constant to x moves nothing`;
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
    }, { min: 240 });
  }

  protected override layout(): HTMLElement {
    const figure = (title: string, map: Heatmap, note: HTMLElement) => h('div', {}, h('h4', { textContent: title }), map.element, note);
    const legend = SERIES.map((s) => h('span', { textContent: s.name, attrs: { style: `--swatch: ${s.colour}` } }));
    this.results.append(this.stats, h('div', 'legend', ...legend), this.bars.canvas, this.numbers.element, h('div', 'maps',
      figure('LayerNorm: J = ∂y/∂x', this.layerJacobian, this.layerNote),
      figure('RMSNorm: J = ∂y/∂x', this.rmsJacobian, h('p', { textContent: 'J·x ≈ 0: scaling x moves nothing' }))));
    return h('div', {}, h('div', 'toolbar', this.vector.element, this.gamma.element, this.beta.element), this.results);
  }
}
