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
