// The block diagram of a model, read from its config and the shapes of a forward pass's trace.
// DOM-free: <attn-architecture> draws what this returns.
import type { MatrixData, ModelConfig } from '../engine/attnlab.mjs';

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
}

export interface Stack {
  title: string;
  layers: number;
  /** bottom (input) to top (output) */
  blocks: Block[];
  /** shape of what leaves the stack */
  output: string;
}

export function shapeOf(trace: Record<string, MatrixData>, name: string): string | undefined {
  const m = trace[name];
  return m ? `${m.rows}×${m.cols}` : undefined;
}

/** the stacks of a model: one for encoder-only and decoder-only, encoder and decoder otherwise */
export function architectureStacks(config: Required<ModelConfig>, trace: Record<string, MatrixData>): Stack[] {
  if (config.architecture === 'encoder_decoder') {
    return [
      stack(config, trace, 'encoder.', 'Encoder', config.n_layers, { causal: false, cross: false, head: false }),
      stack(config, trace, 'decoder.', 'Decoder', config.n_decoder_layers, { causal: true, cross: true, head: true }),
    ];
  }
  const decoder = config.architecture === 'decoder_only';
  return [stack(config, trace, '', decoder ? 'Decoder only' : 'Encoder only', config.n_layers,
    { causal: decoder, cross: false, head: true })];
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
  const sublayer = (label: string, kind: Block['kind'], slide: string, norm_: string, into: string, out: string, cross = false) => {
    if (config.pre_norm) {
      blocks.push({ label: norm, kind: 'norm', slide: 'components', shapeIn: shape(into), repeated: true });
      blocks.push({ label: `${label} + residual`, kind, slide, shapeIn: shape(norm_), repeated: true, cross });
    } else {
      blocks.push({ label, kind, slide, shapeIn: shape(into), repeated: true, cross });
      blocks.push({ label: `+ residual, ${norm}`, kind: 'norm', slide: 'components', shapeIn: shape(out), repeated: true });
    }
  };
  const positions = config.positional === 'rope' ? ' (RoPE)' : config.positional === 'alibi' ? ' (ALiBi)' : '';
  sublayer(`${parts.causal ? 'Masked self-attention' : 'Self-attention'}${positions}`, 'attention',
    parts.causal ? 'causal-mask' : 'multi-head', 'layer0.ln_1', 'layer0.in', 'layer0.attn.out');
  if (parts.cross) {
    sublayer('Cross-attention', 'attention', 'multi-head', 'layer0.ln_cross_attn',
      config.pre_norm ? 'layer0.residual_1' : 'layer0.ln_1', 'layer0.cross.out', true);
  }
  const hidden = shape('layer0.mlp.hidden');
  sublayer(`FFN${hidden ? ` (hidden ${hidden})` : ''}`, 'ffn', 'components', 'layer0.ln_2',
    config.pre_norm ? (parts.cross ? 'layer0.residual_cross' : 'layer0.residual_1') : (parts.cross ? 'layer0.ln_cross_attn' : 'layer0.ln_1'),
    'layer0.mlp.out');
  const last = `layer${layers - 1}.out`;
  if (config.final_norm) blocks.push({ label: `Final ${norm}`, kind: 'norm', slide: 'components', shapeIn: shape(last), repeated: false });
  const output = shape(config.final_norm ? 'ln_f' : last) ?? '';
  if (parts.head) {
    blocks.push({ label: config.tie_embeddings ? 'Linear · Eᵀ (tied)' : 'Linear (LM head)', kind: 'head', slide: 'components', shapeIn: output, repeated: false });
    blocks.push({ label: 'Softmax → next-token probabilities', kind: 'head', slide: 'components', shapeIn: shapeOf(trace, 'logits'), repeated: false });
  }
  return { title, layers, blocks, output };
}
