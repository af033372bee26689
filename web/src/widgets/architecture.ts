// <attn-architecture>: the Transformer's block diagram drawn from a live model: its config decides
// the stacks, the order of norm and sub-layer (pre- or post-LN), the norm and the N of each stack,
// the heads (grouped or not), the FFN's non-linearity and where positions enter, and every arrow
// carries the shape of the tensor the engine traced there in a real forward pass. A norm is a tab
// of its sub-layer's box (below it in pre-LN, above it in post-LN), the shape crossing their seam
// beside it. The slide shows the diagram at its own size, its text 14 px. A shipped model stands
// for each family; a model the reader opened is drawn instead, from its own config.
// Clicking a block goes to the slide that explains it. In a box too narrow for stacks side by side
// (a phone), the stacks stand one above the other and each box holds its notes.
// Settings: model (an opened model, instead of the family), family (encoder-decoder | encoder | decoder).
import { pageModel, type RemoteEngine, type RemoteModel } from '../runtime/engine';
import type { OpenedModel } from '../runtime/opened-models';
import { SEMINAR_SENTENCE } from '../runtime/registry';
import type { MatrixData, ModelConfig } from '../engine/index';
import { architectureStacks, DIAGRAM, diagramLayout, openedModelTitle, type PlacedBlock, type Stack } from '../math/architecture';
import { h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';

const styles = `
.about { margin: 2px 0 6px; font-size: 14px; }
/* at its own size (its text is 14 px there: see DIAGRAM), in the narrow layout where the wide one has no room */
svg { display: block; width: auto; height: auto; max-width: 100%; margin: 0 auto; }
svg text { fill: var(--fg); font: 14px system-ui, "DejaVu Sans", sans-serif; }
/* a halo of the page's colour keeps a shape readable where it crosses a stack's dashed frame */
svg .shape { fill: var(--muted); font-variant-numeric: tabular-nums; paint-order: stroke; stroke: var(--bg); stroke-width: 5px; stroke-linejoin: round; }
svg .box path { fill: var(--panel); stroke: var(--border); stroke-width: 1.5; }
svg a:hover path, svg a:focus path { stroke: var(--accent); stroke-width: 2.5; }
svg a:focus { outline: none; }
svg .attention path { fill: color-mix(in srgb, #0072B2 16%, var(--panel)); }
svg .ffn path { fill: color-mix(in srgb, #009E73 16%, var(--panel)); }
svg .norm path { fill: color-mix(in srgb, #E69F00 18%, var(--panel)); }
svg .stack { fill: none; stroke: var(--muted); stroke-dasharray: 5 4; }
svg .arrow { stroke: var(--muted); stroke-width: 1.5; fill: none; marker-end: url(#head); }
svg marker path { fill: var(--muted); }
svg .repeat { font-weight: 700; font-size: 15px; }
svg .title { font-weight: 700; font-size: 15px; }
svg .sizes, svg .note { fill: var(--muted); font-variant-numeric: tabular-nums; }
`;

type Family = 'encoder-decoder' | 'encoder' | 'decoder';

/** what a diagram is drawn from: a model's config, what it traced reading its tokens, a line saying
 * what it is, and the name of an opened model */
type Run = { config: Required<ModelConfig>; trace: Record<string, MatrixData>; about: string; name?: string };

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
  opened: 'what this model does its own way: its norm in the boxes, its heads, positions and FFN in the notes beside them; every arrow still keeps n × d.',
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
  /** the stacks drawn, and whether in the narrow layout (the figure's box narrower than the wide one) */
  private stacks?: Stack[];
  private narrow?: boolean;
  private readonly resized = new ResizeObserver(() => this.fitDiagram());
  private untrained?: RemoteModel;

  constructor() {
    super(styles, HINTS.shipped, { models: ['coreference', 'sort'] });
    this.resized.observe(this.figure);
  }

  /** the diagram in the layout its box has room for: side by side, or narrow (a phone) */
  private fitDiagram(): void {
    if (!this.stacks) return;
    const room = this.figure.clientWidth;
    const narrow = room > 0 && room < diagramLayout(this.stacks).width;
    if (narrow === this.narrow) return;
    this.narrow = narrow;
    this.figure.replaceChildren(this.diagram(this.stacks, narrow));
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
    this.stacks = architectureStacks(config, trace, name);
    this.narrow = undefined;
    this.fitDiagram();
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
      about: `Untrained, at the coreference model's size: the encoder reads “${SEMINAR_SENTENCE}” ` +
        `(n = ${source.length}), the decoder “the cat sat” (m = ${target.length}).` };
  }

  private diagram(stacks: Stack[], narrow: boolean): SVGSVGElement {
    const { width, height, stacks: placed, link } = diagramLayout(stacks, { narrow });
    const svg = el('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': 'block diagram of the model with tensor shapes' },
      el('defs', {}, el('marker', { id: 'head', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 5, markerHeight: 5, orient: 'auto' },
        el('path', { d: 'M0,0 L10,5 L0,10 z' }))));
    for (const { stack, x, width: boxWidth, headingY, blocks, notes, repeat, frame } of placed) {
      const middle = x + boxWidth / 2;
      svg.append(el('text', { x: middle, y: headingY, 'text-anchor': 'middle' },
        el('tspan', { class: 'title' }, stack.title), el('tspan', { class: 'sizes', dx: DIAGRAM.titleGap }, stack.sizes)));
      if (frame) {
        svg.append(el('rect', { x: x - DIAGRAM.frame, y: frame.y, width: boxWidth + 2 * DIAGRAM.frame, height: frame.height, rx: 10, class: 'stack' }),
          el('text', { x: repeat.x, y: repeat.y, 'text-anchor': repeat.anchor, class: 'repeat' }, `${stack.layers}×`));
      }
      blocks.forEach(({ block, y, height: tall, label, labelY, notesY, notes: lines }: PlacedBlock, k) => {
        const about = block.notes ? `${block.label} (${block.notes.join('; ')})` : block.label;
        // a norm and its sub-layer make one box: square where they meet
        const square = { top: blocks[k + 1]?.block.joined === true, bottom: block.joined === true };
        svg.append(el('a', { href: `#${block.slide}`, class: `box ${block.kind}` },
          el('title', {}, `${about}: go to its slide`),
          el('path', { d: outline(x, y, boxWidth, tall, square) }),
          el('text', { x: middle, y: labelY, 'text-anchor': 'middle' }, ...label.map((line, i) =>
            (i === 0 ? line : el('tspan', { x: middle, dy: DIAGRAM.noteLine }, ` ${line}`))))));
        const below = y + tall;
        if (k > 0 && !block.joined) svg.append(el('line', { x1: middle, y1: below + DIAGRAM.gap, x2: middle, y2: below + 1, class: 'arrow' }));
        if (block.shapeIn) {
          // beside the arrow that brings it, or at the seam it crosses
          svg.append(block.joined
            ? el('text', { x: x + boxWidth + DIAGRAM.beside, y: below + 5, class: 'shape' }, block.shapeIn)
            : el('text', { x: middle + 8, y: below + DIAGRAM.gap / 2 + 5, class: 'shape' }, block.shapeIn));
        }
        if (lines.length) {
          svg.append(el('g', { class: 'notes' }, ...lines.map((line, i) =>
            el('text', { x: notes.x, y: notesY + i * DIAGRAM.noteLine, 'text-anchor': notes.anchor, class: 'note' }, line))));
        }
      });
    }
    // the encoder's output feeds every decoder layer's cross-attention
    if (link) {
      const { x, y, anchor, turned } = link.label;
      svg.append(el('path', { d: link.path, class: 'arrow' }),
        el('text', { x, y, 'text-anchor': anchor, class: 'shape', ...(turned ? { transform: `rotate(90 ${x} ${y})` } : {}) }, placed[0].stack.output));
    }
    return svg;
  }

  protected override layout(): HTMLElement {
    return h('div', {}, h('div', 'toolbar', this.modelList.element, this.family.element), this.about, this.figure);
  }
}

/** a box's outline from its top left corner, its corners rounded but where it meets the block above
 * or below it (`square`) */
function outline(x: number, y: number, width: number, height: number, square: { top: boolean; bottom: boolean }): string {
  const [top, bottom] = [square.top ? 0 : 6, square.bottom ? 0 : 6];
  return `M${x},${y + top} a${top},${top} 0 0 1 ${top},${-top} h${width - 2 * top} a${top},${top} 0 0 1 ${top},${top}`
    + ` v${height - top - bottom} a${bottom},${bottom} 0 0 1 ${-bottom},${bottom} h${-(width - 2 * bottom)}`
    + ` a${bottom},${bottom} 0 0 1 ${-bottom},${-bottom} z`;
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
