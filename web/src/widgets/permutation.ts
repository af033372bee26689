// <attn-permutation>: self-attention is permutation-equivariant. One attention head (W_Q = W_K =
// W_V = I) reads the trained coreference model's word vectors for a sentence and for a shuffle of it;
// the shuffle's outputs, put back in the sentence's order, are the sentence's own outputs when the
// words carry no position, and differ once the sinusoidal table is added to them. The word vectors,
// the table and the attention are the engine's.
// Settings: sentence, shuffle (the shuffle's seed; 0 = the sentence's order), positions (none | sinusoidal).
import type { RemoteEngine, RemoteModel } from '../app/engine';
import { readSentence } from '../app/coreference-reading';
import { PERMUTATION_POSITIONS } from '../app/state';
import { formatSignificant } from '../math/format';
import { maxAbsFinite, type MatrixData } from '../math/matrix';
import { seededPermutation, unshuffleRows } from '../math/permutation';
import { shortLabel } from '../math/text';
import { EngineElement } from '../primitives/engine-element';
import { Heatmap } from '../primitives/heatmap';
import { sentenceInput } from '../primitives/sentence-input';

type Positions = (typeof PERMUTATION_POSITIONS)[number];

const styles = `
.bar { display: flex; gap: 8px 14px; align-items: center; flex-wrap: wrap; margin-bottom: 6px; font-size: 14px; }
.bar input[type="text"] { width: 24em; }
.group { display: inline-flex; gap: 4px; }
.orders { margin: 4px 0 8px; font-size: 14px; display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 10px; }
.orders dt { color: var(--muted); }
.orders dd { margin: 0; overflow-wrap: anywhere; }
.maps { display: flex; flex-wrap: wrap; gap: 6px 14px; align-items: flex-start; }
.maps h4 { margin: 0 0 2px; font-size: 13px; font-weight: 600; }
.verdict { margin: 6px 0 0; font-size: 15px; font-variant-numeric: tabular-nums; }
.verdict strong { color: var(--good); }
.verdict.differs strong { color: var(--bad); }
[hidden] { display: none !important; }
`;

const WORDS = 'embed.tokens';
const LABEL_CHARS = 9;
/** below this the two outputs are equal up to the order of float additions */
const EQUAL = 1e-4;
const BUTTONS: Record<Positions, string> = { none: 'no positions', sinusoidal: 'sinusoidal positions' };

/** one word's output vector per row; the legend on the last of the three */
const outputMap = (legend: boolean) => new Heatmap({ xLabel: 'dimension', yLabel: 'word', tint: 'signed', width: 140, height: 170, legend });

/** the identity, d × d, row-major */
const identity = (d: number) => Array.from({ length: d * d }, (_, i) => (i % (d + 1) === 0 ? 1 : 0));

/** one head, W_Q = W_K = W_V = I, over the model's vectors of `tokens` (plus the sinusoidal table,
 * position by position, when asked): the rows of softmax(XXᵀ/√d)·X */
async function attend(engine: RemoteEngine, model: RemoteModel, tokens: number[], positions: Positions): Promise<MatrixData> {
  const { trace = {} } = await model.forward({ tokens, trace: [WORDS] });
  const words = trace[WORDS]!;
  const n = words.rows;
  const d = words.cols;
  let x = words.data;
  if (positions === 'sinusoidal') {
    const table = (await engine.positionalTable({ kind: 'sinusoidal', n, d })).data;
    x = x.map((v, i) => v + table[i]!);
  }
  const I = identity(d);
  const result = await engine.attention({ x, n, d, wQ: I, wK: I, wV: I, dK: d, dV: d });
  return result.output!;
}

export class Permutation extends EngineElement {
  static readonly observedAttributes = EngineElement.attributesOf('attn-permutation');
  private readonly original = outputMap(false);
  private readonly restored = outputMap(false);
  private readonly difference = outputMap(true);
  private view?: ReturnType<Permutation['build']>;

  constructor() {
    super(styles, 'without positions the shuffled sentence gives the same rows, only moved: the difference is zero; add positions and it is not.');
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const text = this.value<string>('sentence');
    const seed = this.value<number>('shuffle');
    const positions = this.value<Positions>('positions');
    // the controls first: a sentence the widget refuses can be corrected in place
    const view = (this.view ??= this.build());
    if (!view.root.isConnected) this.body.replaceChildren(view.root);
    view.input.value = text;
    for (const [p, button] of view.positionButtons) button.setAttribute('aria-pressed', String(p === positions));
    view.results.hidden = true;
    const reading = await readSentence(engine, text);
    const tokens = Array.from(reading.tokens);
    if (tokens.length < 2) throw new Error('Type at least two words to shuffle.');
    const order = seededPermutation(tokens.length, seed);
    const [outputs, shuffled] = await Promise.all([
      attend(engine, reading.model, tokens, positions),
      attend(engine, reading.model, order.map((i) => tokens[i]!), positions),
    ]);
    const putBack = unshuffleRows(shuffled, order);
    const difference: MatrixData = { ...outputs, data: outputs.data.map((v, i) => putBack.data[i]! - v) };

    view.results.hidden = false;
    const words = reading.labels.slice(0, tokens.length);
    view.originalOrder.textContent = words.join(' ');
    view.shuffledOrder.textContent = order.map((i) => words[i]).join(' ');
    const labels = words.map((w) => shortLabel(w, LABEL_CHARS));
    this.original.configure({ rowLabels: labels });
    this.restored.configure({ rowLabels: labels });
    this.difference.configure({ rowLabels: labels });
    this.original.draw(outputs);
    this.restored.draw(putBack);
    this.difference.draw(difference);
    const largest = maxAbsFinite(difference);
    const equal = largest < EQUAL;
    view.verdict.classList.toggle('differs', !equal);
    view.verdict.replaceChildren(
      'largest |difference| = ',
      Object.assign(document.createElement('strong'), { textContent: formatSignificant(largest, 2) }),
      equal ? ' — the same rows, only moved: attention alone cannot see the order.'
        : ' — with positions, the shuffled words give other outputs: the order is seen.',
    );
  }

  private build() {
    const root = document.createElement('div');
    const bar = document.createElement('div');
    bar.className = 'bar';
    const { label, input } = sentenceInput((sentence) => this.change({ sentence }));
    label.dataset.control = 'sentence';
    const shuffle = document.createElement('button');
    shuffle.textContent = 'shuffle again';
    shuffle.dataset.control = 'shuffle';
    shuffle.addEventListener('click', () => this.change({ shuffle: (this.value<number>('shuffle') % 999) + 1 }));
    const group = document.createElement('div');
    group.className = 'group';
    group.setAttribute('role', 'group');
    group.setAttribute('aria-label', 'positions');
    group.dataset.control = 'positions';
    const positionButtons = new Map<Positions, HTMLButtonElement>();
    for (const p of PERMUTATION_POSITIONS) {
      const b = document.createElement('button');
      b.textContent = BUTTONS[p];
      b.addEventListener('click', () => this.change({ positions: p }));
      positionButtons.set(p, b);
      group.append(b);
    }
    bar.append(label, shuffle, group);

    const orders = document.createElement('dl');
    orders.className = 'orders';
    const line = (name: string) => {
      const dt = document.createElement('dt');
      dt.textContent = name;
      const dd = document.createElement('dd');
      orders.append(dt, dd);
      return dd;
    };
    const originalOrder = line('sentence X');
    const shuffledOrder = line('shuffled PX');

    const maps = document.createElement('div');
    maps.className = 'maps';
    const figure = (title: string, map: Heatmap) => {
      const f = document.createElement('div');
      const h = document.createElement('h4');
      h.textContent = title;
      f.append(h, map.element);
      maps.append(f);
    };
    figure('Attn(X)', this.original);
    figure('Attn(PX), rows put back', this.restored);
    figure('difference', this.difference);
    const verdict = document.createElement('p');
    verdict.className = 'verdict';
    verdict.setAttribute('aria-live', 'polite');
    const results = document.createElement('div');
    results.append(orders, maps, verdict);
    root.append(bar, results);
    return { root, input, positionButtons, results, originalOrder, shuffledOrder, verdict };
  }
}

customElements.get('attn-permutation') ?? customElements.define('attn-permutation', Permutation);
