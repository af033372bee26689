// build/offline/attnlab.html, the deck as one file: opened from file:// with every network request
// refused, the engine (single-thread) and the models come from inside the page, nothing fails, the
// explorer reads "it" as "mat" and the worked example's softmax row is the engine's.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { OFFLINE, openOffline, setUp } from './browser.mjs';
import { slideReady } from './widget-checks.mjs';

const fixed = (values, decimals) => Array.from(values, (v) => v.toFixed(decimals).replace('-', '−'));

assert.ok(existsSync(OFFLINE), 'build/offline/attnlab.html is missing: bash scripts/build.sh web');
const { browser, engine } = await setUp({ root: null, engine: true });

/** the offline page at `hash`, its widgets ready */
async function open(hash) {
  const opened = await openOffline(browser, hash);
  await slideReady(opened.page);
  return opened;
}

describe('the offline file', () => {
  it('is one file of a few megabytes', () => {
    const megabytes = statSync(OFFLINE).size / 2 ** 20;
    assert.ok(megabytes > 1 && megabytes < 8, `${megabytes.toFixed(1)} MB`);
  });

  it('runs the explorer from file:// with no network', async () => {
    const { page, problems, refused, close } = await open('explorer');
    const widget = page.locator('attn-explorer');
    assert.equal(await widget.locator('.reading strong').textContent(), 'mat');
    assert.match(await page.locator('#engine-info').textContent(), /1 thread/);
    assert.deepEqual(problems, []);
    assert.deepEqual(refused, []);
    await close();
  });

  it('shows every slide\'s widgets with no error', { timeout: 300000 }, async () => {
    const { page, problems, refused, close } = await open('title');
    const ids = await page.locator('section.slide').evaluateAll((slides) => slides.map((s) => s.id));
    for (const id of ids) {
      await page.evaluate((slide) => { location.hash = `#${slide}`; }, id);
      await page.locator(`section#${id}.active`).waitFor();
      await slideReady(page);
      const failed = await page.locator('section.slide.active *').evaluateAll((elements) => elements
        .filter((e) => e.shadowRoot?.querySelector('.error')).map((e) => `${e.localName}: ${e.shadowRoot.querySelector('.error').textContent}`));
      assert.deepEqual(failed, [], id);
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(refused, []);
    await close();
  });

  it('computes the worked example as the engine does', async () => {
    const { page, problems, refused, close } = await open('worked-example&stage=5');
    const weights = engine.attention({
      x: [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0], n: 3, d: 4, dK: 2, dV: 2, mask: 'none',
      wQ: [1, 0, 0, 1, 1, 0, 0, 1], wK: [0, 1, 1, 0, 0, 1, 1, 0], wV: [1, 1, 0, 0, 1, 0, 0, 1], trace: ['weights'],
    }).heads[0].weights.data;
    const shown = await page.locator('attn-attention-steps').locator('section.area figure[data-matrix="weights"] tr[data-row]')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    assert.deepEqual(shown.flat(), fixed(weights, 4));
    assert.deepEqual(problems, []);
    assert.deepEqual(refused, []);
    await close();
  });
});
