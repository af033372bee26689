// <attn-four-steps>: self-attention in four steps on the seminar sentence, inside the trained
// coreference model: one head of one layer, stepped through by the engine (projections → scores →
// softmax → weighted sum), one step per key press, every intermediate a heatmap with its shape.
// Attributes: layer, head (0-based), step (1–4).
import { pageModel, type RemoteEngine } from '../app/engine';
import { SEMINAR_SENTENCE } from '../app/state';
import type { AttentionResult, HeadResult, MatrixData } from '../engine/index';
import { formatNumber } from '../math/format';
import { at, row } from '../math/matrix';
import { EngineElement } from '../primitives/engine-element';
import { equation, loadTypesetting } from '../primitives/equation';
import { Heatmap } from '../primitives/heatmap';

const TAG = 'attn-four-steps';

type Panel = 'q' | 'k' | 'v' | 'e' | 'alpha' | 'out';

interface Step {
  name: string;
  /** the slide's formula for the step */
  tex: string;
  panels: Panel[];
}

const STEPS: readonly Step[] = [
  { name: 'Project', tex: 'Q = XW^Q,\\; K = XW^K,\\; V = XW^V', panels: ['q', 'k', 'v'] },
  { name: 'Scores', tex: 'e_{ij} = q_i \\cdot k_j / \\sqrt{d_k}', panels: ['e'] },
  { name: 'Softmax', tex: '\\alpha_{ij} = \\exp(e_{ij}) / \\textstyle\\sum_k \\exp(e_{ik})', panels: ['alpha'] },
  { name: 'Weighted sum', tex: '\\text{out}_i = \\textstyle\\sum_j \\alpha_{ij}\\, v_j', panels: ['out'] },
];

/** each panel's matrix in the engine's result for one head */
const TENSOR: Record<Panel, keyof HeadResult> = { q: 'q', k: 'k', v: 'v', e: 'scaled', alpha: 'weights', out: 'output' };
const TITLE: Record<Panel, string> = { q: 'Q', k: 'K', v: 'V', e: 'scores e = QKᵀ/√d_k', alpha: 'weights α', out: 'out = αV' };

const styles = `
.bar { display: flex; flex-wrap: wrap; gap: 6px 16px; align-items: center; margin: 0 0 6px; }
.group { display: inline-flex; gap: 4px; align-items: center; font-size: 14px; }
.group button { padding: 2px 9px; font-size: 14px; }
.group .name { color: var(--muted); margin-right: 2px; }
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

export class FourSteps extends EngineElement {
  static readonly observedAttributes = EngineElement.attributesOf(TAG);
  private view?: ReturnType<FourSteps['build']>;
  private sentence?: { ids: Int32Array; pieces: string[] };
  private shape?: { layers: number; heads: number; dModel: number };
  /** the layer's attention, every stage, by layer */
  private readonly results = new Map<number, AttentionResult>();
  private current?: { head: HeadResult; step: number };
  /** the cell last explained ("" for none), so moving within a cell redraws nothing */
  private explained = '';

  constructor() {
    super(styles, 'in layer 1, head 0, the row of “it” puts almost all its weight on “mat”, the noun it refers to.');
  }

  stepForward(): boolean {
    const step = this.value<number>('step');
    if (step >= STEPS.length) return false;
    this.change({ step: step + 1 });
    return true;
  }

  stepBack(): boolean {
    const step = this.value<number>('step');
    if (step <= 1) return false;
    this.change({ step: step - 1 });
    return true;
  }

  protected async render(_engine: RemoteEngine): Promise<void> {
    await loadTypesetting();
    const model = await pageModel('coreference');
    if (!this.shape) {
      const config = await model.config();
      this.shape = { layers: config.n_layers, heads: config.n_heads, dModel: config.d_model };
    }
    this.sentence ??= await model.tokenize(SEMINAR_SENTENCE);
    const { layers, heads, dModel } = this.shape;
    const layer = Math.min(layers - 1, this.value<number>('layer'));
    const headIndex = Math.min(heads - 1, this.value<number>('head'));
    const step = this.value<number>('step');
    const view = (this.view ??= this.build(layers, heads));
    if (!view.root.isConnected) this.body.replaceChildren(view.root);
    view.layerButtons.forEach((b, i) => b.setAttribute('aria-pressed', String(i === layer)));
    view.headButtons.forEach((b, i) => b.setAttribute('aria-pressed', String(i === headIndex)));
    view.stepButtons.forEach((b, i) => b.setAttribute('aria-pressed', String(i + 1 === step)));

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
    for (const [panel, parts] of view.panels) {
      const matrix = head[TENSOR[panel]] as MatrixData | undefined;
      if (!matrix) throw new Error(`the engine returned no ${TITLE[panel]}`);
      const first = STEPS.findIndex((s) => s.panels.includes(panel)) + 1;
      parts.element.classList.toggle('pending', first > step);
      parts.element.classList.toggle('current', first === step);
      parts.shape.textContent = `(${matrix.rows}×${matrix.cols})`;
      parts.element.dataset.shape = `${matrix.rows}x${matrix.cols}`;
      parts.map.configure({ rowLabels: tokens, colLabels: panel === 'e' || panel === 'alpha' ? tokens : undefined });
      parts.map.draw(matrix);
    }
    const dK = head.q?.cols ?? 0;
    const current = STEPS[step - 1];
    view.formula.replaceChildren(equation(current.tex));
    view.context.textContent = [
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
    const view = this.view;
    const tokens = this.sentence?.pieces;
    if (!view || !tokens || !this.current) return;
    const { head, step } = this.current;
    const key = hovered ? `${hovered.panel}:${hovered.row}:${hovered.col}` : '';
    if (key !== '' && key === this.explained) return;
    this.explained = key;
    for (const [, parts] of view.panels) parts.map.setHighlight(undefined);
    const light = (panel: Panel, highlight: { row?: number; col?: number }) => view.panels.get(panel)?.map.setHighlight(highlight);
    const quote = (i: number) => `“${tokens[i]}”`;
    if (hovered) {
      const { panel, row: i, col: j } = hovered;
      const value = formatNumber(at(head[TENSOR[panel]] as MatrixData, i, j), 3);
      light(panel, { row: i, col: j });
      if (panel === 'e') {
        light('q', { row: i });
        light('k', { row: j });
        view.instance.textContent = `e(${quote(i)}, ${quote(j)}) = q · k / √d_k = ${value}: row ${quote(i)} of Q against row ${quote(j)} of K.`;
      } else if (panel === 'alpha') {
        light('e', { row: i });
        view.instance.textContent = `α(${quote(i)}, ${quote(j)}) = ${value}: the softmax of row ${quote(i)} of e.`;
      } else if (panel === 'out') {
        light('alpha', { row: i });
        light('v', { col: j });
        view.instance.textContent = `out(${quote(i)}, ${j}) = ${value}: row ${quote(i)} of α times column ${j} of V.`;
      } else {
        view.instance.textContent = `${panel.toUpperCase()}(${quote(i)}, ${j}) = ${value}: row ${quote(i)} of X times column ${j} of W^${panel.toUpperCase()}.`;
      }
      return;
    }
    const it = tokens.indexOf('it');
    if (step >= 3 && it >= 0 && head.weights) {
      const weights = row(head.weights, it);
      const top = weights.indexOf(Math.max(...weights));
      light('alpha', { row: it });
      view.instance.textContent = `The row of “it” puts ${formatNumber(100 * weights[top], 1)} % of its weight on ${quote(top)}. Hover a cell to see where it comes from.`;
    } else {
      view.instance.textContent = 'Hover a cell to see where it comes from.';
    }
  }

  private build(layers: number, heads: number) {
    const root = document.createElement('div');
    const group = (name: string, count: number, label: (i: number) => string, onClick: (i: number) => void) => {
      const g = document.createElement('span');
      g.className = 'group';
      g.setAttribute('role', 'group');
      g.setAttribute('aria-label', name);
      g.dataset.control = name;
      g.append(Object.assign(document.createElement('span'), { className: 'name', textContent: name }));
      const buttons = Array.from({ length: count }, (_, i) => {
        const b = document.createElement('button');
        b.type = 'button';
        b.textContent = label(i);
        b.addEventListener('click', () => onClick(i));
        g.append(b);
        return b;
      });
      return { g, buttons };
    };
    // numbered from 0, as the engine, the README and the title slide do
    const layerGroup = group('layer', layers, (i) => String(i), (i) => this.change({ layer: i }));
    const headGroup = group('head', heads, (i) => String(i), (i) => this.change({ head: i }));
    const stepGroup = group('step', STEPS.length, (i) => `${i + 1} ${STEPS[i].name}`, (i) => this.change({ step: i + 1 }));
    const bar = document.createElement('div');
    bar.className = 'bar';
    const formula = document.createElement('span');
    formula.className = 'formula';
    bar.append(layerGroup.g, headGroup.g, stepGroup.g, formula);

    const panels = new Map<Panel, { element: HTMLElement; map: Heatmap; shape: HTMLElement }>();
    const panel = (name: Panel) => {
      const element = document.createElement('div');
      element.className = 'step';
      element.dataset.panel = name;
      const step = STEPS.findIndex((s) => s.panels.includes(name)) + 1;
      element.dataset.step = String(step);
      const title = document.createElement('h4');
      const shape = Object.assign(document.createElement('span'), { className: 'shape' });
      title.append(`${step}. ${TITLE[name]} `, shape);
      const size = name === 'e' || name === 'alpha' ? PLOT.square : PLOT.dims;
      const map = new Heatmap({
        xLabel: name === 'e' || name === 'alpha' ? 'key' : 'dimension', yLabel: name === 'e' || name === 'alpha' ? 'query' : 'token',
        tint: name === 'alpha' ? 'weights' : 'signed', ...size,
        onHover: (cell) => this.explain(cell && { panel: name, ...cell }),
      });
      const later = Object.assign(document.createElement('p'), { className: 'later', textContent: `computed at step ${step}: press →` });
      element.append(title, map.element, later);
      panels.set(name, { element, map, shape });
      return element;
    };
    const top = document.createElement('div');
    top.className = 'line';
    top.append(panel('q'), panel('k'), panel('v'));
    const explain = document.createElement('div');
    explain.className = 'explain';
    const context = document.createElement('p');
    const instance = document.createElement('p');
    instance.className = 'muted';
    instance.dataset.testid = 'instance';
    explain.append(context, instance);
    const bottom = document.createElement('div');
    bottom.className = 'line';
    bottom.append(panel('e'), panel('alpha'), panel('out'), explain);
    const rows = document.createElement('div');
    rows.className = 'rows';
    rows.append(top, bottom);
    root.append(bar, rows);
    return { root, layerButtons: layerGroup.buttons, headButtons: headGroup.buttons, stepButtons: stepGroup.buttons,
      panels, formula, context, instance };
  }
}

customElements.get(TAG) ?? customElements.define(TAG, FourSteps);
