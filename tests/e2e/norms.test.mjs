// <attn-norms> on its slide: LayerNorm and RMSNorm of the vector the reader types, with the
// engine's statistics, outputs and Jacobians; a malformed vector is named and can be corrected.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { canvasColours, equalTo, eventually, fitsSlide, screenshotSlide, slideReady } from './widget-checks.mjs';

const { server, browser, engine } = await setUp({ engine: true });

/** the rows x, LayerNorm(x), RMSNorm(x) as shown to screen readers, once they are `expected` (to 4 decimals) */
async function checkOutputs(widget, x, gamma, beta) {
  const d = x.length;
  const r = engine.norms({ x, d, gamma: new Array(d).fill(gamma), beta: new Array(d).fill(beta) });
  const want = [x, Array.from(r.layerNorm.data), Array.from(r.rmsNorm.data)].map((row) => row.map((v) => Number(v.toFixed(4))));
  const shown = await eventually(() => widget.locator('table').filter({ hasText: 'LayerNorm(x)' }).evaluate((table) =>
    [...table.rows].slice(1).map((tr) => [...tr.cells].slice(1).map((c) => Number(c.textContent.replaceAll('−', '-'))))),
  equalTo(want));
  assert.deepEqual(shown, want);
  const stats = await widget.locator('.stats').textContent();
  assert.ok(stats.includes(`μ = ${r.mean.toFixed(3).replace('-', '−')}`) && stats.includes(`σ² = ${r.variance.toFixed(3)}`), stats);
  return r;
}

describe('LayerNorm and RMSNorm', () => {
  it('normalises the vector both ways, as the engine does', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#norms`);
    const widget = page.locator('attn-norms');
    await slideReady(page);
    const counts = await canvasColours(widget);
    assert.equal(counts.length, 3, 'the bars and two Jacobians');
    for (const c of counts) assert.ok(c > 8, `a picture shows ${c} colours`);
    assert.ok(await fitsSlide(widget), 'the widget fits its slide');
    await checkOutputs(widget, [2, -1, 0.5, 3, -2, 1, 0, 4], 1, 0);
    assert.match(await widget.locator('.maps p').first().textContent(), /each row sums to (0|\d(\.\d+)?e−\d+)/);

    // another vector, a gain and a shift
    const field = widget.getByRole('textbox', { name: 'vector x' });
    await field.fill('10 20 30 40');
    await field.press('Enter');
    await widget.getByRole('slider', { name: 'γ' }).fill('2');
    await widget.getByRole('slider', { name: 'β' }).fill('1');
    await page.waitForFunction(() => location.hash.includes('ng=2') && location.hash.includes('nb=1') && location.hash.includes('nv=10'));
    await slideReady(page);
    // the sliders' steps land on 2 and 1 exactly
    assert.deepEqual(await widget.evaluate((w) => [w.getAttribute('gamma'), w.getAttribute('beta')]), ['2', '1']);
    const r = await checkOutputs(widget, [10, 20, 30, 40], 2, 1);
    // LayerNorm's output has mean β and standard deviation γ
    const ln = Array.from(r.layerNorm.data);
    const mean = ln.reduce((s, v) => s + v, 0) / 4;
    assert.ok(Math.abs(mean - 1) < 1e-4 && Math.abs(Math.sqrt(ln.reduce((s, v) => s + (v - mean) ** 2, 0) / 4) - 2) < 1e-3);
    assert.deepEqual(problems, []);
    await close();
  });

  it('names what is wrong with a vector, and recovers', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#norms&nv=1%202%20abc`);
    const widget = page.locator('attn-norms');
    await widget.getByRole('alert').filter({ hasText: 'Entry 3, “abc”, is not a number' }).waitFor({ timeout: 60000 });
    const field = widget.getByRole('textbox', { name: 'vector x' });
    await field.fill('5');
    await field.press('Enter');
    await widget.getByRole('alert').filter({ hasText: 'Type 2 to 16 numbers' }).waitFor();
    await field.fill('1 2 3');
    await field.press('Enter');
    await slideReady(page);
    assert.equal(await widget.getByRole('alert').count(), 0);
    await checkOutputs(widget, [1, 2, 3], 1, 0);
    assert.deepEqual(problems, []);
    await close();
  });

  it('looks right at both sizes in both themes', async () => {
    const { paths, problems } = await screenshotSlide(browser, `${server.url}#norms&ng=1.5&nb=0.5`, 'norms');
    assert.equal(paths.length, 4);
    assert.deepEqual(problems, []);
  });
});
