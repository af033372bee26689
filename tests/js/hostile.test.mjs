// Hostile and careless input to the package's JavaScript API, on both WebAssembly builds: values
// that change between reads, getters that throw, look-alike typed arrays, extreme numbers, broken
// UTF-16, and the heap after thousands of rejected calls. Each case was a defect: it corrupted
// memory, leaked, hung or returned NaN before the fix.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadAttnlab } from '../../build/package/index.js';
import { assertThrows, vocabJson } from './helpers.mjs';

const SMALL_MODEL = { vocab_size: 12, n_ctx: 16, d_model: 16, n_heads: 4, d_ff: 32, n_layers: 2 };
const WORDS = ['a', 'b', 'c', 'd', 'e', 'f'];
const DECK = {
  x: [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0], n: 3, d: 4,
  wQ: [1, 0, 0, 1, 1, 0, 0, 1], wK: [0, 1, 1, 0, 0, 1, 1, 0], wV: [1, 1, 0, 0, 1, 0, 0, 1], dK: 2, dV: 2,
};
const shipped = (name) => {
  const folder = new URL(`../../web/public/models/${name}/`, import.meta.url);
  return {
    weights: new Uint8Array(readFileSync(new URL('model.safetensors', folder))),
    config: readFileSync(new URL('config.json', folder), 'utf8'),
    vocab: readFileSync(new URL('vocab.json', folder), 'utf8'),
  };
};

/** An array-like of `values` whose length answers `lengths[k]` on its k-th read (then the last). */
function shiftingLength(values, lengths) {
  const object = Object.assign({}, values);
  object.reads = 0;
  Object.defineProperty(object, 'length', { get() { return lengths[Math.min(object.reads++, lengths.length - 1)]; } });
  return object;
}

/** safetensors bytes with the floats of one tensor replaced by f(old) */
function withTensor(weights, name, f) {
  const bytes = weights.slice();
  const view = new DataView(bytes.buffer);
  const headerSize = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerSize)));
  const [begin, end] = header[name].data_offsets;
  for (let at = 8 + headerSize + begin; at < 8 + headerSize + end; at += 4) view.setFloat32(at, f(view.getFloat32(at, true)), true);
  return bytes;
}

/** npm test repeats each hostile call 1,000 times; npm run test:full (ATTNLAB_TEST_TIER=full) 10,000 */
const REPEATS = process.env.ATTNLAB_TEST_TIER === 'full' ? 10000 : 1000;

/** every method and getter of an engine object but dispose, as calls with no arguments */
function publicMembers(object) {
  const members = [];
  for (let prototype = Object.getPrototypeOf(object); prototype !== Object.prototype; prototype = Object.getPrototypeOf(prototype)) {
    for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(prototype))) {
      if (name === 'constructor' || name === 'dispose') continue;
      if (descriptor.get) members.push([name, () => object[name]]);
      else if (typeof descriptor.value === 'function') members.push([name, () => object[name]({ tokens: [1] })]);
    }
  }
  return members;
}

/** Every kind of hostile call this file makes, as a call that gets the answer it must (a clean
 * attnlab error, or the right result): repeated, none may leave memory or a JS value behind. */
function hostileCalls(engine, model) {
  const saved = model.save();
  const misfit = JSON.stringify({ ...JSON.parse(saved.config), d_ff: 33 });
  const refused = (call, pattern = /^attnlab: /) => () => {
    try {
      call();
    } catch (error) {
      if (error instanceof Error && pattern.test(error.message)) return;
      throw error;
    }
    assert.fail(`accepted: ${call}`);
  };
  const cyclic = { ...SMALL_MODEL };
  cyclic.self = cyclic;
  const trap = new Proxy({}, { get() { throw new TypeError('trapped'); } });
  const untied = engine.createModel({ config: { ...SMALL_MODEL, tie_embeddings: false }, seed: 3, vocab: vocabJson(WORDS) });
  const untiedSaved = untied.save();
  untied.dispose();
  // (kept for the engine's life, as the model is)
  const overflowing = engine.loadModel({ ...untiedSaved, weights: withTensor(untiedSaved.weights, 'lm_head.weight', () => 3e38) });
  const sort = shipped('sort');
  const sortConfig = JSON.parse(sort.config);
  model.startGeneration([1, 2]);
  return {
    'a bad argument': refused(() => engine.alibiSlopes({ heads: 0 })),
    'a wrong length': refused(() => engine.positionSimilarity({ n: 2, d: 2, pe: [1, 2, 3] })),
    'a length that grows between reads': () => assert.equal(engine.positionSimilarity({ n: 2, d: 2, pe: shiftingLength(new Array(64).fill(0.5), [4, 64]) }).rows, 2),
    'a length that shrinks between reads': () => assert.equal(model.forward({ tokens: shiftingLength(new Array(64).fill(1), [8, 3]) }).logits.rows, 8),
    'too many tokens': refused(() => model.forward({ tokens: new Int32Array(9000) }), /more than the limit of 8192/),
    'a digit string for a number': refused(() => engine.positionSimilarity({ n: 1, d: 2, pe: ['1', '2'] })),
    'a BigInt array': refused(() => model.forward({ tokens: new BigInt64Array(2) })),
    'a string for tokens': refused(() => model.forward({ tokens: '123' })),
    'a getter throwing after matrices were built': refused(() => engine.attention({ ...DECK, get wV() { throw new Error('late'); } })),
    'a proxy that throws': refused(() => engine.alibiSlopes(trap)),
    'a cyclic config': refused(() => engine.createModel({ config: cyclic })),
    'a throwing toJSON': refused(() => engine.createModel({ config: { toJSON() { throw new Error('no JSON'); } } })),
    'a token outside the vocabulary': refused(() => model.forward({ tokens: [1, 99] })),
    'a config that does not fit the weights': refused(() => engine.loadModel({ ...saved, config: misfit })),
    'a look-alike Uint8Array': refused(() => engine.loadModel({ ...saved, weights: Object.create(Uint8Array.prototype, { length: { value: 3e8 } }) })),
    'a config over the parameter limit': refused(() => engine.createModel({ config: { ...SMALL_MODEL, d_model: 1024, d_ff: 65536, n_layers: 16 } })),
    'tensors whose shapes the config contradicts': refused(() => engine.loadModel({ ...sort, config: JSON.stringify({ ...sortConfig, d_ff: 65536 }), maxParameterBytes: 2 ** 30 })),
    'an integer past 2³²': refused(() => engine.createModel({ config: { ...SMALL_MODEL, d_model: 2 ** 32 + 8 } })),
    'a NUL in a name': refused(() => engine.positionalTable({ kind: 'sin\u0000usoidal', n: 2, d: 2 })),
    'an unreadable trace list': refused(() => model.forward({ tokens: [1], trace: [1] })),
    'a trace name nothing recorded': refused(() => model.forward({ tokens: [1], trace: ['nope'] })),
    'a generation step with a bad option': refused(() => model.generateStep({ trace: ['nope'] })),
    'a tensor name nothing holds': refused(() => model.parameter('h.2.attn.c_proj.weight')),
    'a tensor name that is not a string': refused(() => model.parameter({ name: 'wte.weight' })),
    'a temperature past the largest float': refused(() => model.nextTokenProbabilities({ tokens: [1], temperature: 1e308 })),
    'a tiny temperature': () => assert.equal(Math.max(...model.nextTokenProbabilities({ tokens: [1, 2], temperature: 5e-324 })), 1),
    'weights whose logits overflow': refused(() => overflowing.forward({ tokens: [1] }), /the logits are not finite/),
    'lone UTF-16 surrogates': () => assert.deepEqual(model.tokenize('a\ud800 b').pieces, ['a\ufffd', 'b']),
  };
}

for (const threads of [1, 'auto']) {
  describe(`hostile input, ${threads === 1 ? 'single-thread' : 'threaded'} build`, () => {
    let engine;
    let model;
    before(async () => {
      engine = await loadAttnlab({ threads });
      model = engine.createModel({ config: SMALL_MODEL, seed: 3, vocab: vocabJson(WORDS) });
    });
    after(() => model.dispose());

    it('reads an array\'s length once, so a length that grows between reads cannot overflow the heap', () => {
      const logits = model.forward({ tokens: [1, 2, 3] }).logits.data;
      const before = engine.memoryInUse();
      // the length grows on its 2nd, 3rd or 4th read (an engine reading it twice, once to check and
      // once to copy, would write 100000 floats into a block of 4)
      for (const honest of [1, 2, 3]) {
        const pe = shiftingLength(new Array(100000).fill(0.5), [...new Array(honest).fill(4), 100000]);
        const similarity = engine.positionSimilarity({ n: 2, d: 2, pe });
        assert.equal(pe.reads, 1);
        assert.deepEqual(similarity, engine.positionSimilarity({ n: 2, d: 2, pe: [0.5, 0.5, 0.5, 0.5] }));
      }
      const shrinking = shiftingLength([1, 0, 0, 1], [4, 0]);
      assert.equal(engine.positionSimilarity({ n: 2, d: 2, pe: shrinking }).rows, 2);
      assert.equal(shrinking.reads, 1);
      const tokens = shiftingLength(new Array(9000).fill(1), [3, 9000]);
      assert.equal(model.forward({ tokens }).logits.rows, 3);
      assert.equal(tokens.reads, 1);
      assertThrows(() => model.forward({ tokens: shiftingLength(new Array(9000).fill(1), [9000, 3]) }), /tokens has 9000 entries, more than the limit of 8192/);
      // nothing was overwritten: the model computes what it did, and the heap is where it was
      assert.deepEqual(model.forward({ tokens: [1, 2, 3] }).logits.data, logits);
      assert.equal(engine.memoryInUse(), before);
    });

    it('takes numbers only: digit strings, booleans and BigInts in numeric arrays are refused', () => {
      assertThrows(() => engine.positionSimilarity({ n: 1, d: 2, pe: ['1', '2'] }), /^attnlab: pe has a non-number at \[0\] \(string\)/);
      assertThrows(() => engine.attention({ ...DECK, wV: [...DECK.wV.slice(0, 7), true] }), /wV has a non-number at \[7\] \(boolean\)/);
      assertThrows(() => model.forward({ tokens: [1, null] }), /tokens has a non-number at \[1\] \(null\)/);
      assertThrows(() => model.forward({ tokens: new BigInt64Array(2) }), /tokens must hold numbers, not BigInts/);
      assertThrows(() => model.forward({ tokens: '123' }), /tokens must be a Float32Array or an array of numbers/);
      assertThrows(() => model.forward({ tokens: { length: -1 } }), /tokens must be a Float32Array or an array of numbers/);
      assert.equal(model.forward({ tokens: new Int32Array([1, 2]) }).logits.rows, 2);
    });

    it('turns a throwing getter, proxy or toJSON into an attnlab error, and keeps working', () => {
      assertThrows(() => engine.attention({ ...DECK, get wK() { throw new Error('boom'); } }), /^attnlab: wK could not be read \(boom\)/);
      const trap = new Proxy({}, { get() { throw new TypeError('trapped'); } });
      assertThrows(() => engine.alibiSlopes(trap), /could not be read \(trapped\)/);
      const cyclic = { ...SMALL_MODEL };
      cyclic.self = cyclic;
      assertThrows(() => engine.createModel({ config: cyclic }), /^attnlab: config could not be read/);
      assertThrows(() => engine.createModel({ config: { toJSON() { throw new Error('no JSON'); } } }), /config could not be read \(no JSON\)/);
      assert.equal(engine.alibiSlopes({ heads: 2 }).length, 2);
    });

    it('reads each option of a call once: a getter runs once, whatever the engine checks first', () => {
      /** options behind a proxy that counts the reads of each key */
      const counted = (options) => {
        const reads = {};
        const proxy = new Proxy(options, { get(target, key, receiver) {
          if (typeof key === 'string') reads[key] = (reads[key] ?? 0) + 1;
          return Reflect.get(target, key, receiver);
        } });
        return { proxy, reads };
      };
      const d = 4;
      const qkv = d + 2 * d;
      const fill = (count, value) => new Array(count).fill(value);
      const multiHead = {
        x: fill(3 * d, 0.5), memory: fill(2 * d, 0.25), n: 3, m: 2, d, heads: 2, ropePairing: 'rotate_half',
        flash: { blockRows: 2, blockCols: 2 }, cAttnWeight: fill(d * qkv, 0.1), cAttnBias: fill(qkv, 0), cProjWeight: fill(d * d, 0.1), cProjBias: fill(d, 0),
      };
      const calls = {
        'single-head attention': [(o) => engine.attention(o), { ...DECK, keyPadding: [1, 1, 0] }],
        'multi-head cross-attention': [(o) => engine.attention(o), multiHead],
        'norms': [(o) => engine.norms(o), { x: [1, 2, 3, 4], d: 4, gamma: [1, 1, 1, 1], beta: [0, 0, 0, 0] }],
        'a benchmark': [(o) => engine.benchmark(o), { kernel: 'single_head', n: 4, d: 8, repeats: 1, minMs: 0, warmUp: false }],
        'a softmax row': [(o) => engine.softmaxRow(o), { scores: [1, 2, 3], scale: 0.5, temperature: 2 }],
        'softmax forms': [(o) => engine.softmaxForms(o), { scores: [1, 2, 3], scale: 2 }],
        'an activation curve': [(o) => engine.activationCurve(o), { activation: 'gelu', x: [-1, 0, 1] }],
        'RoPE': [(o) => engine.ropeApply(o), { x: fill(8, 1), n: 2, d: 4, pairing: 'rotate_half' }],
        'a model': [(o) => engine.createModel(o).dispose(), { config: { ...SMALL_MODEL }, seed: 1, vocab: vocabJson(WORDS) }],
        'sampling': [(o) => model.nextTokenProbabilities(o), { tokens: [1, 2], topK: 3, topP: 0.9, temperature: 0.7 }],
        'generation': [(o) => model.generate(o), { tokens: [1, 2], maxNew: 2, stop: 0, topK: 2, seed: 4 }],
        'a forward with a trace': [(o) => model.forward(o), { tokens: [1, 2], causal: true, trace: ['logits'] }],
        'a programmed model\'s input': [(o) => engine.programInput(o), { program: 'sort', text: 'bab' }],
      };
      for (const [name, [call, options]] of Object.entries(calls)) {
        const { proxy, reads } = counted(options);
        call(proxy);
        const twice = Object.entries(reads).filter(([, count]) => count > 1);
        assert.deepEqual(twice, [], `${name}: options read more than once`);
        assert.ok(Object.keys(reads).length >= 2, `${name}: its options were read`);
      }
    });

    it('uses JSON and the typed arrays as it found them: a page that replaced them changes nothing and leaks nothing', () => {
      const handles = () => engine.raw.count_emval_handles();
      const calls = () => [model.config, model.forward({ tokens: [1, 2] }).logits.data, engine.alibiSlopes({ heads: 2 }),
        model.generate({ tokens: [1], maxNew: 2 }), model.save().weights.length];
      const expected = calls();
      const globals = ['Float32Array', 'Int32Array', 'Uint8Array'];
      const saved = { parse: JSON.parse, ...Object.fromEntries(globals.map((name) => [name, globalThis[name]])) };
      let last;
      let before;
      let handlesBefore;
      try {
        JSON.parse = () => { throw new Error('JSON.parse replaced'); };
        for (const name of globals) globalThis[name] = function replaced() { throw new Error(`${name} replaced`); };
        calls();
        before = engine.memoryInUse();
        handlesBefore = handles();
        for (let i = 0; i < 200; i++) last = calls();
      } finally {
        JSON.parse = saved.parse;
        for (const name of globals) globalThis[name] = saved[name];
      }
      assert.equal(engine.memoryInUse() - before, 0, 'heap bytes left behind');
      assert.equal(handles() - handlesBefore, 0, 'JS values kept referenced');
      assert.deepEqual(last, expected);
      assert.ok(last[1] instanceof Float32Array && last[2] instanceof Float32Array && last[3] instanceof Int32Array);
    });

    it(`leaves the heap and the handle table where they were after ${REPEATS.toLocaleString('en')} of every hostile call`, () => {
      const handles = () => engine.raw.count_emval_handles();
      for (const [kind, call] of Object.entries(hostileCalls(engine, model))) {
        for (let i = 0; i < 20; i++) call();
        const before = engine.memoryInUse();
        const handlesBefore = handles();
        for (let i = 0; i < REPEATS; i++) call();
        assert.equal(engine.memoryInUse() - before, 0, `${kind}: heap bytes left behind`);
        assert.equal(handles() - handlesBefore, 0, `${kind}: JS values kept referenced`);
      }
    });

    it('refuses every call of a disposed object, frees its memory, and keeps what was made from it working', () => {
      const before = engine.memoryInUse();
      const owner = engine.createModel({ config: SMALL_MODEL, seed: 3, vocab: vocabJson(WORDS) });
      const stepper = owner.attentionSteps({ tokens: [1, 2, 3], layer: 1 });
      const trainer = engine.createTrainer({ task: 'copy', seed: 1, batchSize: 2, steps: 4 });
      trainer.step();
      const snapshot = trainer.model();
      const expected = snapshot.forward({ tokens: [1, 2] }).logits.data;
      for (const object of [owner, trainer]) {
        object.dispose();
        object.dispose();
        const kind = object.constructor.name;
        for (const [name, call] of publicMembers(object)) {
          assert.throws(call, (error) => error.message === `attnlab: this ${kind} was disposed`, `${kind}.${name}`);
        }
      }
      // the stepper holds its layer's weights, the snapshot a copy of the trainer's
      assert.equal(stepper.runAll().stage, 'output');
      assert.deepEqual(snapshot.forward({ tokens: [1, 2] }).logits.data, expected);
      stepper.dispose();
      snapshot.dispose();
      for (const [name, call] of publicMembers(stepper)) assert.throws(call, (error) => error.message === 'attnlab: this AttentionStepper was disposed', `AttentionStepper.${name}`);
      assert.equal(engine.memoryInUse(), before);
    });

    it('builds its results without running the page\'s setters: a polluted Object.prototype changes nothing and leaks nothing', () => {
      const handles = () => engine.raw.count_emval_handles();
      const expected = engine.attention({ ...DECK, trace: true });
      const polluted = ['output', 'heads', 'weights', 'rows', 'data', 'logits', 'trace', 'stage'];
      const setters = [Object.prototype];
      try {
        for (const prototype of setters) {
          for (const key of polluted) {
            Object.defineProperty(prototype, key, { configurable: true, set() { throw new Error(`setter ${key}`); } });
          }
        }
        const calls = () => [engine.attention({ ...DECK, trace: true }), model.forward({ tokens: [1, 2], trace: ['logits'] })];
        calls();
        const before = engine.memoryInUse();
        const handlesBefore = handles();
        let last;
        for (let i = 0; i < 1000; i++) last = calls();
        assert.equal(engine.memoryInUse() - before, 0, 'heap bytes left behind');
        assert.equal(handles() - handlesBefore, 0, 'JS values kept referenced');
        assert.deepEqual(Object.keys(last[0]), Object.keys(expected));
        assert.deepEqual(last[0].heads[0].weights.data, expected.heads[0].weights.data);
        assert.equal(last[1].trace.logits.rows, 2);
      } finally {
        for (const prototype of setters) for (const key of polluted) delete prototype[key];
      }
    });

    it('gives finite probabilities at extreme temperatures, or says why not', () => {
      for (const temperature of [1e-40, 5e-324, 1e-30]) {
        const p = model.nextTokenProbabilities({ tokens: [1, 2], temperature });
        assert.ok(p.every(Number.isFinite), `T = ${temperature}`);
        assert.equal(p.reduce((a, b) => a + b), 1);
        assert.equal(Math.max(...p), 1);
      }
      const uniform = model.nextTokenProbabilities({ tokens: [1, 2], temperature: 3e38 });
      assert.ok(uniform.every((v) => Math.abs(v - 1 / 12) < 1e-6));
      assertThrows(() => model.nextTokenProbabilities({ tokens: [1], temperature: 1e308 }), /temperature must be at most 3\.40282347e\+38 \(the largest float\), got 1e\+308/);
      model.startGeneration([1, 2]);
      const step = model.generateStep({ temperature: 1e-40 });
      assert.ok(step.probabilities.every(Number.isFinite));
      assert.equal(step.probabilities[step.token], 1);
    });

    it('refuses to hand out NaN from finite but extreme weights', () => {
      const untied = engine.createModel({ config: { ...SMALL_MODEL, tie_embeddings: false }, seed: 3, vocab: vocabJson(WORDS) });
      const saved = untied.save();
      untied.dispose();
      // an overflowing output layer: the logits themselves are not finite
      const overflowing = engine.loadModel({ ...saved, weights: withTensor(saved.weights, 'lm_head.weight', () => 3e38) });
      // (the engine's own message, natively too)
      assertThrows(() => overflowing.forward({ tokens: [1, 2, 3] }), /^attnlab: model: the logits are not finite: the activations overflowed/);
      assertThrows(() => overflowing.nextTokenProbabilities({ tokens: [1, 2, 3] }), /^attnlab: model: the logits are not finite/);
      assertThrows(() => overflowing.startGeneration([1, 2, 3]), /^attnlab: model: the logits are not finite/);
      overflowing.dispose();
      // an overflowing first layer: the engine stops at the first non-finite activation
      const early = engine.loadModel({ ...saved, weights: withTensor(saved.weights, 'h.0.ln_1.weight', () => 1e30) });
      assertThrows(() => early.forward({ tokens: [1, 2, 3] }), /^attnlab: attention: input contains a non-finite value/);
      early.dispose();
    });

    it('requires a real Uint8Array for weights and rejects look-alikes at once', () => {
      const { config, vocab } = shipped('sort');
      const lookAlikes = [
        Object.create(Uint8Array.prototype, { length: { value: 3e8 } }),
        Object.setPrototypeOf(new DataView(new ArrayBuffer(8)), Uint8Array.prototype),
        new Proxy(new Uint8Array(4), {}),
        new Uint16Array(4),
        Array.from({ length: 16 }, () => 0),
      ];
      for (const weights of lookAlikes) {
        const start = performance.now();
        assertThrows(() => engine.loadModel({ weights, config, vocab }), /^attnlab: weights must be a Uint8Array/);
        assert.ok(performance.now() - start < 1000, 'rejected within a second');
      }
    });

    it('refuses a huge vocabulary from the config\'s vocab_size, before reading it through', () => {
      const loadable = shipped('sort');
      const tokens = ['[PAD]', '[UNK]', '[BOS]', '[EOS]', '[MASK]', '[SEP]'];
      for (let i = 0; i < 1000000; i++) tokens.push(`w${i}`);
      const vocab = JSON.stringify({ kind: 'word', tokens });
      const start = performance.now();
      assertThrows(() => engine.loadModel({ ...loadable, vocab }), /the vocabulary has more than \d+ tokens but the config says vocab_size = \d+/);
      assert.ok(performance.now() - start < 3000, `rejected in ${performance.now() - start} ms`);
    });

    it('refuses configs whose parameters exceed the limit, and checks shapes before allocating', () => {
      const big = { ...SMALL_MODEL, d_model: 1024, n_heads: 4, d_ff: 65536, n_layers: 16 };
      assertThrows(() => engine.createModel({ config: big }), /the parameters need \d+ bytes, more than the limit of 268435456 bytes/);
      assertThrows(() => engine.createModel({ config: SMALL_MODEL, maxParameterBytes: 1000 }), /more than the limit of 1000 bytes/);
      const loadable = shipped('sort');
      const config = JSON.parse(loadable.config);
      const before = engine.memoryInUse();
      const start = performance.now();
      assertThrows(() => engine.loadModel({ ...loadable, config: JSON.stringify({ ...config, n_layers: 8, d_ff: 65536 }), maxParameterBytes: 2 ** 30 }),
        /tensor "h.0.mlp.c_fc.weight" has shape \(64, 256\); the config needs \(64, 65536\)/);
      assert.ok(performance.now() - start < 2000, `rejected in ${performance.now() - start} ms`);
      assert.equal(engine.memoryInUse(), before);
    });

    it('reads a config\'s integers at full width: 2³² + 8 is refused, never taken as 8', () => {
      for (const d_model of [2 ** 32 + 8, 2 ** 53]) {
        assertThrows(() => engine.createModel({ config: { ...SMALL_MODEL, d_model } }), new RegExp(`"d_model" is out of range, got ${d_model}$`));
      }
      const loadable = shipped('sort');
      const config = JSON.parse(loadable.config);
      const wide = loadable.config.replace(`"d_model": ${config.d_model}`, `"d_model": ${2 ** 32 + config.d_model}`);
      assert.notEqual(wide, loadable.config);
      assertThrows(() => engine.loadModel({ ...loadable, config: wide }), /"d_model" is out of range, got 4294967360$/);
    });

    it('leaves a generation as it was when a call fails, at any stage', () => {
      const generation = engine.createModel({ config: SMALL_MODEL, seed: 3, vocab: vocabJson(WORDS) });
      const started = generation.startGeneration([1, 2, 3]);
      const cacheOf = () => [0, 1].map((layer) => generation.kvCache(layer));
      const before = cacheOf();
      // options refused before sampling, and after the step ran (a trace name nothing recorded)
      for (const bad of [{ temperature: -1 }, { logits: 'yes' }, { trace: 'all' }, { trace: ['nope'] }, { trace: [1] }]) {
        assertThrows(() => generation.generateStep(bad), /^attnlab: /);
        assert.deepEqual(cacheOf(), before, `${JSON.stringify(bad)} left the cache as it was`);
      }
      assertThrows(() => generation.startGeneration([1, 2], { trace: ['nope'] }), /nothing recorded under "nope"/);
      assert.deepEqual(cacheOf(), before, 'a failed startGeneration keeps the generation it would have replaced');
      // the next step is the one the first call would have made: same token, same cache
      const step = generation.generateStep({ seed: 5 });
      const fresh = engine.createModel({ config: SMALL_MODEL, seed: 3, vocab: vocabJson(WORDS) });
      fresh.startGeneration([1, 2, 3]);
      const expected = fresh.generateStep({ seed: 5 });
      assert.equal(started.length, 3);
      assert.deepEqual([step.token, step.length], [expected.token, 4]);
      assert.deepEqual(generation.kvCache(1), fresh.kvCache(1));
      fresh.dispose();
      generation.dispose();
    });

    it('replaces lone UTF-16 surrogates instead of swallowing the next character', () => {
      assert.deepEqual(model.tokenize('a\ud800 b').pieces, ['a\ufffd', 'b']);
      assert.deepEqual(model.tokenize('a \udc00b').pieces, ['a', '\ufffdb']);
      assert.deepEqual(model.tokenize('a \ud83d\ude00 b').pieces, ['a', '\ud83d\ude00', 'b']);
      const character = engine.createModel({ config: { ...SMALL_MODEL, vocab_size: 8 }, vocab: JSON.stringify({ kind: 'character', tokens: ['[PAD]', '[UNK]', '[BOS]', '[EOS]', '[MASK]', '[SEP]', 't', 'e'] }) });
      assert.deepEqual(character.tokenize('t\ud800e').pieces, ['t', '\ufffd', 'e']);
      character.dispose();
    });

    it('reads one tensor by a name that is one, and refuses any other name or a tensor over 2²⁴ numbers, copying nothing', () => {
      const wO = model.parameter('h.1.attn.c_proj.weight');
      const before = engine.memoryInUse();
      const hostile = [
        [7, /^attnlab: parameter: name must be a string$/],
        [undefined, /^attnlab: parameter: name must be a string$/],
        [new String('wte.weight'), /^attnlab: parameter: name must be a string$/],
        ['', /^attnlab: parameter: the model has no tensor ""; its \d+ tensors are named as save\(\) writes them, "wte\.weight", .* \(the first block's W_O is "h\.0\.attn\.c_proj\.weight"\)$/],
        ['h'.repeat(10 * 2 ** 20), /^attnlab: parameter: a tensor name has at most 256 bytes, got 10485760$/],
        ['wte.weight\u0000', /^attnlab: parameter: the model has no tensor "wte\.weight\\0"/],
        ['wte\u0000.weight', /no tensor "wte\\0\.weight"/],
      ];
      for (const [name, pattern] of hostile) assertThrows(() => model.parameter(name), pattern);
      assert.equal(engine.memoryInUse(), before);
      assert.deepEqual(model.parameter('h.1.attn.c_proj.weight'), wO, 'the engine keeps working');
      // a token embedding of 65600 × 256 = 2²⁴ + 16384 numbers is refused before anything is copied
      const wide = engine.createModel({ config: { ...SMALL_MODEL, vocab_size: 65600, d_model: 256 }, seed: 1 });
      try {
        const held = engine.memoryInUse();
        assertThrows(() => wide.parameter('wte.weight'),
          /^attnlab: parameter: "wte\.weight" holds 65600×256 = 16793600 numbers, more than the 16777216 that one call hands out$/);
        assert.equal(engine.memoryInUse(), held);
        assert.equal(wide.parameter('h.0.attn.c_proj.weight').rows, 256);
      } finally {
        wide.dispose();
      }
    });

    it('keeps a NUL in an error message visible and the rest of the message', () => {
      assertThrows(() => engine.createModel({ config: { ...SMALL_MODEL, 'col\u0000our': 1 } }), /unknown field "col\\0our"$/);
      assertThrows(() => engine.positionalTable({ kind: 'sin\u0000usoidal', n: 2, d: 2 }), /unknown positional encoding "sin\\0usoidal" \(expected/);
    });
  });
}
