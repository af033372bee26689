// <attn-four-steps>: self-attention in four steps on a sentence, inside the trained coreference
// model or a model the reader opened: one head of one layer, stepped through by the engine
// (projections → scores → softmax → weighted sum), one step per key press, every intermediate a
// heatmap with its shape (a causal model's scores with its mask, a RoPE model's Q and K turned).
// Attributes: model, sentence, layer, head (0-based), step (1–4).
import type { RemoteEngine, RemoteModel } from '../runtime/engine';
import { readingNotes, readSentence, readText, type SentenceReading } from '../runtime/coreference-reading';
import type { AttentionResult, HeadResult, MatrixData } from '../engine/index';
import { formatNumber } from '../math/format';
import { kvHeadOf } from '../math/gqa';
import { at, row } from '../math/matrix';
import { argmax } from '../math/ranking';
import { shortLabel } from '../math/text';
import { h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { equation, loadTypesetting } from '../primitives/equation';
import { Heatmap } from '../primitives/heatmap';


type Panel = 'q' | 'k' | 'v' | 'e' | 'alpha' | 'out';

/** each step's name, the slide's formula for it and the panels it computes */
const STEPS: readonly { name: string; tex: string; panels: Panel[] }[] = [
  { name: 'Project', tex: 'Q = XW^Q,\\; K = XW^K,\\; V = XW^V', panels: ['q', 'k', 'v'] },
  { name: 'Scores', tex: 'e_{ij} = q_i \\cdot k_j / \\sqrt{d_k}', panels: ['e'] },
  { name: 'Softmax', tex: '\\alpha_{ij} = \\exp(e_{ij}) / \\textstyle\\sum_k \\exp(e_{ik})', panels: ['alpha'] },
  { name: 'Weighted sum', tex: '\\text{out}_i = \\textstyle\\sum_j \\alpha_{ij}\\, v_j', panels: ['out'] },
];

/** each panel's matrix in the engine's result for one head (the scores with the mask, which only a causal model's change) */
const TENSOR: Record<Panel, keyof HeadResult> = { q: 'q', k: 'k', v: 'v', e: 'masked', alpha: 'weights', out: 'output' };
const TITLE: Record<Panel, string> = { q: 'Q', k: 'K', v: 'V', e: 'scores e = QKᵀ/√d_k', alpha: 'weights α', out: 'out = αV' };

const styles = `
.toolbar { margin-bottom: 4px; }
.toolbar input[type="text"] { width: 22em; }
.notes:empty { display: none; }
.notes { margin: 0 0 4px; font-size: 14px; color: var(--bad); }
/* KaTeX's struts reach a hair beyond the formula */
.formula { margin-left: auto; padding-right: 4px; }
.formula .eq { font-size: 15px; }
.rows { display: flex; flex-direction: column; gap: 2px; }
.line { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
.step { padding: 0 4px; border-radius: 8px; }
/* an outline takes no room: the slide has none to spare */
.step.current { outline: 2px solid var(--accent); }
.step h4 { margin: 0; font-size: 14px; line-height: 1.25; font-weight: 600; white-space: nowrap; }
.step h4 .shape { font-weight: normal; color: var(--muted); }
/* a later step's result is computed and drawn already, faded and grey until its step, so the slide
   shows the whole computation from the start and → brings each part forward */
.step.pending .heatmap { opacity: 0.3; filter: grayscale(1); }
.step.pending h4 { color: var(--muted); }
/* the explanation beside the plots reads out the hovered cell instead */
.step .heatmap figcaption { display: none; }
.step canvas { display: block; }
.explain { flex: 1 1 0; min-width: 0; font-size: 14px; display: flex; flex-direction: column; gap: 8px; padding-top: 4px; }
.explain p { margin: 0; }
/* a phone: the explanation goes below the pictures */
@media (max-width: 799px) { .explain { flex-basis: 100%; } }
`;

// 15 px a token row, so that every token's label fits beside it
const PLOT = { dims: { width: 160, height: 150 }, square: { width: 150, height: 150 } };
/** the step that first shows a panel */
const stepOf = (panel: Panel) => STEPS.findIndex((s) => s.panels.includes(panel)) + 1;
/** panels whose columns are the keys (query × key), not dimensions */
const byKey = (panel: Panel) => panel === 'e' || panel === 'alpha';
const HINT = 'in layer 1, head 3, the row of “it” puts almost all its weight on “mat”, the noun it refers to; other rows look elsewhere.';

export default class FourSteps extends EngineElement {
  private readonly modelList = this.bound.model('coreference');
  private readonly sentence = this.bound.text('sentence', { commit: 'change' });
  // numbered from 0, as the engine, the docs and the title slide do; drop-downs, so that a model's
  // 12 layers and 12 heads share one line with the model and the sentence
  private readonly layer = this.bound.numbered('layer', { select: true });
  private readonly head = this.bound.numbered('head', { select: true });
  private readonly step = this.bound.choices<number>('step', {
    choices: STEPS.map((s, i) => ({ value: i + 1, text: `${i + 1} ${s.name}` })),
  });
  private readonly formula = h('span', 'formula');
  private readonly context = h('p');
  private readonly instance = h('p', { className: 'muted', data: { testid: 'instance' } });
  private readonly notes = h('p', { className: 'notes', attrs: { role: 'status' } });
  private readonly panels = new Map<Panel, { element: HTMLElement; map: Heatmap; title: HTMLElement; shape: HTMLElement }>();
  /** the model and text read, and each layer's attention on them, every stage */
  private read?: { model: RemoteModel; text: string; reading: SentenceReading; layers: Map<number, AttentionResult> };
  private current?: { head: HeadResult; step: number; reading: SentenceReading; rope: boolean };
  /** the cell last explained ("" for none), so moving within a cell redraws nothing */
  private explained = '';

  constructor() {
    super(styles, HINT, { models: ['coreference'] });
  }

  protected override readonly stepping = { attribute: 'step' };

  protected async render(engine: RemoteEngine): Promise<void> {
    await loadTypesetting();
    const { model, opened } = await this.modelInUse('coreference');
    const text = this.value<string>('sentence');
    if (this.read?.model !== model || this.read.text !== text) {
      const reading = opened ? await readText(model, text) : await readSentence(engine, text);
      this.read = { model, text, reading, layers: new Map() };
    }
    const { reading, layers: results } = this.read;
    if (!reading.tokens.length) throw new Error('Type a sentence: it has no words.');
    const { config } = reading;
    const layer = this.layer.upTo(config.n_layers);
    const headIndex = this.head.upTo(config.n_heads);
    const step = this.value<number>('step');

    let result = results.get(layer);
    if (!result) {
      const stepper = await model.attentionSteps({ tokens: reading.tokens, layer });
      try {
        result = await stepper.runAll();
      } finally {
        await stepper.dispose();
      }
      results.set(layer, result);
    }
    const head = result.heads[headIndex];
    if (!head) throw new Error(`layer ${layer} has no head ${headIndex}`);
    const causal = config.architecture !== 'encoder_only';
    const rope = config.positional === 'rope';
    this.current = { head, step, reading, rope };
    // the keys' labels are written downwards under the scores: as long as "because" at most, so that the slide keeps its height
    const tokens = reading.labels.map((label) => shortLabel(label, 7));
    const n = tokens.length;
    for (const [panel, parts] of this.panels) {
      const matrix = head[TENSOR[panel]] as MatrixData | undefined;
      if (!matrix) throw new Error(`the engine returned no ${TITLE[panel]}`);
      parts.element.classList.toggle('pending', stepOf(panel) > step);
      parts.element.classList.toggle('current', stepOf(panel) === step);
      // the panels whose columns are numbered say what the numbers are here: the room under them goes to the picture
      parts.shape.textContent = byKey(panel) ? `(${matrix.rows}×${matrix.cols})` : `(${matrix.rows} tokens × ${matrix.cols} dimensions)`;
      parts.element.dataset.shape = `${matrix.rows}x${matrix.cols}`;
      parts.title.textContent = `${stepOf(panel)}. ${TITLE[panel]}${panel === 'e' && causal ? ', masked' : ''} `;
      parts.map.configure({ rowLabels: tokens, colLabels: byKey(panel) ? tokens : undefined });
      parts.map.draw(matrix);
    }
    const dK = head.q?.cols ?? 0;
    const kvHeads = config.n_kv_heads || config.n_heads;
    const group = kvHeadOf(headIndex, config.n_heads, kvHeads);
    const shared = kvHeads < config.n_heads
      ? ` K and V come from key/value head ${group}, which heads ${group * (config.n_heads / kvHeads)}–${(group + 1) * (config.n_heads / kvHeads) - 1} share.` : '';
    const turned = rope ? ' Q and K are then turned by RoPE, each row by its token\'s position.' : '';
    this.formula.replaceChildren(equation(STEPS[step - 1].tex));
    this.context.textContent = [
      `X is what layer ${layer}’s attention reads: the ${n} tokens after its ${config.norm === 'rms_norm' ? 'RMSNorm' : 'layer norm'}, ${n}×${config.d_model}. ` +
        `Head ${headIndex} projects it to d_k = ${dK} dimensions.${shared}${turned}`,
      `Every query meets every key: ${n}×${n} scores, divided by √d_k = ${formatNumber(Math.sqrt(dK), dK === 64 || dK === 16 ? 0 : 2)}.`
        + (causal ? ' The causal mask hides the keys after each query (−∞, grey).' : ''),
      causal ? 'Each row becomes a probability distribution over the keys it may see: it sums to 1.'
        : 'Each row becomes a probability distribution over the keys: it sums to 1.',
      `Each token’s output is a mix of all the values, weighted by its row of α: ${n}×${dK} again.`,
    ][step - 1];
    this.notes.textContent = readingNotes(reading).join(' ');
    this.setHint(opened ? `${opened.name}: layer ${layer}, head ${headIndex} of ${config.n_heads}. Step through, and hover a cell to see where it comes from.` : HINT);
    this.explain(undefined);
  }

  /** the step's reading of the hovered cell, or of the row of "it" */
  private explain(hovered: { panel: Panel; row: number; col: number } | undefined): void {
    if (!this.current) return;
    const { head, step, reading, rope } = this.current;
    const tokens = reading.labels;
    const key = hovered ? `${hovered.panel}:${hovered.row}:${hovered.col}` : '';
    if (key !== '' && key === this.explained) return;
    this.explained = key;
    for (const [, parts] of this.panels) parts.map.setHighlight(undefined);
    const light = (panel: Panel, highlight: { row?: number; col?: number }) => this.panels.get(panel)?.map.setHighlight(highlight);
    const quote = (i: number) => `“${tokens[i]}”`;
    if (hovered) {
      const { panel, row: i, col: j } = hovered;
      const entry = at(head[TENSOR[panel]] as MatrixData, i, j);
      const value = formatNumber(entry, 3);
      light(panel, { row: i, col: j });
      if (panel === 'e' && !Number.isFinite(entry)) {
        this.instance.textContent = `e(${quote(i)}, ${quote(j)}) = ${value}: ${quote(j)} comes after ${quote(i)}, so the causal mask hides it.`;
      } else if (panel === 'e') {
        light('q', { row: i });
        light('k', { row: j });
        this.instance.textContent = `e(${quote(i)}, ${quote(j)}) = q · k / √d_k = ${value}: row ${quote(i)} of Q against row ${quote(j)} of K.`;
      } else if (panel === 'alpha') {
        light('e', { row: i });
        this.instance.textContent = `α(${quote(i)}, ${quote(j)}) = ${value}: the softmax of row ${quote(i)} of e.`;
      } else if (panel === 'out') {
        light('alpha', { row: i });
        light('v', { col: j });
        this.instance.textContent = `out(${quote(i)}, ${j}) = ${value}: row ${quote(i)} of α times column ${j} of V.`;
      } else {
        const name = panel.toUpperCase();
        const turned = rope && panel !== 'v' ? `, turned by RoPE for position ${i}` : '';
        this.instance.textContent = `${name}(${quote(i)}, ${j}) = ${value}: row ${quote(i)} of X times column ${j} of W^${name}${turned}.`;
      }
      return;
    }
    // the reading's own row: "it", or the last token of an opened model's text, which sees them all
    const query = reading.defaultQuery;
    const hover = 'Hover a cell to see where it comes from.';
    this.instance.textContent = hover;
    if (step < 3 || !head.weights) return;
    const weights = row(head.weights, query);
    const top = argmax(weights);
    light('alpha', { row: query });
    this.instance.textContent = `The row of ${quote(query)} puts ${formatNumber(100 * weights[top], 1)} % of its weight on ${quote(top)}. ${hover}`;
  }

  protected override layout(): HTMLElement[] {
    const panel = (name: Panel) => {
      const step = stepOf(name);
      const shape = h('span', 'shape');
      const title = h('span');
      const map = new Heatmap({
        xLabel: byKey(name) ? 'key' : 'dimension', yLabel: byKey(name) ? 'query' : 'token',
        tint: name === 'alpha' ? 'weights' : 'signed', ...(byKey(name) ? PLOT.square : PLOT.dims), xName: false,
        onHover: (cell) => this.explain(cell && { panel: name, ...cell }),
      });
      const element = h('div', { className: 'step', data: { panel: name, step: String(step) } }, h('h4', {}, title, shape), map.element);
      this.panels.set(name, { element, map, title, shape });
      return element;
    };
    return [
      h('div', 'toolbar', this.modelList.element, this.sentence.element, this.layer.element, this.head.element),
      h('div', 'toolbar', this.step.element, this.formula),
      this.notes,
      h('div', 'rows',
        h('div', 'line', panel('q'), panel('k'), panel('v')),
        h('div', 'line', panel('e'), panel('alpha'), panel('out'), h('div', 'explain', this.context, this.instance))),
    ];
  }
}
