// Hugging Face checkpoints through the package's loadModel, on both WebAssembly builds: the
// fixtures written by tests/reference/generate_fixtures.py (GPT-2 and Llama layouts in F32, F16 and
// BF16, one sharded) against PyTorch's logits, attention and greedy continuation; bytes and Blobs;
// bad files refused with the engine usable after.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openAsBlob, readFileSync, readdirSync } from 'node:fs';
import { gpt2Tokenizer, loadAttnlab } from '../../build/package/index.js';
import { randomGpt2Checkpoint, safetensorsTensors } from '../bench/random-checkpoint.mjs';
import { assertClose, assertThrows } from './helpers.mjs';

const folder = (name) => new URL(`../reference/fixtures/hf/${name}/`, import.meta.url);
const CHECKPOINTS = ['gpt2-f32', 'gpt2-f16-untied', 'gpt2-bf16', 'llama-f32', 'llama-f16-mqa', 'llama-bf16-sharded'];

/** the checkpoint's files as loadModel takes them, weights as bytes */
function checkpoint(name) {
  const dir = folder(name);
  const files = readdirSync(dir);
  const index = files.includes('model.safetensors.index.json') ? readFileSync(new URL('model.safetensors.index.json', dir), 'utf8') : undefined;
  const shards = files.filter((f) => f.endsWith('.safetensors')).sort();
  return {
    config: readFileSync(new URL('config.json', dir), 'utf8'),
    weights: shards.map((f) => new Uint8Array(readFileSync(new URL(f, dir)))),
    shardNames: shards,
    ...(index ? { index } : {}),
    expected: JSON.parse(readFileSync(new URL('expected.json', dir), 'utf8')),
  };
}

/** the tensors of a safetensors file the engine saved: [name, shape, bytes] */
function savedTensors(weights) {
  const headerSize = Number(new DataView(weights.buffer, weights.byteOffset).getBigUint64(0, true));
  const { __metadata__, ...header } = JSON.parse(new TextDecoder().decode(weights.subarray(8, 8 + headerSize)));
  const data = safetensorsTensors(weights);
  return Object.entries(header).map(([name, { shape }]) => [name, shape, Buffer.from(data[name].buffer, data[name].byteOffset, data[name].byteLength)]);
}

for (const threads of [1, 'auto']) {
  describe(`Hugging Face checkpoints, ${threads === 1 ? 'single-thread' : 'threaded'} build`, () => {
    let engine;
    before(async () => {
      engine = await loadAttnlab({ threads });
    });

    for (const name of CHECKPOINTS) {
      it(`${name}: logits, every head's attention and a greedy continuation equal PyTorch's`, async () => {
        const { config, weights, index, expected } = checkpoint(name);
        // no tokenizer (the fixtures' 64-token vocabularies have none): a Promise, resolved at once
        const model = await engine.loadModel({ config, weights: weights.length === 1 ? weights[0] : weights, index });
        try {
          const { logits, trace } = model.forward({ tokens: expected.prompt, trace: true });
          const scale = Math.max(1, ...expected.logits.data.map(Math.abs));
          assertClose(logits.data, expected.logits.data, 1e-5 * scale, 'logits');
          const n = expected.prompt.length;
          expected.attention.forEach((layer, l) => {
            const heads = layer.shape[0];
            for (let h = 0; h < heads; h++)
              assertClose(trace[`layer${l}.attn.head${h}.weights`].data, layer.data.slice(h * n * n, (h + 1) * n * n), 1e-5, `layer ${l} head ${h}`);
          });
          const out = model.generate({ tokens: expected.prompt, maxNew: 20, temperature: 0 });
          assert.deepEqual([...out.slice(n)], expected.continuation);
          // the KV cache gives the same continuation, step by step
          model.startGeneration(expected.prompt);
          const stepped = Array.from({ length: 20 }, () => model.generateStep({ temperature: 0 }).token);
          assert.deepEqual(stepped, expected.continuation);
        } finally {
          model.dispose();
        }
      });
    }

    it('reads one tensor by the name save() writes it under: save()\'s bytes, for every tensor of each family', async () => {
      const seq2seq = engine.createModel({ config: { vocab_size: 12, n_ctx: 8, d_model: 8, n_heads: 2, d_ff: 16, n_layers: 1,
        n_decoder_layers: 2, architecture: 'encoder_decoder', activation: 'swiglu', norm: 'rms_norm' }, seed: 4 });
      const models = { 'gpt2-f16-untied': null, 'llama-f16-mqa': null, 'attnlab encoder-decoder': seq2seq };
      for (const name of ['gpt2-f16-untied', 'llama-f16-mqa']) {
        const { config, weights } = checkpoint(name);
        models[name] = await engine.loadModel({ config, weights: weights[0] });
      }
      try {
        for (const [family, model] of Object.entries(models)) {
          const tensors = savedTensors(model.save().weights);
          assert.ok(tensors.length > 20, `${family}: ${tensors.length} tensors`);
          for (const [name, shape, bytes] of tensors) {
            const tensor = model.parameter(name);
            assert.deepEqual([tensor.rows, tensor.cols], shape.length === 1 ? [1, shape[0]] : shape, `${family}: ${name}'s shape`);
            assert.ok(tensor.data instanceof Float32Array);
            assert.ok(Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength).equals(bytes), `${family}: ${name}'s numbers`);
          }
        }
        // a Llama's o_proj, stored (out, in), is W_O as the engine multiplies by it: (h·d_k, d)
        assert.equal(models['llama-f16-mqa'].parameter('h.1.attn.c_proj.weight').rows, models['llama-f16-mqa'].config.d_model);
        assertThrows(() => seq2seq.parameter('h.0.attn.c_proj.weight'),
          /^attnlab: parameter: the model has no tensor "h\.0\.attn\.c_proj\.weight"; .* \(the first block's W_O is "encoder\.h\.0\.attn\.c_proj\.weight"\)$/);
      } finally {
        for (const model of Object.values(models)) model.dispose();
      }
    });

    it("weightStorage 'as-stored' keeps F16 and BF16 weights in 16 bits: the same logits, steps, tensors and fingerprint, and no training", async () => {
      for (const [name, dtype] of [['gpt2-bf16', 'BF16'], ['llama-f16-mqa', 'F16'], ['llama-bf16-sharded', 'BF16'], ['gpt2-f32', 'F32']]) {
        const { config, weights, index, expected } = checkpoint(name);
        const given = { config, weights: weights.length === 1 ? weights[0] : weights, index };
        const kept = await engine.loadModel({ ...given, weightStorage: 'as-stored' }), floats = await engine.loadModel(given);
        try {
          assert.equal(kept.weightDtype(), dtype, name);
          assert.equal(floats.weightDtype(), 'F32');
          assert.equal(kept.fingerprint(), floats.fingerprint(), `${name}: the same numbers`);
          assert.deepEqual(kept.forward({ tokens: expected.prompt }).logits.data, floats.forward({ tokens: expected.prompt }).logits.data);
          kept.startGeneration(expected.prompt);
          assert.deepEqual(Array.from({ length: 20 }, () => kept.generateStep({ temperature: 0 }).token), expected.continuation, name);
          const w = 'h.1.mlp.c_proj.weight';
          assert.deepEqual(kept.parameter(w).data, floats.parameter(w).data);
          assert.ok(Buffer.from(kept.save().weights).equals(Buffer.from(floats.save().weights)), `${name}: save() writes the same float32 file`);
        } finally {
          kept.dispose();
          floats.dispose();
        }
      }
      const { config, weights } = checkpoint('gpt2-bf16');
      await assert.rejects(async () => engine.loadModel({ config, weights: weights[0], weightStorage: 'half' }),
        (error) => /^attnlab: weightStorage must be "float32" or "as-stored", got "half"$/.test(error.message));
    });

    it('what a config describes, before any weights are read', () => {
      const { config } = checkpoint('llama-f16-mqa');
      const described = engine.describeCheckpoint({ config });
      assert.equal(described.family, 'llama');
      assert.equal(described.config.n_kv_heads, 1);
      assert.equal(described.config.rope_pairing, 'rotate_half');
      assert.equal(described.config.positional, 'rope');
      assert.equal(described.parameterBytes % 4, 0);
      assertThrows(() => engine.describeCheckpoint({ config: JSON.stringify({ model_type: 'mistral' }) }),
        /^attnlab: config.json: model_type "mistral" is not one the engine loads \(gpt2 or llama\)$/);
    });

    it('Blobs (Node: fs.openAsBlob) are read in pieces, shard by shard, matched to the index by name', async () => {
      const { config, index, shardNames, expected } = checkpoint('llama-bf16-sharded');
      const blobs = await Promise.all(shardNames.map((f) => openAsBlob(new URL(f, folder('llama-bf16-sharded')))));
      const files = blobs.map((blob, i) => new File([blob], shardNames[i])).reverse();  // names, not order, decide
      const progress = [];
      const model = await engine.loadModel({ config, weights: files, index, onProgress: (read, total, tensor) => progress.push({ read, total, tensor }) });
      try {
        const { logits } = model.forward({ tokens: expected.prompt });
        assertClose(logits.data, expected.logits.data, 1e-5 * Math.max(1, ...expected.logits.data.map(Math.abs)), 'logits');
        assert.ok(progress.length > 10);
        assert.equal(progress.at(-1).read, progress.at(-1).total);
        assert.ok(progress.some((p) => p.tensor === 'model.layers.1.mlp.down_proj.weight'));
      } finally {
        model.dispose();
      }
    });

    it('the file streams into the model: the heap grows by at most 1.25× the parameters while loading', async () => {
      // 30M parameters (120 MB): large beside the 4 MiB pieces, quick to make
      const { config, weights, parameters } = randomGpt2Checkpoint({ vocab_size: 8192, n_positions: 256, n_embd: 512, n_head: 8, n_layer: 8 });
      const before = engine.memoryInUse();
      engine.memoryPeak({ reset: true });
      const model = await engine.loadModel({ config, weights });
      const peak = engine.memoryPeak() - before;
      try {
        assert.ok(peak <= 1.25 * parameters * 4, `peak ${peak} bytes for ${parameters * 4} bytes of parameters`);
        assert.equal(model.config.d_model, 512);
        assert.equal(model.forward({ tokens: [1, 2, 3] }).logits.cols, 8192);
      } finally {
        model.dispose();
      }
    });

    it('a GPT-2 needs only its weights and config, and its generation streams whole characters', async () => {
      const { config, weights } = randomGpt2Checkpoint({ vocab_size: 50257, n_positions: 128, n_embd: 16, n_head: 2, n_layer: 1 }, 11);
      const model = await engine.loadModel({ config, weights: new Blob([weights]) });  // GPT-2's tokenizer, read by loadModel
      try {
        assert.deepEqual(model.specialTokens(), { '<|endoftext|>': 50256 });
        const prompt = model.tokenize('Streaming: 🙂 你好').ids;
        const given = engine.loadModel({ config, weights, tokenizer: await gpt2Tokenizer() });
        assert.deepEqual([...prompt], [...given.tokenize('Streaming: 🙂 你好').ids]);
        given.dispose();
        model.startGeneration(prompt);
        const ids = [], texts = [];
        for (let i = 0; i < 100; i++) {
          const step = model.generateStep({ seed: 3 });
          ids.push(step.token);
          texts.push(step.text);
        }
        // random weights pick byte tokens too: some steps hold bytes back, none shows half a character
        const whole = model.decode(ids), streamed = texts.join('');
        assert.ok(whole.startsWith(streamed) && whole.length - streamed.length <= 1, `${JSON.stringify(streamed)} / ${JSON.stringify(whole)}`);
        assert.ok(texts.every((t) => typeof t === 'string' && !/[\uD800-\uDFFF]/.test(t.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ''))));
      } finally {
        model.dispose();
      }
    });

    it('bad files are refused with the reason, and the engine keeps working', async () => {
      const gpt2 = checkpoint('gpt2-f32');
      const llama = checkpoint('llama-bf16-sharded');
      const truncated = gpt2.weights[0].subarray(0, gpt2.weights[0].length - 100);
      const cases = [
        [() => engine.loadModel({ config: gpt2.config, weights: truncated }), /outside the \d+ bytes of data/],
        [() => engine.loadModel({ config: gpt2.config, weights: 'model.safetensors' }), /^attnlab: weights must be a Uint8Array, a Blob or a list of them/],
        [() => engine.loadModel({ config: llama.config, weights: [llama.weights[0], llama.weights[0]] }), /tensor "model.embed_tokens.weight" is in two shards|is in two shards/],
        [() => engine.loadModel({ config: llama.config, weights: [llama.weights[0]], index: llama.index }), /the index names 2 shards, got 1/],
        [() => engine.loadModel({ config: gpt2.config, weights: llama.weights, index: llama.index }), /tensor "wte.weight" is missing/],
        [() => engine.loadModel({ config: JSON.stringify({ ...JSON.parse(gpt2.config), n_embd: 32 }), weights: gpt2.weights[0] }),
          /tensor "wte.weight" has shape \(64, 16\); the config needs \(64, 32\)/],
        [() => engine.loadModel({ config: JSON.stringify({ ...JSON.parse(llama.config), rope_scaling: { type: 'dynamic', factor: 2 } }), weights: llama.weights, index: llama.index }),
          /"rope_scaling" is \{"factor":2,"type":"dynamic"\}, which the engine does not implement/],
        // a config claiming 40 billion parameters: refused before anything is allocated, the cap of a checkpoint named
        [() => engine.loadModel({ config: JSON.stringify({ ...JSON.parse(gpt2.config), n_embd: 4096, n_layer: 200, n_head: 64 }), weights: gpt2.weights[0] }),
          /the parameters need \d+ bytes, more than the limit of 1610612736 bytes/],
        [() => engine.loadModel({ config: gpt2.config, weights: gpt2.weights[0], maxParameterBytes: 1000 }),
          /the parameters need \d+ bytes, more than the limit of 1000 bytes/],
      ];
      for (const [call, pattern] of cases) await assert.rejects(async () => call(), (error) => pattern.test(error.message));
      // a Blob whose size is no whole number is refused before it is sliced
      class Odd extends Blob { get size() { return NaN; } }
      await assert.rejects(async () => engine.loadModel({ config: gpt2.config, weights: new Odd([gpt2.weights[0]]) }),
        /^Error: attnlab: weights\[0\] has a size of NaN, not a whole number of bytes$/);
      // a bad tokenizer is refused before any weights are read
      let read = 0;
      await assert.rejects(async () => engine.loadModel({ config: gpt2.config, weights: new Blob([gpt2.weights[0]]),
        tokenizer: '{"model": {"type": "WordPiece"}}', onProgress: () => read++ }), /WordPiece/);
      assert.equal(read, 0);
      // a Blob that fails part-way: the promise rejects naming the file and the bytes, nothing is left behind
      const failing = new File([gpt2.weights[0]], 'model.safetensors');
      failing.slice = () => { throw new Error('disk unplugged'); };
      const before = engine.memoryInUse();
      await assert.rejects(engine.loadModel({ config: gpt2.config, weights: failing }),
        /^Error: attnlab: weights\[0\] \(model.safetensors\): reading bytes 0–8 failed \(disk unplugged\)$/);
      assert.equal(engine.memoryInUse(), before);
      const model = await engine.loadModel({ config: gpt2.config, weights: gpt2.weights[0] });
      assert.equal(model.forward({ tokens: [1, 2, 3] }).logits.rows, 3);
      model.dispose();
    });
  });
}
