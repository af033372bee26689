// <attn-kv-heads>: multi-query and grouped-query attention. (a) Eight query heads over the same
// seeded input, reading 8 (MHA), 4 or 2 (GQA) or 1 (MQA) key/value heads: heads in one group share
// K and V, and their maps still differ because their queries do. (b) What that saves for a model
// the reader sizes (a 7B-class one by default): the attention parameters and the KV cache of MHA,
// GQA and MQA, from the engine's formulas. Settings: picture (key/value heads of the picture),
// layers, d, heads, groups (GQA's g), context (n), precision.
import type { RemoteEngine } from '../runtime/engine';
import { PICTURE_KV_HEADS, PRECISIONS } from '../runtime/registry';
import type { MatrixData } from '../engine/index';
import { formatBytes, formatSignificant } from '../math/format';
import { fusedProjection, kvHeadOf, sizeProblem } from '../math/gqa';
import { button, h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { Heatmap } from '../primitives/heatmap';
import { SERIES_COLOURS } from '../primitives/plot';
import { ScreenReaderTable } from '../primitives/screen-reader-table';

const styles = `
.heads { display: flex; flex-wrap: wrap; gap: 4px 6px; margin: 0 0 4px; }
.heads figure { margin: 0; }
.heads h5 { margin: 0 0 2px; font-size: 14px; font-weight: 600; line-height: 1.2; border-bottom: 4px solid; padding-bottom: 1px; white-space: pre-line; }
.sharing { margin: 0 0 10px; font-size: 14px; color: var(--muted); }
h4 { margin: 6px 0 4px; font-size: 14px; font-weight: 600; }
table.budget { border-collapse: collapse; font-size: 14px; font-variant-numeric: tabular-nums; margin: 4px 0; }
table.budget th, table.budget td { padding: 2px 10px; text-align: right; border-bottom: 1px solid var(--border); white-space: nowrap; }
table.budget th:first-child { text-align: left; }
@media (max-width: 799px) { table.budget th, table.budget td { padding: 2px 5px; } table.budget th { white-space: normal; } }
.formula { margin: 4px 0 0; font-size: 14px; }
.problem { color: var(--bad); font-weight: 600; }
`;

/** the picture: 8 query heads of width 8 over 10 positions of a seeded N(0, 1) input */
const PICTURE = { heads: 8, dk: 8, n: 10 } as const;
/** one colour per key/value head: the series colours, then Okabe–Ito's yellow and a grey */
const GROUP_COLOURS = [SERIES_COLOURS.blue, SERIES_COLOURS.orange, SERIES_COLOURS.green, SERIES_COLOURS.purple,
  SERIES_COLOURS.vermillion, SERIES_COLOURS.sky, '#F0E442', '#999999'];
const BYTES: Record<Precision, number> = { fp32: 4, fp16: 2, int8: 1 };
const PICTURE_NAMES: Record<KvPicture, string> = { 8: 'MHA (8 K/V)', 4: 'GQA (4 K/V)', 2: 'GQA (2 K/V)', 1: 'MQA (1 K/V)' };
/** models to size with one click: layers, width, query heads, GQA groups */
const PRESETS = [
  { name: '7B-class', layers: 32, d: 4096, heads: 32, groups: 8 },
  { name: '70B-class', layers: 80, d: 8192, heads: 64, groups: 8 },
  { name: 'GPT-2 small', layers: 12, d: 768, heads: 12, groups: 4 },
] as const;

type KvPicture = (typeof PICTURE_KV_HEADS)[number];
type Precision = (typeof PRECISIONS)[number];
type Budget = { parameters: number; kvCacheBytes: number };

/** 1342504960 → "1.34 B" */
function count(n: number): string {
  for (const [size, unit] of [[1e9, 'B'], [1e6, 'M'], [1e3, 'k']] as const) if (n >= size) return `${formatSignificant(n / size, 3)} ${unit}`;
  return String(n);
}

export default class KvHeads extends EngineElement {
  private readonly maps = Array.from({ length: PICTURE.heads }, () =>
    new Heatmap({ xLabel: 'key', yLabel: 'query', tint: 'weights', width: 62, height: 62, legend: false, axes: false }));
  private readonly headTitles = this.maps.map(() => h('h5'));
  private readonly table = new ScreenReaderTable();
  private inputs?: Promise<{ x: MatrixData; wq: MatrixData; wk: MatrixData; wv: MatrixData; wo: MatrixData }>;
  private readonly picture = this.bound.choices<KvPicture>('picture', { text: (v) => PICTURE_NAMES[v], showName: false });
  private readonly precision = this.bound.choices<Precision>('precision');
  private readonly context = this.bound.slider('context', { scale: 'log2' });
  private readonly presets = PRESETS.map(({ name, ...model }) => button(name, () => this.change(model)));
  private readonly sharing = h('p', 'sharing');
  private readonly modelLine = h('p', 'sharing');
  private readonly problem = h('p', { className: 'problem', attrs: { role: 'alert' } });
  private readonly budgetHead = h('tr');
  private readonly budgetRows = h('tbody');
  private readonly budget = h('div', {},
    h('table', 'budget', h('thead', {}, this.budgetHead), this.budgetRows),
    h('p', { className: 'formula',
      textContent: 'KV cache = 2 · L · n · g · d_k · bytes;  attention parameters = L · (2d² + 2d·g·d_k + 2d + 2g·d_k)' }),
    this.table.element);

  constructor() {
    super(styles, 'heads of one colour share K and V: MQA keeps 1 of 8 key/value heads, and the KV cache shrinks by the same factor.');
  }

  /** the seeded input and weights: the query weights are the same whatever g, and g key/value
   * heads are the first g of the eight */
  private seeded(engine: RemoteEngine) {
    const { heads, dk, n } = PICTURE;
    const d = heads * dk;
    // large enough that a head's softmax picks a few keys (scores with a spread of about 2)
    const std = 1.5 / Math.sqrt(d);
    return (this.inputs ??= Promise.all([
      engine.randomNormal({ rows: n, cols: d, seed: 1 }),
      engine.randomNormal({ rows: d, cols: d, seed: 2, std }),
      engine.randomNormal({ rows: d, cols: d, seed: 3, std }),
      engine.randomNormal({ rows: d, cols: d, seed: 4, std }),
      engine.randomNormal({ rows: d, cols: d, seed: 5, std }),
    ]).then(([x, wq, wk, wv, wo]) => ({ x, wq, wk, wv, wo })));
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const picture = this.value<KvPicture>('picture');
    const g = Number(picture);
    const model = {
      layers: this.value<number>('layers'), d: this.value<number>('d'), heads: this.value<number>('heads'),
      groups: this.value<number>('groups'), context: this.value<number>('context'),
    };
    const precision = this.value<Precision>('precision');
    // the preset the model is, if it is one
    this.presets.forEach((button, i) => button.setAttribute('aria-pressed',
      String((['layers', 'd', 'heads', 'groups'] as const).every((key) => PRESETS[i][key] === model[key]))));

    // (a) the heads
    const { heads, dk, n } = PICTURE;
    const d = heads * dk;
    const { x, wq, wk, wv, wo } = await this.seeded(engine);
    const cAttnWeight = fusedProjection(wq.data, wk.data, wv.data, d, g * dk);
    const result = await engine.attention({ x: x.data, n, d, heads, kvHeads: g, cAttnWeight, cAttnBias: new Float32Array(d + 2 * g * dk),
      cProjWeight: wo.data, cProjBias: new Float32Array(d), trace: ['weights'] });
    result.heads.forEach((head, i) => {
      const group = kvHeadOf(i, heads, g);
      // on two lines: side by side the titles are wider than their pictures
      this.headTitles[i]!.textContent = `Q${i} ·\nKV${group}`;
      this.headTitles[i]!.style.borderColor = GROUP_COLOURS[group]!;
      this.maps[i]!.draw(head.weights!);
    });
    this.sharing.textContent = g === heads ? 'MHA: every query head has its own K and V (8 key/value heads).'
      : g === 1 ? 'MQA: all 8 query heads read one K and one V.'
        : `GQA: ${heads / g} query heads share each of ${g} key/value heads.`;

    // (b) the budget
    const problem = sizeProblem(model);
    this.problem.hidden = problem === undefined;
    this.budget.hidden = problem !== undefined;
    this.modelLine.textContent = `L = ${model.layers} layers, d = ${model.d}, h = ${model.heads} query heads (d_k = ${model.d / model.heads}), `
      + `n = ${model.context} tokens, ${precision} (${BYTES[precision]} bytes a number)`;
    if (problem) {
      this.problem.textContent = problem;
      return;
    }
    const kinds = [['MHA', model.heads], [`GQA, g = ${model.groups}`, model.groups], ['MQA', 1]] as const;
    const budgets: Budget[] = await Promise.all(kinds.map(([, kvHeads]) => engine.attentionBudget({
      d: model.d, heads: model.heads, kvHeads, layers: model.layers, n: model.context, bytesPerValue: BYTES[precision] })));
    const mha = budgets[0]!;
    const rows: [string, ...string[]][] = [
      ['key/value heads g', ...kinds.map(([, kvHeads]) => String(kvHeads))],
      ['attention parameters', ...budgets.map((b) => count(b.parameters))],
      ['KV cache', ...budgets.map((b) => formatBytes(b.kvCacheBytes))],
      ['KV cache vs MHA', ...budgets.map((b) => `${formatSignificant(b.kvCacheBytes / mha.kvCacheBytes, 3)}×`)],
    ];
    this.budgetHead.replaceChildren(...['', ...kinds.map(([name]) => name)].map((text) => h('th', { textContent: text })));
    this.budgetRows.replaceChildren(...rows.map(([name, ...cells]) => h('tr', {},
      h('th', { textContent: name, scope: 'row' }), ...cells.map((text) => h('td', { textContent: text })))));
    // the exact numbers, for screen readers and the CSV download
    this.table.fill({ caption: 'attention parameters and KV-cache bytes, exactly', head: ['', ...kinds.map(([name]) => name)],
      rows: [['parameters', ...budgets.map((b) => b.parameters)], ['KV-cache bytes', ...budgets.map((b) => b.kvCacheBytes)]],
      format: (v) => String(v) });
  }

  protected override layout(): HTMLElement {
    const presets = h('div', { className: 'group', attrs: { role: 'group', 'aria-label': 'model' }, data: { control: 'layers d heads groups' } },
      h('span', { className: 'name', textContent: 'model' }), ...this.presets);
    return h('div', {},
      h('div', 'toolbar', this.picture.element),
      h('div', 'heads', ...this.maps.map((map, i) => h('figure', {}, this.headTitles[i], map.element))),
      this.sharing,
      h('h4', { textContent: 'What it costs, for a model you size' }),
      h('div', 'toolbar', presets, this.precision.element, this.context.element),
      this.modelLine, this.problem, this.budget);
  }
}
