// <attn-permutation>: self-attention is permutation-equivariant. One attention head (W_Q = W_K =
// W_V = I) reads the trained coreference model's word vectors for a sentence and for a shuffle of it,
// each vector LayerNormed (γ = 1, β = 0) so that every word has the same length and attends mostly to
// itself and its like: the rows differ, and the shuffle's rows visibly move. Put back in the
// sentence's order they are the sentence's own outputs when the words carry no position (the
// difference, drawn on the outputs' scale, is float rounding), and differ once the sinusoidal table is
// added to them. The norms, the word vectors, the table and the attention are the engine's.
// Settings: sentence, shuffle (the shuffle's seed; 0 = the sentence's order), positions (none | sinusoidal).
import type { RemoteEngine, RemoteModel } from '../runtime/engine';
import { readSentence } from '../runtime/coreference-reading';
import { limitsOf } from '../runtime/state';
import { PERMUTATION_POSITIONS } from '../runtime/registry';
import { formatNumber, formatSignificant } from '../math/format';
import { identity, maxAbsFinite, type MatrixData } from '../math/matrix';
import { seededPermutation, unshuffleRows } from '../math/permutation';
import { shortLabel } from '../math/text';
import { button, h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { Heatmap } from '../primitives/heatmap';

type Positions = (typeof PERMUTATION_POSITIONS)[number];

const styles = `
.toolbar input[type="text"] { width: 24em; }
.orders { margin: 4px 0 8px; font-size: 14px; display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 10px; }
.orders dt { color: var(--muted); }
.orders dd { margin: 0; overflow-wrap: anywhere; }
.maps { display: flex; flex-wrap: wrap; gap: 6px 14px; align-items: flex-start; }
.maps h4 { margin: 0 0 2px; font-size: 14px; font-weight: 600; }
.verdict { margin: 6px 0 0; font-size: 15px; font-variant-numeric: tabular-nums; }
.verdict strong { color: var(--good); }
.verdict.differs strong { color: var(--bad); }
`;

const WORDS = 'embed.tokens';
const LABEL_CHARS = 9;
/** below this the two outputs are equal up to the order of float additions */
const EQUAL = 1e-4;
const BUTTONS: Record<Positions, string> = { none: 'no positions', sinusoidal: 'sinusoidal positions' };

/** one word's output vector per row, all three on one scale; the legend on the last */
const outputMap = (legend: boolean) => new Heatmap({ xLabel: 'dimension', yLabel: 'word', tint: 'signed', width: 140, height: 170, legend });

/** one head, W_Q = W_K = W_V = I, over the model's vectors of `tokens`, each LayerNormed (plus the
 * sinusoidal table, position by position, when asked): the rows of softmax(XXᵀ/√d)·X */
async function attend(engine: RemoteEngine, model: RemoteModel, tokens: number[], positions: Positions): Promise<MatrixData> {
  const { trace = {} } = await model.forward({ tokens, trace: [WORDS] });
  const words = trace[WORDS]!;
  const n = words.rows;
  const d = words.cols;
  // the raw vectors differ in length fivefold ("cat" and "mat" outweigh the rest): normed, every
  // word's largest score is with itself, so its row of outputs is its own
  const normed = await Promise.all(Array.from({ length: n }, (_, i) => engine.norms({ x: words.data.subarray(i * d, (i + 1) * d), d })));
  let x = new Float32Array(n * d);
  normed.forEach((r, i) => x.set(r.layerNorm.data, i * d));
  if (positions === 'sinusoidal') {
    const table = (await engine.positionalTable({ kind: 'sinusoidal', n, d })).data;
    x = x.map((v, i) => v + table[i]!);
  }
  const I = identity(d);
  const result = await engine.attention({ x, n, d, wQ: I, wK: I, wV: I, dK: d, dV: d });
  return result.output!;
}

export default class Permutation extends EngineElement {
  private readonly original = outputMap(false);
  private readonly moved = outputMap(false);
  private readonly difference = outputMap(true);
  // a sentence is taken on Enter or on leaving the field
  private readonly sentence = this.bound.text('sentence', { commit: 'change' });
  private readonly shuffle = button('shuffle again', () => {
    const next = (this.value<number>('shuffle') % limitsOf(this.localName, 'shuffle').max) + 1;
    this.change({ shuffle: next });
  }, { data: { control: 'shuffle' } });
  private readonly positions = this.bound.choices<Positions>('positions', { text: (p) => BUTTONS[p], showName: false });
  private readonly originalOrder = h('dd');
  private readonly shuffledOrder = h('dd');
  private readonly verdict = h('p', { className: 'verdict', attrs: { 'aria-live': 'polite' } });
  private readonly results = h('div');

  constructor() {
    super(styles, 'without positions the shuffled sentence gives the same rows, only moved: the difference is zero; add positions and it is not.',
      { models: ['coreference'] });
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const seed = this.value<number>('shuffle');
    const positions = this.value<Positions>('positions');
    // the controls stay: a sentence the widget refuses can be corrected in place
    this.results.hidden = true;
    const reading = await readSentence(engine, this.value<string>('sentence'));
    const tokens = Array.from(reading.tokens);
    if (tokens.length < 2) throw new Error('Type at least two words to shuffle.');
    const order = seededPermutation(tokens.length, seed);
    const [outputs, shuffled] = await Promise.all([
      attend(engine, reading.model, tokens, positions),
      attend(engine, reading.model, order.map((i) => tokens[i]!), positions),
    ]);
    const putBack = unshuffleRows(shuffled, order);
    const difference: MatrixData = { ...outputs, data: outputs.data.map((v, i) => putBack.data[i]! - v) };

    this.results.hidden = false;
    const words = reading.labels.slice(0, tokens.length);
    this.originalOrder.textContent = words.join(' ');
    this.shuffledOrder.textContent = order.map((i) => words[i]).join(' ');
    const labels = words.map((w) => shortLabel(w, LABEL_CHARS));
    // one scale for the three: a difference of float rounding is then the blank it is, not noise
    // blown up to fill its own scale
    const range = Math.max(maxAbsFinite(outputs), maxAbsFinite(shuffled)) || 1;
    for (const [map, matrix, rowLabels] of [[this.original, outputs, labels], [this.moved, shuffled, order.map((i) => labels[i]!)],
      [this.difference, difference, labels]] as const) {
      map.configure({ rowLabels, range });
      map.draw(matrix);
    }
    const largest = maxAbsFinite(difference);
    const equal = largest < EQUAL;
    this.verdict.classList.toggle('differs', !equal);
    this.verdict.replaceChildren('largest |difference| = ', h('strong', { textContent: formatSignificant(largest, 2) }),
      equal ? ` against outputs up to ${formatNumber(range, 2)}: zero to float precision (float32 keeps about 7 digits). The same rows, only moved: attention alone cannot see the order.`
        : ` against outputs up to ${formatNumber(range, 2)}: with positions, the shuffled words give other outputs. The order is seen.`,
    );
  }

  protected override layout(): HTMLElement {
    const figure = (title: string, map: Heatmap) => h('div', {}, h('h4', { textContent: title }), map.element);
    this.results.append(
      h('dl', 'orders', h('dt', { textContent: 'sentence X' }), this.originalOrder, h('dt', { textContent: 'shuffled PX' }), this.shuffledOrder),
      h('div', 'maps', figure('Attn(X)', this.original), figure('Attn(PX): the rows, moved', this.moved),
        figure('Attn(PX) put back − Attn(X)', this.difference)),
      this.verdict);
    return h('div', {}, h('div', 'toolbar', this.sentence.element, this.shuffle, this.positions.element), this.results);
  }
}
