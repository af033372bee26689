// <attn-sinusoidal-shift>: PE(pos + k) = T_k·PE(pos), computed by the engine. The shift matrix T_k
// (block-diagonal 2×2 rotations), and three rows side by side: PE(pos) from the table, T_k·PE(pos)
// from the rotation alone, and PE(pos + k) from the table, with their largest difference.
// Settings: position, k, d (even).
import type { RemoteEngine } from '../app/engine';
import { limitsOf } from '../app/state';
import { formatSignificant, subscript } from '../math/format';
import { row, type MatrixData } from '../math/matrix';
import { EngineElement } from '../primitives/engine-element';
import { Heatmap } from '../primitives/heatmap';
import { slider } from '../primitives/slider';

const styles = `
.controls { display: flex; flex-wrap: wrap; gap: 6px 24px; margin: 0 0 8px; }
.controls input { width: 120px; }
.controls output { min-width: 2em; font-variant-numeric: tabular-nums; }
.maps { display: flex; flex-wrap: wrap; gap: 8px 24px; align-items: flex-start; }
.maps h4 { margin: 0 0 2px; font-size: 14px; font-weight: 600; }
.verdict { margin: 8px 0 0; font-size: 15px; font-variant-numeric: tabular-nums; }
.verdict strong { color: var(--good); }
`;

type Setting = 'position' | 'k' | 'd';

export class SinusoidalShift extends EngineElement {
  static readonly observedAttributes = EngineElement.attributesOf('attn-sinusoidal-shift');
  // both in [−1, 1]: one legend, beside the rows
  private readonly rotation = new Heatmap({ xLabel: 'column', yLabel: 'row', tint: 'signed', width: 150, height: 150, legend: false });
  private readonly rows = new Heatmap({ xLabel: 'dimension', yLabel: '', tint: 'signed', width: 220, height: 96 });
  private view?: ReturnType<SinusoidalShift['build']>;

  constructor() {
    super(styles, 'Tₖ is the same for every position, and Tₖ·PE(pos) lands on the table\'s row pos + k: the difference is rounding.');
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const position = this.value<number>('position');
    const k = this.value<number>('k');
    const d = this.value<number>('d');
    const view = (this.view ??= this.build());
    if (!view.root.isConnected) this.body.replaceChildren(view.root);
    view.sliders.position.set(position);
    view.sliders.k.set(k);
    view.sliders.d.set(d);
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

    view.rotationTitle.textContent = `T${subscript(k)} (${d}×${d})`;
    view.rowsTitle.textContent = `rotated vs looked up (3×${d})`;
    this.rotation.draw(shift);
    this.rows.configure({ rowLabels: [`PE(${position})`, `T${subscript(k)}·PE(${position})`, `PE(${position + k})`] });
    this.rows.draw(three);
    view.verdict.replaceChildren(
      `largest |T${subscript(k)}·PE(${position}) − PE(${position + k})| = `,
      Object.assign(document.createElement('strong'), { textContent: formatSignificant(largest, 2) }),
      ': the rotation alone moves position ', String(position), ' to ', String(position + k), ', up to float rounding.',
    );
  }

  private build() {
    const root = document.createElement('div');
    const set = (name: Setting) => (value: number) => this.change({ [name]: value });
    const controls = document.createElement('div');
    controls.className = 'controls';
    const sliders = {
      position: slider({ label: 'position pos', ...limitsOf(this.localName, 'position'), value: 3, onInput: set('position') }),
      k: slider({ label: 'shift k', ...limitsOf(this.localName, 'k'), value: 5, onInput: set('k') }),
      d: slider({ label: 'width d', ...limitsOf(this.localName, 'd'), value: 16, onInput: set('d') }),
    };
    for (const [name, s] of Object.entries(sliders)) {
      s.element.dataset.control = name;
      controls.append(s.element);
    }
    const maps = document.createElement('div');
    maps.className = 'maps';
    const figure = (map: Heatmap) => {
      const f = document.createElement('div');
      const title = document.createElement('h4');
      f.append(title, map.element);
      maps.append(f);
      return title;
    };
    const rotationTitle = figure(this.rotation);
    const rowsTitle = figure(this.rows);
    const verdict = document.createElement('p');
    verdict.className = 'verdict';
    verdict.setAttribute('aria-live', 'polite');
    root.append(controls, maps, verdict);
    return { root, sliders, rotationTitle, rowsTitle, verdict };
  }
}


customElements.get('attn-sinusoidal-shift') ?? customElements.define('attn-sinusoidal-shift', SinusoidalShift);
