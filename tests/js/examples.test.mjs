// The JavaScript example runs against the built package and prints the engine's numbers.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

it('examples/js/attention.mjs prints every stage of the deck example', () => {
  const out = execFileSync('node', [fileURLToPath(new URL('../../examples/js/attention.mjs', import.meta.url))],
    { encoding: 'utf8', timeout: 60000 });
  assert.match(out, /build simd-threads/);
  assert.match(out, /softmax:\n\s+0\.0454\s+0\.7679\s+0\.1867\n/);
  assert.match(out, /mix:\n\s+0\.2775\s+1\.0000\n/);
  assert.match(out, /layer1\.attn\.head0\.weights:\n\s+1\.0000\s+0\.0000\s+0\.0000\n/);
});
