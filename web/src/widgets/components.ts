// <attn-components>: the seminar sentence's vectors after each component of one layer of the
// trained coreference model, read from the engine's trace of a forward pass: token embedding,
// + positions, the norm, attention, the residual sum, the feed-forward network's hidden layer and
// output, and the layer's output. Hovering a row follows that token through every picture.
// Settings: layer, token (the row whose statistics are shown).
import { pageModel, type RemoteEngine } from '../app/engine';
import { SEMINAR_SENTENCE } from '../app/state';
import type { MatrixData } from '../engine/index';
import { formatNumber } from '../math/format';
import { rowStatistics } from '../math/matrix';
import { EngineElement } from '../primitives/engine-element';
import { colourKey, Heatmap } from '../primitives/heatmap';

const styles = `
.bar { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; margin-bottom: 4px; font-size: 14px; }
.grid { display: grid; grid-template-columns: repeat(4, auto); gap: 2px 14px; justify-content: start; }
.grid .heading { display: flex; gap: 8px; align-items: baseline; }
.grid h4 { margin: 0; font-size: 13px; font-weight: 600; white-space: nowrap; }
.grid .range { font-size: 12px; color: var(--muted); font-variant-numeric: tabular-nums; }
.grid .readout { display: none; }
/* a phone: two pictures a row, shrunk to fit */
@media (max-width: 799px) { .grid { grid-template-columns: repeat(2, minmax(0, 1fr)); } .grid h4 { white-space: normal; } }
.stats { font-size: 14px; margin-top: 6px; font-variant-numeric: tabular-nums; }
`;

/** the pictures, in the order the data flows; `{L}` is the layer */
const STAGES = [
  { name: 'embed.tokens', title: 'E[token]' },
  { name: 'embed.positions', title: '+ learned position p' },
  { name: 'layer{L}.in', title: 'x (layer input)' },
  { name: 'layer{L}.ln_1', title: 'LayerNorm(x)' },
  { name: 'layer{L}.attn.out', title: 'Attention(LN(x))' },
  { name: 'layer{L}.residual_1', title: 'x + Attention: residual' },
  { name: 'layer{L}.mlp.act', title: 'FFN hidden, GELU(·W₁ + b₁)' },
  { name: 'layer{L}.out', title: '+ FFN(·): layer output' },
] as const;

export class Components extends EngineElement {
  static readonly observedAttributes = EngineElement.attributesOf('attn-components');
  private view?: { root: HTMLElement; layer: HTMLSelectElement; maps: Heatmap[]; titles: HTMLElement[]; ranges: HTMLElement[]; stats: HTMLElement };

  constructor() {
    super(styles, 'LayerNorm gives every row mean 0 and spread 1 (before γ, β), and the residual keeps the input visible in the output.');
  }

  protected async render(_engine: RemoteEngine): Promise<void> {
    const model = await pageModel('coreference');
    const config = await model.config();
    const layer = Math.min(this.value<number>('layer'), config.n_layers - 1);
    const { ids, pieces } = await model.tokenize(SEMINAR_SENTENCE);
    const token = Math.min(this.value<number>('token'), ids.length - 1);
    const names = STAGES.map((s) => s.name.replace('{L}', String(layer)));
    const { trace = {} } = await model.forward({ tokens: ids, trace: names });
    const view = (this.view ??= this.build(config.n_layers, pieces));
    if (!view.root.isConnected) this.body.replaceChildren(view.root);
    view.layer.value = String(layer);
    STAGES.forEach((stage, k) => {
      const m = trace[names[k]] as MatrixData;
      view.maps[k].draw(m);
      view.titles[k].textContent = `${stage.title}  ${m.rows}×${m.cols}`;
      view.ranges[k].textContent = `±${formatNumber(view.maps[k].range, 2)}`;
      view.maps[k].setHighlight({ row: token });
    });
    const show = (name: string, label: string) => {
      const { mean, std } = rowStatistics(trace[name] as MatrixData, token);
      return `${label}: mean ${formatNumber(mean, 3)}, std ${formatNumber(std, 3)}`;
    };
    view.stats.textContent = `“${pieces[token]}” — ${show(names[2], 'x')} · ${show(names[3], 'LN(x) (with γ, β)')} · ${show(names[7], 'output')}`;
  }

  private build(layers: number, pieces: string[]) {
    const root = document.createElement('div');
    const bar = document.createElement('div');
    bar.className = 'bar';
    const label = document.createElement('label');
    label.textContent = 'layer ';
    const layer = document.createElement('select');
    for (let l = 0; l < layers; l++) layer.append(new Option(String(l), String(l)));
    layer.addEventListener('change', () => this.change({ layer: Number(layer.value) }));
    label.append(layer);
    const note = document.createElement('span');
    note.className = 'muted';
    note.textContent = 'the trained coreference model; rows: tokens, columns: dimensions; hover a row';
    const key = document.createElement('span');
    key.className = 'muted';
    key.append(colourKey('signed', '−r', '+r'), ' (±r beside each title)');
    label.dataset.control = 'layer';
    bar.append(label, note, key);
    const grid = document.createElement('div');
    grid.className = 'grid';
    const pictures = STAGES.map(() => {
      const cell = document.createElement('div');
      const title = document.createElement('h4');
      const range = document.createElement('span');
      range.className = 'range';
      const heading = document.createElement('div');
      heading.className = 'heading';
      heading.append(title, range);
      const map = new Heatmap({
        xLabel: 'dimension', yLabel: 'token', tint: 'signed', width: 190, height: 150, rowLabels: pieces, legend: false,
        onHover: (c) => { if (c && c.row !== this.value<number>('token')) this.change({ token: c.row }); },
      });
      cell.append(heading, map.element);
      grid.append(cell);
      return { map, title, range };
    });
    const maps = pictures.map((p) => p.map);
    const titles = pictures.map((p) => p.title);
    const ranges = pictures.map((p) => p.range);
    const stats = document.createElement('p');
    stats.className = 'stats';
    root.append(bar, grid, stats);
    return { root, layer, maps, titles, ranges, stats };
  }
}

customElements.get('attn-components') ?? customElements.define('attn-components', Components);
