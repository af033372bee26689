// <attn-ffn>: the feed-forward network of a Transformer block. The four non-linearities (ReLU, GELU,
// GELU's tanh approximation, and SwiGLU's gate, Swish) and their slopes, computed by the engine;
// the FFN of the trained coreference model on one token of the seminar sentence, read from the
// engine's trace of a forward pass (its input LN₂(x), the hidden layer before and after GELU, and
// its output), each as a strip of coloured cells with its shape; and what one FFN costs in
// parameters, for this model and for GPT-2 small. The model's own non-linearity is GELU: the
// chooser only highlights a curve and prices the FFN with it.
// Settings: activation, token (position in the sentence), layer.
import { pageModel, type RemoteEngine, type RemoteModel } from '../runtime/engine';
import { ACTIVATIONS, SEMINAR_SENTENCE } from '../runtime/registry';
import type { MatrixData } from '../engine/index';
import { formatCount, formatNumber } from '../math/format';
import { maxAbsFinite } from '../math/matrix';
import { EngineElement } from '../runtime/engine-element';
import { colourKey, Heatmap } from '../primitives/heatmap';
import { Plot, SERIES_COLOURS, type Series } from '../primitives/plot';

type Activation = (typeof ACTIVATIONS)[number];

const NAMES: Record<Activation, string> = { relu: 'ReLU', gelu: 'GELU', gelu_tanh: 'GELU (tanh)', swiglu: 'Swish (SwiGLU’s gate)' };
const BUTTONS: Record<Activation, string> = { relu: 'ReLU', gelu: 'GELU', gelu_tanh: 'GELU (tanh)', swiglu: 'SwiGLU' };
const COLOURS: Record<Activation, string> = {
  relu: SERIES_COLOURS.orange, gelu: SERIES_COLOURS.blue, gelu_tanh: SERIES_COLOURS.green, swiglu: SERIES_COLOURS.purple,
};
/** where the curves are drawn: 161 points on [−4, 4] */
const X = Array.from({ length: 161 }, (_, i) => Number((-4 + i * 0.05).toFixed(2)));
const GPT2_SMALL = { d: 768, dFF: 3072 };
/** the size of each curve's plot */
const PLOT = { width: 380, height: 172 };
/** CSS pixels per entry of a strip */
const CELL = 3.5;

/** the trace of one layer's FFN, by stage, with its title */
const STAGES = [
  { name: 'ln_2', title: 'input LN₂(x)', symbol: 'x' },
  { name: 'mlp.hidden', title: 'hidden xW₁ + b₁', symbol: 'h' },
  { name: 'mlp.act', title: 'after GELU', symbol: 'a' },
  { name: 'mlp.out', title: 'output ·W₂ + b₂', symbol: 'y' },
] as const;

const styles = `
.bar { display: flex; flex-wrap: wrap; gap: 6px 18px; align-items: center; margin: 0 0 4px; }
.group { display: inline-flex; flex-wrap: wrap; gap: 4px; align-items: center; font-size: 14px; }
.group .name { color: var(--muted); margin-right: 2px; }
.group button { padding: 1px 9px; font-size: 14px; }
.curves { display: flex; flex-wrap: wrap; gap: 2px 16px; }
/* the legend wraps under its plot rather than widening it */
.curves > figure { flex: 0 1 ${PLOT.width}px; min-width: 0; }
.token h4 { margin: 0; font-size: 13px; font-weight: 600; }
.token { margin-top: 2px; }
.token h4 .note { font-weight: normal; color: var(--muted); }
.strips { display: grid; grid-template-columns: max-content max-content max-content; gap: 2px 10px; align-items: center; margin: 2px 0 0; }
.strips .label { font-size: 13px; white-space: nowrap; }
.strips .shape { font-size: 12px; color: var(--muted); white-space: nowrap; font-variant-numeric: tabular-nums; }
.strips .heatmap .readout { display: none; }
.strips canvas { display: block; }
/* a phone: each strip under its name */
@media (max-width: 799px) { .strips { grid-template-columns: minmax(0, 1fr); } }
.hover { display: flex; gap: 12px; align-items: center; font-size: 12px; min-height: 1.45em; margin: 2px 0 0; color: var(--muted); font-variant-numeric: tabular-nums; }
.params { margin: 2px 0 0; font-size: 13px; font-variant-numeric: tabular-nums; }
.params p { margin: 0; }
.params .count { font-weight: 600; }
`;

interface Curve { y: Float32Array; derivative: Float32Array }

interface View {
  root: HTMLElement;
  activations: Map<Activation, HTMLButtonElement>;
  layers: HTMLButtonElement[];
  words: HTMLButtonElement[];
  labels: HTMLElement[];
  shapes: HTMLElement[];
  tokenTitle: HTMLElement;
  hover: HTMLElement;
  model: HTMLElement;
  gpt2: HTMLElement;
}

export default class Ffn extends EngineElement {
  private readonly curve = new Plot({ title: 'the non-linearity σ(x)', xLabel: 'x', yLabel: 'σ(x)', ...PLOT, xRange: [-4, 4], yRange: [-1, 4] });
  private readonly slope = new Plot({ title: 'its slope σ′(x), what the gradient is multiplied by', xLabel: 'x', yLabel: 'σ′(x)', ...PLOT,
    xRange: [-4, 4], yRange: [-0.2, 1.2] });
  private readonly strips = STAGES.map((s) => new Heatmap({
    xLabel: 'dimension', yLabel: s.title, tint: 'signed', width: 64 * CELL, height: 16, axes: false, legend: false,
    onHover: (cell) => this.explain(cell?.col),
  }));
  private curves?: Map<Activation, Curve>;
  private readonly traces = new Map<number, Record<string, MatrixData>>();
  private sentence?: { ids: Int32Array; pieces: string[] };
  /** the token's rows of the four stages, for the hover readout */
  private rows?: Float32Array[];
  private view?: View;

  constructor() {
    super(styles, 'GELU and Swish are smooth ReLUs that let a little negative signal through; the token’s hidden units (dots) lie on GELU, the model’s own curve.', { models: ['coreference'] });
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const activation = this.value<Activation>('activation');
    const model = await pageModel('coreference');
    const config = await model.config();
    this.sentence ??= await model.tokenize(SEMINAR_SENTENCE);
    const { ids, pieces } = this.sentence;
    const layer = Math.min(this.value<number>('layer'), config.n_layers - 1);
    const token = Math.min(this.value<number>('token'), ids.length - 1);
    const view = (this.view ??= this.build(config.n_layers, pieces));
    if (!view.root.isConnected) this.body.replaceChildren(view.root);
    for (const [a, button] of view.activations) button.setAttribute('aria-pressed', String(a === activation));
    view.layers.forEach((b, l) => b.setAttribute('aria-pressed', String(l === layer)));
    view.words.forEach((b, i) => b.setAttribute('aria-pressed', String(i === token)));

    const [curves, trace, modelCount, gpt2Count] = await Promise.all([
      this.loadCurves(engine),
      this.loadTrace(model, layer),
      engine.feedForwardParameters({ d: config.d_model, dFF: config.d_ff, activation }),
      engine.feedForwardParameters({ ...GPT2_SMALL, activation }),
    ]);
    const matrices = STAGES.map((s) => trace[`layer${layer}.${s.name}`]);
    const rows = matrices.map((m) => m.data.slice(token * m.cols, (token + 1) * m.cols));
    this.rows = rows;

    // the chosen curve picked out, the others faint behind it
    const series = (pick: (c: Curve) => Float32Array): Series[] => ACTIVATIONS.map((a) => ({
      name: NAMES[a], x: X, y: pick(curves.get(a)!), colour: COLOURS[a], emphasised: a === activation,
    }));
    const word = pieces[token];
    const [hidden, act] = [rows[1], rows[2]];
    this.curve.draw([...series((c) => c.y),
      { name: `“${word}”: its ${hidden.length} hidden units`, x: hidden, y: act, colour: SERIES_COLOURS.vermillion, style: 'points', emphasised: true }]);
    this.slope.draw(series((c) => c.derivative));

    const name = (label: string) => `“${word}”, ${label}`;
    STAGES.forEach((stage, k) => {
      const row = { rows: 1, cols: rows[k].length, data: rows[k] };
      const map = this.strips[k];
      map.configure({ width: row.cols * CELL, rowLabels: [word], yLabel: `${stage.title} (layer ${layer})` });
      map.draw(row);
      view.shapes[k].textContent = `1×${row.cols} · ±${formatNumber(maxAbsFinite(row), 2)}`;
      view.labels[k].textContent = stage.title;
      view.labels[k].title = name(stage.title);
    });
    const outside = Array.from(hidden).filter((h) => h < -4 || h > 4).length;
    view.tokenTitle.replaceChildren(`The trained model’s FFN on “${word}”, layer ${layer}`,
      Object.assign(document.createElement('span'), { className: 'note', textContent:
        ` · d = ${config.d_model}, d_ff = ${config.d_ff} = ${config.d_ff / config.d_model}d (the original Transformer and GPT-2 use 4d)` +
        (outside ? ` · ${outside} hidden units lie outside x ∈ [−4, 4]` : '') }));
    this.explain(undefined);

    const formula = (d: number, dFF: number) => {
      const base = `2·${d}·${dFF} + ${dFF} + ${d}`;
      return activation === 'swiglu' ? `${base} + ${d}·${dFF} + ${dFF} (the gate)` : base;
    };
    const line = (target: HTMLElement, what: string, d: number, dFF: number, count: number) => {
      const strong = Object.assign(document.createElement('span'), { className: 'count', textContent: formatCount(count) });
      strong.dataset.parameters = String(count);
      target.replaceChildren(`${what} (d = ${d}, d_ff = ${dFF}), with ${BUTTONS[activation]}: ${formula(d, dFF)} = `, strong, ' parameters');
    };
    line(view.model, 'One FFN of this model', config.d_model, config.d_ff, modelCount);
    line(view.gpt2, 'One FFN of GPT-2 small', GPT2_SMALL.d, GPT2_SMALL.dFF, gpt2Count);
  }

  /** the curves and slopes of the four non-linearities (once: they never change) */
  private async loadCurves(engine: RemoteEngine): Promise<Map<Activation, Curve>> {
    if (!this.curves) {
      const computed = await Promise.all(ACTIVATIONS.map((activation) => engine.activationCurve({ activation, x: X })));
      this.curves = new Map(ACTIVATIONS.map((a, k) => [a, computed[k]]));
    }
    return this.curves;
  }

  private async loadTrace(model: RemoteModel, layer: number): Promise<Record<string, MatrixData>> {
    let trace = this.traces.get(layer);
    if (!trace) {
      const names = STAGES.map((s) => `layer${layer}.${s.name}`);
      trace = (await model.forward({ tokens: this.sentence!.ids, trace: names })).trace ?? {};
      for (const name of names) if (!trace[name]) throw new Error(`the engine's trace has no ${name}`);
      this.traces.set(layer, trace);
    }
    return trace;
  }

  /** the entry under the pointer in every strip that has it: unit j before and after GELU */
  private explain(col: number | undefined): void {
    const view = this.view;
    const rows = this.rows;
    if (!view || !rows) return;
    if (col === undefined) {
      view.hover.textContent = 'Point at a strip: one unit’s value before and after GELU.';
      return;
    }
    const [x, h, a, y] = rows;
    view.hover.textContent = col < x.length
      ? `dimension ${col}: x = ${formatNumber(x[col], 3)}, y = ${formatNumber(y[col], 3)} · hidden unit ${col}: h = ${formatNumber(h[col], 3)} → GELU(h) = ${formatNumber(a[col], 3)}`
      : `hidden unit ${col}: h = ${formatNumber(h[col], 3)} → GELU(h) = ${formatNumber(a[col], 3)}`;
  }

  private build(layers: number, pieces: string[]): View {
    const root = document.createElement('div');
    const group = (label: string, control: string) => {
      const element = document.createElement('div');
      element.className = 'group';
      element.setAttribute('role', 'group');
      element.setAttribute('aria-label', label);
      element.dataset.control = control;
      element.append(Object.assign(document.createElement('span'), { className: 'name', textContent: label }));
      return element;
    };
    const button = (text: string, settings: Record<string, string | number>, label?: string) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = text;
      if (label) b.setAttribute('aria-label', label);
      b.addEventListener('click', () => this.change(settings));
      return b;
    };
    const bar = document.createElement('div');
    bar.className = 'bar';
    const activationGroup = group('non-linearity', 'activation');
    const activations = new Map(ACTIVATIONS.map((a) => [a, button(BUTTONS[a], { activation: a })]));
    activationGroup.append(...activations.values());
    const caveat = Object.assign(document.createElement('span'), { className: 'muted',
      textContent: 'highlights a curve and prices the FFN; the model itself always uses GELU' });
    bar.append(activationGroup, caveat);

    const curves = document.createElement('div');
    curves.className = 'curves';
    curves.append(this.curve.element, this.slope.element);

    const token = document.createElement('div');
    token.className = 'token';
    const tokenTitle = document.createElement('h4');
    const choose = document.createElement('div');
    choose.className = 'bar';
    const words = group('token', 'token');
    const wordButtons = pieces.map((piece, i) => button(piece, { token: i }, `token ${i}: ${piece}`));
    words.append(...wordButtons);
    const layerGroup = group('layer', 'layer');
    const layerButtons = Array.from({ length: layers }, (_, l) => button(String(l), { layer: l }, `layer ${l}`));
    layerGroup.append(...layerButtons);
    choose.append(words, layerGroup);

    const grid = document.createElement('div');
    grid.className = 'strips';
    const labels: HTMLElement[] = [];
    const shapes: HTMLElement[] = [];
    STAGES.forEach((_, k) => {
      const label = Object.assign(document.createElement('span'), { className: 'label' });
      const shape = Object.assign(document.createElement('span'), { className: 'shape' });
      grid.append(label, this.strips[k].element, shape);
      labels.push(label);
      shapes.push(shape);
    });
    const hoverLine = document.createElement('div');
    hoverLine.className = 'hover';
    const hover = document.createElement('span');
    hoverLine.append(colourKey('signed', '−r', '+r'), hover);
    token.append(tokenTitle, choose, grid, hoverLine);

    const params = document.createElement('div');
    params.className = 'params';
    const modelLine = document.createElement('p');
    const gpt2Line = document.createElement('p');
    params.append(modelLine, gpt2Line);
    root.append(bar, curves, token, params);
    return { root, activations, layers: layerButtons, words: wordButtons, labels, shapes, tokenTitle, hover, model: modelLine, gpt2: gpt2Line };
  }
}
