// <attn-multi-head> on its slide: the four heads of a layer of the trained model side by side, what
// each head's "it" looks at, and Concat(head_1…head_h)·W_O with the shapes of a real forward pass
// (W_O, the layer's weights read from the engine: every number, in Download CSV, is Node's).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { canvasColours, headWeights, parseCsv, save, shippedModel } from './widget-checks.mjs';

const { server, browser } = await setUp();
const model = await shippedModel('coreference');
const SENTENCE = 'the cat sat on the mat because it was soft';
const WORDS = SENTENCE.split(' ');

describe('multi-head attention', () => {
  it('shows four heads, Concat, W_O and their shapes for the seminar sentence', async () => {
    const { page, problems, requests, close } = await openPage(browser, `${server.url}#multi-head`);
    const widget = page.locator('attn-multi-head');
    await page.locator('attn-multi-head[data-ready]').waitFor({ timeout: 60000 });
    const maps = await canvasColours(widget.locator('.heads'));
    assert.equal(maps.length, 4, 'one heatmap per head');
    for (const count of maps) assert.ok(count > 20, `a head's heatmap shows ${count} colours`);
    const blocks = await canvasColours(widget.locator('.flow'));
    assert.equal(blocks.length, 7, 'four head outputs, Concat, W_O and the output');
    for (const count of blocks) assert.ok(count > 20, `a matrix block shows ${count} colours`);

    const captions = await widget.locator('.flow figcaption').allTextContents();
    assert.deepEqual(captions, ['head 0: 10×16', 'head 1: 10×16', 'head 2: 10×16', 'head 3: 10×16',
      'Concat: 10×64', 'W_O: 64×64', 'MultiHead(X): 10×64']);
    assert.match(await widget.locator('.dims').textContent(), /n = 10 words, d_model = 64, h = 4, so d_k = d_model\/h = 64\/4 = 16/);
    const tables = parseCsv((await save(page, widget, 'Download CSV')).bytes.toString('utf8'));
    const wO = model.parameter('h.0.attn.c_proj.weight');
    assert.deepEqual(tables.find((t) => t.caption === 'W_O: 64×64').rows.map(([, ...cells]) => cells.map(Number)),
      Array.from({ length: 64 }, (_, i) => Array.from(wO.data.subarray(i * 64, (i + 1) * 64))));
    await widget.locator('.share summary').click();  // closed again
    const titles = await widget.locator('.heads h4').allTextContents();
    assert.equal(titles.length, 4);
    // layer 0 by default: each head's "it" looks most at a word of its own, the one Node finds
    const tops = [0, 1, 2, 3].map((h) => {
      const row = headWeights(model, SENTENCE, 0, h)[7];
      const top = row.indexOf(Math.max(...row));
      return { word: WORDS[top], weight: row[top].toFixed(2) };
    });
    for (const [h, title] of titles.entries()) assert.equal(title, `head ${h}: “it” → “${tops[h].word}” ${tops[h].weight}`);
    assert.equal(new Set(tops.map((t) => t.word)).size, 4, tops.map((t) => t.word).join(' '));
    await widget.locator('.summary', { hasText: ': 4 different words.' }).waitFor();

    // layer 1: head 3 has found the mat
    await widget.getByRole('button', { name: 'layer 1' }).click();
    await page.waitForFunction(() => location.hash.includes('mhlayer=1'));
    await widget.locator('.heads h4', { hasText: /^head 3: “it” → “mat” (0\.9\d|1\.00)$/ }).waitFor();
    assert.deepEqual(problems, []);
    assert.deepEqual(requests.filter((u) => !u.startsWith(server.url) && !u.startsWith('data:')), []);
    await close();
  });

  it('compares another word across the heads, and reads a typed sentence', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#multi-head&mhtok=1`);
    const widget = page.locator('attn-multi-head');
    await widget.locator('.summary', { hasText: '“cat”' }).waitFor({ timeout: 60000 });
    const input = widget.getByRole('textbox', { name: 'sentence' });
    await input.fill('the dog chased the ball because it was fast');
    await input.press('Enter');
    await page.waitForFunction(() => location.hash.includes('mh=the+dog'));
    await widget.locator('.flow figcaption', { hasText: 'Concat: 9×64' }).waitFor();
    await widget.locator('.heads h4', { hasText: 'head 0: “it”' }).waitFor();
    assert.deepEqual(problems, []);
    await close();
  });
});
