// Opening a Hugging Face checkpoint in the deck: the reader picks a GPT-2 checkpoint (F32) and a
// Llama one (BF16, with grouped key/value heads), each with its tokenizer.json, made on the spot;
// the dialog says what the model is, loads it with a progress bar, and every model widget of the
// deck shows it: the explorer's weights and the generation's streamed greedy line equal the
// package's engine in Node on the same files (timed/streaming.test.mjs streams it, measured alone). The model is kept across a reload, a link naming a
// model this browser lacks says so, a bad file is refused with the engine's reason while the deck
// keeps working, embed.html and a lecturer's page with the widget bundle open one from a widget's
// model list, and the offline file opens one from file:// without keeping it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openPage, setUp } from './browser.mjs';
import { serve } from './server.mjs';
import { byteLevelTokenizer, randomGpt2Checkpoint, randomLlamaCheckpoint } from '../bench/random-checkpoint.mjs';
import { checkpoint, fromModelList, linkedModel, openFiles } from './opened-checkpoints.mjs';
import { eventually, slideReady } from './widget-checks.mjs';
import { gpt2Tokenizer as gpt2TokenizerText } from '../../build/package/index.js';

const { server, browser, engine } = await setUp({ engine: true });
const OFFLINE = new URL('../../build/offline/attnlab.html', import.meta.url);
const BUNDLE = new URL('../../build/package/widgets/', import.meta.url).pathname;

const { json: tokenizer, size: vocab_size } = byteLevelTokenizer();
const gpt2 = checkpoint(engine, 'gpt2', randomGpt2Checkpoint({ vocab_size, n_positions: 128, n_embd: 32, n_head: 4, n_layer: 2 }, 5), tokenizer);
const llama = checkpoint(engine, 'llama', randomLlamaCheckpoint({ vocab_size }, 9), tokenizer);
const SENTENCE = 'the cat sat on the mat and the cat sat on a mat';

/** the explorer's bars: the weights the query token gives every token (layer, head as shown: by
 * default layer 1, head 3) */
const explorerBars = (widget) => widget.locator('.distribution output').allTextContents();

/** Node's weights of the last token for `model` on the sentence, as the explorer prints them */
function nodeBars(model, layer, head) {
  const { ids } = model.tokenize(SENTENCE);
  const name = `layer${layer}.attn.head${head}.weights`;
  const weights = model.forward({ tokens: ids, trace: [name] }).trace[name];
  const last = ids.length - 1;
  return Array.from(weights.data.slice(last * weights.cols, (last + 1) * weights.cols), (w) => w.toFixed(4));
}

/** Node's greedy continuation through the KV cache, as the widget streams it: the prompt's pieces, then each step's text */
function nodeGreedy(model, text, steps) {
  const prompt = model.tokenize(text).ids;
  const stops = new Set(Object.values(model.specialTokens()));
  let line = [...prompt].map((id) => model.decode([id])).join('');
  model.startGeneration(prompt);
  for (let k = 0; k < steps; k++) {
    const step = model.generateStep({ temperature: 0 });
    line += step.text ?? '';
    if (stops.has(step.token)) break;
  }
  return line;
}

const explorerAt = (base, model) => `${base}#explorer&it=${encodeURIComponent(SENTENCE)}${model ? `&model=${model}` : ''}`;

describe('a checkpoint opened in the deck', () => {
  it('loads a GPT-2 checkpoint, shows it in the explorer and generation as Node computes it, and keeps it across a reload', async () => {
    const { page, problems, close } = await openPage(browser, explorerAt(server.url));
    await slideReady(page);
    const description = await openFiles(page, gpt2.paths);
    assert.match(description, /GPT-2/);
    assert.match(description, /2 × 4, width 32/);
    const name = await linkedModel(page);
    assert.equal(name, 'gpt2-2x32');

    const explorer = page.locator('attn-explorer');
    const want = nodeBars(gpt2.model, 1, 3);
    assert.deepEqual(await eventually(() => explorerBars(explorer), (bars) => bars.length === want.length), want);
    assert.equal(await explorer.locator('[data-control="model"] select').inputValue(), name);
    // the tokenizer's pieces, readable: GPT-2's "Ġcat" is "␣cat"
    const words = await explorer.locator('.words button').allTextContents();
    assert.deepEqual(words.slice(0, 2), ['the', '␣cat']);
    assert.ok(words.includes('␣cat') && !words.some((w) => w.includes('Ġ')), words.join(' '));

    // the same model in generation (one setting for the deck), streamed, equal to Node's greedy line
    await page.evaluate(() => { location.hash = location.hash.replace(/^#explorer/, '#generation'); });
    const generation = page.locator('attn-generation');
    const greedy = nodeGreedy(gpt2.model, 'A friend is', 20);
    assert.equal(await eventually(() => generation.locator('.text.greedy').textContent(), (t) => t === greedy, { timeout: 60000 }), greedy);
    assert.match(await generation.locator('.pace').textContent(), /per token/);

    // a reload finds it in this browser's storage
    await page.evaluate(() => { location.hash = location.hash.replace(/^#generation/, '#explorer'); });
    await page.reload();
    await slideReady(page);
    assert.deepEqual(await eventually(() => explorerBars(explorer), (bars) => bars.length === want.length), want);

    // the dialog lists it with the storage used, and forgets it
    await page.locator('#open-model').click();
    const dialog = page.locator('dialog[open]');
    await dialog.locator('li', { hasText: name }).waitFor();
    assert.match(await dialog.locator('p.muted').last().textContent(), /This browser lets the page keep .+; .+ in use\./);
    await dialog.getByRole('button', { name: `forget ${name}` }).click();
    await dialog.locator('li', { hasText: 'None yet.' }).waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.reload();
    await explorer.locator('.model-note', { hasText: `This browser has no model “${name}”` }).waitFor();
    assert.deepEqual(problems, []);
    await close();
  });

  // the page keeps its BF16 weights in 16 bits (weightStorage 'as-stored'): the bars still equal Node's float model's
  it('loads a Llama checkpoint in BF16 with grouped key/value heads', async () => {
    const { page, problems, close } = await openPage(browser, explorerAt(server.url));
    await slideReady(page);
    const description = await openFiles(page, llama.paths, fromModelList('attn-explorer'));
    assert.match(description, /Llama family/);
    assert.match(description, /4 \(2 key\/value heads\)/);
    assert.match(description, /as 32-bit floats, about half as much for BF16 or F16 weights \(kept in their 16 bits\)/);
    const explorer = page.locator('attn-explorer');
    const want = nodeBars(llama.model, 1, 3);
    assert.deepEqual(await eventually(() => explorerBars(explorer), (bars) => bars.length === want.length), want);
    assert.deepEqual(problems, []);
    await close();
  });

  it('reads a GPT-2 checkpoint without tokenizer.json with GPT-2\'s own tokenizer', async () => {
    const { config, weights } = randomGpt2Checkpoint({ vocab_size: 50257, n_positions: 64, n_embd: 8, n_head: 2, n_layer: 2 }, 11);
    const folder = mkdtempSync(join(tmpdir(), 'attnlab-gpt2-vocab-'));
    writeFileSync(join(folder, 'config.json'), config);
    writeFileSync(join(folder, 'model.safetensors'), weights);
    const model = engine.loadModel({ weights, config, tokenizer: await gpt2TokenizerText() });
    const { page, problems, close } = await openPage(browser, explorerAt(server.url));
    await slideReady(page);
    const description = await openFiles(page, [join(folder, 'config.json'), join(folder, 'model.safetensors')]);
    assert.match(description, /50,257 tokens \(GPT-2's tokenizer\)/);
    const explorer = page.locator('attn-explorer');
    const want = nodeBars(model, 1, 1);
    await page.evaluate(() => { location.hash += '&xhead=1'; });
    assert.deepEqual(await eventually(() => explorerBars(explorer), (bars) => JSON.stringify(bars) === JSON.stringify(want)), want);
    assert.equal(await explorer.locator('.words button').count(), model.tokenize(SENTENCE).ids.length);
    assert.deepEqual(problems, []);
    await close();
  });

  it('opens one from the model list in embed.html and in a widget on another page', async () => {
    const want = nodeBars(gpt2.model, 1, 3);
    const scratch = mkdtempSync(join(tmpdir(), 'attnlab-lecture-'));
    cpSync(BUNDLE, join(scratch, 'vendor/attnlab'), { recursive: true });
    writeFileSync(join(scratch, 'index.html'), `<!doctype html><meta charset="utf-8"><title>Lecture</title><link rel="icon" href="data:,">
      <attn-explorer sentence="${SENTENCE}"></attn-explorer><script type="module" src="vendor/attnlab/attnlab-widgets.js"></script>`);
    const lecture = await serve(scratch, { isolated: false });
    try {
      for (const url of [`${server.url}embed.html#explorer&it=${encodeURIComponent(SENTENCE)}`, `${lecture.url}index.html`]) {
        const { page, problems, close } = await openPage(browser, url);
        const explorer = page.locator('attn-explorer');
        await explorer.locator('[data-control="model"] select').waitFor();
        await openFiles(page, gpt2.paths, fromModelList('attn-explorer'));
        assert.deepEqual(await eventually(() => explorerBars(explorer), (bars) => JSON.stringify(bars) === JSON.stringify(want)), want, url);
        assert.equal(await explorer.getAttribute('model'), 'gpt2-2x32');
        assert.deepEqual(problems, [], url);
        await close();
      }
    } finally {
      lecture.close();
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('refuses a bad file with the engine\'s reason, and the deck keeps working', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'attnlab-bad-'));
    const config = JSON.parse(randomGpt2Checkpoint({ vocab_size, n_positions: 16, n_embd: 8, n_head: 2, n_layer: 1 }).config);
    writeFileSync(join(folder, 'config.json'), JSON.stringify({ ...config, rope_scaling: { type: 'linear', factor: 2 } }));
    writeFileSync(join(folder, 'model.safetensors'), 'not a safetensors file');
    writeFileSync(join(folder, 'tokenizer.json'), tokenizer);
    const { page, close } = await openPage(browser, explorerAt(server.url, 'no-such-model'));
    await slideReady(page);
    const explorer = page.locator('attn-explorer');
    // a link naming a model this browser lacks: said, and the shipped model shown
    await explorer.locator('.model-note', { hasText: 'This browser has no model “no-such-model”' }).waitFor();
    await explorer.locator('.hint', { hasText: 'the row of “it” in layer 1' }).waitFor();
    assert.equal(await explorer.locator('.words button').count(), SENTENCE.split(' ').length);

    await page.locator('#open-model').click();
    const dialog = page.locator('dialog[open]');
    await dialog.locator('input[type="file"]:not([webkitdirectory])').setInputFiles([join(folder, 'config.json'), join(folder, 'model.safetensors')]);
    await dialog.locator('.error', { hasText: 'rope_scaling' }).waitFor();
    assert.ok(await dialog.getByRole('button', { name: 'Load' }).isDisabled());
    await dialog.locator('input[type="file"]:not([webkitdirectory])').setInputFiles([join(folder, 'model.safetensors')]);
    await dialog.locator('.error', { hasText: 'config.json is missing' }).waitFor();
    // a config the engine takes, and weights that are not a safetensors file: refused when read
    writeFileSync(join(folder, 'config.json'), JSON.stringify(config));
    await dialog.locator('input[type="file"]:not([webkitdirectory])').setInputFiles(['config.json', 'model.safetensors', 'tokenizer.json'].map((f) => join(folder, f)));
    await dialog.getByRole('button', { name: 'Load' }).click();
    await dialog.locator('.error', { hasText: 'This model cannot be loaded: ' }).waitFor();
    assert.match(await dialog.locator('.error').textContent(), /safetensors|header/);
    await dialog.getByRole('button', { name: 'Close' }).click();
    // by keyboard: keys in the dialog stay there, Escape closes it and opens nothing of the deck's
    await page.locator('#open-model').focus();
    await page.keyboard.press('Enter');
    await page.locator('dialog[open]').waitFor();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Escape');
    await page.locator('dialog[open]').waitFor({ state: 'detached' });
    assert.ok(await page.locator('#overview').isHidden(), 'Escape in the dialog does not open the slide overview');
    assert.ok((await page.evaluate(() => location.hash)).startsWith('#explorer'), 'arrows in the dialog do not move the deck');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => !location.hash.startsWith('#explorer'));
    await close();
  });

  it('opens one in the offline file from file://, and says it is not kept', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    await context.route(/^(https?|wss?):/, (route) => route.abort());
    const page = await context.newPage();
    await page.goto(explorerAt(pathToFileURL(OFFLINE.pathname).href));
    await slideReady(page);
    await page.locator('#open-model').click();
    const dialog = page.locator('dialog[open]');
    await dialog.locator('.muted', { hasText: 'Models are not kept here' }).waitFor();
    await dialog.locator('input[type="file"]:not([webkitdirectory])').setInputFiles(gpt2.paths);
    await dialog.getByRole('button', { name: 'Load' }).click();
    const explorer = page.locator('attn-explorer');
    const want = nodeBars(gpt2.model, 1, 3);
    assert.deepEqual(await eventually(() => explorerBars(explorer), (bars) => bars.length === want.length), want);
    await context.close();
  });
});
