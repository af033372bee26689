// The package's JavaScript API in Node, on both WebAssembly builds: reference values, every entry
// point, bad input, and memory.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadAttnlab } from '../../build/package/index.js';
import { assertClose, assertThrows, fixtures, safetensorsBytes, vocabJson } from './helpers.mjs';

const DECK = {
  x: [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0], n: 3, d: 4,
  wQ: [1, 0, 0, 1, 1, 0, 0, 1], wK: [0, 1, 1, 0, 0, 1, 1, 0], wV: [1, 1, 0, 0, 1, 0, 0, 1], dK: 2, dV: 2,
};
const SMALL_MODEL = { vocab_size: 12, n_ctx: 16, d_model: 16, n_heads: 4, d_ff: 32, n_layers: 2 };

function multiHeadInput(c) {
  const t = c.tensors;
  return {
    x: t.x.data, n: t.x.shape[0], d: c.d_model, heads: c.n_heads, kvHeads: c.n_kv_heads,
    cAttnWeight: t.c_attn_weight.data, cAttnBias: t.c_attn_bias.data,
    cProjWeight: t.c_proj_weight.data, cProjBias: t.c_proj_bias.data,
    mask: c.causal ? 'causal' : 'none',
    ...(c.key_padding.length ? { keyPadding: c.key_padding } : {}),
    ...(t.memory ? { memory: t.memory.data, m: t.memory.shape[0] } : {}),
  };
}

for (const threads of [1, 'auto']) {
  describe(`engine, ${threads === 1 ? 'single-thread' : 'threaded'} build`, () => {
    let engine;
    before(async () => {
      engine = await loadAttnlab({ threads });
    });

    it('reports its build', () => {
      const info = engine.info;
      assert.equal(info.build, threads === 1 ? 'simd' : 'simd-threads');
      assert.equal(info.simd, true);
      assert.equal(info.threads, threads !== 1);
      assert.equal(info.maxThreads, threads === 1 ? 1 : 4);
      assert.match(info.version, /^\d+\.\d+\.\d+$/);
    });

    it('matches torch.nn.MultiheadAttention, GQA and MQA (attention.json)', () => {
      for (const c of fixtures('attention.json')) {
        const r = engine.attention({ ...multiHeadInput(c), trace: ['weights'] });
        assertClose(r.output.data, c.tensors.output.data, 1e-5, `${c.name} output`);
        const [h, n, m] = c.tensors.weights.shape;
        for (let head = 0; head < h; head++) {
          assertClose(r.heads[head].weights.data, c.tensors.weights.data.slice(head * n * m, (head + 1) * n * m), 1e-5, `${c.name} head ${head}`);
        }
      }
    });

    it('loads a GPT-2-layout model and matches its PyTorch logits (layers.json)', () => {
      const c = fixtures('layers.json').find((f) => f.kind === 'decoder_only_model');
      const tensors = Object.fromEntries(Object.entries(c.tensors).filter(([name]) => name !== 'logits'));
      const config = JSON.stringify({ vocab_size: c.vocab_size, n_ctx: c.n_ctx, d_model: c.d_model, n_heads: c.n_heads,
        d_ff: c.d_ff, n_layers: c.n_layers, activation: c.activation });
      const model = engine.loadModel({ weights: safetensorsBytes(tensors), config, vocab: vocabJson(['a', 'b', 'c', 'd', 'e']) });
      assertClose(model.forward({ tokens: c.tokens }).logits.data, c.tensors.logits.data, 1e-5, 'logits');
      model.dispose();
    });

    it('steps through attention one stage per call', () => {
      const stepper = engine.attentionSteps(DECK);
      assert.deepEqual(stepper.stages, ['start', 'project', 'scores', 'scale', 'mask', 'softmax', 'mix']);
      assert.equal(stepper.stage, 'start');
      let r = stepper.advance();
      assert.equal(r.stage, 'project');
      assert.deepEqual([...r.heads[0].q.data], [2, 0, 0, 2, 1, 1]);
      assert.equal(r.heads[0].scores, undefined);
      r = stepper.advance();
      assert.deepEqual([...r.heads[0].scores.data], [0, 4, 2, 4, 0, 2, 2, 2, 2]);
      r = stepper.runAll();
      assert.equal(r.stage, 'mix');
      assert.ok(stepper.finished);
      assertClose(r.heads[0].weights.data.slice(0, 3), [0.0453884, 0.7679176, 0.1866940], 1e-6, 'deck weights');
      assertThrows(() => stepper.advance(), /every stage has run/);
      stepper.dispose();
      assertThrows(() => stepper.result(), /disposed/);
    });

    it('steps through multi-head, causal, cross and flash attention', () => {
      const c = fixtures('attention.json').find((f) => f.name === 'mha_d16_h4_n4_causal');
      const stepper = engine.attentionSteps(multiHeadInput(c));
      assert.deepEqual(stepper.stages, ['start', 'project', 'scores', 'scale', 'mask', 'softmax', 'mix', 'concat', 'output']);
      for (let i = 0; i < 5; i++) stepper.advance();
      const masked = stepper.result().heads[2].masked;
      assert.equal(masked.data[1], -Infinity);
      stepper.dispose();
      const flash = engine.attention({ ...multiHeadInput(c), flash: { blockRows: 2, blockCols: 2 }, trace: ['flash'] });
      assertClose(flash.output.data, c.tensors.output.data, 1e-5, 'flash output');
      assert.ok(flash.heads[0].flash.tiles.length >= 3);
      assert.equal(flash.heads[0].flash.tiles[0].runningMax.length, 2);
      const cross = fixtures('attention.json').find((f) => f.kind === 'cross');
      assertClose(engine.attention(multiHeadInput(cross)).output.data, cross.tensors.output.data, 1e-5, 'cross');
    });

    it('returns only what is asked: the output by the fast path, or the parts a trace names', () => {
      const c = fixtures('attention.json').find((f) => f.name === 'mha_d16_h4_n4_causal');
      const fast = engine.attention(multiHeadInput(c));
      assert.deepEqual(Object.keys(fast).sort(), ['heads', 'output', 'scale', 'stage']);
      assert.deepEqual(fast.heads, []);
      assert.equal(fast.stage, 'output');
      assertClose(fast.output.data, c.tensors.output.data, 1e-5, 'fast output');
      const some = engine.attention({ ...multiHeadInput(c), trace: ['weights', 'concat'] });
      assert.equal(some.heads.length, c.n_heads);
      for (const head of some.heads) assert.deepEqual(Object.keys(head), ['weights']);
      assert.equal(some.concat.cols, 16);
      assertClose(some.output.data, fast.output.data, 1e-6, 'traced output');
      const all = engine.attention({ ...multiHeadInput(c), trace: true });
      assert.deepEqual(Object.keys(all.heads[0]), ['q', 'k', 'v', 'scores', 'scaled', 'masked', 'weights', 'output']);
      // one head: the output is the head's
      const single = engine.attention(DECK);
      assert.equal(single.stage, 'mix');
      assertClose(single.output.data, engine.attention({ ...DECK, trace: ['output'] }).heads[0].output.data, 1e-6, 'single head');
      assertThrows(() => engine.attention({ ...DECK, trace: ['weights', 'logits'] }), /trace names "logits", no part of attention/);
      assertThrows(() => engine.attention({ ...DECK, trace: 'weights' }), /trace must be true, false or an array of names/);
      // typed arrays and plain arrays give the same bits
      const typed = engine.attention({ ...multiHeadInput(c), x: Float32Array.from(multiHeadInput(c).x) });
      const plain = engine.attention({ ...multiHeadInput(c), x: Array.from(multiHeadInput(c).x) });
      assert.deepEqual([...typed.output.data], [...plain.output.data]);
    });

    it('normalises one vector both ways, with statistics and Jacobians', () => {
      const x = [2, -1, 0.5, 3, -2, 1];
      const r = engine.norms({ x, d: 6, gamma: [1, 1, 1, 1, 1, 1], beta: new Array(6).fill(0.5) });
      const mean = x.reduce((s, v) => s + v, 0) / 6;
      const variance = x.reduce((s, v) => s + (v - mean) ** 2, 0) / 6;
      assertClose([r.mean, r.variance, r.meanSquare], [mean, variance, x.reduce((s, v) => s + v * v, 0) / 6], 1e-5, 'statistics');
      assertClose(r.layerNorm.data, x.map((v) => (v - mean) / Math.sqrt(variance + 1e-5) + 0.5), 1e-5, 'LayerNorm');
      const rms = Math.sqrt(x.reduce((s, v) => s + v * v, 0) / 6 + 1e-5);
      assertClose(r.rmsNorm.data, x.map((v) => v / rms), 1e-5, 'RMSNorm');
      assert.equal(r.layerNormJacobian.rows, 6);
      // adding a constant changes no LayerNorm output: every row of J sums to 0
      for (let i = 0; i < 6; i++) assertClose([r.layerNormJacobian.data.slice(i * 6, i * 6 + 6).reduce((s, v) => s + v, 0)], [0], 1e-5, `row ${i}`);
      assertThrows(() => engine.norms({ x, d: 6, eps: 0 }), /eps must be/);
      assertThrows(() => engine.norms({ x: [1, 2], d: 6 }), /x has 2 numbers/);
    });

    it('sizes attention from the numbers alone, and draws seeded normal numbers', () => {
      // a 7B-class layer: W_Q and W_O are d×d, W_K and W_V d×g·d_k, plus biases
      const d = 4096;
      for (const [kvHeads, kvWidth] of [[32, 4096], [8, 1024], [1, 128]]) {
        const budget = engine.attentionBudget({ d, heads: 32, kvHeads, layers: 32, n: 4096, bytesPerValue: 2 });
        assert.equal(budget.parameters, 32 * (2 * d * d + 2 * d * kvWidth + 2 * d + 2 * kvWidth));
        assert.equal(budget.kvCacheBytes, 2 * 32 * 4096 * kvWidth * 2);
      }
      assert.equal(engine.attentionBudget({ d: 64, heads: 4, n: 10 }).kvCacheBytes, 2 * 10 * 64 * 4, 'MHA at fp32 by default');
      assertThrows(() => engine.attentionBudget({ d: 64, heads: 4, kvHeads: 3, n: 10 }), /^attnlab: /);
      assertThrows(() => engine.attentionBudget({ d: 64, heads: 4, n: 0 }), /n must be/);
      const a = engine.randomNormal({ rows: 200, cols: 50, seed: 7, std: 2 });
      assert.deepEqual(a.data, engine.randomNormal({ rows: 200, cols: 50, seed: 7, std: 2 }).data, 'seeded');
      const mean = a.data.reduce((s, v) => s + v, 0) / a.data.length;
      const variance = a.data.reduce((s, v) => s + (v - mean) ** 2, 0) / a.data.length;
      assert.ok(Math.abs(mean) < 0.1 && Math.abs(variance - 4) < 0.3, `mean ${mean}, variance ${variance}`);
      assertThrows(() => engine.randomNormal({ rows: 2, cols: 2, std: -1 }), /std must be/);
    });

    it('measures gradients down a deep stack, activation curves, FFN sizes and image patches', () => {
      const with_ = engine.depthGradients({ layers: 6, norm: 'none', residual: true, seed: 3 });
      const without = engine.depthGradients({ layers: 6, norm: 'none', residual: false, seed: 3 });
      assert.equal(with_.parameterGradientNorms.length, 6);
      assert.equal(with_.inputGradientNorms.length, 7);
      assert.ok(without.parameterGradientNorms[0] < 1e-6 * with_.parameterGradientNorms[0]);
      assertThrows(() => engine.depthGradients({ norm: 'batch_norm' }), /expected layer_norm, rms_norm, none/);
      const curve = engine.activationCurve({ activation: 'relu', x: [-1, 0.5, 2] });
      assert.deepEqual([...curve.y], [0, 0.5, 2]);
      assert.deepEqual([...curve.derivative], [0, 1, 1]);
      const gelu = engine.activationCurve({ activation: 'gelu', x: [1] });
      assertClose(gelu.y, [0.8413447], 1e-6, 'GELU(1) = Φ(1)');
      assert.equal(engine.feedForwardParameters({ d: 768, dFF: 3072 }), 4722432);
      assert.equal(engine.feedForwardParameters({ d: 4, dFF: 8, activation: 'swiglu' }), 2 * 32 + 8 + 4 + 32 + 8);
      const image = Array.from({ length: 16 }, (_, i) => i);
      const { patches, embedded } = engine.patchEmbedding({ image, height: 4, width: 4, patch: 2, d: 3, seed: 1 });
      assert.deepEqual([patches.rows, patches.cols, embedded.rows, embedded.cols], [4, 4, 4, 3]);
      assert.deepEqual([...patches.data.slice(0, 8)], [0, 1, 4, 5, 2, 3, 6, 7]);
      assertThrows(() => engine.patchEmbedding({ image, height: 4, width: 4, patch: 3, d: 3 }), /does not cut into whole 3×3 patches/);
      assertThrows(() => engine.patchEmbedding({ image: image.slice(1), height: 4, width: 4, patch: 2, d: 3 }), /image has 15 numbers/);
    });

    it('computes every positional encoding', () => {
      const pe = engine.positionalTable({ kind: 'sinusoidal', n: 8, d: 6 });
      assertClose([pe.data[6], pe.data[7]], [Math.sin(1), Math.cos(1)], 1e-6, 'PE(1)');
      assert.equal(engine.positionalTable({ kind: 'learned', n: 5, d: 4, seed: 3 }).data.length, 20);
      const rope = engine.positionalTable({ kind: 'rope', n: 3, d: 4 });
      assertClose([rope.data[4], rope.data[5]], [Math.cos(1) - Math.sin(1), Math.sin(1) + Math.cos(1)], 1e-6, 'RoPE');
      const alibi = engine.positionalTable({ kind: 'alibi', n: 3, heads: 8, head: 0 });
      assertClose(alibi.data, [0, -0.5, -1, -0.5, 0, -0.5, -1, -0.5, 0], 0, 'ALiBi');
      assertClose(engine.alibiSlopes({ heads: 8 }), [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625], 0, 'slopes');
      assert.equal(engine.alibiBias({ heads: 4, head: 1, n: 2, m: 5 }).cols, 5);
      const s = engine.positionSimilarity({ pe: pe.data, n: 8, d: 6 });
      assertClose([s.data[0]], [3], 1e-5, 'PE·PEᵀ diagonal');
      const t = engine.sinusoidalShiftMatrix({ d: 6, k: 2 });
      const shifted = [0, 1, 2, 3, 4, 5].map((i) => [0, 1, 2, 3, 4, 5].reduce((acc, j) => acc + t.data[i * 6 + j] * pe.data[6 + j], 0));
      assertClose(shifted, pe.data.slice(18, 24), 1e-5, 'T_k·PE(1) = PE(3)');
      assertClose(engine.sinusoidalShift({ pos: 1, k: 2, d: 6 }).data, pe.data.slice(18, 24), 1e-5, 'sinusoidalShift: T_2·PE(1) = PE(3)');
      const rotated = engine.ropeApply({ x: [3, 4, 1, 0], n: 1, d: 4, pos0: 7 });
      assertClose([Math.hypot(rotated.data[0], rotated.data[1])], [5], 1e-5, 'RoPE keeps norms');
      assert.equal(engine.ropeRotation({ d: 4, pos: 2 }).rows, 4);
    });

    it('runs models: tokenize, traced forward, probabilities, cached generation, save and load', () => {
      const vocab = vocabJson(['the', 'cat', 'sat', 'on', 'mat', '.']);
      const model = engine.createModel({ config: SMALL_MODEL, seed: 5, vocab });
      const { ids, pieces } = model.tokenize('the cat sat on the dog.');
      assert.deepEqual([...ids], [6, 7, 8, 9, 6, 1, 11]);
      assert.deepEqual(pieces, ['the', 'cat', 'sat', 'on', 'the', 'dog', '.']);
      assert.equal(model.decode(ids), 'the cat sat on the [UNK].');
      const out = model.forward({ tokens: ids, trace: true });
      assert.equal(out.logits.rows, 7);
      assert.equal(out.logits.cols, 12);
      for (const name of ['embed.out', 'layer0.attn.head3.weights', 'layer1.mlp.act', 'ln_f', 'logits']) assert.ok(out.trace[name], name);
      const only = model.forward({ tokens: ids, trace: ['layer1.attn.head0.weights'] });
      assert.deepEqual(Object.keys(only.trace), ['layer1.attn.head0.weights']);
      assert.deepEqual(only.trace['layer1.attn.head0.weights'], out.trace['layer1.attn.head0.weights']);
      const p = model.nextTokenProbabilities({ tokens: ids, temperature: 0.5, topK: 3 });
      assertClose([p.reduce((a, b) => a + b, 0)], [1], 1e-5, 'probabilities');
      assert.equal(p.filter((v) => v > 0).length, 3);
      const start = model.startGeneration(ids);
      assert.equal(start.length, 7);
      assert.equal(start.logits, undefined);
      const step = model.generateStep({ temperature: 0, logits: true, trace: ['layer1.attn.q', 'layer1.attn.k', 'layer1.attn.head0.weights'] });
      assert.equal(step.length, 8);
      assert.equal(step.cacheBytes, 2 * 2 * 8 * 16 * 4);  // 2·L·n·d_kv·bytes
      const greedy = out.logits.data.slice(6 * 12, 7 * 12);
      assert.equal(step.token, greedy.indexOf(Math.max(...greedy)));
      // the step projected one row, attended over all 8 cached positions, and equals a full recompute
      const all = [...ids, step.token];
      const full = model.forward({ tokens: all, trace: ['layer1.attn.k'] });
      assert.equal(step.trace['layer1.attn.q'].rows, 1);  // one new query …
      assert.equal(step.trace['layer1.attn.k'].rows, 8);  // … reading every cached key
      assert.equal(step.trace['layer1.attn.head0.weights'].cols, 8);
      assertClose(step.logits.data, full.logits.data.slice(7 * 12), 1e-5, 'cached logits');
      const cache = model.kvCache(1);
      assert.equal(cache.keys.rows, 8);
      assertClose(cache.keys.data, full.trace['layer1.attn.k'].data, 1e-5, 'cached keys');
      assertClose(cache.keys.data, step.trace['layer1.attn.k'].data, 0, 'the keys the step read are the cache');
      assertThrows(() => model.kvCache(2), /layer must be between 0 and 1/);
      // nucleus sampling keeps the fewest tokens reaching p
      const nucleus = model.nextTokenProbabilities({ tokens: ids, topP: 0.5 });
      const kept = [...nucleus].filter((v) => v > 0).length;
      const sorted = [...model.nextTokenProbabilities({ tokens: ids })].sort((a, b) => b - a);
      assert.ok(sorted.slice(0, kept).reduce((a, b) => a + b, 0) >= 0.5 - 1e-6);
      assert.ok(sorted.slice(0, kept - 1).reduce((a, b) => a + b, 0) < 0.5);
      assertThrows(() => model.nextTokenProbabilities({ tokens: ids, topP: 0 }), /top_p|topP/);
      // generate() is the same greedy loop at temperature 0
      const generated = model.generate({ tokens: ids, maxNew: 1, temperature: 0 });
      assert.deepEqual([...generated], all);
      assertThrows(() => model.generate({ tokens: ids, source: ids, maxNew: 1 }), /only an encoder-decoder model reads a source/);
      const layer = model.attentionSteps({ tokens: ids, layer: 1 });
      assert.equal(layer.advance().stage, 'project');
      const steps = layer.runAll();
      assertClose(steps.heads[3].weights.data, out.trace['layer1.attn.head3.weights'].data, 1e-6, 'layer 1 head 3');
      layer.dispose();
      assertThrows(() => model.attentionSteps({ tokens: ids, layer: 5 }), /layer 5 does not exist/);
      const saved = model.save();
      const loaded = engine.loadModel({ weights: saved.weights, config: saved.config, vocab: saved.vocab });
      assert.deepEqual([...loaded.forward({ tokens: ids }).logits.data], [...out.logits.data]);
      model.dispose();
      loaded.dispose();
      assertThrows(() => model.forward({ tokens: ids }), /disposed/);
    });

    it('names the special tokens by the ids every vocabulary gives them', () => {
      for (const name of ['coreference', 'fortunes', 'reverse-seq2seq', 'sort']) {
        const vocab = readFileSync(new URL(`../../web/public/models/${name}/vocab.json`, import.meta.url), 'utf8');
        const { tokens } = JSON.parse(vocab);
        const model = engine.createModel({ config: { ...SMALL_MODEL, vocab_size: tokens.length }, vocab });
        const specials = model.specialTokens();
        assert.deepEqual(Object.keys(specials).sort(), ['bos', 'eos', 'mask', 'pad', 'sep', 'unk']);
        for (const [special, id] of Object.entries(specials)) {
          const text = `[${special.toUpperCase()}]`;
          assert.equal(tokens[id], text, `${name}: ${text}`);
          assert.deepEqual([...model.tokenize(text).ids], [id], `${name}: ${text} reads as its id`);
        }
        model.dispose();
      }
      const bare = engine.createModel({ config: SMALL_MODEL });
      assert.deepEqual(bare.specialTokens(), { pad: 0, unk: 1, bos: 2, eos: 3, mask: 4, sep: 5 });
      bare.dispose();
    });

    it('refuses bad input with a clear error and keeps working', () => {
      const model = engine.createModel({ config: SMALL_MODEL, vocab: vocabJson(['a', 'b', 'c', 'd', 'e', 'f']) });
      const c = fixtures('attention.json').find((f) => f.name === 'mha_d8_h2_n6');
      const good = multiHeadInput(c);
      const badInputs = [
        [() => engine.attention({ ...DECK, x: DECK.x.slice(1) }), /x has 11 numbers, expected 3×4 = 12/],
        [() => engine.attention({ ...good, heads: 3 }), /d_model = 8 is not divisible by n_heads = 3/],
        [() => engine.createModel({ config: { ...SMALL_MODEL, n_kv_heads: 3 } }), /n_kv_heads = 3 does not divide n_heads = 4/],
        [() => engine.attention({ ...DECK, n: 0 }), /n must be between 1 and 8192, got 0/],
        [() => engine.positionalTable({ kind: 'sinusoidal', n: 100000, d: 4 }), /n must be between 1 and 8192/],
        [() => model.forward({ tokens: new Array(17).fill(1) }), /17 positions exceed the model's context of n_ctx = 16/],
        [() => engine.attention({ ...DECK, x: [NaN, ...DECK.x.slice(1)] }), /x contains a non-finite value at \(0,0\)/],
        [() => engine.attention({ ...good, cProjWeight: Float32Array.from(good.cProjWeight, (v, i) => (i === 5 ? Infinity : v)) }), /cProjWeight contains a non-finite value/],
        [() => engine.positionalTable({ kind: 'fourier', n: 4, d: 4 }), /unknown positional encoding "fourier"/],
        [() => engine.createModel({ config: { ...SMALL_MODEL, activation: 'tanh' } }), /unknown activation "tanh"/],
        [() => model.nextTokenProbabilities({ tokens: [1], temperature: NaN }), /temperature must be finite/],
        [() => model.nextTokenProbabilities({ tokens: [1], temperature: -0.5 }), /temperature must be a finite number ≥ 0/],
        [() => model.nextTokenProbabilities({ tokens: [1], topK: 0 }), /topK must be between 1 and the vocabulary size 12, got 0/],
        [() => model.nextTokenProbabilities({ tokens: [1], topK: -3 }), /topK must be between 1/],
        [() => engine.loadModel({ weights: model.save().weights.slice(0, 100), config: JSON.stringify(SMALL_MODEL), vocab: vocabJson(['a', 'b', 'c', 'd', 'e', 'f']) }), /safetensors: .*runs past the end|safetensors/],
        [() => engine.loadModel({ weights: new Uint8Array([1, 2, 3]), config: JSON.stringify(SMALL_MODEL), vocab: vocabJson(['a', 'b', 'c', 'd', 'e', 'f']) }), /too short/],
        [() => engine.loadModel({ weights: safetensorsBytes({}), config: '{"vocab_size":', vocab: vocabJson([]) }), /config.json is not valid JSON/],
        [() => model.forward({ tokens: [1, 12] }), /tokens\[1\] = 12 is outside 0…11/],
        [() => model.forward({ tokens: [1, 2.5] }), /tokens\[1\] is not an integer/],
        [() => model.decode([99]), /outside 0…11/],
        [() => engine.setThreads(engine.info.maxThreads + 1), /threads must be between 1 and/],
        [() => engine.attention({ ...DECK, mask: 'diagonal' }), /mask must be "none" or "causal"/],
        [() => engine.attention(null), /expected an options object/],
        [() => engine.attention(), /expected an options object/],
      ];
      for (const [call, pattern] of badInputs) {
        assertThrows(call, pattern);
        // a correct call right after still returns correct numbers
        assertClose(engine.attention({ ...DECK, trace: ['weights'] }).heads[0].weights.data.slice(0, 3), [0.0453884, 0.7679176, 0.1866940], 1e-6, `after ${pattern}`);
      }
      assert.equal(model.forward({ tokens: [1, 2, 3] }).logits.rows, 3);
      model.dispose();
    });

    it('trains a task step by step, deterministically, with traces and a snapshot model', () => {
      const run = () => {
        const trainer = engine.createTrainer({ task: 'copy', seed: 5, steps: 60, batchSize: 8, warmupSteps: 5, learningRate: 0.005 });
        const losses = [];
        for (let i = 0; i < 60; i++) losses.push(trainer.step().loss);
        return { trainer, losses };
      };
      const { trainer, losses } = run();
      assert.equal(trainer.stepsDone, 60);
      assert.equal(trainer.totalSteps, 60);
      assert.equal(trainer.task, 'copy');
      const late = losses.slice(-5).reduce((a, b) => a + b) / 5;
      assert.ok(late < 0.85 * losses[0], `loss ${losses[0]} → ${late}`);
      assert.deepEqual(run().losses, losses);
      const traced = trainer.step({ trace: ['layer0.attn.head1.weights', 'logits'] });
      assert.equal(traced.step, 61);
      assert.deepEqual(Object.keys(traced.trace).sort(), ['layer0.attn.head1.weights', 'logits']);
      assert.ok(traced.gradientNorm > 0 && traced.learningRate > 0 && traced.accuracy >= 0 && traced.accuracy <= 1);
      const accuracy = trainer.heldOutAccuracy({ count: 20 });
      assert.ok(accuracy >= 0 && accuracy <= 1);
      const example = trainer.example({ split: 'heldOut', seed: 3 });
      assert.equal(example.tokens.length, example.targets.length);
      assert.match(example.text, /^\[BOS\]/);
      const snapshot = trainer.model();
      const before = snapshot.forward({ tokens: example.tokens }).logits.data;
      trainer.step();
      assert.deepEqual(snapshot.forward({ tokens: example.tokens }).logits.data, before, 'a snapshot does not follow training');
      snapshot.dispose();
      trainer.dispose();
    });

    it('reads coreference sentences and ships a model that resolves "it"', () => {
      const s = engine.coreferenceSentence('The cat sat on the mat because it was soft.');
      assert.deepEqual([s.pronoun, s.referent, s.distractor], [7, 5, 1]);
      const folder = new URL('../../web/public/models/coreference/', import.meta.url);
      const model = engine.loadModel({ weights: new Uint8Array(readFileSync(new URL('model.safetensors', folder))),
        config: readFileSync(new URL('config.json', folder), 'utf8'), vocab: readFileSync(new URL('vocab.json', folder), 'utf8') });
      for (const [text, expected] of [['the cat sat on the mat because it was soft', 'mat'], ['the cat sat on the mat because it was hungry', 'cat']]) {
        const sentence = engine.coreferenceSentence(text);
        const { logits, trace } = model.forward({ tokens: sentence.tokens, trace: ['layer1.attn.head3.weights'] });
        const row = logits.data.subarray(sentence.pronoun * logits.cols, (sentence.pronoun + 1) * logits.cols);
        assert.equal(model.decode([row.indexOf(Math.max(...row))]), expected);
        const weights = trace['layer1.attn.head3.weights'];
        assert.ok(weights.data[sentence.pronoun * weights.cols + sentence.referent] >= 0.5, `${text}: "it" attends to its referent`);
      }
      model.dispose();
      assertThrows(() => engine.coreferenceSentence('colourless green ideas sleep furiously'), /not a sentence of the language/);
    });

    it('trains another size of a task, with its schedule, parameter count and held-out loss', () => {
      const trainer = engine.createTrainer({ task: 'sort', seed: 3, steps: 40, warmupSteps: 10, batchSize: 8,
        size: { dModel: 16, heads: 2, layers: 1, dFF: 32 } });
      // embeddings (vocab 30 × 16, positions 20 × 16) + one block + final norm, as the config implies
      const config = trainer.model().config;
      assert.deepEqual([config.d_model, config.n_heads, config.n_layers, config.d_ff], [16, 2, 1, 32]);
      const block = 4 * 16 * 16 + 4 * 16 + 2 * 16 * 32 + 32 + 16 + 4 * 16;
      assert.equal(trainer.parameters, config.vocab_size * 16 + config.n_ctx * 16 + block + 2 * 16);
      const schedule = trainer.schedule;
      assert.equal(schedule.length, 40);
      const steps = Array.from({ length: 40 }, () => trainer.step().learningRate);
      assertClose(schedule, steps, 0, 'the schedule is the learning rate each step used');
      assert.ok(schedule[9] > schedule[0] && schedule[39] < schedule[9], 'warm-up, then decay');
      const loss = trainer.heldOutLoss({ count: 50 });
      assert.ok(loss > 0 && loss < Math.log(config.vocab_size) + 1, `held-out loss ${loss}`);
      assert.equal(trainer.heldOutLoss({ count: 50 }), loss, 'the same examples give the same loss');
      trainer.dispose();
      assertThrows(() => engine.createTrainer({ task: 'sort', size: { dModel: 30, heads: 4 } }), /divisible|heads/);
      assertThrows(() => engine.createTrainer({ task: 'sort', size: { dModel: 1024, layers: 48, dFF: 4096 } }), /parameter/);
      assertThrows(() => engine.createTrainer({ task: 'sort', size: { layers: 0 } }), /layers/);
    });

    it('times every kernel and reports the heap it needed', () => {
      const once = { repeats: 1, minMs: 0, warmUp: false };
      for (const kernel of ['single_head', 'naive', 'flash', 'projections', 'feed_forward', 'multi_head', 'head', 'matmul', 'multiply_add_peak']) {
        const r = engine.benchmark({ kernel, n: 64, d: 32, ...once });
        assert.ok(r.medianMs > 0 && r.gflops > 0 && r.repeats === 1, kernel);
      }
      const n = 2048;
      const naive = engine.benchmark({ kernel: 'naive', n, ...once }).peakBytes;
      const fused = engine.benchmark({ kernel: 'single_head', n, ...once }).peakBytes;
      const flash = engine.benchmark({ kernel: 'flash', n, ...once }).peakBytes;
      assert.ok(naive >= 4 * n * n, `naive attention holds the n×n weights: ${naive} bytes`);
      // the fused path: inputs, output, the keys and values packed for the products (WebAssembly)
      // and a tile of query rows per thread: a quarter of the n×n matrix at n = 2048
      assert.ok(fused < 6 * 4 * n * 64 + (1 << 20), `the fused path holds no n×n matrix: ${fused} bytes`);
      assert.ok(flash < 4 * 4 * n * 64 + (1 << 20), `flash holds O(n·d): ${flash} bytes`);
      assertThrows(() => engine.benchmark({ kernel: 'single_head', n: 8193 }), /8192/);
      assertThrows(() => engine.benchmark({ kernel: 'flash', n: 32769 }), /32768/);
      assertThrows(() => engine.benchmark({ kernel: 'slow', n: 8 }), /single_head/);
    });

    it('keeps a heap high-water mark', () => {
      engine.memoryPeak({ reset: true });
      const start = engine.memoryPeak();
      const big = engine.randomNormal({ rows: 1024, cols: 1024 });
      assert.equal(big.data.length, 1 << 20);
      const peak = engine.memoryPeak({ reset: true });
      assert.ok(peak >= start + 4 * (1 << 20), `the 4 MB matrix passed through the heap: ${start} → ${peak}`);
      assert.ok(engine.memoryPeak() < peak, 'a reset starts from what is in use now');
      assert.ok(engine.memoryPeak() >= engine.memoryInUse(), 'the mark is never below what is in use');
    });

    it('refuses bad training settings and keeps working', () => {
      assertThrows(() => engine.createTrainer({ task: 'translate' }), /unknown task "translate"/);
      assertThrows(() => engine.createTrainer({ task: 'sort', batchSize: 0 }), /batchSize/);
      assertThrows(() => engine.createTrainer({ task: 'sort', learningRate: Number.NaN }), /learningRate/);
      assertThrows(() => engine.createTrainer({ task: 'sort', steps: 10, warmupSteps: 11 }), /warmupSteps/);
      assertThrows(() => engine.createTrainer({ task: 'copy', learningRate: 50 }), /peak/);
      const trainer = engine.createTrainer({ task: 'reverse', steps: 2, batchSize: 2 });
      assert.equal(trainer.step().step, 1);
      trainer.dispose();
      assertThrows(() => trainer.step(), /disposed/);
    });

    it('gives the same numbers with one thread or several', { skip: threads === 1 }, () => {
      const c = fixtures('attention.json').find((f) => f.name === 'mha_d24_h8_n8_causal');
      const model = engine.createModel({ config: { ...SMALL_MODEL, n_ctx: 64, positional: 'alibi' }, seed: 2 });
      const tokens = Array.from({ length: 60 }, (_, i) => (i * 5) % 12);
      const run = (n) => {
        engine.setThreads(n);
        return [engine.attention(multiHeadInput(c)).output.data, model.forward({ tokens }).logits.data];
      };
      const [a1, l1] = run(1);
      const [a4, l4] = run(4);
      assertClose(a4, a1, 1e-6, 'attention');
      assertClose(l4, l1, 1e-6, 'logits');
      model.dispose();
    });

    // every thread allocates and frees at once here, and frees blocks that another thread made
    it('trains to the same bits on one thread or several, and gives the heap back', { skip: threads === 1 }, () => {
      const run = (n) => {
        engine.setThreads(n);
        const trainer = engine.createTrainer({ task: 'coreference', seed: 3, batchSize: 32 });
        const reports = Array.from({ length: 4 }, () => trainer.step());
        trainer.dispose();
        return reports.map(({ loss, gradientNorm }) => [loss, gradientNorm]);
      };
      run(4);  // the task's tables are built once, on first use
      const before = engine.memoryInUse();
      const one = run(1);
      assert.deepEqual(run(4), one);
      assert.equal(engine.memoryInUse(), before, 'heap bytes left behind');
    });

    it('leaves the heap where it was after 10,000 traced forwards', () => {
      const model = engine.createModel({ config: { ...SMALL_MODEL, d_model: 32, n_heads: 4, d_ff: 64 }, seed: 1 });
      const tokens = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0];
      for (let i = 0; i < 100; i++) model.forward({ tokens, trace: true });
      const before = engine.memoryInUse();
      for (let i = 0; i < 10000; i++) model.forward({ tokens, trace: true });
      assert.equal(engine.memoryInUse(), before);
      model.dispose();
    });
  });
}
