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
import { h, numbered } from '../primitives/controls';
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
const PLOT = { width: 380, height: 150 };
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
.curves { display: flex; flex-wrap: wrap; gap: 2px 16px; }
/* the legend wraps under its plot rather than widening it */
.curves > figure { flex: 0 1 ${PLOT.width}px; min-width: 0; }
.token h4 { margin: 0; font-size: 14px; font-weight: 600; }
.token { margin-top: 2px; }
.token h4 .note { font-weight: normal; color: var(--muted); }
.strips { display: grid; grid-template-columns: max-content max-content max-content; gap: 2px 10px; align-items: center; margin: 2px 0 0; }
.strips .label { font-size: 14px; white-space: nowrap; }
.strips .shape { font-size: 14px; color: var(--muted); white-space: nowrap; font-variant-numeric: tabular-nums; }
.strips .heatmap .readout { display: none; }
.strips canvas { display: block; }
/* a phone: each strip under its name */
@media (max-width: 799px) { .strips { grid-template-columns: minmax(0, 1fr); } }
.hover { display: flex; gap: 12px; align-items: center; font-size: 14px; min-height: 1.45em; margin: 2px 0 0; color: var(--muted); font-variant-numeric: tabular-nums; }
.params { margin: 2px 0 0; font-size: 14px; font-variant-numeric: tabular-nums; }
.params p { margin: 0; }
.params .count { font-weight: 600; }
`;

interface Curve { y: Float32Array; derivative: Float32Array }

export default class Ffn extends EngineElement {
  private readonly curve = new Plot({ title: 'the non-linearity σ(x)', xLabel: 'x', yLabel: 'σ(x)', ...PLOT, xRange: [-4, 4], yRange: [-1, 4] });
  private readonly slope = new Plot({ title: 'its slope σ′(x), which scales the gradient', xLabel: 'x', yLabel: 'σ′(x)', ...PLOT,
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
  private readonly activation = this.bound.choices<Activation>('activation', { text: (a) => BUTTONS[a] });
  private readonly token = this.bound.choices<number>('token');
  private readonly layer = this.bound.choices<number>('layer');
  private readonly labels = STAGES.map(() => h('span', 'label'));
  private readonly shapes = STAGES.map(() => h('span', 'shape'));
  private readonly tokenTitle = h('h4');
  private readonly hover = h('span');
  private readonly modelLine = h('p');
  private readonly gpt2Line = h('p');

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
    this.token.offer(pieces.map((piece, i) => ({ value: i, text: piece, label: `token ${i}: ${piece}` })));
    this.token.set(token);
    this.layer.offer(numbered(config.n_layers, 'layer'));
    this.layer.set(layer);

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
      this.shapes[k].textContent = `1×${row.cols} · ±${formatNumber(maxAbsFinite(row), 2)}`;
      this.labels[k].textContent = stage.title;
      this.labels[k].title = name(stage.title);
    });
    const outside = Array.from(hidden).filter((v) => v < -4 || v > 4).length;
    this.tokenTitle.replaceChildren(`The trained model’s FFN on “${word}”, layer ${layer}`, h('span', { className: 'note', textContent:
      ` · d = ${config.d_model}, d_ff = ${config.d_ff} = ${config.d_ff / config.d_model}d (the original Transformer and GPT-2 use 4d)` +
      (outside ? ` · ${outside} hidden units lie outside x ∈ [−4, 4]` : '') }));
    this.explain(undefined);

    const formula = (d: number, dFF: number) => {
      const base = `2·${d}·${dFF} + ${dFF} + ${d}`;
      return activation === 'swiglu' ? `${base} + ${d}·${dFF} + ${dFF} (the gate)` : base;
    };
    const line = (target: HTMLElement, what: string, d: number, dFF: number, count: number) => {
      target.replaceChildren(`${what} (d = ${d}, d_ff = ${dFF}), with ${BUTTONS[activation]}: ${formula(d, dFF)} = `,
        h('span', { className: 'count', textContent: formatCount(count), data: { parameters: String(count) } }), ' parameters');
    };
    line(this.modelLine, 'One FFN of this model', config.d_model, config.d_ff, modelCount);
    line(this.gpt2Line, 'One FFN of GPT-2 small', GPT2_SMALL.d, GPT2_SMALL.dFF, gpt2Count);
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
    const rows = this.rows;
    if (!rows) return;
    if (col === undefined) {
      this.hover.textContent = 'Point at a strip: one unit’s value before and after GELU.';
      return;
    }
    const [x, hidden, act, y] = rows;
    const unit = `hidden unit ${col}: h = ${formatNumber(hidden[col], 3)} → GELU(h) = ${formatNumber(act[col], 3)}`;
    this.hover.textContent = col < x.length ? `dimension ${col}: x = ${formatNumber(x[col], 3)}, y = ${formatNumber(y[col], 3)} · ${unit}` : unit;
  }

  protected override layout(): HTMLElement[] {
    return [
      h('div', 'bar', this.activation.element,
        h('span', { className: 'muted', textContent: 'highlights a curve and prices the FFN; the model itself always uses GELU' })),
      h('div', 'curves', this.curve.element, this.slope.element),
      h('div', 'token', this.tokenTitle, h('div', 'bar', this.token.element, this.layer.element),
        h('div', 'strips', ...STAGES.flatMap((_, k) => [this.labels[k], this.strips[k].element, this.shapes[k]])),
        h('div', 'hover', colourKey('signed', '−r', '+r'), this.hover)),
      h('div', 'params', this.modelLine, this.gpt2Line),
    ];
  }
}
