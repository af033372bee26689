// The seminar page in real Chromium: what a reader sees and clicks, with screenshots kept in
// build/screenshots/ for a person to look at.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { launch, openPage, SCREENSHOTS } from './browser.mjs';
import { serve } from './server.mjs';

const DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));
let server;
let browser;

before(async () => {
  server = await serve(DIST);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

/** text of the weights table, row by row, once the widget has drawn */
async function weights(page) {
  await page.locator('attn-attention-steps[data-ready]').waitFor();
  return page.locator('attn-attention-steps section[data-stage="softmax"] tr[data-row]').evaluateAll((rows) =>
    rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));
}

describe('seminar page', () => {
  it('loads the SIMD engine, fetches nothing from other origins and logs no errors', async () => {
    const { page, problems, requests, close } = await openPage(browser, server.url);
    await page.locator('#engine-info', { hasText: 'SIMD on' }).waitFor();
    await page.locator('attn-attention-steps[data-ready]').waitFor();
    await page.locator('attn-positional-encoding[data-ready]').waitFor();
    await page.locator('attn-coreference[data-ready]').waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}page.png`, fullPage: true });
    assert.deepEqual(problems, []);
    const foreign = requests.filter((u) => !u.startsWith(server.url) && !u.startsWith('data:'));
    assert.deepEqual(foreign, []);
    await close();
  });

  it('shows the deck example computed by the engine, and the causal mask changes it', async () => {
    const { page, close } = await openPage(browser, server.url);
    const widget = page.locator('attn-attention-steps');
    await page.locator('attn-attention-steps[data-ready]').waitFor();
    assert.deepEqual((await weights(page))[0], ['0.0454', '0.7679', '0.1867']);
    assert.match(await widget.locator('[data-testid="summary"]').textContent(), /Token A puts 4\.5% on A, 76\.8% on B, 18\.7% on C/);
    await widget.screenshot({ path: `${SCREENSHOTS}attention-steps.png` });

    await widget.getByRole('button', { name: 'causal mask' }).click();
    await page.waitForFunction(() => location.hash.includes('causal=1'));
    await page.waitForFunction(() => document.querySelector('attn-attention-steps').shadowRoot
      .querySelector('section[data-stage="softmax"] tr[data-row="0"] td').textContent === '1.0000');
    const masked = await weights(page);
    assert.deepEqual(masked[0], ['1.0000', '0.0000', '0.0000']);
    assert.equal(masked[1][2], '0.0000');
    assert.match(await widget.locator('section[data-stage="mask"]').textContent(), /−∞/);

    await widget.locator('section[data-stage="softmax"] tr[data-row="2"]').click();
    await page.waitForFunction(() => location.hash.includes('q=2'));
    await widget.getByRole('button', { name: '2 Scores' }).click();
    await page.waitForFunction(() => document.querySelector('attn-attention-steps').shadowRoot.querySelectorAll('section.stage').length === 2);
    await widget.screenshot({ path: `${SCREENSHOTS}attention-steps-causal.png` });
    await close();
  });

  it('restores its state from a shared link', async () => {
    const { page, close } = await openPage(browser, `${server.url}#causal=1&scaled=0&n=16&d=8`);
    await page.locator('attn-attention-steps[data-ready]').waitFor();
    const widget = page.locator('attn-attention-steps');
    assert.equal(await widget.getByRole('button', { name: 'causal mask' }).getAttribute('aria-pressed'), 'true');
    assert.equal(await widget.getByRole('button', { name: 'scale by 1/√d_k' }).getAttribute('aria-pressed'), 'false');
    await page.locator('attn-positional-encoding', { hasText: 'PE (16×8)' }).waitFor();
    await close();
  });

  it('draws the positional tables and redraws them while a slider moves', async () => {
    const { page, problems, close } = await openPage(browser, server.url);
    const widget = page.locator('attn-positional-encoding');
    await page.locator('attn-positional-encoding[data-ready]').waitFor();
    const colours = () => widget.locator('canvas').evaluateAll((canvases) => canvases.filter((c) => c.checkVisibility()).map((c) => {
      const g = c.getContext('2d');
      const { data } = g.getImageData(0, 0, c.width, c.height);
      const seen = new Set();
      for (let i = 0; i < data.length; i += 4 * 7) seen.add(`${data[i]},${data[i + 1]},${data[i + 2]},${data[i + 3]}`);
      return seen.size;
    }));
    const counts = await colours();
    assert.equal(counts.length, 2, 'the table and the similarity are shown');
    for (const count of counts) assert.ok(count > 50, `canvas shows only ${count} colours`);

    const slider = widget.getByRole('slider', { name: 'positions n' });
    await slider.fill('64');
    await widget.getByText('PE (64×32)').waitFor();
    await page.waitForFunction(() => location.hash.includes('n=64'));
    await widget.screenshot({ path: `${SCREENSHOTS}positional-encoding.png` });
    assert.deepEqual(problems, []);
    await close();
  });

  it('switches between the positional schemes, each computed by the engine', async () => {
    const { page, problems, close } = await openPage(browser, server.url);
    const widget = page.locator('attn-positional-encoding');
    await page.locator('attn-positional-encoding[data-ready]').waitFor();
    await widget.getByRole('button', { name: 'RoPE' }).click();
    await widget.getByText('depends only on j − i').waitFor();
    await page.waitForFunction(() => location.hash.includes('pe=rope'));
    await widget.screenshot({ path: `${SCREENSHOTS}positional-rope.png` });
    await widget.getByRole('button', { name: 'Learned' }).click();
    await widget.getByText('no structure until trained').waitFor();
    await widget.getByRole('button', { name: 'ALiBi' }).click();
    await widget.getByText('head 1 of 8: m = 0.50000').waitFor();
    assert.equal(await widget.getByRole('slider', { name: 'width d' }).isVisible(), false);
    await widget.getByRole('slider', { name: 'head' }).fill('7');
    await widget.getByText('head 8 of 8: m = 0.00391').waitFor();
    await page.waitForFunction(() => location.hash.includes('pe=alibi') && location.hash.includes('head=7'));
    const drawn = await widget.locator('canvas').evaluateAll((canvases) => canvases.filter((c) => c.checkVisibility()).map((c) => {
      const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
      const seen = new Set();
      for (let i = 0; i < data.length; i += 4 * 7) seen.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
      return seen.size;
    }));
    assert.equal(drawn.length, 1);
    assert.ok(drawn[0] > 20, `the ALiBi bias shows ${drawn[0]} colours`);
    await widget.screenshot({ path: `${SCREENSHOTS}positional-alibi.png` });
    assert.deepEqual(problems, []);
    await close();
  });

  it('survives a hostile link', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#n=1e99&d=abc&base=-5&q=<script>alert(1)</script>`);
    await page.locator('attn-positional-encoding', { hasText: 'PE (128×32)' }).waitFor();
    await page.locator('attn-attention-steps[data-ready]').waitFor();
    assert.deepEqual(problems, []);
    await close();
  });

  it('shows where the trained model\'s "it" looks, follows the adjective, and trains live', async () => {
    const { page, problems, close } = await openPage(browser, server.url);
    const widget = page.locator('attn-coreference');
    await page.locator('attn-coreference[data-ready]').waitFor();
    await widget.locator('p.answer', { hasText: 'reads “it” as mat' }).waitFor();
    assert.match(await widget.locator('p.answer').textContent(), /mat \(p = 1\.000\) — right/);
    // layer 1, head 0: "it" looks at the mat (6th word) with (almost) all its weight
    const layer1 = await widget.locator('table.matrix tr').filter({ hasText: 'layer 1 · head 0' }).locator('td').allTextContents();
    assert.equal(layer1.length, 10);
    assert.ok(Number(layer1[5]) >= 0.9, `layer 1 head 0 on "mat": ${layer1[5]}`);
    await widget.scrollIntoViewIfNeeded();
    await widget.screenshot({ path: `${SCREENSHOTS}coreference.png` });

    await widget.getByRole('button', { name: 'soft ⇄ hungry' }).click();
    await widget.locator('p.answer', { hasText: 'reads “it” as cat' }).waitFor();
    await page.waitForFunction(() => location.hash.includes('hungry'));

    await widget.getByRole('button', { name: 'cat', exact: true }).click();
    await widget.locator('figcaption', { hasText: 'attention of “cat”' }).waitFor();
    await page.waitForFunction(() => location.hash.includes('tok=1'));

    const input = widget.getByRole('textbox', { name: 'sentence' });
    await input.fill('<img src=x onerror=alert(1)> the cat');
    await input.press('Enter');
    await widget.locator('p.error', { hasText: 'not a sentence of the language' }).waitFor();
    assert.equal(await input.isVisible(), true, 'the input stays to correct the sentence');
    await input.fill('The dog chased the ball because it was fast.');
    await input.press('Enter');
    await widget.locator('p.answer', { hasText: 'reads “it” as dog' }).waitFor();

    await widget.getByRole('button', { name: 'Train a new model live' }).click();
    await widget.locator('output', { hasText: /step [1-9]\d*\/600/ }).waitFor();
    await widget.locator('p.answer', { hasText: 'The model being trained' }).waitFor();
    await page.waitForFunction(() => /step (1\d\d|[2-9]\d\d)\/600/.test(
      document.querySelector('attn-coreference').shadowRoot.querySelector('output').textContent), null, { timeout: 60000 });
    await widget.screenshot({ path: `${SCREENSHOTS}coreference-training.png` });
    await widget.getByRole('button', { name: 'Stop' }).click();
    await widget.getByRole('button', { name: 'Back to the shipped model' }).click();
    await widget.locator('p.answer', { hasText: 'The trained model reads “it” as dog' }).waitFor();
    assert.deepEqual(problems, []);
    await close();
  });

  it('falls back to the single-thread build on a page that is not cross-origin isolated', async () => {
    const plain = await serve(DIST, { isolated: false });
    const { page, problems, close } = await openPage(browser, plain.url);
    await page.locator('#engine-info', { hasText: 'build "simd", SIMD on, 1 thread' }).waitFor();
    assert.deepEqual((await weights(page))[0], ['0.0454', '0.7679', '0.1867']);
    assert.deepEqual(problems, []);
    await close();
    plain.close();
  });

  it('uses the threaded build where the page is isolated', async () => {
    const { page, close } = await openPage(browser, server.url);
    await page.locator('#engine-info', { hasText: 'build "simd-threads"' }).waitFor();
    assert.equal(await page.evaluate(() => crossOriginIsolated), true);
    await close();
  });

  it('reads well in dark mode', async () => {
    const { page, close } = await openPage(browser, server.url, { colorScheme: 'dark' });
    await page.locator('attn-positional-encoding[data-ready]').waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}page-dark.png`, fullPage: true });
    await close();
  });
});
