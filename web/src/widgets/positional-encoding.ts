// <attn-positional-encoding>: how each positional scheme looks, computed by the engine. Sinusoidal,
// learned and RoPE show their table (n × d) and the similarity of positions; ALiBi shows one head's
// additive bias, and what it does to that head's attention on a seeded input (its weights without
// and with the bias). Attributes: kind (sinusoidal | learned | rope | alibi), n, d (even), base, head.
import type { RemoteEngine } from '../runtime/engine';
import type { MatrixData } from '../engine/index';
import type { PositionalKind } from '../runtime/registry';
import { formatNumber } from '../math/format';
import { h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { equation, loadTypesetting } from '../primitives/equation';
import { Heatmap } from '../primitives/heatmap';

const styles = `
.plots { display: flex; flex-wrap: wrap; gap: 24px; margin-top: 4px; }
.plots h4 { margin: 0 0 4px; font-size: 14px; font-weight: 600; }
.note { max-width: 760px; }
.formula { min-height: 28px; margin-bottom: 8px; }
output { min-width: 4em; }
`;

const HINTS: Record<PositionalKind, string> = {
  sinusoidal: 'the stripes of the sinusoidal table slow down to the right, and PE·PEᵀ depends only on the distance |i\u00a0−\u00a0j|.',
  learned: 'an untrained table is noise: P·Pᵀ has no structure until training gives nearby positions similar rows.',
  rope: 'nothing is added to the tokens; the similarity of two rotated vectors depends only on their offset j\u00a0−\u00a0i.',
  alibi: 'each head subtracts a penalty growing with distance: steep heads look close by, shallow heads far away.',
};

const NAMES: Record<PositionalKind, string> = { sinusoidal: 'Sinusoidal', learned: 'Learned', rope: 'RoPE', alibi: 'ALiBi' };

/** the pictures: a scheme's table and its similarity, or ALiBi's bias and one head without and with it */
const PICTURES = ['table', 'similarity', 'bias', 'plain', 'biased'] as const;
type Picture = (typeof PICTURES)[number];
const pictures = <T>(make: (p: Picture) => T) => Object.fromEntries(PICTURES.map((p) => [p, make(p)])) as Record<Picture, T>;

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

export default class PositionalEncoding extends EngineElement {
  private readonly maps: Record<Picture, Heatmap> = {
    table: new Heatmap({ xLabel: 'dimension', yLabel: 'position', tint: 'signed', width: 220, height: 220 }),
    similarity: new Heatmap({ xLabel: 'position', yLabel: 'position', tint: 'signed', width: 190, height: 190 }),
    bias: new Heatmap({ xLabel: 'key position', yLabel: 'query position', tint: 'signed', width: 180, height: 180 }),
    plain: new Heatmap({ xLabel: 'key position', yLabel: 'query position', tint: 'weights', width: 150, height: 150, legend: false }),
    biased: new Heatmap({ xLabel: 'key position', yLabel: 'query position', tint: 'weights', width: 150, height: 150, legend: false }),
  };
  private readonly titles = pictures(() => h('h4'));
  private readonly figures = pictures((p) => h('div', {}, this.titles[p], this.maps[p].element));
  private readonly kind = this.bound.choices<PositionalKind>('kind', { text: (kind) => NAMES[kind] });
  private readonly sliders = {
    n: this.bound.slider('n'), d: this.bound.slider('d'), base: this.bound.slider('base', { scale: 'log10' }),
    head: this.bound.slider('head', { format: (head) => String(head + 1) }),
  };
  private readonly formula = h('div', 'formula');
  private readonly note = h('p', 'muted note');

  constructor() {
    super(styles, HINTS.sinusoidal);
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const kind = this.value<PositionalKind>('kind');
    const [n, d, base, head] = (['n', 'd', 'base', 'head'] as const).map((name) => this.value<number>(name));
    this.setHint(HINTS[kind]);
    await loadTypesetting();
    const alibi = kind === 'alibi';
    this.sliders.d.element.hidden = alibi;
    this.sliders.base.element.hidden = alibi || kind === 'learned';
    this.sliders.head.element.hidden = !alibi;
    for (const p of PICTURES) this.figures[p].hidden = (p === 'table' || p === 'similarity') === alibi;

    if (alibi) {
      const [slopes, bias, plain, biased] = await Promise.all([engine.alibiSlopes({ heads: ALIBI_HEADS }),
        engine.alibiBias({ heads: ALIBI_HEADS, head, n }), seededHeads(engine, n, false), seededHeads(engine, n, true)]);
      this.formula.replaceChildren(equation(`\\mathrm{softmax}\\big(QK^\\top/\\sqrt{d_k} - m\\,|i - j|\\big),\\quad \\text{head ${head + 1} of 8: } m = ${formatNumber(slopes[head]!, 5)}`));
      this.note.textContent = 'No vector is added to the tokens: each head subtracts a penalty that grows with distance. ' +
        'Steep heads (first) look close by, shallow heads (last) far away; the slopes fall geometrically, 1/2, 1/4, … 1/256. ' +
        'On the right, one layer with seeded weights: the same head without and with its bias.';
      this.titles.bias.textContent = `bias −m·|i − j| (${n}×${n})`;
      this.titles.plain.textContent = `head ${head + 1}, no bias`;
      this.titles.biased.textContent = `head ${head + 1}, with the bias`;
      this.maps.bias.draw(bias);
      this.maps.plain.draw(plain[head]!);
      this.maps.biased.draw(biased[head]!);
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
    this.formula.replaceChildren(equation(tex));
    [this.titles.table.textContent, this.titles.similarity.textContent, this.note.textContent] = texts;
    this.maps.table.draw(pe);
    this.maps.similarity.draw(similarity);
  }

  protected override layout(): HTMLElement {
    return h('div', {},
      h('div', 'toolbar', this.kind.element), this.formula,
      h('div', 'toolbar', ...Object.values(this.sliders).map((s) => s.element)),
      h('div', 'plots', ...PICTURES.map((p) => this.figures[p])), this.note);
  }
}
