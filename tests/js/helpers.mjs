// Shared by the Node tests of the package: fixtures, a safetensors writer, closeness checks.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

export const fixtures = (name) =>
  JSON.parse(readFileSync(new URL(`../reference/fixtures/${name}`, import.meta.url))).cases;

/** Asserts |a − b| ≤ tolerance elementwise and equal lengths. */
export function assertClose(actual, expected, tolerance, what = 'values') {
  assert.equal(actual.length, expected.length, `${what}: length`);
  let worst = 0;
  for (let i = 0; i < actual.length; i++) worst = Math.max(worst, Math.abs(actual[i] - expected[i]));
  assert.ok(worst <= tolerance, `${what}: largest difference ${worst} > ${tolerance}`);
}

/** The bytes of a safetensors file holding F32 tensors {name: {shape, data}}. */
export function safetensorsBytes(tensors) {
  const header = {};
  let offset = 0;
  const names = Object.keys(tensors).sort();
  for (const name of names) {
    const bytes = tensors[name].data.length * 4;
    header[name] = { dtype: 'F32', shape: tensors[name].shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const out = new Uint8Array(8 + json.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(new TextEncoder().encode(json), 8);
  let at = 8 + json.length;
  for (const name of names) {
    out.set(new Uint8Array(Float32Array.from(tensors[name].data).buffer), at);
    at += tensors[name].data.length * 4;
  }
  return out;
}

/** vocab.json for a word-level vocabulary: the six specials, then the given words */
export function vocabJson(words) {
  return JSON.stringify({ kind: 'word', lowercase: false, tokens: ['[PAD]', '[UNK]', '[BOS]', '[EOS]', '[MASK]', '[SEP]', ...words] });
}

/** Calls f, expecting an Error whose message matches pattern. */
export function assertThrows(f, pattern) {
  assert.throws(f, (error) => error instanceof Error && pattern.test(error.message), `expected an error matching ${pattern}`);
}

