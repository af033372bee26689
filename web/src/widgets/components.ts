// <attn-components>: the seminar sentence's vectors after each component of one layer of the
// trained coreference model, read from the engine's trace of a forward pass: token embedding,
// + positions, the norm, attention, the residual sum, the feed-forward network's hidden layer and
// output, and the layer's output. Hovering a row follows that token through every picture.
// Settings: layer, token (the row whose statistics are shown).
import { pageModel, type RemoteEngine } from '../runtime/engine';
import { SEMINAR_SENTENCE } from '../runtime/registry';
import type { MatrixData } from '../engine/index';
import { formatNumber } from '../math/format';
import { rowStatistics } from '../math/matrix';
import { h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { colourKey, Heatmap } from '../primitives/heatmap';

const styles = `
.toolbar { margin-bottom: 4px; }
.grid { display: grid; grid-template-columns: repeat(4, auto); gap: 2px 14px; justify-content: start; }
.grid .heading { display: flex; gap: 8px; align-items: baseline; }
.grid h4 { margin: 0; font-size: 13px; font-weight: 600; white-space: nowrap; }
.grid .range { font-size: 12px; color: var(--muted); font-variant-numeric: tabular-nums; }
.grid .readout { display: none; }
/* a phone: two pictures a row, shrunk to fit */
@media (max-width: 799px) { .grid { grid-template-columns: repeat(2, minmax(0, 1fr)); } .grid h4 { white-space: normal; } }
.stats { font-size: 14px; margin: 4px 0 0; font-variant-numeric: tabular-nums; }
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

export default class Components extends EngineElement {
  private readonly layer = this.bound.numbered('layer', { select: true });
  private readonly pictures = STAGES.map(() => ({
    title: h('h4'), range: h('span', 'range'),
    map: new Heatmap({
      xLabel: 'dimension', yLabel: 'token', tint: 'signed', width: 190, height: 150, legend: false,
      onHover: (c) => { if (c && c.row !== this.value<number>('token')) this.change({ token: c.row }); },
    }),
  }));
  private readonly stats = h('p', 'stats');

  constructor() {
    super(styles, 'LayerNorm gives every row mean 0 and spread 1 (before γ, β), and the residual keeps the input visible in the output.');
  }

  protected override layout(): HTMLElement[] {
    const note = h('span', 'muted', 'the trained coreference model; rows: tokens, columns: dimensions; hover a row');
    const key = h('span', 'muted', colourKey('signed', '−r', '+r'), ' (±r beside each title)');
    const cells = this.pictures.map(({ title, range, map }) => h('div', {}, h('div', 'heading', title, range), map.element));
    return [h('div', 'toolbar', this.layer.element, note, key), h('div', 'grid', ...cells), this.stats];
  }

  protected async render(_engine: RemoteEngine): Promise<void> {
    const model = await pageModel('coreference');
    const config = await model.config();
    const layer = this.layer.upTo(config.n_layers);
    const { ids, pieces } = await model.tokenize(SEMINAR_SENTENCE);
    const token = Math.min(this.value<number>('token'), ids.length - 1);
    const names = STAGES.map((s) => s.name.replace('{L}', String(layer)));
    const { trace = {} } = await model.forward({ tokens: ids, trace: names });
    this.pictures.forEach(({ title, range, map }, k) => {
      const m = trace[names[k]] as MatrixData;
      map.configure({ rowLabels: pieces });
      map.draw(m);
      title.textContent = `${STAGES[k].title}  ${m.rows}×${m.cols}`;
      range.textContent = `±${formatNumber(map.range, 2)}`;
      map.setHighlight({ row: token });
    });
    const show = (name: string, label: string) => {
      const { mean, std } = rowStatistics(trace[name] as MatrixData, token);
      return `${label}: mean ${formatNumber(mean, 3)}, std ${formatNumber(std, 3)}`;
    };
    this.stats.textContent = `“${pieces[token]}” — ${show(names[2], 'x')} · ${show(names[3], 'LN(x) (with γ, β)')} · ${show(names[7], 'output')}`;
  }
}
