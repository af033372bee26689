// <attn-rnn-gradients>: why recurrence is a bottleneck, measured by the engine on one seeded
// sequence. The loss reads only the last position; the plot shows how much gradient each input
// x_t receives through a tanh RNN (T − t Jacobians away) and through one causal attention head
// (one step away), and how ‖∂h_t/∂h_1‖ shrinks or grows along the recurrence.
// Settings: length (T), scale (W_hh = scale · a random orthogonal matrix).
import type { RemoteEngine } from '../runtime/engine';
import { formatSignificant } from '../math/format';
import { h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { Plot, SERIES_COLOURS } from '../primitives/plot';

const styles = `
.toolbar output { min-width: 2.6em; }
.steps { display: flex; flex-wrap: wrap; gap: 14px; margin: 0 0 10px; }
.steps .panel { flex: 1; display: flex; align-items: baseline; gap: 12px; padding: 6px 14px; }
.steps strong { font-size: 40px; line-height: 1.1; font-variant-numeric: tabular-nums; }
/* the tile's edge has its curve's colour (the number itself stays in the text colour, readable in both themes) */
.steps .rnn { border-left: 6px solid ${SERIES_COLOURS.vermillion}; }
.steps .attention { border-left: 6px solid ${SERIES_COLOURS.blue}; }
.readout { margin: 8px 0 0; font-size: 14px; font-variant-numeric: tabular-nums; }
`;

export default class RnnGradients extends EngineElement {
  private readonly plot = new Plot({ xLabel: 'position t', yLabel: 'norm (log scale)', yLog: true, width: 700, height: 330 });
  private readonly length = this.bound.slider('length');
  private readonly scale = this.bound.slider('scale', { format: (value) => value.toFixed(2) });
  /** the sequential steps of each, as big numbers */
  private readonly steps = { rnn: h('strong'), attention: h('strong') };
  private readonly readout = h('p', { className: 'readout', attrs: { 'aria-live': 'polite' } });

  constructor() {
    super(styles, 'the RNN’s gradient at t = 1 is many orders of magnitude below t = T; attention’s stays level.');
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const length = this.value<number>('length');
    const scale = this.value<number>('scale');
    const flow = await engine.rnnGradientFlow({ length, recurrentScale: scale, seed: 1 });
    const t = Array.from({ length }, (_, i) => i + 1);
    // the axis ends at t = T, where the curves do
    this.plot.configure({ xRange: [1, length] });
    this.plot.draw([
      { name: 'RNN: ‖∂L/∂xₜ‖', x: t, y: flow.rnnGradientNorms, colour: SERIES_COLOURS.vermillion },
      { name: 'attention: ‖∂L/∂xₜ‖', x: t, y: flow.attentionGradientNorms, colour: SERIES_COLOURS.blue },
      { name: 'RNN: ‖∂hₜ/∂h₁‖', x: t, y: flow.jacobianNorms, colour: SERIES_COLOURS.green, style: 'dashed' },
    ]);
    for (const kind of ['rnn', 'attention'] as const) this.steps[kind].textContent = String(flow.sequentialSteps[kind]);
    const firstOverLast = (norms: Float32Array) => formatSignificant(norms[0] / norms[length - 1], 2);
    this.readout.textContent =
      `Gradient reaching x₁ relative to x_T: RNN ${firstOverLast(flow.rnnGradientNorms)}, ` +
      `attention ${firstOverLast(flow.attentionGradientNorms)}. ‖∂h_T/∂h₁‖ = ${formatSignificant(flow.jacobianNorms[length - 1], 2)}.`;
  }

  protected override layout(): HTMLElement {
    const tile = (kind: 'rnn' | 'attention', text: string) => h('div', `panel ${kind}`, this.steps[kind], h('span', { textContent: text }));
    return h('div', {},
      h('div', 'toolbar', this.length.element, this.scale.element),
      h('div', 'steps',
        tile('rnn', 'sequential steps for the RNN: h₁, then h₂, … then h_T'),
        tile('attention', 'step for one attention layer: all positions at once')),
      this.plot.element, this.readout);
  }
}
