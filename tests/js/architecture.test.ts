import { describe, expect, it } from 'vitest';
import type { MatrixData, ModelConfig } from '../../web/src/engine/attnlab.mjs';
import { architectureStacks, DIAGRAM, diagramLayout, openedModelTitle, textWidth, type PlacedStack } from '../../web/src/math/architecture';

// The block diagram is read from a config and the shapes of a trace: here configs as the engine
// reads GPT-2 and Llama checkpoints, and the trace's shapes for n tokens (values play no part).
const base: Required<ModelConfig> = {
  architecture: 'decoder_only', vocab_size: 50257, n_ctx: 1024, d_model: 768, n_heads: 12, n_kv_heads: 0, d_ff: 3072,
  n_layers: 12, n_decoder_layers: 0, positional: 'learned', positional_base: 10000, rope_pairing: 'interleaved',
  activation: 'gelu_tanh', norm: 'layer_norm', pre_norm: true, residual: true, final_norm: true, norm_eps: 1e-5,
  tie_embeddings: true, scaled: true,
};
const gpt2 = base;
const smolLm2: Required<ModelConfig> = {
  ...base, vocab_size: 49152, n_ctx: 8192, d_model: 576, n_heads: 9, n_kv_heads: 3, d_ff: 1536, n_layers: 30,
  positional: 'rope', rope_pairing: 'rotate_half', activation: 'swiglu', norm: 'rms_norm', tie_embeddings: false,
};

const matrix = (rows: number, cols: number): MatrixData => ({ rows, cols, data: new Float32Array(0) });

/** the shapes a pre-norm decoder-only forward traces over n tokens, under the engine's names */
function traceOf(config: Required<ModelConfig>, n: number): Record<string, MatrixData> {
  const d = config.d_model;
  const kv = (d / config.n_heads) * (config.n_kv_heads || config.n_heads);
  const trace: Record<string, MatrixData> = { 'embed.tokens': matrix(n, d), ln_f: matrix(n, d), logits: matrix(n, config.vocab_size) };
  for (const name of ['in', 'ln_1', 'attn.q', 'attn.out', 'residual_1', 'ln_2', 'mlp.out', 'out']) trace[`layer0.${name}`] = matrix(n, d);
  trace['layer0.attn.k'] = trace['layer0.attn.v'] = matrix(n, kv);
  trace['layer0.mlp.hidden'] = matrix(n, config.d_ff);
  if (config.activation === 'swiglu') trace['layer0.mlp.gate'] = matrix(n, config.d_ff);
  trace[`layer${config.n_layers - 1}.out`] = matrix(n, d);
  return trace;
}

const labels = (config: Required<ModelConfig>) => architectureStacks(config, traceOf(config, 10))[0].blocks.map((b) => b.label);

/** the architecture slide's encoder–decoder: the coreference model's size, the encoder reading 10
 * tokens and the decoder 3 */
function seminarEncoderDecoder() {
    const config = { ...gpt2, architecture: 'encoder_decoder' as const, n_layers: 2, n_decoder_layers: 2, d_model: 64, n_heads: 4, d_ff: 128,
      vocab_size: 76, n_ctx: 16, positional: 'sinusoidal' as const };
    const trace: Record<string, MatrixData> = {};
    for (const [prefix, n] of [['encoder.', 10], ['decoder.', 3]] as const) {
      for (const [name, m] of Object.entries(traceOf(config, n))) trace[prefix + name] = m;
    }
    for (const part of ['q', 'k', 'v']) trace[`decoder.layer0.cross.${part}`] = matrix(part === 'q' ? 3 : 10, 64);
  return architectureStacks(config, trace);
}

describe('the block diagram of a model', () => {
  it('draws GPT-2: learned positions added at the bottom, pre-LN LayerNorm, GELU, tied head', () => {
    const [stack] = architectureStacks(gpt2, traceOf(gpt2, 10), 'gpt2');
    expect(stack.title).toBe('gpt2: decoder only');
    expect(stack.sizes).toBe('vocabulary 50257 · context 1024');
    expect(stack.layers).toBe(12);
    expect(stack.blocks.map((b) => [b.label, b.shapeIn, b.repeated])).toEqual([
      ['Token embedding E[token]', undefined, false],
      ['+ learned positions', '10×768', false],
      ['LayerNorm', '10×768', true],
      ['Masked self-attention + residual', '10×768', true],
      ['LayerNorm', '10×768', true],
      ['FFN + residual', '10×768', true],
      ['Final LayerNorm', '10×768', false],
      ['Linear · Eᵀ (tied)', '10×768', false],
      ['Softmax → next-token probabilities', '10×50257', false],
    ]);
    expect(stack.blocks.filter((b) => b.notes).map((b) => b.notes)).toEqual([
      ['12 heads', 'd_k = 64 · Q, K, V 10×768'],
      ['GELU (tanh)', 'hidden 10×3072'],
    ]);
  });

  it('draws a Llama: RoPE inside attention, h query heads over g K/V heads, RMSNorm, SwiGLU, untied head', () => {
    const [stack] = architectureStacks(smolLm2, traceOf(smolLm2, 7));
    expect(stack.title).toBe('Decoder only');
    expect(stack.sizes).toBe('vocabulary 49152 · context 8192');
    expect(stack.layers).toBe(30);
    expect(stack.blocks.map((b) => b.label)).toEqual([
      'Token embedding E[token]', 'RMSNorm', 'Masked self-attention + residual', 'RMSNorm', 'FFN + residual',
      'Final RMSNorm', 'Linear LM head (untied)', 'Softmax → next-token probabilities',
    ]);
    expect(stack.blocks.filter((b) => b.notes).map((b) => b.notes)).toEqual([
      ['9 query heads over 3 K/V heads', 'd_k = 64 · Q 7×576 · K, V 7×192', 'RoPE rotates Q and K'],
      ['SwiGLU: SiLU(gate) ⊙ up', 'gate, up 7×1536'],
    ]);
  });

  it('puts the norm after each residual sum in a post-LN model', () => {
    expect(labels({ ...gpt2, pre_norm: false })).toEqual([
      'Token embedding E[token]', '+ learned positions', 'Masked self-attention', '+ residual, LayerNorm', 'FFN', '+ residual, LayerNorm',
      'Final LayerNorm', 'Linear · Eᵀ (tied)', 'Softmax → next-token probabilities',
    ]);
  });

  it('gives an encoder–decoder two stacks, its cross-attention reading the encoder\'s n rows', () => {
    const config = { ...gpt2, architecture: 'encoder_decoder' as const, n_layers: 2, n_decoder_layers: 3, d_model: 64, n_heads: 4, d_ff: 128, vocab_size: 76, n_ctx: 16 };
    const trace: Record<string, MatrixData> = {
      'decoder.layer0.cross.q': matrix(3, 64), 'decoder.layer0.cross.k': matrix(10, 64), 'decoder.layer0.cross.v': matrix(10, 64),
      'encoder.ln_f': matrix(10, 64),
    };
    const [encoder, decoder] = architectureStacks(config, trace, 'ignored');
    expect([encoder.title, encoder.layers, decoder.title, decoder.layers]).toEqual(['Encoder', 2, 'Decoder', 3]);
    expect(encoder.output).toBe('10×64');
    const cross = decoder.blocks.find((b) => b.cross);
    expect(cross?.notes).toEqual(['4 heads', 'd_k = 16 · Q 3×64 · K, V 10×64']);
    // shapes not traced are left out, not guessed
    expect(encoder.blocks.find((b) => b.kind === 'ffn')?.notes).toEqual(['GELU (tanh)']);
  });

  it('joins each norm to its sub-layer as a tab, below it before the sub-layer (pre-LN) and above it after (post-LN)', () => {
    for (const pre_norm of [true, false]) {
      const [stack] = diagramLayout(architectureStacks({ ...gpt2, pre_norm }, traceOf(gpt2, 10))).stacks;
      const pairs = stack.blocks.flatMap((upper, k) => (upper.block.joined ? [[stack.blocks[k - 1], upper]] : []));
      expect(pairs.map(([lower, upper]) => [lower.block.kind, upper.block.kind]))
        .toEqual(pre_norm ? [['norm', 'attention'], ['norm', 'ffn']] : [['attention', 'norm'], ['ffn', 'norm']]);
      for (const [lower, upper] of pairs) {
        expect(upper.y + upper.height).toBe(lower.y);
        expect([lower, upper].find((p) => p.block.kind === 'norm')?.height).toBe(DIAGRAM.tab);
      }
      // every other block is a box, an arrow's gap above the one below it
      stack.blocks.forEach((p, k) => {
        if (k > 0 && !p.block.joined) expect(stack.blocks[k - 1].y - (p.y + p.height)).toBe(DIAGRAM.gap);
      });
    }
  });

  it('fits the encoder–decoder\'s diagram, its text 14 px, in the slide\'s room: 1176 px across, 440 down', () => {
    const { width, height, stacks } = diagramLayout(seminarEncoderDecoder());
    expect(DIAGRAM.text).toBeGreaterThanOrEqual(14);
    expect(width).toBeLessThanOrEqual(1176);
    expect(height).toBeLessThanOrEqual(440);
    // the decoder's eleven blocks: three norms are tabs
    expect(stacks[1].blocks.length).toBe(11);
    for (const { x, width: boxWidth, blocks } of stacks) {
      for (const { block } of blocks) expect(textWidth(block.label, DIAGRAM.text) + 2 * DIAGRAM.padding).toBeLessThanOrEqual(boxWidth);
      expect(x).toBeGreaterThan(0);
    }
    // left to right: the encoder's notes, its boxes, its N×; the decoder's N×, its boxes, its notes
    const [encoder, decoder] = stacks;
    const notes = (s: PlacedStack) => Math.max(...s.stack.blocks.flatMap((b) => b.notes ?? []).map((line) => textWidth(line, DIAGRAM.text)));
    expect(encoder.notes.x - notes(encoder)).toBeGreaterThanOrEqual(0);
    expect(encoder.repeat.x + textWidth('2×', DIAGRAM.bold, true)).toBeLessThan(decoder.repeat.x - textWidth('2×', DIAGRAM.bold, true));
    expect(decoder.repeat.x).toBeLessThan(decoder.x);
    expect(decoder.notes.x + notes(decoder)).toBeLessThanOrEqual(width);
    // the decoder's N× stays clear of the arrow coming in from the encoder, below its cross-attention
    const cross = decoder.blocks.find((p) => p.block.cross)!;
    expect(decoder.repeat.y - DIAGRAM.bold).toBeGreaterThan(cross.y + cross.height);
  });

  it('lays the encoder–decoder out for a phone: stacks one above the other, notes in the boxes, in 358 px', () => {
    const stacks = seminarEncoderDecoder();
    const wide = diagramLayout(stacks);
    const { width, stacks: [encoder, decoder], link } = diagramLayout(stacks, { narrow: true });
    expect(wide.width).toBeGreaterThan(358);
    expect(width).toBeLessThanOrEqual(358);
    // the decoder stands on top, above the encoder's title
    const top = (s: PlacedStack) => Math.min(...s.blocks.map((p) => p.y));
    const bottom = (s: PlacedStack) => Math.max(...s.blocks.map((p) => p.y + p.height));
    expect(bottom(decoder)).toBeLessThan(encoder.headingY - DIAGRAM.text);
    expect(decoder.headingY).toBeLessThan(top(decoder));
    for (const s of [encoder, decoder]) {
      for (const { block, y, height, label, labelY, notesY, notes: lines } of s.blocks) {
        // the label and each note whole, wrapped
        expect(label.join(' ')).toBe(block.label);
        expect(lines.join(' ').replaceAll(' · ', ' ')).toBe((block.notes ?? []).join(' ').replaceAll(' · ', ' '));
        // every line of a box inside it, across and down
        for (const line of [...label, ...lines]) expect(textWidth(line, DIAGRAM.text) + 2 * DIAGRAM.padding).toBeLessThanOrEqual(s.width);
        if (lines.length) expect(notesY + (lines.length - 1) * DIAGRAM.noteLine).toBeLessThanOrEqual(y + height);
        expect(labelY).toBeGreaterThan(y);
      }
      expect(s.notes.anchor).toBe('middle');
    }
    // the encoder's output goes up the right side into the decoder's cross-attention, inside the picture
    const cross = decoder.blocks.find((p) => p.block.cross)!;
    const encoderTop = encoder.blocks[encoder.blocks.length - 1];
    expect(link?.path).toBe(`M${encoder.x + encoder.width},${encoderTop.y + encoderTop.height / 2} H${link!.label.x - 5} V${cross.y + cross.height / 2} H${decoder.x + decoder.width + 2}`);
    expect(link!.label.x + DIAGRAM.text).toBeLessThanOrEqual(width);
  });

  it('names an opened model with its family and depth', () => {
    expect(openedModelTitle('gpt2', 'gpt2', 12)).toBe('gpt2 (GPT-2, 12 layers)');
    expect(openedModelTitle('SmolLM2-135M', 'llama', 30)).toBe('SmolLM2-135M (Llama family, 30 layers)');
  });
});
