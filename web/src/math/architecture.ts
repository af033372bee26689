// The block diagram of a model, read from its config and the shapes of a forward pass's trace.
// DOM-free: <attn-architecture> draws what this returns.
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
      blocks.push({ label: `${label} + residual`, kind, slide, shapeIn: shape(norm_), repeated: true, cross, notes });
    } else {
      blocks.push({ label, kind, slide, shapeIn: shape(into), repeated: true, cross, notes });
      blocks.push({ label: `+ residual, ${norm}`, kind: 'norm', slide: 'components', shapeIn: shape(out), repeated: true });
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
