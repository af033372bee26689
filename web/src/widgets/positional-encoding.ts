// <attn-positional-encoding>: the sinusoidal table PE (n × d) and the similarity PE·PEᵀ, computed
// by the engine. Attributes: n, d (even), base.
import { LIMITS } from '../app/state';
import type { Engine } from '../engine/index';
import { EngineElement } from '../primitives/engine-element';
import { Heatmap } from '../primitives/heatmap';
import { slider } from '../primitives/slider';

const styles = `
.controls { display: flex; flex-wrap: wrap; gap: 18px; margin: 8px 0 12px; }
.plots { display: flex; flex-wrap: wrap; gap: 24px; }
.plots h4 { margin: 0 0 4px; font-size: 14px; font-weight: 600; }
output { min-width: 4em; font-variant-numeric: tabular-nums; }
`;

export class PositionalEncoding extends EngineElement {
  static readonly observedAttributes = ['n', 'd', 'base'];
  private readonly table = new Heatmap({ xLabel: 'dimension', yLabel: 'position', tint: 'signed', width: 300, height: 240 });
  private readonly similarity = new Heatmap({ xLabel: 'position', yLabel: 'position', tint: 'signed', width: 240, height: 240 });

  constructor() {
    super(styles);
  }

  private view?: { root: HTMLElement; equation: HTMLElement; tableTitle: HTMLElement; similarityTitle: HTMLElement;
    sliders: Record<'n' | 'd' | 'base', { set(value: number): void }> };

  protected render(engine: Engine): Node {
    const n = this.intAttribute('n', 32, LIMITS.n.min, LIMITS.n.max);
    const d = 2 * Math.round(this.intAttribute('d', 32, LIMITS.d.min, LIMITS.d.max) / 2);
    const base = this.intAttribute('base', 10000, LIMITS.base.min, LIMITS.base.max);
    const pe = engine.positionalTable({ kind: 'sinusoidal', n, d, base });
    const similarity = engine.positionSimilarity({ pe: pe.data, n, d });

    const view = (this.view ??= this.build());
    view.sliders.n.set(n);
    view.sliders.d.set(d);
    view.sliders.base.set(Math.round(Math.log10(base)));
    view.equation.textContent = `PE(pos, 2i) = sin(pos / ${base}^(2i/${d})),  PE(pos, 2i+1) = cos(pos / ${base}^(2i/${d}))`;
    view.tableTitle.textContent = `PE (${n}×${d})`;
    view.similarityTitle.textContent = `PE·PEᵀ (${n}×${n}): depends only on |i − j|`;
    // draw once the view is in the document, so the canvas can read the inherited text colour
    queueMicrotask(() => {
      this.table.draw(pe);
      this.similarity.draw(similarity);
    });
    return view.root;
  }

  private build() {
    const root = document.createElement('div');
    const equation = document.createElement('div');
    equation.className = 'eq';
    const controls = document.createElement('div');
    controls.className = 'controls';
    const set = (name: string) => (value: number) => {
      this.setAttribute(name, String(value));
      this.announce({ [name]: value });
    };
    const sliders = {
      n: slider({ label: 'positions n', ...LIMITS.n, step: 1, value: 32, onInput: set('n') }),
      d: slider({ label: 'width d', ...LIMITS.d, step: 2, value: 32, onInput: set('d') }),
      base: slider({ label: 'base', min: 1, max: 5, step: 1, value: 4, format: (e) => String(10 ** e),
        onInput: (e) => set('base')(10 ** e) }),
    };
    controls.append(sliders.n.element, sliders.d.element, sliders.base.element);
    const plots = document.createElement('div');
    plots.className = 'plots';
    const figure = (map: Heatmap) => {
      const f = document.createElement('div');
      const title = document.createElement('h4');
      f.append(title, map.element);
      plots.append(f);
      return title;
    };
    const tableTitle = figure(this.table);
    const similarityTitle = figure(this.similarity);
    root.append(equation, controls, plots);
    return { root, equation, tableTitle, similarityTitle, sliders };
  }
}

customElements.get('attn-positional-encoding') ?? customElements.define('attn-positional-encoding', PositionalEncoding);
