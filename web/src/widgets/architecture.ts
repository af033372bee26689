// <attn-architecture>: the Transformer's block diagram drawn from a live model: its config decides
// the stacks, the order of norm and sub-layer (pre- or post-LN), the norm and the N of each stack,
// the heads (grouped or not), the FFN's non-linearity and where positions enter, and every arrow
// carries the shape of the tensor the engine traced there in a real forward pass. A shipped model
// stands for each family; a model the reader opened is drawn instead, from its own config.
// Clicking a block goes to the slide that explains it.
// Settings: model (an opened model, instead of the family), family (encoder-decoder | encoder | decoder).
import { pageModel, type RemoteEngine, type RemoteModel } from '../runtime/engine';
import type { OpenedModel } from '../runtime/opened-models';
import { SEMINAR_SENTENCE } from '../runtime/registry';
import type { MatrixData, ModelConfig } from '../engine/index';
import { architectureStacks, openedModelTitle, type Block, type Stack } from '../math/architecture';
import { h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';

const styles = `
.about { margin: 2px 0 6px; font-size: 14px; }
svg { display: block; height: 445px; width: auto; max-width: 100%; }
/* a phone: the diagram at its own size (its width and height), scrolled sideways to its notes */
@media (max-width: 799px) { .figure { overflow-x: auto; } svg { width: auto; height: auto; max-width: none; } }
svg text { fill: var(--fg); font: 13px system-ui, "DejaVu Sans", sans-serif; }
/* a halo of the page's colour keeps a shape readable where it crosses a stack's dashed frame */
svg .shape { fill: var(--muted); font-size: 12px; font-variant-numeric: tabular-nums; paint-order: stroke; stroke: var(--bg); stroke-width: 5px; stroke-linejoin: round; }
svg .box rect { fill: var(--panel); stroke: var(--border); stroke-width: 1.5; }
svg a:hover rect, svg a:focus rect { stroke: var(--accent); stroke-width: 2.5; }
svg a:focus { outline: none; }
svg .attention rect { fill: color-mix(in srgb, #0072B2 16%, var(--panel)); }
svg .ffn rect { fill: color-mix(in srgb, #009E73 16%, var(--panel)); }
svg .norm rect { fill: color-mix(in srgb, #E69F00 18%, var(--panel)); }
svg .stack { fill: none; stroke: var(--muted); stroke-dasharray: 5 4; }
svg .arrow { stroke: var(--muted); stroke-width: 1.5; fill: none; marker-end: url(#head); }
svg marker path { fill: var(--muted); }
svg .repeat { font-weight: 700; font-size: 15px; }
svg .title { font-weight: 700; font-size: 14px; }
svg .sizes, svg .note { fill: var(--muted); font-size: 12px; font-variant-numeric: tabular-nums; }
`;

type Family = 'encoder-decoder' | 'encoder' | 'decoder';

/** what a diagram is drawn from: a model's config, what it traced reading its tokens, a line saying
 * what it is, and the name of an opened model */
type Run = { config: Required<ModelConfig>; trace: Record<string, MatrixData>; about: string; name?: string };

const BOX = { width: 270, height: 30, gap: 22 };
/** above the blocks: each stack's title and sizes */
const HEADING = 56;
/** a box's notes: 12px lines, beside it at `gap`; their width is guessed from their characters
 * (the SVG is drawn before it is laid out, and may never be while its slide is hidden) */
const NOTE = { line: 14, gap: 22, char: 7.2 };
/** left of a lone stack, for its N×; between an encoder and a decoder, for both N× and the cross arrow */
const REPEAT_ROOM = 70;
const BETWEEN = 110;
const MARGIN = 12;
const NAMES: Record<Family, string> = {
  'encoder-decoder': 'Encoder–decoder (original)', encoder: 'Encoder only (BERT)', decoder: 'Decoder only (GPT)',
};
/** the shipped, trained models the one-stack families are drawn from, and what they read */
const SHIPPED = {
  encoder: { model: 'coreference', text: SEMINAR_SENTENCE,
    about: (n: number) => `The shipped coreference model (BERT-like, trained), reading “${SEMINAR_SENTENCE}”: n = ${n} tokens.` },
  decoder: { model: 'sort', text: 'attention',
    about: (n: number) => `The shipped sorting model (GPT-like, trained), reading the letters of “attention”: n = ${n} tokens.` },
} as const;
const HINTS = {
  shipped: 'the same block repeats N times; only its shapes change between the encoder and the decoder, and every arrow keeps n × d.',
  opened: 'what this model does its own way: its norm in the boxes; its heads over K/V heads, where positions enter and its FFN '
    + 'in the notes beside them. Every arrow still keeps n × d.',
};

export default class Architecture extends EngineElement {
  private readonly runs = new Map<Family, Promise<Run>>();
  /** an opened model's diagram, for as long as that model is in the engine */
  private readonly openedRuns = new WeakMap<RemoteModel, Promise<Run>>();
  // its shipped entry stands for the three families of the buttons beside it
  private readonly modelList = this.bound.model('sort', [], 'families');
  private readonly family = this.bound.choices<Family>('family', { text: (family) => NAMES[family], showName: false });
  private readonly about = h('p', 'about muted');
  private readonly figure = h('div', 'figure');
  private untrained?: RemoteModel;

  constructor() {
    super(styles, HINTS.shipped, { models: ['coreference', 'sort'] });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    void this.untrained?.dispose();
    this.untrained = undefined;
    this.runs.delete('encoder-decoder');
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const { opened } = await this.modelInUse('sort');
    const { config, trace, about, name } = await (opened ? this.openedRun(opened) : this.familyRun(engine, this.value<Family>('family')));
    // an opened model is one decoder: the family buttons would choose nothing
    this.family.element.hidden = opened !== undefined;
    this.setHint(opened ? HINTS.opened : HINTS.shipped);
    this.about.textContent = about;
    this.figure.replaceChildren(this.diagram(architectureStacks(config, trace, name)));
  }

  private familyRun(engine: RemoteEngine, family: Family): Promise<Run> {
    let run = this.runs.get(family);
    if (!run) {
      run = this.run(engine, family);
      this.runs.set(family, run);
      run.catch(() => this.runs.delete(family));
    }
    return run;
  }

  /** the opened model reading the seminar sentence (as much of it as its context holds) */
  private openedRun({ name, summary, model }: OpenedModel): Promise<Run> {
    let run = this.openedRuns.get(model);
    if (!run) {
      run = (async () => {
        const config = await model.config();
        const ids = (await model.tokenize(SEMINAR_SENTENCE)).ids.slice(0, config.n_ctx);
        const { trace = {} } = await model.forward({ tokens: ids, trace: true });
        return { config, trace, name,
          about: `${openedModelTitle(name, summary.family, config.n_layers)}, opened here in place of the families, reading “${SEMINAR_SENTENCE}”: n = ${ids.length} tokens.` };
      })();
      this.openedRuns.set(model, run);
      run.catch(() => this.openedRuns.delete(model));
    }
    return run;
  }

  private async run(engine: RemoteEngine, family: Family): Promise<Run> {
    if (family !== 'encoder-decoder') {
      const { model: name, text, about } = SHIPPED[family];
      const model = await pageModel(name);
      const { ids } = await model.tokenize(text);
      const { trace = {} } = await model.forward({ tokens: ids, trace: true });
      return { config: await model.config(), trace, about: about(ids.length) };
    }
    // the original layout, at the coreference model's size, with seeded untrained weights: the
    // shapes are what this diagram shows, and they do not depend on training
    const coreference = await pageModel('coreference');
    const base = await coreference.config();
    const { vocab } = await coreference.save();
    this.untrained ??= await engine.createModel({
      config: { ...base, architecture: 'encoder_decoder', n_decoder_layers: base.n_layers, positional: 'sinusoidal' },
      seed: 1, vocab,
    });
    const source = (await this.untrained.tokenize(SEMINAR_SENTENCE)).ids;
    const target = (await this.untrained.tokenize('the cat sat')).ids;
    const { trace = {} } = await this.untrained.forward({ tokens: target, source, trace: true });
    return { config: await this.untrained.config(), trace,
      about: `The original encoder–decoder layout at the same size (seeded, untrained weights): the encoder reads ` +
        `“${SEMINAR_SENTENCE}” (n = ${source.length}), the decoder “the cat sat” (m = ${target.length}).` };
  }

  private diagram(stacks: Stack[]): SVGSVGElement {
    const notesWidth = (stack: Stack) => {
      const longest = Math.max(0, ...stack.blocks.flatMap((b) => b.notes ?? []).map((line) => [...line].length));
      return longest ? Math.ceil(longest * NOTE.char) + NOTE.gap : 0;
    };
    // each stack's notes on its outer side and its N× on the inner one: an encoder's notes go left,
    // clear of the arrow that carries its output to the decoder
    const columns = stacks.length === 2
      ? [{ x: MARGIN + notesWidth(stacks[0]), notesLeft: true }, { x: MARGIN + notesWidth(stacks[0]) + BOX.width + BETWEEN, notesLeft: false }]
      : [{ x: REPEAT_ROOM, notesLeft: false }];
    const width = columns[columns.length - 1].x + BOX.width + notesWidth(stacks[stacks.length - 1]) + MARGIN;
    const rows = Math.max(...stacks.map((s) => s.blocks.length));
    const height = HEADING + rows * (BOX.height + BOX.gap) - BOX.gap + 10;
    const svg = el('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': 'block diagram of the model with tensor shapes' },
      el('defs', {}, el('marker', { id: 'head', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto' },
        el('path', { d: 'M0,0 L10,5 L0,10 z' }))));
    // y of block k, counted from the bottom (data flows upwards, as in the paper's figure)
    const top = (k: number) => height - 10 - (k + 1) * (BOX.height + BOX.gap) + BOX.gap;
    stacks.forEach((stack, s) => {
      const { x, notesLeft } = columns[s];
      const middle = x + BOX.width / 2;
      svg.append(el('text', { x: middle, y: 18, 'text-anchor': 'middle', class: 'title' }, stack.title),
        el('text', { x: middle, y: 36, 'text-anchor': 'middle', class: 'sizes' }, stack.sizes));
      const repeated = stack.blocks.map((b, k) => (b.repeated ? k : -1)).filter((k) => k >= 0);
      if (repeated.length) {
        const lo = top(repeated[repeated.length - 1]) - 8;
        const hi = top(repeated[0]) + BOX.height + 8;
        const repeat = notesLeft ? { x: x + BOX.width + 20, 'text-anchor': 'start' } : { x: x - 20, 'text-anchor': 'end' };
        svg.append(el('rect', { x: x - 12, y: lo, width: BOX.width + 24, height: hi - lo, rx: 10, class: 'stack' }),
          el('text', { ...repeat, y: (lo + hi) / 2, class: 'repeat' }, `${stack.layers}×`));
      }
      stack.blocks.forEach((block: Block, k) => {
        const y = top(k);
        const about = block.notes ? `${block.label} (${block.notes.join('; ')})` : block.label;
        svg.append(el('a', { href: `#${block.slide}`, class: `box ${block.kind}` },
          el('title', {}, `${about}: go to its slide`),
          el('rect', { x, y, width: BOX.width, height: BOX.height, rx: 6 }),
          el('text', { x: middle, y: y + BOX.height / 2 + 4, 'text-anchor': 'middle' }, block.label)));
        if (k > 0) svg.append(el('line', { x1: middle, y1: y + BOX.height + BOX.gap, x2: middle, y2: y + BOX.height + 1, class: 'arrow' }));
        if (block.shapeIn) svg.append(el('text', { x: middle + 8, y: y + BOX.height + BOX.gap / 2 + 5, class: 'shape' }, block.shapeIn));
        if (block.notes) {
          // the lines centred on the box
          const first = y + BOX.height / 2 + 4 - ((block.notes.length - 1) * NOTE.line) / 2;
          const side = notesLeft ? { x: x - NOTE.gap, 'text-anchor': 'end' } : { x: x + BOX.width + NOTE.gap, 'text-anchor': 'start' };
          svg.append(el('g', { class: 'notes' }, ...block.notes.map((line, i) => el('text', { ...side, y: first + i * NOTE.line, class: 'note' }, line))));
        }
      });
    });
    // the encoder's output feeds every decoder layer's cross-attention
    const crossRow = stacks[1]?.blocks.findIndex((b) => b.kind === 'attention' && b.cross);
    if (stacks.length === 2 && crossRow !== undefined && crossRow >= 0) {
      const from = { x: columns[0].x + BOX.width, y: top(stacks[0].blocks.length - 1) + BOX.height / 2 };
      const to = { x: columns[1].x, y: top(crossRow) + BOX.height / 2 };
      svg.append(el('path', { d: `M${from.x},${from.y} C${from.x + 50},${from.y} ${to.x - 50},${to.y} ${to.x - 2},${to.y}`, class: 'arrow' }),
        el('text', { x: (from.x + to.x) / 2, y: Math.min(from.y, to.y) - 6, 'text-anchor': 'middle', class: 'shape' }, stacks[0].output));
    }
    return svg;
  }

  protected override layout(): HTMLElement {
    return h('div', {}, h('div', 'toolbar', this.modelList.element, this.family.element), this.about, this.figure);
  }
}

/** an SVG element with its attributes and children (text for a string) */
function el<K extends keyof SVGElementTagNameMap>(
  tag: K, attributes: Record<string, string | number>, ...children: (Node | string)[]
): SVGElementTagNameMap[K] {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, String(v));
  node.append(...children);
  return node;
}
