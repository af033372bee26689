// The block diagram of a model, read from its config and the shapes of a forward pass's trace, and
// where each part of it goes. DOM-free: <attn-architecture> draws what these return.
import type { CheckpointDescription, MatrixData, ModelConfig } from '../engine/attnlab.mjs';

export interface Block {
  label: string;
  kind: 'embed' | 'attention' | 'norm' | 'ffn' | 'head';
  /** id of the slide that explains it */
  slide: string;
  /** shape of the tensor arriving at this block ("10×64"), when traced */
  shapeIn?: string;
  /** inside the stack of N identical layers */
  repeated: boolean;
  cross?: boolean;
  /** drawn against the block below it, one box with it: a norm and the sub-layer it precedes or
   * follows (no arrow between them: shapeIn is what crosses the seam) */
  joined?: boolean;
  /** lines said beside the box: what its label has no room for (heads, activation, positions) and
   * the shapes traced inside it, where they differ from the n × d on the arrows */
  notes?: string[];
}

export interface Stack {
  title: string;
  /** its vocabulary and context, which no arrow shows */
  sizes: string;
  layers: number;
  /** bottom (input) to top (output) */
  blocks: Block[];
  /** shape of what leaves the stack */
  output: string;
}

/** a checkpoint's family as the reader knows it */
export const CHECKPOINT_FAMILIES: Record<CheckpointDescription['family'], string> = { gpt2: 'GPT-2', llama: 'Llama family', attnlab: 'attnlab' };

/** an opened model named with its family and depth: "gpt2 (GPT-2, 12 layers)" */
export function openedModelTitle(name: string, family: CheckpointDescription['family'], layers: number): string {
  return `${name} (${CHECKPOINT_FAMILIES[family]}, ${layers} layers)`;
}

const ACTIVATIONS: Record<Required<ModelConfig>['activation'], string> = {
  relu: 'ReLU', gelu: 'GELU', gelu_tanh: 'GELU (tanh)', swiglu: 'SwiGLU: SiLU(gate) ⊙ up',
};

export function shapeOf(trace: Record<string, MatrixData>, name: string): string | undefined {
  const m = trace[name];
  return m ? `${m.rows}×${m.cols}` : undefined;
}

/** the stacks of a model: one for encoder-only and decoder-only, encoder and decoder otherwise;
 * `name` (a model the reader opened) heads a lone stack's title, so the diagram says whose it is */
export function architectureStacks(config: Required<ModelConfig>, trace: Record<string, MatrixData>, name?: string): Stack[] {
  if (config.architecture === 'encoder_decoder') {
    return [
      stack(config, trace, 'encoder.', 'Encoder', config.n_layers, { causal: false, cross: false, head: false }),
      stack(config, trace, 'decoder.', 'Decoder', config.n_decoder_layers, { causal: true, cross: true, head: true }),
    ];
  }
  const decoder = config.architecture === 'decoder_only';
  const title = decoder ? 'Decoder only' : 'Encoder only';
  return [stack(config, trace, '', name ? `${name}: ${title.toLowerCase()}` : title, config.n_layers,
    { causal: decoder, cross: false, head: true })];
}

/** an attention sub-layer's heads, the widths its Q, K and V were traced at (K and V narrower than
 * Q under grouped-query attention, and read from the encoder in cross-attention), and where
 * positions enter it */
function attentionNotes(config: Required<ModelConfig>, trace: Record<string, MatrixData>, name: string, self: boolean): string[] {
  const heads = config.n_heads;
  const groups = config.n_kv_heads || heads;
  const notes = [groups === heads ? `${heads} heads` : `${heads} query heads over ${groups} K/V heads`];
  const [q, k, v] = ['q', 'k', 'v'].map((part) => shapeOf(trace, `${name}.${part}`));
  const widths = q === k && k === v ? `Q, K, V ${q}` : k === v ? `Q ${q} · K, V ${k}` : `Q ${q} · K ${k} · V ${v}`;
  notes.push(`d_k = ${config.d_model / heads}${q ? ` · ${widths}` : ''}`);
  if (self && config.positional === 'rope') notes.push('RoPE rotates Q and K');
  if (self && config.positional === 'alibi') notes.push('ALiBi biases scores by distance');
  return notes;
}

/** the FFN's non-linearity and the width of its hidden layer (SwiGLU: both branches) */
function ffnNotes(config: Required<ModelConfig>, trace: Record<string, MatrixData>, name: string): string[] {
  const hidden = shapeOf(trace, `${name}.hidden`);
  if (!hidden) return [ACTIVATIONS[config.activation]];
  return [ACTIVATIONS[config.activation], config.activation === 'swiglu' ? `gate, up ${hidden}` : `hidden ${hidden}`];
}

function stack(config: Required<ModelConfig>, trace: Record<string, MatrixData>, prefix: string, title: string,
  layers: number, parts: { causal: boolean; cross: boolean; head: boolean }): Stack {
  const shape = (name: string) => shapeOf(trace, prefix + name);
  const norm = config.norm === 'rms_norm' ? 'RMSNorm' : 'LayerNorm';
  const blocks: Block[] = [{ label: 'Token embedding E[token]', kind: 'embed', slide: 'components', repeated: false }];
  if (config.positional === 'sinusoidal' || config.positional === 'learned') {
    blocks.push({ label: `+ ${config.positional} positions`, kind: 'embed', slide: 'positions', shapeIn: shape('embed.tokens'), repeated: false });
  }
  // one sub-layer with its norm and residual, in the order the config says
  const sublayer = (label: string, kind: Block['kind'], slide: string, norm_: string, into: string, out: string, notes: string[], cross = false) => {
    if (config.pre_norm) {
      blocks.push({ label: norm, kind: 'norm', slide: 'components', shapeIn: shape(into), repeated: true });
      blocks.push({ label: `${label} + residual`, kind, slide, shapeIn: shape(norm_), repeated: true, cross, notes, joined: true });
    } else {
      blocks.push({ label, kind, slide, shapeIn: shape(into), repeated: true, cross, notes });
      blocks.push({ label: `+ residual, ${norm}`, kind: 'norm', slide: 'components', shapeIn: shape(out), repeated: true, joined: true });
    }
  };
  sublayer(parts.causal ? 'Masked self-attention' : 'Self-attention', 'attention', parts.causal ? 'causal-mask' : 'multi-head',
    'layer0.ln_1', 'layer0.in', 'layer0.attn.out', attentionNotes(config, trace, `${prefix}layer0.attn`, true));
  if (parts.cross) {
    sublayer('Cross-attention', 'attention', 'multi-head', 'layer0.ln_cross_attn',
      config.pre_norm ? 'layer0.residual_1' : 'layer0.ln_1', 'layer0.cross.out', attentionNotes(config, trace, `${prefix}layer0.cross`, false), true);
  }
  sublayer('FFN', 'ffn', 'components', 'layer0.ln_2',
    config.pre_norm ? (parts.cross ? 'layer0.residual_cross' : 'layer0.residual_1') : (parts.cross ? 'layer0.ln_cross_attn' : 'layer0.ln_1'),
    'layer0.mlp.out', ffnNotes(config, trace, `${prefix}layer0.mlp`));
  const last = `layer${layers - 1}.out`;
  if (config.final_norm) blocks.push({ label: `Final ${norm}`, kind: 'norm', slide: 'components', shapeIn: shape(last), repeated: false });
  const output = shape(config.final_norm ? 'ln_f' : last) ?? '';
  if (parts.head) {
    blocks.push({ label: config.tie_embeddings ? 'Linear · Eᵀ (tied)' : 'Linear LM head (untied)', kind: 'head', slide: 'components', shapeIn: output, repeated: false });
    blocks.push({ label: 'Softmax → next-token probabilities', kind: 'head', slide: 'components', shapeIn: shapeOf(trace, 'logits'), repeated: false });
  }
  return { title, sizes: `vocabulary ${config.vocab_size} · context ${config.n_ctx}`, layers, blocks, output };
}

/** The diagram's measures in px. Its text is 14 px throughout, the deck's least for running text,
 * and it is drawn at its own size: compact enough that the encoder–decoder's eleven blocks fit
 * the slide's height under one line of text, with a norm drawn as a tab of its sub-layer's box. */
export const DIAGRAM = {
  /** a block's box, a norm's tab against its sub-layer's box, the gap an arrow and its shape take */
  box: 26, tab: 20, gap: 18,
  text: 14, bold: 15,
  /** above the stacks, a line with each one's title and sizes, and what separates those two */
  heading: 28, titleGap: 10,
  margin: 8,
  /** either side of a box's label */
  padding: 12,
  /** a seam's shape beside its box; the notes and the N× that far beyond what is next to the boxes */
  beside: 6, apart: 14,
  noteLine: 16,
  /** the dashed frame around the repeated blocks, out from them */
  frame: 10,
  /** the encoder's output arrow, across to the decoder */
  crossRun: 40,
  /** the longest line of a box's text in the narrow layout (a phone), wrapped at spaces beyond */
  narrowLine: 196,
} as const;

/** `text`'s width in px at `px`, an upper estimate from its characters (DejaVu Sans, the widest
 * font the page names, averages about 0.52 em): the diagram is laid out before it is shown, and
 * may never be while its slide is hidden */
export function textWidth(text: string, px: number, bold = false): number {
  return [...text].length * px * (bold ? 0.6 : 0.55);
}

/** `text` in lines of at most `width` px at the diagram's text size, broken at spaces (a word
 * longer than that keeps a line of its own) */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.length - 1;
    if (last >= 0 && textWidth(`${lines[last]} ${word}`, DIAGRAM.text) <= width) lines[last] += ` ${word}`;
    else lines.push(word);
  }
  return lines;
}

export interface PlacedBlock {
  block: Block;
  /** its top, and its height: a box, or a norm's tab when it is joined to its sub-layer */
  y: number;
  height: number;
  /** its label's and its notes' lines as written (a narrow box wraps them), and the baselines of
   * the label's first line and the notes' first line */
  label: string[];
  notes: string[];
  labelY: number;
  notesY: number;
}

export interface PlacedStack {
  stack: Stack;
  /** its boxes' left edge and width */
  x: number;
  width: number;
  /** the baseline of its title and sizes */
  headingY: number;
  /** bottom (input) to top (output), as in the stack */
  blocks: PlacedBlock[];
  /** where its notes line up: left of the boxes for the encoder of two (clear of the arrow to the
   * decoder), right, beyond the shapes at the seams, or, in a narrow diagram, inside the boxes */
  notes: { x: number; anchor: 'start' | 'end' | 'middle' };
  /** its N×, on the other side: halfway up the frame around the repeated blocks, or halfway below
   * the cross-attention, where the encoder's output comes in */
  repeat: { x: number; y: number; anchor: 'start' | 'end' };
  frame?: { y: number; height: number };
}

/** the encoder's output on its way to the decoder's cross-attention: an SVG path, and its shape's label */
export interface CrossLink { path: string; label: { x: number; y: number; anchor: 'middle' | 'start'; turned: boolean } }

export interface DiagramLayout { width: number; height: number; stacks: PlacedStack[]; link?: CrossLink }

/** Where each stack and block of the diagram goes, data flowing upwards. Wide: stacks side by side
 * (encoder left of decoder), the blocks of every stack ending on one bottom line, notes beside the
 * boxes. Narrow (a phone): notes inside the boxes under their labels, and stacks one above the
 * other, the encoder below the decoder its output rises into. */
export function diagramLayout(stacks: Stack[], { narrow = false } = {}): DiagramLayout {
  const D = DIAGRAM;
  const widest = (texts: string[], px = D.text) => Math.max(0, ...texts.map((t) => textWidth(t, px)));
  // a narrow box wraps its label, and puts each part of a note on a line of its own
  const labelOf = (b: Block) => (narrow ? wrapText(b.label, D.narrowLine) : [b.label]);
  const linesOf = (b: Block) => (narrow ? (b.notes ?? []).flatMap((note) => note.split(' · ')).flatMap((part) => wrapText(part, D.narrowLine)) : b.notes ?? []);
  const sides = stacks.map((stack, s) => {
    const notesLeft = !narrow && stacks.length === 2 && s === 0;
    const inside = narrow ? stack.blocks.flatMap(linesOf) : [];
    const width = Math.ceil(widest([...stack.blocks.flatMap(labelOf), ...inside]) + 2 * D.padding);
    const seams = stack.blocks.some((b) => b.joined && b.shapeIn)
      ? D.beside + widest(stack.blocks.filter((b) => b.joined && b.shapeIn).map((b) => b.shapeIn!)) : 0;
    const nextTo = Math.max(seams, D.frame);
    const notes = narrow ? 0 : widest(stack.blocks.flatMap((b) => b.notes ?? []));
    const repeat = stack.blocks.some((b) => b.repeated) ? D.apart + textWidth(`${stack.layers}×`, D.bold, true) : 0;
    const heading = textWidth(stack.title, D.bold, true) + D.titleGap + textWidth(stack.sizes, D.text);
    const overhang = Math.max(0, (heading - width) / 2);
    const [left, right] = notesLeft
      ? [notes ? notes + D.apart : 0, nextTo + repeat]
      : [D.frame + repeat, notes ? nextTo + D.apart + notes : seams];
    return { stack, width, nextTo, notesLeft, left: Math.ceil(Math.max(left, overhang)), right: Math.ceil(Math.max(right, overhang)) };
  });
  const last = sides.length - 1;
  const cross = stacks.length === 2 && stacks[1].blocks.some((b) => b.cross);
  // narrow: one column, the encoder's output led up on the right, its shape written along the way
  const route = { gap: 10, label: D.text + 4 };
  const columnRight = Math.max(...sides.map((s) => s.left)) + D.margin + Math.max(...sides.map((s) => s.width + s.right));
  const xs = narrow ? sides.map(() => D.margin + Math.max(...sides.map((s) => s.left))) : [D.margin + sides[0].left];
  if (!narrow && sides.length === 2) xs.push(xs[0] + sides[0].width + sides[0].right + D.crossRun + sides[1].left);
  const width = narrow ? columnRight + (cross ? route.gap + route.label : 0) + D.margin : xs[last] + sides[last].width + sides[last].right + D.margin;

  const extraLines = (b: Block) => (narrow ? labelOf(b).length - 1 + linesOf(b).length : 0);
  const heightOf = (blocks: Block[], k: number) =>
    (blocks[k].kind === 'norm' && (blocks[k].joined || blocks[k + 1]?.joined) ? D.tab : D.box + extraLines(blocks[k]) * D.noteLine);
  const tall = (blocks: Block[]) => blocks.reduce((sum, b, k) => sum + heightOf(blocks, k) + (k > 0 && !b.joined ? D.gap : 0), 0);
  // each stack's bottom line: one for all side by side; one above the other, the last (decoder) on top
  const bottoms: number[] = [];
  let height: number;
  if (narrow) {
    let top = 0;
    for (let s = last; s >= 0; s--) {
      top += D.heading + tall(stacks[s].blocks) + (s < last ? D.gap : 0);
      bottoms[s] = top;
    }
    height = top + D.margin;
  } else {
    height = D.heading + Math.max(...stacks.map((s) => tall(s.blocks))) + D.margin;
    stacks.forEach((_, s) => { bottoms[s] = height - D.margin; });
  }

  const placed = sides.map(({ stack, width: boxWidth, nextTo, notesLeft }, s): PlacedStack => {
    const x = xs[s];
    let bottom = bottoms[s];
    const blocks = stack.blocks.map((block, k): PlacedBlock => {
      if (k > 0 && !block.joined) bottom -= D.gap;
      const h = heightOf(stack.blocks, k);
      bottom -= h;
      const label = labelOf(block);
      const notes = linesOf(block);
      // wide: the label in the middle of its box and the notes centred beside it; narrow: the notes under the label
      const labelY = narrow && h > D.box ? bottom + D.box / 2 + 5 : bottom + h / 2 + 5;
      return { block, y: bottom, height: h, label, notes, labelY,
        notesY: narrow ? labelY + label.length * D.noteLine : labelY - ((notes.length - 1) * D.noteLine) / 2 };
    });
    const repeated = blocks.filter((p) => p.block.repeated);
    const frame = repeated.length ? {
      y: repeated[repeated.length - 1].y - D.frame,
      height: repeated[0].y + repeated[0].height - repeated[repeated.length - 1].y + 2 * D.frame,
    } : undefined;
    const beyond = x + boxWidth + nextTo + D.apart;
    const crossBlock = blocks.find((p) => p.block.cross);
    const repeatY = !frame ? 0 : crossBlock && !narrow ? (crossBlock.y + crossBlock.height + frame.y + frame.height) / 2 : frame.y + frame.height / 2;
    const topOfStack = blocks[blocks.length - 1]?.y ?? bottoms[s];
    return {
      stack, x, width: boxWidth, blocks, frame,
      headingY: (narrow ? Math.min(topOfStack, frame?.y ?? topOfStack) : D.heading) - 10,
      notes: narrow ? { x: x + boxWidth / 2, anchor: 'middle' } : notesLeft ? { x: x - D.apart, anchor: 'end' } : { x: beyond, anchor: 'start' },
      repeat: { ...(notesLeft ? { x: beyond, anchor: 'start' as const } : { x: x - D.frame - D.apart, anchor: 'end' as const }),
        y: repeatY + D.bold / 3 },
    };
  });
  return { width, height, stacks: placed, link: cross ? crossLink(placed, narrow, columnRight + route.gap) : undefined };
}

/** the encoder's output, from its top box into every decoder layer's cross-attention: a curve
 * across to the decoder beside it, or, narrow, a line up the right side and in from the right */
function crossLink([encoder, decoder]: PlacedStack[], narrow: boolean, routeX: number): CrossLink | undefined {
  const target = decoder.blocks.find(({ block }) => block.kind === 'attention' && block.cross);
  const top = encoder.blocks[encoder.blocks.length - 1];
  if (!target || !top) return undefined;
  const from = { x: encoder.x + encoder.width, y: top.y + top.height / 2 };
  if (narrow) {
    const to = { x: decoder.x + decoder.width + 2, y: target.y + target.height / 2 };
    return { path: `M${from.x},${from.y} H${routeX} V${to.y} H${to.x}`,
      label: { x: routeX + 5, y: (from.y + to.y) / 2, anchor: 'middle', turned: true } };
  }
  const to = { x: decoder.x, y: target.y + target.height / 2 };
  const bend = (to.x - from.x) / 2;
  return { path: `M${from.x},${from.y} C${from.x + bend},${from.y} ${to.x - bend},${to.y} ${to.x - 2},${to.y}`,
    label: { x: (from.x + to.x) / 2, y: Math.min(from.y, to.y) - 6, anchor: 'middle', turned: false } };
}
