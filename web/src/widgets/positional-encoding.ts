// <attn-positional-encoding>: how each positional scheme looks, computed by the engine. Sinusoidal,
// learned and RoPE show their table (n × d) and the similarity of positions; ALiBi shows one head's
// additive bias, and what it does to that head's attention on a seeded input (its weights without
// and with the bias). Attributes: kind (sinusoidal | learned | rope | alibi), n, d (even), base, head.
import type { RemoteEngine } from '../app/engine';
import type { MatrixData } from '../engine/index';
import { limitsOf, POSITIONAL_KINDS, type PositionalKind } from '../app/state';
import { formatNumber } from '../math/format';
import { EngineElement } from '../primitives/engine-element';
import { equation, loadTypesetting } from '../primitives/equation';
import { Heatmap } from '../primitives/heatmap';
import { slider } from '../primitives/slider';

const styles = `
.kinds { display: inline-flex; gap: 4px; margin: 8px 0 4px; }
.controls { display: flex; flex-wrap: wrap; gap: 18px; margin: 8px 0 12px; }
.plots { display: flex; flex-wrap: wrap; gap: 24px; }
.plots h4 { margin: 0 0 4px; font-size: 14px; font-weight: 600; }
.note { max-width: 760px; }
.formula { min-height: 28px; }
[hidden] { display: none !important; }
output { min-width: 4em; font-variant-numeric: tabular-nums; }
`;

const HINTS: Record<PositionalKind, string> = {
  sinusoidal: 'the stripes of the sinusoidal table slow down to the right, and PE·PEᵀ depends only on the distance |i\u00a0−\u00a0j|.',
  learned: 'an untrained table is noise: P·Pᵀ has no structure until training gives nearby positions similar rows.',
  rope: 'nothing is added to the tokens; the similarity of two rotated vectors depends only on their offset j\u00a0−\u00a0i.',
  alibi: 'each head subtracts a penalty growing with distance: steep heads look close by, shallow heads far away.',
};

const NAMES: Record<PositionalKind, string> = { sinusoidal: 'Sinusoidal', learned: 'Learned', rope: 'RoPE', alibi: 'ALiBi' };

type Control = { element: HTMLElement; set(value: number): void };

/** the ALiBi picture's attention: 8 heads over a seeded N(0, 1) input of width 64 */
const ALIBI_HEADS = 8;
const ALIBI_WIDTH = 64;

/** every head's weights of one multi-head layer (seeded weights, spread enough that a head picks a
 * few keys) over n positions of a seeded input, with or without ALiBi */
async function seededHeads(engine: RemoteEngine, n: number, alibi: boolean): Promise<MatrixData[]> {
  const d = ALIBI_WIDTH;
  const std = 1.5 / Math.sqrt(d);
  const [x, weights, projection] = await Promise.all([
    engine.randomNormal({ rows: n, cols: d, seed: 1 }),
    engine.randomNormal({ rows: d, cols: 3 * d, seed: 2, std }),
    engine.randomNormal({ rows: d, cols: d, seed: 3, std }),
  ]);
  const result = await engine.attention({ x: x.data, n, d, heads: ALIBI_HEADS, alibi, cAttnWeight: weights.data,
    cAttnBias: new Float32Array(3 * d), cProjWeight: projection.data, cProjBias: new Float32Array(d), trace: ['weights'] });
  return result.heads.map((h) => h.weights!);
}

export class PositionalEncoding extends EngineElement {
  static readonly observedAttributes = EngineElement.attributesOf('attn-positional-encoding');
  private readonly table = new Heatmap({ xLabel: 'dimension', yLabel: 'position', tint: 'signed', width: 220, height: 220 });
  private readonly similarity = new Heatmap({ xLabel: 'position', yLabel: 'position', tint: 'signed', width: 190, height: 190 });
  private readonly bias = new Heatmap({ xLabel: 'key position', yLabel: 'query position', tint: 'signed', width: 180, height: 180 });
  private readonly plain = new Heatmap({ xLabel: 'key position', yLabel: 'query position', tint: 'weights', width: 150, height: 150, legend: false });
  private readonly biased = new Heatmap({ xLabel: 'key position', yLabel: 'query position', tint: 'weights', width: 150, height: 150, legend: false });
  private view?: ReturnType<PositionalEncoding['build']>;

  constructor() {
    super(styles, HINTS.sinusoidal);
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const kind = this.value<PositionalKind>('kind');
    const n = this.value<number>('n');
    const d = this.value<number>('d');
    const base = this.value<number>('base');
    const head = this.value<number>('head');
    this.setHint(HINTS[kind]);
    await loadTypesetting();
    const view = (this.view ??= this.build());
    if (!view.root.isConnected) this.body.replaceChildren(view.root);
    view.sliders.n.set(n);
    view.sliders.d.set(d);
    view.sliders.base.set(Math.round(Math.log10(base)));
    view.sliders.head.set(head);
    for (const [k, button] of view.kindButtons) button.setAttribute('aria-pressed', String(k === kind));
    const alibi = kind === 'alibi';
    view.sliders.d.element.hidden = alibi;
    view.sliders.base.element.hidden = alibi || kind === 'learned';
    view.sliders.head.element.hidden = !alibi;
    view.tableFigure.hidden = alibi;
    view.similarityFigure.hidden = alibi;
    view.biasFigure.hidden = !alibi;
    view.plainFigure.hidden = !alibi;
    view.biasedFigure.hidden = !alibi;

    if (alibi) {
      const [slopes, bias, plain, biased] = await Promise.all([engine.alibiSlopes({ heads: ALIBI_HEADS }),
        engine.alibiBias({ heads: ALIBI_HEADS, head, n }), seededHeads(engine, n, false), seededHeads(engine, n, true)]);
      const slope = slopes[head];
      view.equation.replaceChildren(equation(`\\mathrm{softmax}\\big(QK^\\top/\\sqrt{d_k} - m\\,|i - j|\\big),\\quad \\text{head ${head + 1} of 8: } m = ${formatNumber(slope, 5)}`));
      view.note.textContent = 'No vector is added to the tokens: each head subtracts a penalty that grows with distance. ' +
        'Steep heads (first) look close by, shallow heads (last) far away; the slopes fall geometrically, 1/2, 1/4, … 1/256. ' +
        'On the right, one layer with seeded weights: the same head without and with its bias.';
      view.biasTitle.textContent = `bias −m·|i − j| (${n}×${n})`;
      view.plainTitle.textContent = `head ${head + 1}, no bias`;
      view.biasedTitle.textContent = `head ${head + 1}, with the bias`;
      this.bias.draw(bias);
      this.plain.draw(plain[head]!);
      this.biased.draw(biased[head]!);
      return;
    }
    const pe = await engine.positionalTable({ kind, n, d, base, seed: 1 });
    const similarity = await engine.positionSimilarity({ pe: pe.data, n, d });
    const text = {
      sinusoidal: [`PE_{(pos,2i)} = \\sin\\big(pos / ${base}^{2i/${d}}\\big),\\quad PE_{(pos,2i+1)} = \\cos\\big(pos / ${base}^{2i/${d}}\\big)`,
        `PE (${n}×${d})`, `PE·PEᵀ (${n}×${n}): depends only on |i − j|`,
        'Added to the token embeddings. Every dimension pair turns at its own frequency, so a shift by k is one fixed rotation Tₖ of the whole vector.'],
      learned: [`P = W_{pe}[0 : ${n}],\\quad \\text{one row per position, shown untrained: } \\mathcal{N}(0,\\, 0.02^2)`,
        `wpe (${n}×${d})`, `P·Pᵀ (${n}×${n}): no structure until trained`,
        `Added to the token embeddings like the sinusoidal table, but learned; positions beyond the table's length cannot be encoded.`],
      rope: [`q' = R(pos)\\, q,\\quad \\text{pair } (2i, 2i{+}1) \\text{ rotated by } pos \\cdot ${base}^{-2i/${d}}`,
        `R(pos)·1 (${n}×${d}): the rotation of a vector of ones`, `(R(i)·1)·(R(j)·1) (${n}×${n}): depends only on j − i`,
        'Nothing is added: queries and keys are rotated, so their dot product sees only the offset between positions.'],
    }[kind];
    const [tex, ...texts] = text;
    view.equation.replaceChildren(equation(tex));
    [view.tableTitle.textContent, view.similarityTitle.textContent, view.note.textContent] = texts;
    this.table.draw(pe);
    this.similarity.draw(similarity);
  }

  private build() {
    const root = document.createElement('div');
    const set = (name: string) => (value: number | string) => this.change({ [name]: value });
    const kinds = document.createElement('div');
    kinds.className = 'kinds';
    kinds.setAttribute('role', 'group');
    kinds.dataset.control = 'kind';
    kinds.setAttribute('aria-label', 'positional scheme');
    const kindButtons = new Map<PositionalKind, HTMLButtonElement>();
    for (const kind of POSITIONAL_KINDS) {
      const b = document.createElement('button');
      b.textContent = NAMES[kind];
      b.addEventListener('click', () => set('kind')(kind));
      kindButtons.set(kind, b);
      kinds.append(b);
    }
    const formula = document.createElement('div');
    formula.className = 'formula';
    const controls = document.createElement('div');
    controls.className = 'controls';
    const sliders: Record<'n' | 'd' | 'base' | 'head', Control> = {
      n: slider({ label: 'positions n', ...limitsOf(this.localName, 'n'), value: 32, onInput: set('n') }),
      d: slider({ label: 'width d', ...limitsOf(this.localName, 'd'), value: 32, onInput: set('d') }),
      base: slider({ label: 'base', min: 1, max: 5, step: 1, value: 4, format: (e) => String(10 ** e),
        onInput: (e) => set('base')(10 ** e) }),
      head: slider({ label: 'head', ...limitsOf(this.localName, 'head'), value: 0, format: (h) => String(h + 1),
        onInput: set('head') }),
    };
    for (const [name, s] of Object.entries(sliders)) s.element.dataset.control = name;
    controls.append(...Object.values(sliders).map((s) => s.element));
    const plots = document.createElement('div');
    plots.className = 'plots';
    const figure = (map: Heatmap) => {
      const f = document.createElement('div');
      const title = document.createElement('h4');
      f.append(title, map.element);
      plots.append(f);
      return [f, title] as const;
    };
    const [tableFigure, tableTitle] = figure(this.table);
    const [similarityFigure, similarityTitle] = figure(this.similarity);
    const [biasFigure, biasTitle] = figure(this.bias);
    const [plainFigure, plainTitle] = figure(this.plain);
    const [biasedFigure, biasedTitle] = figure(this.biased);
    const note = document.createElement('p');
    note.className = 'muted note';
    root.append(kinds, formula, controls, plots, note);
    return { root, equation: formula, kindButtons, sliders, tableFigure, tableTitle, similarityFigure, similarityTitle,
      biasFigure, biasTitle, plainFigure, plainTitle, biasedFigure, biasedTitle, note };
  }
}

customElements.get('attn-positional-encoding') ?? customElements.define('attn-positional-encoding', PositionalEncoding);
