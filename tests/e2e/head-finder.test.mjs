// <attn-head-finder> on its slide: the shipped language model's heads scored on the repeated random
// tokens as Node's engine and the same arithmetic score them; a random-weight GPT-2 opened as a
// model has no head named, an induction circuit wired by hand exactly its induction head; a head
// opens in the explorer on the same model.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPage, setUp } from './browser.mjs';
import { byteLevelTokenizer, randomGpt2Checkpoint } from '../bench/random-checkpoint.mjs';
import { importMathModule, inductionCircuit, vocabJson } from '../js/helpers.mjs';
import { folderOf, openFiles } from './opened-checkpoints.mjs';
import { eventually, shippedModel, slideReady } from './widget-checks.mjs';

const { server, browser } = await setUp();
const patterns = await importMathModule('head-patterns');

const verdict = (widget, text) => widget.locator('.verdict', { hasText: text }).waitFor();

describe('the head finder', () => {
  it('scores the shipped model\'s heads as Node does, names an induction circuit\'s head, none of a random GPT-2\'s, and opens a head in the explorer', async () => {
    const model = await shippedModel('english');
    const specials = model.specialTokens();
    const half = Math.floor((Math.min(model.config.n_ctx, 97) - 1) / 2);
    const tokens = patterns.repeatedRandomTokens({ vocabSize: model.config.vocab_size, length: half, seed: 1, exclude: Object.values(specials), prefix: specials.bos ?? specials['[BOS]'] });
    const { n_layers: layers, n_heads: heads } = model.config;
    const names = Array.from({ length: layers * heads }, (_, k) => `layer${Math.floor(k / heads)}.attn.head${k % heads}.weights`);
    const { trace } = model.forward({ tokens, trace: names });
    const weights = Array.from({ length: layers }, (_, l) => Array.from({ length: heads }, (_, h) => trace[names[l * heads + h]]));
    const top = patterns.rankHeads(patterns.scoreHeads(tokens, weights), 'induction')[0];

    const { page, problems, close } = await openPage(browser, `${server.url}#head-finder`);
    await slideReady(page);
    const finder = page.locator('attn-head-finder');
    const first = await eventually(() => finder.locator('li').first().textContent(), (t) => t.startsWith('layer'));
    assert.ok(first.startsWith(`layer ${top.layer} head ${top.head}: ${top.excess.toFixed(3)}`), `${first} against Node's ${JSON.stringify(top)}`);
    // the shipped english model, the default: layer 1 head 1 copies, fed by layer 0 head 0 (docs/models.md)
    const found = await eventually(() => finder.locator('.verdict').textContent(), (t) => /^\d+ induction heads?:/.test(t));
    assert.match(found, /^1 induction head: layer 1 head 1 /);
    await finder.locator('select').nth(1).selectOption('previous-token');
    await verdict(finder, '1 previous-token head: layer 0 head 0');
    await finder.locator('select').nth(1).selectOption('induction');
    // the random pieces read as the explorer names them: a part of a character by its bytes, never U+FFFD
    const probe = await finder.locator('.probe').textContent();
    assert.ok(!probe.includes('\uFFFD') && probe.includes('<0x89>') && /^97 tokens read \(random tokens, seed 1, then the same again\): ./.test(probe), probe);

    // a random-weight GPT-2 names none
    const { json: tokenizer, size } = byteLevelTokenizer();
    const random = randomGpt2Checkpoint({ vocab_size: size, n_positions: 128, n_embd: 32, n_head: 4, n_layer: 2 }, 8);
    await openFiles(page, folderOf({ 'config.json': random.config, 'model.safetensors': random.weights, 'tokenizer.json': tokenizer }));
    await verdict(finder, 'No head reaches the threshold for induction');

    // the hand-wired induction circuit (layer 0 head 0: previous token; layer 1 head 0: induction), in the engine's own files
    const circuit = inductionCircuit(24, 32);
    await openFiles(page, folderOf({ 'config.json': circuit.config, 'model.safetensors': circuit.weights, 'vocab.json': vocabJson(Array.from({ length: 18 }, (_, i) => `w${i}`)) }));
    await verdict(finder, '1 induction head: layer 1 head 0');
    await finder.locator('select').nth(1).selectOption('previous-token');
    await verdict(finder, '1 previous-token head: layer 0 head 0');
    await finder.locator('select').nth(1).selectOption('induction');
    await verdict(finder, '1 induction head');

    // a head opens in the explorer, on the same model
    await finder.getByRole('button', { name: 'open layer 1 head 0 in the explorer' }).click();
    await page.waitForFunction(() => location.hash.startsWith('#explorer'));
    const hash = new URLSearchParams(await page.evaluate(() => location.hash.slice(1)));
    assert.equal(hash.get('xhead'), '0', 'head 3 is the default');
    assert.equal(hash.get('xlayer'), null, 'layer 1 is the default');
    assert.equal(hash.get('model'), 'attnlab-2x80', 'named by its family and shape');
    const explorer = page.locator('attn-explorer');
    assert.equal(await explorer.locator('[data-control="model"] select').inputValue(), hash.get('model'));

    assert.deepEqual(problems, []);
    await close();
  });
});
