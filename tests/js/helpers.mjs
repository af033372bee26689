// Shared by the Node tests of the package: fixtures, a safetensors writer, closeness checks, and the
// front end's math modules compiled for Node.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { safetensorsF32 } from '../bench/random-checkpoint.mjs';

export const fixtures = (name) =>
  JSON.parse(readFileSync(new URL(`../reference/fixtures/${name}`, import.meta.url))).cases;

/** Asserts |a − b| ≤ tolerance elementwise and equal lengths. */
export function assertClose(actual, expected, tolerance, what = 'values') {
  assert.equal(actual.length, expected.length, `${what}: length`);
  let worst = 0;
  for (let i = 0; i < actual.length; i++) worst = Math.max(worst, Math.abs(actual[i] - expected[i]));
  assert.ok(worst <= tolerance, `${what}: largest difference ${worst} > ${tolerance}`);
}

/** The bytes of a safetensors file holding F32 tensors {name: {shape, data}}, in name order. */
export function safetensorsBytes(tensors) {
  const names = Object.keys(tensors).sort();
  const { bytes, values } = safetensorsF32(names.map((name) => [name, tensors[name].shape]));
  let at = 0;
  for (const name of names) {
    values.set(tensors[name].data, at);
    at += tensors[name].data.length;
  }
  return bytes;
}

/** vocab.json for a word-level vocabulary: the six specials, then the given words */
export function vocabJson(words) {
  return JSON.stringify({ kind: 'word', lowercase: false, tokens: ['[PAD]', '[UNK]', '[BOS]', '[EOS]', '[MASK]', '[SEP]', ...words] });
}

/** Calls f, expecting an Error whose message matches pattern. */
export function assertThrows(f, pattern) {
  assert.throws(f, (error) => error instanceof Error && pattern.test(error.message), `expected an error matching ${pattern}`);
}


/** A DOM-free module of web/src/math (e.g. 'head-patterns') and the math modules it imports,
 * compiled by TypeScript into a temporary folder and imported: Node runs no TypeScript. */
export async function importMathModule(name) {
  const { default: ts } = await import('typescript');
  const folder = mkdtempSync(join(tmpdir(), 'attnlab-math-'));
  const pending = [name];
  const written = new Set();
  while (pending.length > 0) {
    const module = pending.pop();
    if (written.has(module)) continue;
    written.add(module);
    const source = readFileSync(new URL(`../../web/src/math/${module}.ts`, import.meta.url), 'utf8');
    const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 } });
    const linked = outputText.replace(/from '\.\/([\w-]+)'/g, (_, imported) => {
      pending.push(imported);
      return `from './${imported}.mjs'`;
    });
    writeFileSync(join(folder, `${module}.mjs`), linked);
  }
  try {
    return await import(pathToFileURL(join(folder, `${name}.mjs`)).href);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The induction circuit of Olsson et al. (2022) as weights: two layers of two heads, d = 2V + C.
 * The residual stream holds the token's one-hot (dimensions 0 … V − 1), the position's (V … V + C − 1)
 * and, written by layer 0, the previous token's (V + C …). Layer 0 head 0 scores key q against query
 * p by GAIN·[q = p − 1] and copies the key's token into the previous-token block; layer 1 head 0
 * scores GAIN·[previous token of key = token of query]. Head 1 of each layer and the FFNs are zero;
 * no norms. */
export function inductionCircuit(vocab, context) {
  const GAIN = 100;
  const d = 2 * vocab + context, previous = vocab + context;
  const zeros = (...shape) => ({ shape, data: new Float32Array(shape.reduce((a, b) => a * b, 1)) });
  const tensors = { 'wte.weight': zeros(vocab, d), 'wpe.weight': zeros(context, d) };
  for (let t = 0; t < vocab; t++) tensors['wte.weight'].data[t * d + t] = 1;
  for (let p = 0; p < context; p++) tensors['wpe.weight'].data[p * d + vocab + p] = 1;
  for (const layer of [0, 1]) {
    Object.assign(tensors, {
      [`h.${layer}.attn.c_attn.weight`]: zeros(d, 3 * d), [`h.${layer}.attn.c_attn.bias`]: zeros(3 * d),
      [`h.${layer}.attn.c_proj.weight`]: zeros(d, d), [`h.${layer}.attn.c_proj.bias`]: zeros(d),
      [`h.${layer}.mlp.c_fc.weight`]: zeros(d, 1), [`h.${layer}.mlp.c_fc.bias`]: zeros(1),
      [`h.${layer}.mlp.c_proj.weight`]: zeros(1, d), [`h.${layer}.mlp.c_proj.bias`]: zeros(d),
    });
  }
  // c_attn is [W_Q | W_K | W_V] (d × 3d), head 0 in the first d/2 columns of each; c_proj reads head 0 from its first d/2 rows
  const set = (name, row, col, value) => { tensors[name].data[row * tensors[name].shape[1] + col] = value; };
  for (let p = 1; p < context; p++) set('h.0.attn.c_attn.weight', vocab + p, p - 1, GAIN);
  for (let q = 0; q < context; q++) set('h.0.attn.c_attn.weight', vocab + q, d + q, 1);
  for (let t = 0; t < vocab; t++) {
    set('h.0.attn.c_attn.weight', t, 2 * d + t, 1);
    set('h.0.attn.c_proj.weight', t, previous + t, 1);
    set('h.1.attn.c_attn.weight', t, t, GAIN);
    set('h.1.attn.c_attn.weight', previous + t, d + t, 1);
  }
  const config = { vocab_size: vocab, n_ctx: context, d_model: d, n_heads: 2, d_ff: 1, n_layers: 2, norm: 'none', positional: 'learned' };
  return { config: JSON.stringify(config), weights: safetensorsBytes(tensors) };
}
