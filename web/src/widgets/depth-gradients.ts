// <attn-depth-gradients>: what residual connections do for the gradient, measured by the engine on
// a seeded stack of blocks at GPT-2's initialisation (d = 64, 16 positions): the norm of the
// gradient over each layer's parameters, with the skip connections and without, and the norm of
// the stream between the blocks. The norms sit before the sub-layers (pre-LN), after the residual
// sum (post-LN), or nowhere. A gradient that underflows float32 is exactly 0: it is drawn on a strip
// of its own below the log axis, never left out.
// Settings: layers (the depth), norm ('pre', 'post', 'none').
import type { RemoteEngine } from '../runtime/engine';
import { limitsOf } from '../runtime/state';
import { NORM_PLACEMENTS } from '../runtime/registry';
import { formatFactor, formatMagnitude } from '../math/magnitude';
import { niceTicks } from '../math/ticks';
import { EngineElement } from '../runtime/engine-element';
import { Plot, SERIES_COLOURS } from '../primitives/plot';
import { slider } from '../primitives/slider';

type Placement = (typeof NORM_PLACEMENTS)[number];

const PLACEMENT_NAMES: Record<Placement, string> = { pre: 'pre-LN', post: 'post-LN', none: 'no norm' };
/** the engine's options for each placement (the norm is LayerNorm, as in GPT-2) */
const PLACEMENT_OPTIONS: Record<Placement, { norm: 'layer_norm' | 'none'; preNorm: boolean }> = {
  pre: { norm: 'layer_norm', preNorm: true },
  post: { norm: 'layer_norm', preNorm: false },
  none: { norm: 'none', preNorm: true },
};
const SEED = 3;
const WIDTH = 64;
const POSITIONS = 16;
/** a gradient this much smaller at layer 1 than at layer L has vanished, for the summary */
const VANISHED = 1e-3;

const SERIES = [
  { key: 'with', name: 'with residuals', colour: SERIES_COLOURS.blue },
  { key: 'without', name: 'without residuals', colour: SERIES_COLOURS.vermillion },
] as const;

const styles = `
.controls { display: flex; flex-wrap: wrap; gap: 8px 24px; align-items: center; margin: 0 0 6px; }
.controls input[type="range"] { width: 150px; }
.controls output { min-width: 1.6em; }
.group { display: inline-flex; gap: 4px; align-items: center; font-size: 14px; }
.group .name { color: var(--muted); margin-right: 2px; }
.group button { padding: 2px 10px; font-size: 14px; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 16px; font-size: 13px; margin: 0 0 2px; }
.legend .zero { font-style: normal; color: var(--muted); }
.legend .setup { margin-left: auto; color: var(--muted); }
.legend .series::before { content: ''; display: inline-block; width: 18px; height: 3px; margin-right: 6px; vertical-align: middle; background: var(--swatch); }
.plots { display: flex; flex-wrap: wrap; gap: 4px 14px; align-items: flex-start; }
/* as wide as its picture (a title wraps under it), narrower on a phone */
.plots figure { margin: 0; max-width: 100%; }
.plots .plot-title { font-size: 13px; }
.ratios { display: flex; flex-wrap: wrap; gap: 10px; margin: 6px 0 0; }
.ratios .panel { flex: 1 1 0; min-width: 15em; display: flex; align-items: baseline; gap: 10px; padding: 4px 12px; }
.ratios strong { font-size: 26px; line-height: 1.15; white-space: nowrap; font-variant-numeric: tabular-nums; }
.ratios span { font-size: 13px; }
.summary { margin: 6px 0 0; font-size: 14px; }
`;

interface Measured {
  with: { parameterGradientNorms: Float32Array; activationNorms: Float32Array };
  without: { parameterGradientNorms: Float32Array; activationNorms: Float32Array };
}

export default class DepthGradients extends EngineElement {
  // both named once, by the legend above them; an underflow to 0 is drawn, not left out
  private readonly gradients = new Plot({ title: 'Gradient reaching each layer’s weights', xLabel: 'layer', yLabel: '‖∂ℒ/∂θ_layer‖ (log)',
    yLog: true, zeroStrip: true, legend: false, width: 470, height: 290 });
  private readonly stream = new Plot({ title: 'The stream between the layers', xLabel: 'after l layers (0: the input)', yLabel: '‖x_l‖ (log)',
    yLog: true, zeroStrip: true, legend: false, width: 290, height: 290 });
  private view?: ReturnType<DepthGradients['build']>;

  constructor() {
    super(styles, 'with no norms and no residuals, layer 1 gets tens of orders of magnitude less gradient than the last; a LayerNorm in every sub-layer prevents that, yet the stream collapses.');
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const layers = this.value<number>('layers');
    const placement = this.value<Placement>('norm');
    const view = (this.view ??= this.build());
    if (!view.root.isConnected) this.body.replaceChildren(view.root);
    view.layers.set(layers);
    for (const [p, button] of view.placements) button.setAttribute('aria-pressed', String(p === placement));
    const options = { layers, d: WIDTH, n: POSITIONS, seed: SEED, ...PLACEMENT_OPTIONS[placement] };
    const [withSkips, withoutSkips] = await Promise.all([
      engine.depthGradients({ ...options, residual: true }),
      engine.depthGradients({ ...options, residual: false }),
    ]);
    const measured: Measured = { with: withSkips, without: withoutSkips };
    view.zeroNote.hidden = !SERIES.some((s) => [...measured[s.key].parameterGradientNorms, ...measured[s.key].activationNorms].includes(0));
    const where = `${PLACEMENT_NAMES[placement]}, ${layers} layers`;
    this.drawNorms(this.gradients, measured, 'parameterGradientNorms', 1, layers, `parameter gradient norm per layer (${where})`, 'layer');
    this.drawNorms(this.stream, measured, 'activationNorms', 0, layers, `norm of the stream after l layers (${where})`, 'after l layers');
    view.setup.textContent = `${layers} layers, ${PLACEMENT_NAMES[placement]}, d = ${WIDTH}, ${POSITIONS} positions, seed ${SEED}`;

    SERIES.forEach((s, k) => {
      const norms = measured[s.key].parameterGradientNorms;
      const first = norms[0];
      const last = norms[layers - 1];
      const tile = view.ratios[k];
      tile.number.textContent = formatFactor(first, last);
      tile.text.textContent = first === 0
        ? `${s.name}: layer 1’s gradient is exactly 0 in float32 (it underflowed on the way down); layer ${layers} gets ${formatMagnitude(last)}`
        : `${s.name}: layer 1’s gradient (${formatMagnitude(first)}) over layer ${layers}’s (${formatMagnitude(last)})`;
    });
    view.summary.textContent = this.summary(measured, layers);
  }

  /** one kind of norm with residuals and without, at x = first … last, and its table: one row per x */
  private drawNorms(plot: Plot, measured: Measured, norms: keyof Measured['with'], first: number, last: number, caption: string, xName: string): void {
    const x = Array.from({ length: last - first + 1 }, (_, i) => first + i);
    // whole ticks only, and half a step of room at the ends so that no point sits on the frame
    plot.configure({
      xRange: [first - 0.5, last + 0.5],
      xTicks: niceTicks(first, last).filter((v) => Number.isInteger(v) && v >= first && v <= last),
      table: () => ({
        caption,
        head: [xName, ...SERIES.map((s) => s.name)],
        rows: x.map((v, i) => [String(v), ...SERIES.map((s) => measured[s.key][norms][i])] as [string, ...number[]]),
        format: (v) => formatExact(v),
      }),
    });
    plot.draw(SERIES.map((s) => ({ name: s.name, colour: s.colour, style: 'line+points', x, y: measured[s.key][norms] })));
  }

  /** what the numbers say about the claim "without residuals, early layers get orders of magnitude less gradient" */
  private summary(measured: Measured, layers: number): string {
    const factor = (norms: Float32Array) => formatFactor(norms[0], norms[layers - 1]);
    /** "layer 1 gets 10⁻³⁵ of layer 12’s", or that it gets exactly 0 */
    const share = (norms: Float32Array) => (norms[0] === 0 ? 'layer 1’s is exactly 0 in float32 (underflow)'
      : `layer 1 gets ${factor(norms)} of layer ${layers}’s`);
    const vanished = (norms: Float32Array) => !(norms[0] >= VANISHED * norms[layers - 1]);
    const withNorms = measured.with.parameterGradientNorms;
    const withoutNorms = measured.without.parameterGradientNorms;
    const withText = vanished(withNorms) ? `and with them too (${factor(withNorms)})` : `with them layer 1 gets ${factor(withNorms)}`;
    if (vanished(withoutNorms)) {
      return `The claim holds here: without residuals the gradient vanishes, ${share(withoutNorms)}; ${withText}.`;
    }
    const [streamIn, streamOut] = [measured.without.activationNorms[0], measured.without.activationNorms[layers]];
    const collapse = streamOut < streamIn / 10
      ? ` Yet the stream shrinks from ${formatMagnitude(streamIn)} to ${formatMagnitude(streamOut)} without them: each norm divides by its input’s small spread, which keeps the gradient up while the signal fades.`
      : '';
    return `The claim fails here: without residuals layer 1 still gets ${factor(withoutNorms)} of layer ${layers}’s gradient; ${withText}.${collapse}`;
  }

  private build() {
    const root = document.createElement('div');
    const controls = document.createElement('div');
    controls.className = 'controls';
    const layers = slider({ label: 'layers L', ...limitsOf(this.localName, 'layers'), value: 12,
      onInput: (value) => this.change({ layers: value }) });
    layers.element.dataset.control = 'layers';
    const group = document.createElement('div');
    group.className = 'group';
    group.setAttribute('role', 'group');
    group.setAttribute('aria-label', 'norm placement');
    group.dataset.control = 'norm';
    group.append(Object.assign(document.createElement('span'), { className: 'name', textContent: 'norms' }));
    const placements = new Map<Placement, HTMLButtonElement>();
    for (const p of NORM_PLACEMENTS) {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = PLACEMENT_NAMES[p];
      b.addEventListener('click', () => this.change({ norm: p }));
      placements.set(p, b);
      group.append(b);
    }
    controls.append(layers.element, group);

    const legend = document.createElement('div');
    legend.className = 'legend';
    for (const s of SERIES) {
      const item = Object.assign(document.createElement('span'), { className: 'series', textContent: s.name });
      item.style.setProperty('--swatch', s.colour);
      legend.append(item);
    }
    const zeroNote = document.createElement('em');
    zeroNote.className = 'zero';
    zeroNote.textContent = '○ on the dashed strip: exactly 0 in float32 (underflow)';
    const setup = Object.assign(document.createElement('span'), { className: 'setup' });
    legend.append(zeroNote, setup);
    const plots = document.createElement('div');
    plots.className = 'plots';
    plots.append(this.gradients.element, this.stream.element);

    const ratios = document.createElement('div');
    ratios.className = 'ratios';
    ratios.setAttribute('aria-live', 'polite');
    const tiles = SERIES.map((s) => {
      const panel = document.createElement('div');
      panel.className = 'panel';
      panel.style.borderLeft = `6px solid ${s.colour}`;
      const number = document.createElement('strong');
      const text = document.createElement('span');
      panel.append(number, text);
      ratios.append(panel);
      return { number, text };
    });
    const summary = document.createElement('p');
    summary.className = 'summary';
    root.append(controls, legend, plots, ratios, summary);
    return { root, layers, placements, ratios: tiles, summary, zeroNote, setup };
  }
}

/** a norm in the table: four significant digits, 0 named as an underflow */
function formatExact(v: number): string {
  if (v === 0) return '0 (underflow)';
  if (!Number.isFinite(v)) return String(v);
  return v.toPrecision(4).replace('-', '−');
}
