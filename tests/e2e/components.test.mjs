// <attn-components> on the components slide: the seminar sentence's vectors after each component of
// one layer of the trained coreference model, from the engine's trace; the residual stream's pictures
// share one range and LN(x) and the FFN's hidden layer have their own, each equal to what the package
// computes in Node from the same files, as are the statistics of the highlighted token.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { canvasColours, shippedModel, slideReady } from './widget-checks.mjs';

const SENTENCE = 'the cat sat on the mat because it was soft';
const STAGES = ['embed.tokens', 'embed.positions', 'layer{L}.in', 'layer{L}.ln_1', 'layer{L}.attn.out',
  'layer{L}.residual_1', 'layer{L}.mlp.act', 'layer{L}.out'];

/** the stages not in the residual stream, each drawn on its own scale */
const OWN_SCALE = new Set(['layer{L}.ln_1', 'layer{L}.mlp.act']);

const { server, browser } = await setUp();
const model = await shippedModel('coreference');

/** the engine's trace of one layer in Node: every stage's matrix */
function traced(layer) {
  const names = STAGES.map((s) => s.replace('{L}', String(layer)));
  const { trace } = model.forward({ tokens: model.tokenize(SENTENCE).ids, trace: names });
  return names.map((n) => trace[n]);
}
const maxAbs = (m) => Math.max(...Array.from(m.data, Math.abs));
function rowStats(m, i) {
  const row = Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols));
  const mean = row.reduce((a, b) => a + b, 0) / row.length;
  return { mean, std: Math.sqrt(row.reduce((a, b) => a + (b - mean) ** 2, 0) / row.length) };
}
const number = (text) => Number(text.replace('−', '-').replace('±', ''));

describe('the components', () => {
  it('draws every stage of the layer with the engine\'s ranges and the token\'s statistics', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#components`);
    await slideReady(page);
    const widget = page.locator('attn-components');
    const counts = await canvasColours(widget.locator('.grid'));
    assert.equal(counts.length, STAGES.length);
    for (const count of counts) assert.ok(count > 20, `a stage shows only ${count} colours`);

    for (const layer of [0, 1]) {
      if (layer === 1) {
        await widget.getByRole('combobox', { name: 'layer' }).selectOption('1');
        await page.waitForFunction(() => location.hash.includes('cl=1'));
        await slideReady(page);
      }
      const matrices = traced(layer);
      // the residual stream's vectors share one scale, the largest |entry| among them; LN(x) and the
      // FFN's hidden layer each have their own, said beside their titles
      const texts = await widget.locator('.grid .range').allTextContents();
      const own = STAGES.map((s) => OWN_SCALE.has(s));
      const shared = Math.max(...matrices.filter((_, k) => !own[k]).map(maxAbs));
      assert.deepEqual(texts, matrices.map((m, k) => (own[k] ? `±${maxAbs(m).toFixed(2)}` : '')), `layer ${layer}: the pictures on their own scale`);
      assert.match(await widget.locator('.footer').textContent(), new RegExp(` \\(r = ${shared.toFixed(2)}, or the r beside a title\\)`));
      const titles = await widget.locator('.grid h4').allTextContents();
      assert.deepEqual(titles.map((t) => t.match(/(\d+)×(\d+)$/).slice(1).map(Number)), matrices.map((m) => [m.rows, m.cols]));
      // "it" (position 7) by default: x, LN(x) and the output, to the three decimals shown
      const stats = await widget.locator('.stats').textContent();
      const shown = [...stats.matchAll(/mean (−?[\d.]+), std ([\d.]+)/g)].map((m) => [number(m[1]), number(m[2])]);
      const expected = [matrices[2], matrices[3], matrices[7]].map((m) => rowStats(m, 7));
      shown.forEach(([mean, std], k) => {
        assert.ok(Math.abs(mean - expected[k].mean) <= 0.0005 + 1e-9, `mean ${mean} vs ${expected[k].mean}`);
        assert.ok(Math.abs(std - expected[k].std) <= 0.0005 + 1e-9, `std ${std} vs ${expected[k].std}`);
      });
    }
    assert.match(await widget.locator('.stats').textContent(), /^“it”/, 'the statistics name their token');
    assert.deepEqual(problems, []);
    await close();
  });

  it('follows the hovered token through every picture', async () => {
    const { page, close } = await openPage(browser, `${server.url}#components`);
    await slideReady(page);
    const widget = page.locator('attn-components');
    const first = widget.locator('.grid canvas').first();
    const box = await first.boundingBox();
    // the row labels take the left margin; row 1 ("cat") of 10 in the 150-px-high plot area, 8 px from the top
    const scale = box.width / (await first.evaluate((c) => c.offsetWidth));
    await page.mouse.move(box.x + box.width * 0.7, box.y + scale * (8 + 150 * (1.5 / 10)));
    await page.waitForFunction(() => location.hash.includes('ct=1'));
    await widget.locator('.stats', { hasText: '“cat”' }).waitFor();
    await close();
  });
});
