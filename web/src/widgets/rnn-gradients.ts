// <attn-rnn-gradients>: why recurrence is a bottleneck, measured by the engine on one seeded
// sequence. The loss reads only the last position; the plot shows how much gradient each input
// x_t receives through a tanh RNN (T − t Jacobians away) and through one causal attention head
// (one step away), and how ‖∂h_t/∂h_1‖ shrinks or grows along the recurrence.
// Settings: length (T), scale (W_hh = scale · a random orthogonal matrix).
import type { RemoteEngine } from '../app/engine';
import { limitsOf } from '../app/state';
import { formatSignificant } from '../math/format';
import { EngineElement } from '../primitives/engine-element';
import { Plot, SERIES_COLOURS } from '../primitives/plot';
import { slider } from '../primitives/slider';

const styles = `
.controls { display: flex; flex-wrap: wrap; gap: 8px 24px; margin: 0 0 10px; }
.controls output { min-width: 2.6em; }
.steps { display: flex; flex-wrap: wrap; gap: 14px; margin: 0 0 10px; }
.steps .panel { flex: 1; display: flex; align-items: baseline; gap: 12px; padding: 6px 14px; }
.steps strong { font-size: 40px; line-height: 1.1; font-variant-numeric: tabular-nums; }
/* the tile's edge has its curve's colour (the number itself stays in the text colour, readable in both themes) */
.steps .rnn { border-left: 6px solid ${SERIES_COLOURS.vermillion}; }
.steps .attention { border-left: 6px solid ${SERIES_COLOURS.blue}; }
.readout { margin: 8px 0 0; font-size: 14px; font-variant-numeric: tabular-nums; }
`;

export class RnnGradients extends EngineElement {
  static readonly observedAttributes = EngineElement.attributesOf('attn-rnn-gradients');
  private readonly plot = new Plot({ xLabel: 'position t', yLabel: 'norm (log scale)', yLog: true, width: 700, height: 330 });
  private view?: ReturnType<RnnGradients['build']>;

  constructor() {
    super(styles, 'the RNN’s gradient at t = 1 is many orders of magnitude below t = T; attention’s stays level.');
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const length = this.value<number>('length');
    const scale = this.value<number>('scale');
    const view = (this.view ??= this.build());
    if (!view.root.isConnected) this.body.replaceChildren(view.root);
    view.length.set(length);
    view.scale.set(scale);
    const flow = await engine.rnnGradientFlow({ length, recurrentScale: scale, seed: 1 });
    const t = Array.from({ length }, (_, i) => i + 1);
    this.plot.draw([
      { name: 'RNN: ‖∂L/∂xₜ‖', x: t, y: flow.rnnGradientNorms, colour: SERIES_COLOURS.vermillion },
      { name: 'attention: ‖∂L/∂xₜ‖', x: t, y: flow.attentionGradientNorms, colour: SERIES_COLOURS.blue },
      { name: 'RNN: ‖∂hₜ/∂h₁‖', x: t, y: flow.jacobianNorms, colour: SERIES_COLOURS.green, style: 'dashed' },
    ]);
    view.rnnSteps.textContent = String(flow.sequentialSteps.rnn);
    view.attentionSteps.textContent = String(flow.sequentialSteps.attention);
    const firstOverLast = (norms: Float32Array) => formatSignificant(norms[0] / norms[length - 1], 2);
    view.readout.textContent =
      `Gradient reaching x₁ relative to x_T: RNN ${firstOverLast(flow.rnnGradientNorms)}, ` +
      `attention ${firstOverLast(flow.attentionGradientNorms)}. ‖∂h_T/∂h₁‖ = ${formatSignificant(flow.jacobianNorms[length - 1], 2)}.`;
  }

  private build() {
    const root = document.createElement('div');
    const controls = document.createElement('div');
    controls.className = 'controls';
    const length = slider({ label: 'sequence length T', ...limitsOf(this.localName, 'length'), value: 64,
      onInput: (value) => this.change({ length: value }) });
    const scale = slider({ label: 'recurrent scale', ...limitsOf(this.localName, 'scale'), value: 1,
      format: (value) => value.toFixed(2), onInput: (value) => this.change({ scale: value }) });
    length.element.dataset.control = 'length';
    scale.element.dataset.control = 'scale';
    controls.append(length.element, scale.element);
    const steps = document.createElement('div');
    steps.className = 'steps';
    const tile = (kind: string, text: string) => {
      const panel = document.createElement('div');
      panel.className = `panel ${kind}`;
      const number = document.createElement('strong');
      const label = document.createElement('span');
      label.textContent = text;
      panel.append(number, label);
      steps.append(panel);
      return number;
    };
    const rnnSteps = tile('rnn', 'sequential steps for the RNN: h₁, then h₂, … then h_T');
    const attentionSteps = tile('attention', 'step for one attention layer: all positions at once');
    const readout = document.createElement('p');
    readout.className = 'readout';
    readout.setAttribute('aria-live', 'polite');
    root.append(controls, steps, this.plot.element, readout);
    return { root, length, scale, rnnSteps, attentionSteps, readout };
  }
}

customElements.get('attn-rnn-gradients') ?? customElements.define('attn-rnn-gradients', RnnGradients);
