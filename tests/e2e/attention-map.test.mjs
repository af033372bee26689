// <attn-attention-map> on the title slide: the trained model's layer 1, head 3 drawn quickly as a
// heatmap with the sentence's words, the row of "it" on "mat" while the other rows look elsewhere
// (the weights Node computes), and the weight under the pointer.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { canvasColours, headWeights, shippedModel } from './widget-checks.mjs';

const { server, browser } = await setUp();

/** records when the engine reported itself (the footer) and when the picture was drawn */
const watchTimes = () => {
  window.__times = {};
  new MutationObserver(() => {
    const times = window.__times;
    if (times.engine === undefined && /SIMD/.test(document.querySelector('#engine-info')?.textContent ?? '')) times.engine = performance.now();
    if (times.picture === undefined && document.querySelector('attn-attention-map[data-ready]')) times.picture = performance.now();
  }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
};

const WORDS = ['the', 'cat', 'sat', 'on', 'the', 'mat', 'because', 'it', 'was', 'soft'];
const model = await shippedModel('coreference');

describe('the title slide\'s attention map', () => {
  it('draws layer 1, head 3 soon after the page opens, with "it" looking at "mat" and the other words elsewhere', async () => {
    const { page, problems, requests, close } = await openPage(browser, `${server.url}#title`, { init: watchTimes });
    const widget = page.locator('attn-attention-map');
    await page.locator('attn-attention-map[data-ready]').waitFor({ timeout: 60000 });
    await page.locator('#engine-info', { hasText: 'SIMD' }).waitFor({ state: 'attached' });
    // the model's files load while the engine starts, so the picture follows the engine closely
    // (within the time the worker takes for every other slide's first render, queued with it)
    const { engine, picture } = await page.evaluate(() => window.__times);
    assert.ok(picture - engine < 3000, `the picture came ${Math.round(picture - engine)} ms after the engine`);
    assert.equal(await widget.locator('.hint').isVisible(), false, 'compact: no hint line');

    const counts = await canvasColours(widget);
    assert.equal(counts.length, 1);
    assert.ok(counts[0] > 20, `the heatmap shows ${counts[0]} colours`);

    // the screen-reader table: a header row of the words, then one row per word
    const rows = await widget.locator('table tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    assert.deepEqual(rows[0].slice(1), WORDS);
    const itRow = rows.find((r) => r[0] === 'it');
    assert.ok(Number(itRow[1 + WORDS.indexOf('mat')]) >= 0.9, `"it" → "mat": ${itRow[6]}`);
    // every weight is Node's, to the decimals shown; fewer than half of the other rows look most at "mat"
    const expected = headWeights(model, WORDS.join(' '), 1, 3);
    rows.slice(1).forEach((r, i) => r.slice(1).forEach((text, j) =>
      assert.ok(Math.abs(Number(text) - expected[i][j]) <= 0.0005 + 1e-6, `(${r[0]}, ${WORDS[j]}): page ${text}, Node ${expected[i][j]}`)));
    const onMat = rows.slice(1).filter((r) => r[0] !== 'it' && r.slice(1).map(Number).indexOf(Math.max(...r.slice(1).map(Number))) === WORDS.indexOf('mat'));
    assert.ok(2 * onMat.length < WORDS.length - 1, `${onMat.length} other rows look most at "mat"`);
    const box = await widget.locator('canvas').boundingBox();

    // hovering the cell ("it", "mat") names it and shows its weight: the plot area is 290×270 CSS px
    // right of the row labels; find the cell from the canvas's size, whatever the deck's scale
    const layout = await widget.locator('canvas').evaluate((c) => ({ width: c.offsetWidth, height: c.offsetHeight }));
    const scale = box.width / layout.width;
    const left = layout.width - 86 - 290;
    const x = box.x + scale * (left + 290 * (5.5 / 10));
    const y = box.y + scale * (8 + 270 * (7.5 / 10));
    await page.mouse.move(x, y);
    await widget.locator('figcaption', { hasText: /“it” → “mat”: (0\.9\d+|1\.0000)/ }).waitFor();

    assert.deepEqual(problems, []);
    assert.deepEqual(requests.filter((u) => !u.startsWith(server.url) && !u.startsWith('data:')), []);
    await close();
  });
});
