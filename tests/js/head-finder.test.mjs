// The head finder (web/src/math/head-patterns.ts) on the engine's models: a decoder with seeded
// random weights has no induction or previous-token head; a two-layer model wired by hand as an
// induction circuit has exactly its two heads found; and a decoder trained on the copy task, whose
// layer-0 heads look at the copied letter by position, is not taken for an induction model.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadAttnlab } from '../../build/package/index.js';
import { importMathModule, inductionCircuit } from './helpers.mjs';

/** GPT-2's shape, small: learned positions, GELU, pre-LN */
const GPT2_LIKE = { vocab_size: 96, n_ctx: 64, d_model: 64, n_heads: 4, d_ff: 256, n_layers: 3 };
/** the copy task's demo model, on a shortened schedule: about 94 % of held-out strings copied exactly */
const COPY_TRAINING = { task: 'copy', seed: 1, steps: 400, batchSize: 32 };

/** weights[layer][head], each (n × n), of the model's self-attention on `tokens` */
function attentionWeights(model, tokens) {
  const { n_layers: layers, n_heads: heads } = model.config;
  const names = Array.from({ length: layers }, (_, layer) => Array.from({ length: heads }, (_, head) => `layer${layer}.attn.head${head}.weights`));
  const { trace } = model.forward({ tokens, trace: names.flat() });
  return names.map((row) => row.map((name) => trace[name]));
}

const describeHeads = (heads) =>
  heads.map((h) => `L${h.layer}H${h.head} ${h.score.toFixed(3)} (uniform ${h.uniform.toFixed(3)}, excess ${h.excess.toFixed(3)})`).join('; ');
const headNames = (heads) => heads.map((h) => `L${h.layer}H${h.head}`);

describe('head finder, single-thread build', () => {
  let engine, patterns;
  before(async () => {
    engine = await loadAttnlab({ threads: 1 });
    patterns = await importMathModule('head-patterns');
  });

  it('finds no induction or previous-token head in a random-weight decoder', () => {
    const model = engine.createModel({ config: GPT2_LIKE, seed: 5 });
    const specials = model.specialTokens();
    const tokens = patterns.repeatedRandomTokens({
      vocabSize: GPT2_LIKE.vocab_size, length: 30, seed: 3, exclude: Object.values(specials), prefix: specials.bos,
    });
    const scores = patterns.scoreHeads(tokens, attentionWeights(model, tokens));
    for (const pattern of ['induction', 'previous-token']) {
      const ranked = patterns.rankHeads(scores, pattern);
      assert.equal(ranked.length, GPT2_LIKE.n_layers * GPT2_LIKE.n_heads);
      assert.deepEqual(patterns.headsAbove(scores, pattern), [], `${pattern}: ${describeHeads(ranked.slice(0, 3))}`);
    }
    model.dispose();
  });

  it('finds the induction head and the previous-token head of a circuit wired by hand', async () => {
    const vocab = 24, context = 32;
    const { config, weights } = inductionCircuit(vocab, context);
    const model = await engine.loadModel({ weights, config });
    const tokens = patterns.repeatedRandomTokens({ vocabSize: vocab, length: 15, seed: 4, exclude: [0, 1, 2, 3, 4, 5], prefix: 2 });
    const scores = patterns.scoreHeads(tokens, attentionWeights(model, tokens));
    const induction = patterns.headsAbove(scores, 'induction');
    assert.deepEqual(headNames(induction), ['L1H0'], describeHeads(patterns.rankHeads(scores, 'induction')));
    assert.ok(induction[0].excess > 0.95, describeHeads(induction));
    const previous = patterns.headsAbove(scores, 'previous-token');
    assert.deepEqual(headNames(previous), ['L0H0'], describeHeads(patterns.rankHeads(scores, 'previous-token')));
    assert.ok(previous[0].excess > 0.95, describeHeads(previous));
    model.dispose();
  });

  it('does not take a copy model, which looks up the copied letter by position, for an induction model', () => {
    const trainer = engine.createTrainer(COPY_TRAINING);
    for (let step = 0; step < COPY_TRAINING.steps; step++) trainer.step();
    assert.ok(trainer.heldOutAccuracy({ count: 100 }) >= 0.9, 'the model copies');
    const model = trainer.model();
    const { bos, sep, eos } = model.specialTokens();
    // a held-out string of the longest length with no letter twice, so that each copied letter has
    // one earlier occurrence and the letter after it is where both induction and position point
    const longest = (model.config.n_ctx - 3) / 2;
    let probe;
    for (let seed = 1; !probe; seed++) {
      const { tokens } = trainer.example({ split: 'heldOut', seed });
      const letters = tokens.subarray(1, tokens.indexOf(sep));
      if (letters.length === longest && new Set(letters).size === longest) probe = tokens;
    }
    const letters = [...probe.subarray(1, longest + 1)];
    assert.deepEqual([...probe], [bos, ...letters, sep, ...letters, eos], 'the task\'s format: [BOS] x [SEP] x [EOS]');
    const scores = patterns.scoreHeads(probe, attentionWeights(model, probe));
    assert.equal(scores.induction.rows, longest, 'the copied letters, and no other row, have an earlier occurrence');
    const ranked = patterns.rankHeads(scores, 'induction');
    // the heads that look most like induction heads are in layer 0, which cannot know a key's
    // previous token: they look where the letter to copy sits, by position, spread over its neighbours
    assert.deepEqual(ranked.slice(0, 3).map((h) => h.layer), [0, 0, 0], describeHeads(ranked));
    assert.deepEqual(patterns.headsAbove(scores, 'induction'), [], describeHeads(ranked));
    // the answer reversed: the keys after each letter's earlier occurrence are no longer where the
    // position points, and those heads no longer look at them
    const reversed = [bos, ...letters, sep, ...letters.toReversed(), eos];
    const moved = patterns.scoreHeads(reversed, attentionWeights(model, reversed));
    const top = ranked[0];
    assert.ok(moved.induction.heads[top.layer][top.head].excess < 0.1, describeHeads([moved.induction.heads[top.layer][top.head]]));
    model.dispose();
    trainer.dispose();
  });
});
