// <attn-four-steps>: self-attention in four steps on the seminar sentence, inside the trained
// coreference model: one head of one layer, stepped through by the engine (projections → scores →
// softmax → weighted sum), one step per key press, every intermediate a heatmap with its shape.
// Attributes: layer, head (0-based), step (1–4).
import { pageModel, type RemoteEngine } from '../runtime/engine';
import { SEMINAR_SENTENCE } from '../runtime/registry';
import type { AttentionResult, HeadResult, MatrixData, ModelConfig } from '../engine/index';
import { formatNumber } from '../math/format';
import { at, row } from '../math/matrix';
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

/** each panel's matrix in the engine's result for one head */
const TENSOR: Record<Panel, keyof HeadResult> = { q: 'q', k: 'k', v: 'v', e: 'scaled', alpha: 'weights', out: 'output' };
const TITLE: Record<Panel, string> = { q: 'Q', k: 'K', v: 'V', e: 'scores e = QKᵀ/√d_k', alpha: 'weights α', out: 'out = αV' };

const styles = `
.toolbar { margin-bottom: 6px; }
/* KaTeX's struts reach a hair beyond the formula */
.formula { margin-left: auto; padding-right: 4px; }
.formula .eq { font-size: 16px; }
.rows { display: flex; flex-direction: column; gap: 8px; }
.line { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
.step { padding: 0 4px; border-radius: 8px; position: relative; }
/* an outline takes no room: the slide has none to spare */
.step.current { outline: 2px solid var(--accent); }
.step h4 { margin: 0; font-size: 13px; font-weight: 600; white-space: nowrap; }
.step h4 .shape { font-weight: normal; color: var(--muted); }
.step.pending .heatmap { visibility: hidden; }
.step .later { display: none; position: absolute; left: 12px; top: 40px; margin: 0; color: var(--muted); font-size: 13px; }
.step.pending .later { display: block; }
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

export default class FourSteps extends EngineElement {
  // numbered from 0, as the engine, the docs and the title slide do
  private readonly layer = this.bound.numbered('layer');
  private readonly head = this.bound.numbered('head');
  private readonly step = this.bound.choices<number>('step', {
    choices: STEPS.map((s, i) => ({ value: i + 1, text: `${i + 1} ${s.name}` })),
  });
  private readonly formula = h('span', 'formula');
  private readonly context = h('p');
  private readonly instance = h('p', { className: 'muted', data: { testid: 'instance' } });
  private readonly panels = new Map<Panel, { element: HTMLElement; map: Heatmap; shape: HTMLElement }>();
  private sentence?: { ids: Int32Array; pieces: string[] };
  private config?: Required<ModelConfig>;
  /** the layer's attention, every stage, by layer */
  private readonly results = new Map<number, AttentionResult>();
  private current?: { head: HeadResult; step: number };
  /** the cell last explained ("" for none), so moving within a cell redraws nothing */
  private explained = '';

  constructor() {
    super(styles, 'in layer 1, head 0, the row of “it” puts almost all its weight on “mat”, the noun it refers to.');
  }

  protected override readonly stepping = { attribute: 'step' };

  protected async render(_engine: RemoteEngine): Promise<void> {
    await loadTypesetting();
    const model = await pageModel('coreference');
    this.config ??= await model.config();
    this.sentence ??= await model.tokenize(SEMINAR_SENTENCE);
    const { n_layers: layers, n_heads: heads, d_model: dModel } = this.config;
    const layer = this.layer.upTo(layers);
    const headIndex = this.head.upTo(heads);
    const step = this.value<number>('step');

    let result = this.results.get(layer);
    if (!result) {
      const stepper = await model.attentionSteps({ tokens: this.sentence.ids, layer });
      try {
        result = await stepper.runAll();
      } finally {
        await stepper.dispose();
      }
      this.results.set(layer, result);
    }
    const head = result.heads[headIndex];
    if (!head) throw new Error(`layer ${layer} has no head ${headIndex}`);
    this.current = { head, step };
    const tokens = this.sentence.pieces;
    const n = tokens.length;
    for (const [panel, parts] of this.panels) {
      const matrix = head[TENSOR[panel]] as MatrixData | undefined;
      if (!matrix) throw new Error(`the engine returned no ${TITLE[panel]}`);
      parts.element.classList.toggle('pending', stepOf(panel) > step);
      parts.element.classList.toggle('current', stepOf(panel) === step);
      parts.shape.textContent = `(${matrix.rows}×${matrix.cols})`;
      parts.element.dataset.shape = `${matrix.rows}x${matrix.cols}`;
      parts.map.configure({ rowLabels: tokens, colLabels: byKey(panel) ? tokens : undefined });
      parts.map.draw(matrix);
    }
    const dK = head.q?.cols ?? 0;
    this.formula.replaceChildren(equation(STEPS[step - 1].tex));
    this.context.textContent = [
      `X is what layer ${layer}’s attention reads: the ${n} tokens after layer norm, ${n}×${dModel}. ` +
        `Head ${headIndex} projects it to d_k = ${dK} dimensions.`,
      `Every query meets every key: ${n}×${n} scores, divided by √d_k = ${formatNumber(Math.sqrt(dK), 0)}.`,
      'Each row becomes a probability distribution over the keys: it sums to 1.',
      `Each token’s output is a mix of all the values, weighted by its row of α: ${n}×${dK} again.`,
    ][step - 1];
    this.explain(undefined);
  }

  /** the step's reading of the hovered cell, or of the row of "it" */
  private explain(hovered: { panel: Panel; row: number; col: number } | undefined): void {
    const tokens = this.sentence?.pieces;
    if (!tokens || !this.current) return;
    const { head, step } = this.current;
    const key = hovered ? `${hovered.panel}:${hovered.row}:${hovered.col}` : '';
    if (key !== '' && key === this.explained) return;
    this.explained = key;
    for (const [, parts] of this.panels) parts.map.setHighlight(undefined);
    const light = (panel: Panel, highlight: { row?: number; col?: number }) => this.panels.get(panel)?.map.setHighlight(highlight);
    const quote = (i: number) => `“${tokens[i]}”`;
    if (hovered) {
      const { panel, row: i, col: j } = hovered;
      const value = formatNumber(at(head[TENSOR[panel]] as MatrixData, i, j), 3);
      light(panel, { row: i, col: j });
      if (panel === 'e') {
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
        this.instance.textContent = `${panel.toUpperCase()}(${quote(i)}, ${j}) = ${value}: row ${quote(i)} of X times column ${j} of W^${panel.toUpperCase()}.`;
      }
      return;
    }
    const it = tokens.indexOf('it');
    const hover = 'Hover a cell to see where it comes from.';
    this.instance.textContent = hover;
    if (step < 3 || it < 0 || !head.weights) return;
    const weights = row(head.weights, it);
    const top = weights.indexOf(Math.max(...weights));
    light('alpha', { row: it });
    this.instance.textContent = `The row of “it” puts ${formatNumber(100 * weights[top], 1)} % of its weight on ${quote(top)}. ${hover}`;
  }

  protected override layout(): HTMLElement[] {
    const panel = (name: Panel) => {
      const step = stepOf(name);
      const shape = h('span', 'shape');
      const map = new Heatmap({
        xLabel: byKey(name) ? 'key' : 'dimension', yLabel: byKey(name) ? 'query' : 'token',
        tint: name === 'alpha' ? 'weights' : 'signed', ...(byKey(name) ? PLOT.square : PLOT.dims),
        onHover: (cell) => this.explain(cell && { panel: name, ...cell }),
      });
      const element = h('div', { className: 'step', data: { panel: name, step: String(step) } },
        h('h4', {}, `${step}. ${TITLE[name]} `, shape), map.element,
        h('p', { className: 'later', textContent: `computed at step ${step}: press →` }));
      this.panels.set(name, { element, map, shape });
      return element;
    };
    return [
      h('div', 'toolbar', this.layer.element, this.head.element, this.step.element, this.formula),
      h('div', 'rows',
        h('div', 'line', panel('q'), panel('k'), panel('v')),
        h('div', 'line', panel('e'), panel('alpha'), panel('out'), h('div', 'explain', this.context, this.instance))),
    ];
  }
}
