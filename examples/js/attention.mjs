// The package from Node: the slide deck's worked example, every stage, then a small model.
//   node examples/js/attention.mjs        (after `npm run build`)
import { loadAttnlab } from 'attnlab';

const engine = await loadAttnlab();
console.log(`engine ${engine.info.version}, build ${engine.info.build}, ${engine.info.threadsUsed} thread(s)`);

const stepper = engine.attentionSteps({
  x: [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0], n: 3, d: 4,
  wQ: [1, 0, 0, 1, 1, 0, 0, 1], wK: [0, 1, 1, 0, 0, 1, 1, 0], wV: [1, 1, 0, 0, 1, 0, 0, 1], dK: 2, dV: 2,
});
const show = (m) => Array.from({ length: m.rows }, (_, i) =>
  Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols), (v) => v.toFixed(4).padStart(8)).join(' ')).join('\n');
while (!stepper.finished) {
  const result = stepper.advance();
  const head = result.heads[0];
  const tensor = { project: head.q, scores: head.scores, scale: head.scaled, mask: head.masked,
    softmax: head.weights, mix: head.output }[result.stage];
  console.log(`${result.stage}:\n${show(tensor)}`);
}
stepper.dispose();

const vocab = JSON.stringify({ kind: 'word', tokens: ['[PAD]', '[UNK]', '[BOS]', '[EOS]', '[MASK]', '[SEP]', 'the', 'cat', 'sat'] });
const model = engine.createModel({ config: { vocab_size: 9, n_ctx: 16, d_model: 16, n_heads: 2, d_ff: 32, n_layers: 2 }, seed: 1, vocab });
const { ids } = model.tokenize('the cat sat');
const { trace } = model.forward({ tokens: ids, trace: ['layer1.attn.head0.weights'] });
console.log(`layer1.attn.head0.weights:\n${show(trace['layer1.attn.head0.weights'])}`);
model.dispose();
