// <attn-sinusoidal-shift>: PE(pos + k) = T_k·PE(pos), computed by the engine. The shift matrix T_k
// (block-diagonal 2×2 rotations), and three rows side by side: PE(pos) from the table, T_k·PE(pos)
// from the rotation alone, and PE(pos + k) from the table, with their largest difference.
// Settings: position, k, d (even).
import type { RemoteEngine } from '../runtime/engine';
import { formatSignificant, subscript } from '../math/format';
import { row, type MatrixData } from '../math/matrix';
import { h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { Heatmap } from '../primitives/heatmap';

const styles = `
.toolbar input { width: 120px; }
.toolbar output { min-width: 2em; }
.maps { display: flex; flex-wrap: wrap; gap: 8px 24px; align-items: flex-start; }
.maps h4 { margin: 0 0 2px; font-size: 14px; font-weight: 600; }
.verdict { margin: 8px 0 0; font-size: 15px; font-variant-numeric: tabular-nums; }
.verdict strong { color: var(--good); }
`;

export default class SinusoidalShift extends EngineElement {
  // both in [−1, 1]: one legend, beside the rows
  private readonly rotation = new Heatmap({ xLabel: 'column', yLabel: 'row', tint: 'signed', width: 150, height: 150, legend: false });
  private readonly rows = new Heatmap({ xLabel: 'dimension', yLabel: '', tint: 'signed', width: 220, height: 96 });
  private readonly sliders = { position: this.bound.slider('position'), k: this.bound.slider('k'), d: this.bound.slider('d') };
  private readonly rotationTitle = h('h4');
  private readonly rowsTitle = h('h4');
  private readonly verdict = h('p', { className: 'verdict', attrs: { 'aria-live': 'polite' } });

  constructor() {
    super(styles, 'Tₖ is the same for every position, and Tₖ·PE(pos) lands on the table\'s row pos + k: the difference is rounding.');
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const [position, k, d] = (['position', 'k', 'd'] as const).map((name) => this.value<number>(name));
    const [shift, table, moved] = await Promise.all([
      engine.sinusoidalShiftMatrix({ d, k }),
      engine.positionalTable({ kind: 'sinusoidal', n: position + k + 1, d }),
      engine.sinusoidalShift({ pos: position, k, d }),
    ]);
    const here = row(table, position);
    const there = row(table, position + k);
    const rotated = row(moved, 0);
    const three: MatrixData = { rows: 3, cols: d, data: Float32Array.from([...here, ...rotated, ...there]) };
    const largest = Math.max(...rotated.map((v, j) => Math.abs(v - there[j]!)));

    this.rotationTitle.textContent = `T${subscript(k)} (${d}×${d})`;
    this.rowsTitle.textContent = `rotated vs looked up (3×${d})`;
    this.rotation.draw(shift);
    this.rows.configure({ rowLabels: [`PE(${position})`, `T${subscript(k)}·PE(${position})`, `PE(${position + k})`] });
    this.rows.draw(three);
    this.verdict.replaceChildren(
      `largest |T${subscript(k)}·PE(${position}) − PE(${position + k})| = `, h('strong', { textContent: formatSignificant(largest, 2) }),
      `: the rotation alone moves position ${position} to ${position + k}, up to float rounding.`,
    );
  }

  protected override layout(): HTMLElement {
    return h('div', {},
      h('div', 'toolbar', ...Object.values(this.sliders).map((s) => s.element)),
      h('div', 'maps', h('div', {}, this.rotationTitle, this.rotation.element), h('div', {}, this.rowsTitle, this.rows.element)),
      this.verdict);
  }
}
