// <attn-attention-map>: one head's attention weights in the shipped coreference model, as a heatmap
// with the sentence's words on both axes (rows: the word looking, columns: the words it looks at).
// A fixed picture (the title slide's), not page state. Attributes: sentence, layer, head, compact
// (no hint line, sized for a slide's side column).
import type { RemoteEngine } from '../runtime/engine';
import { readSentence, runModel, weightsName } from '../runtime/coreference-reading';
import { SEMINAR_SENTENCE } from '../runtime/registry';
import { shortLabel } from '../math/text';
import { h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { Heatmap } from '../primitives/heatmap';

const styles = `
:host([compact]) .hint, :host([compact]) .share { display: none; }
.title { margin: 0 0 4px; font-size: 14px; font-weight: 600; }
`;

const LABEL_CHARS = 12;

/** a whole-number attribute within [0, max]; 0 when absent or not a whole number */
function wholeNumber(text: string | null, max: number): number {
  const value = Number(text);
  return Number.isInteger(value) ? Math.min(max, Math.max(0, value)) : 0;
}

export default class AttentionMap extends EngineElement {
  private readonly heading = h('p', 'title');
  private readonly map = new Heatmap({ xLabel: 'key word', yLabel: 'query word', tint: 'weights', width: 290, height: 270 });

  constructor() {
    super(styles, 'each row is one word\'s attention over the sentence and sums to 1; the row of “it” lights up where the model finds what “it” means.', { models: ['coreference'] });
  }

  /** in place before the first draw: the labels take the text colour the page gives the widget */
  protected override layout(): HTMLElement[] {
    return [this.heading, this.map.element];
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const reading = await readSentence(engine, this.getAttribute('sentence') ?? SEMINAR_SENTENCE);
    if (!reading.tokens.length) throw new Error('The sentence has no words.');
    const layer = wholeNumber(this.getAttribute('layer'), reading.config.n_layers - 1);
    const head = wholeNumber(this.getAttribute('head'), reading.config.n_heads - 1);
    const name = weightsName(layer, head);
    const { trace } = await runModel(reading, [name]);
    const compact = this.hasAttribute('compact');
    const labels = reading.labels.map((l) => shortLabel(l, LABEL_CHARS));
    this.heading.textContent = `Attention weights, layer ${layer}, head ${head}`;
    this.map.configure({ rowLabels: labels, colLabels: labels, width: compact ? 290 : 360, height: compact ? 270 : 340 });
    this.map.setHighlight(reading.pronoun >= 0 ? { row: reading.pronoun } : undefined);
    this.map.draw(trace[name]);
  }
}
