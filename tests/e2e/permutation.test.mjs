// <attn-permutation> on its slide: without positions, the shuffled sentence's attention outputs are
// the sentence's own rows, moved (difference ≈ 0, drawn on the outputs' scale as a blank); with the
// sinusoidal table added they are not; the outputs shown are the engine's for the shipped model's
// LayerNormed word vectors, and the rows of different words differ.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { canvasColours, fitsSlide, heatmapCellColours, screenshotSlide, shippedModel, slideReady } from './widget-checks.mjs';

const { server, browser } = await setUp();

const number = (text) => Number(text.replace('−', '-').replace('e−', 'e-'));
/** the largest |difference| the widget reports */
const largest = (widget) => widget.locator('.verdict strong').textContent().then(number);
/** the first heatmap's screen-reader table (Attn(X)): rows of numbers, as shown (4 decimals) */
const outputsShown = (widget) => widget.locator('figure.heatmap').first().locator('table').evaluate((table) =>
  [...table.rows].slice(1).map((tr) => [...tr.cells].slice(1).map((c) => Number(c.textContent.replaceAll('−', '-')))));

describe('order matters: shuffle the words', () => {
  it('shows the same rows, moved, without positions, and other rows with them', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#permutation`);
    const widget = page.locator('attn-permutation');
    await slideReady(page);
    const counts = await canvasColours(widget);
    assert.equal(counts.length, 3);
    assert.ok(await fitsSlide(widget), 'the widget fits its slide');
    assert.ok(await largest(widget) < 1e-5, `without positions the difference is ${await largest(widget)}`);
    // on the outputs' scale the difference is a blank: a colour or two where the outputs show dozens
    const [original, moved, difference] = await heatmapCellColours(widget);
    assert.ok(original > 20 && moved > 20, `the outputs show ${original} and ${moved} colours`);
    assert.ok(difference <= 3, `the difference shows ${difference} colours`);
    assert.match(await widget.locator('.verdict').textContent(), /zero to float precision/);
    const shuffledBefore = await widget.locator('.orders dd').nth(1).textContent();

    // Attn(X) is the engine's: one head with W = I over the shipped model's word vectors
    const model = await shippedModel('coreference');
    const { ids } = model.tokenize('the cat sat on the mat because it was soft');
    const words = model.forward({ tokens: ids, trace: ['embed.tokens'] }).trace['embed.tokens'];
    const { loadAttnlab } = await import('../../build/package/index.js');
    const nodeEngine = await loadAttnlab({ threads: 1 });
    const d = words.cols;
    const n = words.rows;
    const normed = new Float32Array(n * d);
    for (let i = 0; i < n; i++) normed.set(nodeEngine.norms({ x: words.data.subarray(i * d, (i + 1) * d), d }).layerNorm.data, i * d);
    const I = Array.from({ length: d * d }, (_, i) => (i % (d + 1) === 0 ? 1 : 0));
    const expected = nodeEngine.attention({ x: normed, n, d, wQ: I, wK: I, wV: I, dK: d, dV: d }).output;
    // the rows differ: any two different words' outputs are apart by more than 0.3 in some dimension
    for (let a = 0; a < n; a++) {
      for (let b = a + 1; b < n; b++) {
        if (ids[a] === ids[b]) continue;
        const gap = Math.max(...Array.from({ length: d }, (_, j) => Math.abs(expected.data[a * d + j] - expected.data[b * d + j])));
        assert.ok(gap > 0.3, `rows ${a} and ${b} differ by ${gap}`);
      }
    }
    await page.waitForFunction(() => document.querySelector('attn-permutation').shadowRoot.querySelector('figure.heatmap table'));
    const shown = await outputsShown(widget);
    assert.equal(shown.length, expected.rows);
    for (let i = 0; i < expected.rows; i++) {
      for (let j = 0; j < d; j++) {
        assert.ok(Math.abs(shown[i][j] - expected.data[i * d + j]) < 1e-4, `Attn(X)[${i}][${j}] = ${shown[i][j]}, engine ${expected.data[i * d + j]}`);
      }
    }

    // the sinusoidal table breaks the symmetry
    await widget.getByRole('button', { name: 'sinusoidal positions' }).click();
    await page.waitForFunction(() => location.hash.includes('pm-pe=sinusoidal'));
    await slideReady(page);
    assert.ok(await largest(widget) > 0.05, `with positions the difference is ${await largest(widget)}`);
    // another shuffle, back without positions: equal again
    await widget.getByRole('button', { name: 'shuffle again' }).click();
    await widget.getByRole('button', { name: 'no positions' }).click();
    await page.waitForFunction(() => location.hash.includes('pm-shuffle=2') && !location.hash.includes('pm-pe'));
    await slideReady(page);
    assert.notEqual(await widget.locator('.orders dd').nth(1).textContent(), shuffledBefore);
    assert.ok(await largest(widget) < 1e-5);
    assert.deepEqual(problems, []);
    await close();
  });

  it('says what is wrong with a one-word sentence, and recovers', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#permutation&pm=cat`);
    const widget = page.locator('attn-permutation');
    await widget.getByRole('alert').filter({ hasText: 'at least two words' }).waitFor({ timeout: 60000 });
    const field = widget.getByRole('textbox', { name: 'sentence' });
    await field.fill('the mat sat on the cat');
    await field.press('Enter');
    await page.waitForFunction(() => location.hash.includes('pm=the'));
    await slideReady(page);
    assert.equal(await widget.getByRole('alert').count(), 0);
    assert.ok(await largest(widget) < 1e-5);
    assert.deepEqual(problems, []);
    await close();
  });

  it('looks right at both sizes in both themes', async () => {
    const { paths, problems } = await screenshotSlide(browser, `${server.url}#permutation&pm-pe=sinusoidal`, 'permutation');
    assert.equal(paths.length, 4);
    assert.deepEqual(problems, []);
  });
});
