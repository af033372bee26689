// <attn-overflow> on its slide: softmax of a scaled row of logits in float32, naive and
// max-subtracted, both by the engine. Past ln(FLT_MAX) the naive column shows ∞ and NaN while the
// engine's stays finite, equal bit for bit to the engine in Node. And the common-mistakes slide
// before it, whose every item links to slides that exist.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, SCREENSHOTS, setUp } from './browser.mjs';
import { canvasColours, fitsSlide, followHash, nextFrames, screenshotPage, slideIds, slideReady } from './widget-checks.mjs';

const { server, browser, engine } = await setUp({ engine: true });

const ROW = [10, 9.5, 8, 4];

/** a number as the widget writes it (true minus signs, ∞, NaN) */
const number = (text) => (text === '∞' ? Infinity : text === '−∞' ? -Infinity : Number(text.replaceAll('−', '-')));

/** the widget's exact numbers, from its screen-reader table: one row per logit of
 * [z, naive exp, naive weight, exp(z − m), weight], and the two sums */
async function shownTerms(widget) {
  await widget.locator('.sr-table:not([aria-busy])').waitFor({ state: 'attached' });
  const rows = await widget.locator('.sr-table table').evaluate((table) =>
    [...table.querySelectorAll('tr')].slice(1).map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
  const sums = rows.pop();
  return { rows: rows.map((r) => r.map(number)), sums: [number(sums[1]), number(sums[3])] };
}

/** Checks the widget's numbers against the engine in Node for the row at `scale`, and returns Node's. */
async function checkAgainstNode(widget, scale) {
  const want = engine.softmaxForms({ scores: ROW, scale });
  const { rows, sums } = await shownTerms(widget);
  assert.equal(rows.length, ROW.length);
  const same = (shown, expected, what) => assert.ok(Object.is(Math.fround(shown), expected) || (Number.isNaN(shown) && Number.isNaN(expected)),
    `${what}: shown ${shown}, the engine in Node ${expected}`);
  rows.forEach(([z, naiveExp, naiveWeight, exp, weight], i) => {
    same(z, want.logits[i], `z${i}`);
    same(naiveExp, want.naive.exps[i], `naive exp ${i}`);
    same(naiveWeight, want.naive.weights[i], `naive weight ${i}`);
    same(exp, want.maxSubtracted.exps[i], `exp(z − m) ${i}`);
    same(weight, want.maxSubtracted.weights[i], `weight ${i}`);
  });
  same(sums[0], want.naive.sum, 'naive sum');
  same(sums[1], want.maxSubtracted.sum, 'max-subtracted sum');
  assert.ok(want.maxSubtracted.weights.every(Number.isFinite), 'the engine\'s form stays finite');
  return want;
}

describe('numerical overflow in the softmax', () => {
  it('shows the naive column turn to ∞ and NaN as the largest logit passes ln(FLT_MAX), the engine\'s staying exact', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#softmax-overflow`);
    const widget = page.locator('attn-overflow');
    await slideReady(page);
    assert.ok(await fitsSlide(widget), 'the widget fits its slide');
    const [colours] = await canvasColours(widget);
    assert.ok(colours > 4, `the number line shows ${colours} colours`);
    // it opens past the threshold: the largest logit 90, exp(90) = ∞, its weight NaN
    const start = await checkAgainstNode(widget, 9);
    const limit = start.overflowAbove.float32;
    assert.ok(Math.abs(limit - 88.7228) < 1e-4, `ln(FLT_MAX) = ${limit}`);
    assert.ok(start.logits[0] > limit);
    assert.ok(Number.isNaN(start.naive.weights[0]), 'the naive form has failed at the default');
    const verdict = widget.locator('.verdict');
    assert.match(await verdict.textContent(), /exp\(90\.00\) = ∞ in float32: the logit is past 88\.72/);
    assert.ok((await widget.locator('td.bad').count()) > 0, 'the failure is marked');

    const slider = widget.getByRole('slider', { name: 'scale s' });
    // 88: just below the threshold, every exp fits and the two forms agree
    await slider.fill('8.8');
    await page.waitForFunction(() => location.hash.includes('ov-s=8.8'));
    await slideReady(page);
    const below = await checkAgainstNode(widget, 8.8);
    assert.ok(below.logits[0] < limit && below.naive.weights.every(Number.isFinite));
    below.naive.weights.forEach((w, i) => assert.ok(Math.abs(w - below.maxSubtracted.weights[i]) < 1e-6, `weight ${i}`));
    assert.equal(await widget.locator('td.bad').count(), 0, 'nothing marked wrong');

    // 89: past it, exp(89) = ∞, the sum ∞, the weight ∞/∞ = NaN and the others 0
    await slider.fill('8.9');
    await page.waitForFunction(() => location.hash.includes('ov-s=8.9'));
    await slideReady(page);
    const past = await checkAgainstNode(widget, 8.9);
    assert.ok(past.logits[0] > limit);
    assert.equal(past.naive.exps[0], Infinity);
    assert.equal(past.naive.sum, Infinity);
    assert.ok(Number.isNaN(past.naive.weights[0]));
    assert.deepEqual(Array.from(past.naive.weights.slice(1)), [0, 0, 0]);
    assert.match(await verdict.textContent(), /exp\(89\.00\) = ∞ in float32: the logit is past 88\.72/);
    const marked = await widget.locator('td.bad').allTextContents();
    assert.ok(marked.includes('∞') && marked.includes('NaN'), `marked: ${marked}`);
    // the table shows the engine's weights, not the naive ones, in the last column
    const lastColumn = await widget.locator('table.terms tbody tr:not(.sum) td:last-child').allTextContents();
    assert.equal(lastColumn[0], String(Number(past.maxSubtracted.weights[0].toPrecision(3))));

    // a sum can overflow with no exp doing so: 0 weights, and no NaN to warn
    await followHash(page, '#softmax-overflow&ov=88.5%2088.5&ov-s=1');
    const sum = await shownTerms(widget);
    assert.equal(sum.sums[0], Infinity);
    assert.deepEqual(sum.rows.map((r) => [r[2], r[4]]), [[0, 0.5], [0, 0.5]]);
    assert.match(await verdict.textContent(), /the sum overflows although no exp does/);
    assert.deepEqual(problems, []);
    await close();
  });

  it('states eight mistakes on the slide before, each linked to slides that show it', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#mistakes`);
    await slideReady(page);
    const ids = await slideIds(page);
    assert.equal(ids.indexOf('mistakes') + 1, ids.indexOf('softmax-overflow'), 'the overflow slide follows the mistakes');
    assert.equal(ids.indexOf('softmax-overflow') + 1, ids.indexOf('open-questions'), 'both come before the open questions');
    const targets = await page.locator('section#mistakes li').evaluateAll((items) =>
      items.map((li) => [...li.querySelectorAll('a')].map((a) => a.getAttribute('href').slice(1))));
    assert.equal(targets.length, 8);
    for (const links of targets) {
      assert.ok(links.length >= 1, 'each mistake points to a slide');
      for (const target of links) assert.ok(ids.includes(target), `#mistakes links to #${target}, which is no slide`);
    }
    await page.locator('section#mistakes a[href="#softmax-overflow"]').click();
    await page.locator('section#softmax-overflow.active').waitFor();
    assert.deepEqual(problems, []);
    await close();
  });

  it('looks right at both sizes in both themes, and on a phone', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#mistakes`);
    assert.equal((await screenshotPage(page, 'mistakes')).length, 4);
    await followHash(page, '#softmax-overflow&ov-s=9');
    assert.equal((await screenshotPage(page, 'softmax-overflow')).length, 4);
    await page.setViewportSize({ width: 390, height: 844 });
    await nextFrames(page);
    // the window's view of each (the stacked page scrolls its body, which element screenshots misplace)
    for (const [name, selector] of [['mistakes', 'section#mistakes'], ['softmax-overflow', 'attn-overflow']]) {
      await page.locator(selector).evaluate((e) => e.scrollIntoView({ block: 'start' }));
      await slideReady(page, 'body');
      await page.locator(selector).evaluate((e) => e.scrollIntoView({ block: 'start' }));
      await nextFrames(page);
      await page.screenshot({ path: `${SCREENSHOTS}${name}-390-light.png` });
    }
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `the page is ${width} px wide`);
    assert.deepEqual(problems, []);
    await close();
  });
});
