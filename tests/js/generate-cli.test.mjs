// attnlab-generate, the native command: a GPT-2 checkpoint folder with only config.json and
// model.safetensors (GPT-2's tokenizer is the one the build derives) continues a prompt exactly as
// the WebAssembly engine does, and a bad folder gets a clear message.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gpt2Tokenizer, loadAttnlab } from '../../build/package/index.js';
import { randomGpt2Checkpoint } from '../bench/random-checkpoint.mjs';

const command = fileURLToPath(new URL('../../build/native/attnlab-generate', import.meta.url));
const PROMPT = "Hello, world! It's 2026 — naïve café 🙂";

describe('attnlab-generate', () => {
  let folder, checkpoint;
  before(() => {
    folder = mkdtempSync(join(tmpdir(), 'attnlab-generate-'));
    checkpoint = randomGpt2Checkpoint({ vocab_size: 50257, n_positions: 64, n_embd: 16, n_head: 2, n_layer: 2 }, 7);
    writeFileSync(join(folder, 'config.json'), checkpoint.config);
    writeFileSync(join(folder, 'model.safetensors'), checkpoint.weights);
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  it('prints the prompt and its greedy continuation, token for token the WebAssembly engine\'s, then its speed', async () => {
    const run = spawnSync(command, [folder, '--prompt', PROMPT, '--max-new', '16', '--temperature', '0'], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /^loaded .*: 2 layers, 2 heads, d_model 16, \d+ parameters in [\d.]+ s$/m);
    assert.match(run.stderr, /\d+ prompt tokens in [\d.]+ s \([\d.]+ tokens\/s\); 16 generated in [\d.]+ s \([\d.]+ tokens\/s\)/);

    const engine = await loadAttnlab({ threads: 1 });
    const model = engine.loadModel({ config: checkpoint.config, weights: checkpoint.weights, tokenizer: await gpt2Tokenizer() });
    const { ids } = model.tokenize(PROMPT);
    const out = model.generate({ tokens: ids, maxNew: 16, temperature: 0 });
    assert.equal(run.stdout, `${PROMPT}${model.decode([...out.slice(ids.length)])}\n`);
    model.dispose();
  });

  it('samples reproducibly with a seed, top-k and top-p', () => {
    const args = [folder, '--prompt', 'The', '--max-new', '8', '--temperature', '0.9', '--top-k', '40', '--top-p', '0.95', '--seed', '3'];
    const first = execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    assert.equal(execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }), first);
    assert.ok(first.startsWith('The') && first.length > 'The\n'.length);
  });

  it('says what is wrong with a bad folder or option, and exits with an error', () => {
    const cases = [
      [[join(folder, 'missing'), '--prompt', 'x'], /^attnlab-generate: cannot open .*missing\/config.json: no such file$/m],
      [[folder, '--prompt', 'x', '--top-k', '0'], /--top-k must be a whole number from 1 to 1048576, got 0/],
      [[folder, '--prompt', 'x', '--temperature', 'warm'], /--temperature expects a number, got "warm"/],
      [[folder, '--prompt', 'x', '--seed', '-1'], /--seed must be a whole number from 0 to 4294967295, got -1/],
      [[folder, '--prompt', 'x', '--max-new', '2.5'], /--max-new must be a whole number from 1 to 65536, got 2.5/],
      [[folder, '--prompt', 'x', '--bogus', '1'], /^attnlab-generate: unknown option --bogus$/m],
      [[folder, '--prompt', 'x', '--tokenizer', folder], /cannot open .*: it is not a regular file/],
      [[fileURLToPath(new URL('../reference/fixtures/hf/llama-f32', import.meta.url)), '--prompt', 'x'],
        /llama-f32 has no tokenizer \(tokenizer.json, vocab.json and merges.txt, or vocab.json\)/],
      [[folder], /--prompt is required/],
    ];
    for (const [args, pattern] of cases) {
      const run = spawnSync(command, args, { encoding: 'utf8' });
      assert.notEqual(run.status, 0);
      assert.match(run.stderr, pattern);
    }
    assert.equal(spawnSync(command, [], { encoding: 'utf8' }).status, 2);
  });
});
