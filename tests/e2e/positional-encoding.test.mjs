// <attn-positional-encoding> on its slide: every scheme drawn by the engine, sliders redraw it, and
// its settings live in the URL.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, SCREENSHOTS, setUp } from './browser.mjs';
import { eventually } from './widget-checks.mjs';

const { server, browser } = await setUp();

/** distinct colours on each visible canvas of the widget (a blank canvas has one) */
const colours = (widget) => widget.locator('canvas').evaluateAll((canvases) => canvases.filter((c) => c.checkVisibility()).map((c) => {
  const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
  const seen = new Set();
  for (let i = 0; i < data.length; i += 4 * 7) seen.add(`${data[i]},${data[i + 1]},${data[i + 2]},${data[i + 3]}`);
  return seen.size;
}));

describe('positional encodings', () => {
  it('draws the tables and redraws them while a slider moves', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#positions`);
    const widget = page.locator('attn-positional-encoding');
    await page.locator('attn-positional-encoding[data-ready]').waitFor({ timeout: 60000 });
    const counts = await colours(widget);
    assert.equal(counts.length, 2, 'the table and the similarity are shown');
    for (const count of counts) assert.ok(count > 50, `canvas shows only ${count} colours`);
    await widget.getByRole('slider', { name: 'positions n' }).fill('64');
    await widget.getByText('PE (64×32)').waitFor();
    await page.waitForFunction(() => location.hash.includes('n=64'));
    await page.screenshot({ path: `${SCREENSHOTS}positional-encoding.png` });
    assert.deepEqual(problems, []);
    await close();
  });

  it('switches between the schemes, each computed by the engine', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#positions`);
    const widget = page.locator('attn-positional-encoding');
    await page.locator('attn-positional-encoding[data-ready]').waitFor({ timeout: 60000 });
    await widget.getByRole('button', { name: 'RoPE' }).click();
    await widget.getByText('depends only on j − i').waitFor();
    await page.waitForFunction(() => location.hash.includes('pe=rope'));
    await widget.getByRole('button', { name: 'Learned' }).click();
    await widget.getByText('no structure until trained').waitFor();
    await widget.getByRole('button', { name: 'ALiBi' }).click();
    // the formula is typeset; its TeX source rides along in KaTeX's annotation
    const formula = (text) => widget.locator('.formula annotation', { hasText: text }).waitFor({ state: 'attached' });
    await formula('head 1 of 8: } m = 0.50000');
    assert.equal(await widget.getByRole('slider', { name: 'width d' }).isVisible(), false);
    await widget.getByRole('slider', { name: 'head' }).fill('7');
    await formula('head 8 of 8: } m = 0.00391');
    await page.waitForFunction(() => location.hash.includes('pe=alibi') && location.hash.includes('head=7'));
    const drawn = await colours(widget);
    assert.equal(drawn.length, 3, 'the bias, and the head without and with it');
    for (const count of drawn) assert.ok(count > 20, `an ALiBi picture shows ${count} colours`);
    // the steepest head: with its bias, the weights crowd the diagonal (a much shorter mean distance)
    await widget.getByRole('slider', { name: 'head' }).fill('0');
    await page.waitForFunction(() => location.hash.includes('pe=alibi') && !location.hash.includes('head='));
    const distance = () => widget.locator('figure.heatmap table').evaluateAll((tables) => tables.map((t) => {
      const rows = [...t.rows].slice(1).map((tr) => [...tr.cells].slice(1).map((c) => Number(c.textContent.replaceAll('−', '-'))));
      return rows.reduce((sum, row, i) => sum + row.reduce((s, w, j) => s + w * Math.abs(i - j), 0), 0) / rows.length;
    }));
    await page.waitForFunction(() => document.querySelector('attn-positional-encoding').shadowRoot
      .querySelectorAll('figure.heatmap table').length >= 5);
    // the tables after the bias's: the head without, then with it (rewritten a frame after the picture)
    const [plain, biased] = await eventually(async () => (await distance()).slice(-2),
      ([without, withBias] = []) => withBias < without / 3) ?? [];
    assert.ok(biased < plain / 3, `mean |i − j| under the weights: ${plain} without the bias, ${biased} with it`);
    await page.screenshot({ path: `${SCREENSHOTS}positional-alibi.png` });
    assert.deepEqual(problems, []);
    await close();
  });

  it('restores its settings from a shared link and clamps hostile ones', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#positions&n=1e99&d=7&base=-5`);
    await page.locator('attn-positional-encoding', { hasText: 'PE (128×8)' }).waitFor({ timeout: 60000 });
    assert.deepEqual(problems, []);
    await close();
  });
});
