// <attn-architecture>: the Transformer's block diagram drawn from a live model: its config decides
// the stacks, the order of norm and sub-layer (pre- or post-LN), the norm and the N of each stack,
// and every arrow carries the shape of the tensor the engine traced there in a real forward pass.
// Clicking a block goes to the slide that explains it.
// Settings: family (encoder-decoder | encoder | decoder).
import { pageModel, type RemoteEngine, type RemoteModel } from '../runtime/engine';
import { SEMINAR_SENTENCE } from '../runtime/registry';
import type { MatrixData, ModelConfig } from '../engine/index';
import { architectureStacks, type Block } from '../math/architecture';
import { h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';

const styles = `
.about { margin: 2px 0 6px; font-size: 14px; }
svg { display: block; height: 445px; width: auto; max-width: 100%; }
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
`;

type Family = 'encoder-decoder' | 'encoder' | 'decoder';

/** what each family runs on: a model's config, what it traced reading its tokens, and a line saying what it is */
type Run = { config: Required<ModelConfig>; trace: Record<string, MatrixData>; about: string };

const BOX = { width: 270, height: 30, gap: 22 };
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

export default class Architecture extends EngineElement {
  private readonly runs = new Map<Family, Promise<Run>>();
  private readonly family = this.bound.choices<Family>('family', { text: (family) => NAMES[family], showName: false });
  private readonly about = h('p', 'about muted');
  private readonly figure = h('div');
  private untrained?: RemoteModel;

  constructor() {
    super(styles, 'the same block repeats N times; only its shapes change between the encoder and the decoder, and every arrow keeps n × d.',
      { models: ['coreference', 'sort'] });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    void this.untrained?.dispose();
    this.untrained = undefined;
    this.runs.delete('encoder-decoder');
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const family = this.value<Family>('family');
    let run = this.runs.get(family);
    if (!run) {
      run = this.run(engine, family);
      this.runs.set(family, run);
      run.catch(() => this.runs.delete(family));
    }
    const { config, trace, about } = await run;
    this.about.textContent = about;
    this.figure.replaceChildren(this.diagram(architectureStacks(config, trace)));
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

  private diagram(stacks: ReturnType<typeof architectureStacks>): SVGSVGElement {
    const columnWidth = 380;
    const rows = Math.max(...stacks.map((s) => s.blocks.length));
    const height = 40 + rows * (BOX.height + BOX.gap) + 10;
    const svg = el('svg', { viewBox: `0 0 ${columnWidth * stacks.length} ${height}`, role: 'img', 'aria-label': 'block diagram of the model with tensor shapes' },
      el('defs', {}, el('marker', { id: 'head', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto' },
        el('path', { d: 'M0,0 L10,5 L0,10 z' }))));
    // y of block k, counted from the bottom (data flows upwards, as in the paper's figure)
    const top = (k: number) => height - 10 - (k + 1) * (BOX.height + BOX.gap) + BOX.gap;
    stacks.forEach((stack, s) => {
      const x = s * columnWidth + 70;
      const middle = x + BOX.width / 2;
      svg.append(el('text', { x: middle, y: 18, 'text-anchor': 'middle', class: 'title' }, stack.title));
      const repeated = stack.blocks.map((b, k) => (b.repeated ? k : -1)).filter((k) => k >= 0);
      if (repeated.length) {
        const lo = top(repeated[repeated.length - 1]) - 8;
        const hi = top(repeated[0]) + BOX.height + 8;
        svg.append(el('rect', { x: x - 12, y: lo, width: BOX.width + 24, height: hi - lo, rx: 10, class: 'stack' }),
          el('text', { x: x - 20, y: (lo + hi) / 2, 'text-anchor': 'end', class: 'repeat' }, `${stack.layers}×`));
      }
      stack.blocks.forEach((block: Block, k) => {
        const y = top(k);
        svg.append(el('a', { href: `#${block.slide}`, class: `box ${block.kind}` },
          el('title', {}, `${block.label}: go to its slide`),
          el('rect', { x, y, width: BOX.width, height: BOX.height, rx: 6 }),
          el('text', { x: middle, y: y + BOX.height / 2 + 4, 'text-anchor': 'middle' }, block.label)));
        if (k > 0) svg.append(el('line', { x1: middle, y1: y + BOX.height + BOX.gap, x2: middle, y2: y + BOX.height + 1, class: 'arrow' }));
        if (block.shapeIn) svg.append(el('text', { x: middle + 8, y: y + BOX.height + BOX.gap / 2 + 5, class: 'shape' }, block.shapeIn));
      });
    });
    // the encoder's output feeds every decoder layer's cross-attention
    const crossRow = stacks[1]?.blocks.findIndex((b) => b.kind === 'attention' && b.cross);
    if (stacks.length === 2 && crossRow !== undefined && crossRow >= 0) {
      const from = { x: 70 + BOX.width, y: top(stacks[0].blocks.length - 1) + BOX.height / 2 };
      const to = { x: columnWidth + 70, y: top(crossRow) + BOX.height / 2 };
      svg.append(el('path', { d: `M${from.x},${from.y} C${from.x + 50},${from.y} ${to.x - 50},${to.y} ${to.x - 2},${to.y}`, class: 'arrow' }),
        el('text', { x: (from.x + to.x) / 2, y: Math.min(from.y, to.y) - 6, 'text-anchor': 'middle', class: 'shape' }, stacks[0].output));
    }
    return svg;
  }

  protected override layout(): HTMLElement {
    return h('div', {}, h('div', 'toolbar', this.family.element), this.about, this.figure);
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
