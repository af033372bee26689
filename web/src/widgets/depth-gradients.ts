// <attn-depth-gradients>: what residual connections do for the gradient, measured by the engine on
// a seeded stack of blocks at GPT-2's initialisation (d = 64, 16 positions): the norm of the
// gradient over each layer's parameters, with the skip connections and without, and the norm of
// the stream between the blocks. The norms sit before the sub-layers (pre-LN), after the residual
// sum (post-LN), or nowhere. A gradient that underflows float32 is exactly 0: it is drawn on a strip
// of its own below the log axis, never left out.
// Settings: layers (the depth), norm ('pre', 'post', 'none').
import type { RemoteEngine } from '../runtime/engine';
import { NORM_PLACEMENTS } from '../runtime/registry';
import { formatFactor, formatMagnitude, formatNorm } from '../math/magnitude';
import { niceTicks } from '../math/ticks';
import { h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { Plot, SERIES_COLOURS } from '../primitives/plot';

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
.group button { padding: 2px 10px; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 16px; font-size: 13px; margin: 0 0 2px; }
.legend .zero { font-style: normal; color: var(--muted); }
.legend .setup { margin-left: auto; color: var(--muted); }
.legend .series::before { content: ''; display: inline-block; width: 18px; height: 3px; margin-right: 6px; vertical-align: middle; background: var(--swatch); }
.plots { display: flex; flex-wrap: wrap; gap: 4px 14px; align-items: flex-start; }
/* as wide as its picture (a title wraps under it), narrower on a phone */
.plots figure { margin: 0; max-width: 100%; }
.plots .plot-title { font-size: 14px; }
.ratios { display: flex; flex-wrap: wrap; gap: 10px; margin: 6px 0 0; }
.ratios .panel { flex: 1 1 0; min-width: 15em; display: flex; align-items: baseline; gap: 10px; padding: 4px 12px; }
.ratios strong { font-size: 26px; line-height: 1.15; white-space: nowrap; font-variant-numeric: tabular-nums; }
.ratios span { font-size: 14px; }
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
  private readonly layers = this.bound.slider('layers');
  private readonly norm = this.bound.choices<Placement>('norm', { text: (p) => PLACEMENT_NAMES[p] });
  private readonly zeroNote = h('em', { className: 'zero', textContent: '○ on the dashed strip: exactly 0 in float32 (underflow)' });
  private readonly setup = h('span', 'setup');
  private readonly tiles = SERIES.map(() => ({ number: h('strong'), text: h('span') }));
  private readonly conclusion = h('p', 'summary');

  constructor() {
    super(styles, 'with no norms and no residuals, layer 1 gets tens of orders of magnitude less gradient than the last; a LayerNorm in every sub-layer prevents that, yet the stream collapses.');
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const [layers, placement] = [this.value<number>('layers'), this.value<Placement>('norm')];
    const options = { layers, d: WIDTH, n: POSITIONS, seed: SEED, ...PLACEMENT_OPTIONS[placement] };
    const [withSkips, withoutSkips] = await Promise.all([
      engine.depthGradients({ ...options, residual: true }),
      engine.depthGradients({ ...options, residual: false }),
    ]);
    const measured: Measured = { with: withSkips, without: withoutSkips };
    this.zeroNote.hidden = !SERIES.some((s) => [...measured[s.key].parameterGradientNorms, ...measured[s.key].activationNorms].includes(0));
    const where = `${PLACEMENT_NAMES[placement]}, ${layers} layers`;
    this.drawNorms(this.gradients, measured, 'parameterGradientNorms', 1, layers, `parameter gradient norm per layer (${where})`, 'layer');
    this.drawNorms(this.stream, measured, 'activationNorms', 0, layers, `norm of the stream after l layers (${where})`, 'after l layers');
    this.setup.textContent = `${layers} layers, ${PLACEMENT_NAMES[placement]}, d = ${WIDTH}, ${POSITIONS} positions, seed ${SEED}`;

    SERIES.forEach((s, k) => {
      const norms = measured[s.key].parameterGradientNorms;
      const first = norms[0];
      const last = norms[layers - 1];
      const tile = this.tiles[k];
      tile.number.textContent = formatFactor(first, last);
      tile.text.textContent = first === 0
        ? `${s.name}: layer 1’s gradient is exactly 0 in float32 (it underflowed on the way down); layer ${layers} gets ${formatMagnitude(last)}`
        : `${s.name}: layer 1’s gradient (${formatMagnitude(first)}) over layer ${layers}’s (${formatMagnitude(last)})`;
    });
    this.conclusion.textContent = this.summary(measured, layers);
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
        format: formatNorm,
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

  protected override layout(): HTMLElement[] {
    return [
      h('div', 'controls', this.layers.element, this.norm.element),
      h('div', 'legend', ...SERIES.map((s) => h('span', { className: 'series', textContent: s.name, attrs: { style: `--swatch: ${s.colour}` } })),
        this.zeroNote, this.setup),
      h('div', 'plots', this.gradients.element, this.stream.element),
      h('div', { className: 'ratios', attrs: { 'aria-live': 'polite' } }, ...SERIES.map((s, k) =>
        h('div', { className: 'panel', attrs: { style: `border-left: 6px solid ${s.colour}` } }, this.tiles[k].number, this.tiles[k].text))),
      this.conclusion,
    ];
  }
}
