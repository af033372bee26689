// The relaxed-SIMD engine (LoadOptions.relaxedSimd): loaded by default where the runtime validates
// relaxed SIMD — here Node with --experimental-wasm-relaxed-simd, in a child process — and the usual
// engine elsewhere; its inference within float rounding of the usual engine's and the same on any
// number of threads, its training bit for bit the usual engine's.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadAttnlab } from '../../build/package/index.js';

/** runs in a Node with relaxed SIMD: both engines on the same inputs, as JSON */
const COMPARE = `
import { readFileSync } from 'node:fs';
import { loadAttnlab } from ${JSON.stringify(new URL('../../build/package/index.js', import.meta.url).href)};
const [relaxed, usual] = await Promise.all([loadAttnlab(), loadAttnlab({ relaxedSimd: false })]);
const random = (engine, rows, cols, seed) => engine.randomNormal({ rows, cols, seed, std: 1 }).data;
const d = 64, n = 96, heads = 8;
const input = (engine) => ({
  x: random(engine, n, d, 1), n, d, heads,
  cAttnWeight: random(engine, d, 3 * d, 2).map((v) => v * 0.1), cAttnBias: new Float32Array(3 * d),
  cProjWeight: random(engine, d, d, 3).map((v) => v * 0.1), cProjBias: new Float32Array(d),
});
const folder = ${JSON.stringify(new URL('../../web/public/models/english/', import.meta.url).href)};
const files = { weights: readFileSync(new URL('model.safetensors', folder)), config: readFileSync(new URL('config.json', folder), 'utf8'), vocab: readFileSync(new URL('vocab.json', folder), 'utf8') };
const forward = (engine) => {
  const model = engine.loadModel(files);
  const logits = model.forward({ tokens: model.tokenize('A friend is someone who').ids }).logits.data;
  model.dispose();
  return logits;
};
const attention = (engine) => engine.attention(input(engine)).output.data;
const training = (engine) => {
  const trainer = engine.createTrainer({ task: 'copy', seed: 3, steps: 40, batchSize: 8, size: { dModel: 64, heads: 4, layers: 2, dFF: 256 } });
  const steps = Array.from({ length: 12 }, () => trainer.step({}));
  const heldOut = [trainer.heldOutLoss({ count: 16 }), trainer.heldOutAccuracy({ count: 16 })];
  const model = trainer.model();
  const logits = [...model.forward({ tokens: [1, 2, 3, 4, 5, 6] }).logits.data];
  model.dispose();
  trainer.dispose();
  return { steps, heldOut, logits };
};
// decoding: products of one row go in slabs of W's rows and lanes of E's (widths of 512 and more),
// over floats and over BF16 weights kept as they are stored
const { randomGpt2Checkpoint } = await import(${JSON.stringify(new URL('../bench/random-checkpoint.mjs', import.meta.url).href)});
const wide = randomGpt2Checkpoint({ vocab_size: 600, n_positions: 32, n_embd: 256, n_head: 4, n_layer: 2 }, 5, { bf16: true });
const decoded = async (engine, weightStorage) => {
  const model = await engine.loadModel({ config: wide.config, weights: wide.weights, weightStorage });
  const logits = [[...model.startGeneration([1, 2, 3, 4, 5], { logits: true }).logits.data]];
  for (let i = 0; i < 3; i++) logits.push([...model.generateStep({ temperature: 0, logits: true }).logits.data]);
  model.dispose();
  return logits.flat();
};
const decoding = [];
for (const t of [1, 2]) {
  relaxed.setThreads(t);
  decoding.push(await decoded(relaxed, 'as-stored'), await decoded(relaxed, 'float32'));
}
const threads = [1, 2].map((t) => { relaxed.setThreads(t); return [...attention(relaxed)]; });
console.log(JSON.stringify({
  relaxed: relaxed.info.relaxedSimd, usual: usual.info.relaxedSimd,
  attention: [[...attention(relaxed)], [...attention(usual)]],
  logits: [[...forward(relaxed)], [...forward(usual)]],
  training: [training(relaxed), training(usual)],
  threads, decoding, decodingUsual: await decoded(usual, 'float32'),
}));
`;

/** the largest |a − b| over the entries, and the largest |b| */
function difference(a, b) {
  assert.equal(a.length, b.length);
  let worst = 0;
  let scale = 0;
  a.forEach((v, i) => {
    worst = Math.max(worst, Math.abs(v - b[i]));
    scale = Math.max(scale, Math.abs(b[i]));
  });
  return { worst, scale };
}

describe('the relaxed-SIMD engine', () => {
  it('is the usual engine where the runtime has no relaxed SIMD', async () => {
    const engine = await loadAttnlab();
    assert.equal(engine.info.relaxedSimd, false);
    assert.equal(engine.info.build, 'simd-threads');
    assert.equal(engine.alibiSlopes({ heads: 2 }).length, 2);
  });

  it('refuses a relaxedSimd that is not true or false, naming what it got', async () => {
    for (const value of ['no', 0, null]) {
      await assert.rejects(loadAttnlab({ relaxedSimd: value }), { message: `attnlab: relaxedSimd must be true or false, got ${String(value)}` });
    }
  });

  it('gives way to the usual engine where its file is missing', () => {
    const folder = mkdtempSync(join(tmpdir(), 'attnlab-'));
    try {
      cpSync(fileURLToPath(new URL('../../build/package/', import.meta.url)), folder, { recursive: true });
      rmSync(join(folder, 'engine/node/attnlab-threads-relaxed.wasm'));
      const program = `const { loadAttnlab } = await import(${JSON.stringify(pathToFileURL(join(folder, 'index.js')).href)});
const engine = await loadAttnlab();
console.log(JSON.stringify({ relaxed: engine.info.relaxedSimd, build: engine.info.build, slopes: engine.alibiSlopes({ heads: 2 }).length }));`;
      const out = JSON.parse(execFileSync(process.execPath, ['--experimental-wasm-relaxed-simd', '--input-type=module', '-e', program], { encoding: 'utf8' }));
      assert.deepEqual(out, { relaxed: false, build: 'simd-threads', slopes: 2 });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('is loaded where it validates, within float rounding of the usual engine, alike on 1 and 2 threads', () => {
    const out = JSON.parse(execFileSync(process.execPath, ['--experimental-wasm-relaxed-simd', '--input-type=module', '-e', COMPARE], { encoding: 'utf8', maxBuffer: 64 << 20 }));
    assert.equal(out.relaxed, true);
    assert.equal(out.usual, false);
    const attention = difference(...out.attention);
    assert.ok(attention.worst > 0, 'the fused multiply-add rounds once: some output differs in its last bits');
    assert.ok(attention.worst <= 1e-5 * Math.max(1, attention.scale), `attention: ${JSON.stringify(attention)}`);
    const logits = difference(...out.logits);
    assert.ok(logits.worst <= 1e-4 * Math.max(1, logits.scale), `logits: ${JSON.stringify(logits)}`);
    assert.deepEqual(out.threads[0], out.threads[1]);
    // decoding's products fuse too: kept BF16 weights give the widened model's bits, on 1 and 2 threads alike
    const [kept1, floats1, kept2, floats2] = out.decoding;
    assert.deepEqual(kept1, floats1);
    assert.deepEqual(kept2, kept1);
    assert.deepEqual(floats2, floats1);
    const decoding = difference(kept1, out.decodingUsual);
    assert.ok(decoding.worst > 0 && decoding.worst <= 1e-4 * Math.max(1, decoding.scale), `decoding: ${JSON.stringify(decoding)}`);
    // training rounds as the usual engine does: the same steps and held-out numbers, bit for bit;
    // the model it trained then infers with fused products
    const [fused, usual] = out.training;
    assert.deepEqual(fused.steps, usual.steps);
    assert.deepEqual(fused.heldOut, usual.heldOut);
    assert.ok(fused.steps.at(-1).loss < fused.steps[0].loss, `the run learns: ${fused.steps[0].loss} → ${fused.steps.at(-1).loss}`);
    const trained = difference(fused.logits, usual.logits);
    assert.ok(trained.worst > 0 && trained.worst <= 1e-4 * Math.max(1, trained.scale), `trained model's logits: ${JSON.stringify(trained)}`);
  });
});
