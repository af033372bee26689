// <attn-causal-mask> on its slide: the shipped sorting model run before and after a change of one
// token; with the causal mask every earlier position's logits are bit-for-bit the same, without
// it they move.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { canvasColours, fitsSlide } from './widget-checks.mjs';

const { server, browser } = await setUp();

/** the comparison table: [position, token, max |Δ|, verdict] per position */
const positions = (widget) => widget.locator('table.positions tbody tr').evaluateAll((trs) =>
  trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
/** the mask as the screen-reader table gives it, without headers */
const mask = (widget) => widget.locator('.sr-only table').evaluate((table) =>
  [...table.rows].slice(1).map((tr) => [...tr.querySelectorAll('td')].map((c) => c.textContent)));

describe('causal mask', () => {
  it('keeps every earlier position identical with the mask, and lets the change leak without it', async () => {
    // "sortme" with its 4th letter changed from t to a
    const { page, problems, requests, close } = await openPage(browser, `${server.url}#causal-mask`);
    const widget = page.locator('attn-causal-mask');
    await page.locator('attn-causal-mask[data-ready]').waitFor({ timeout: 60000 });
    const [picture] = await canvasColours(widget);
    assert.ok(picture > 4, `the mask shows ${picture} colours`);
    assert.ok(await fitsSlide(widget), 'the widget fits its slide');
    const masked = await mask(widget);
    assert.equal(masked.length, 6);
    masked.forEach((row, i) => row.forEach((m, j) => assert.equal(m, j > i ? '−∞' : '0', `M[${i}][${j}]`)));

    const on = await positions(widget);
    assert.deepEqual(on.map((r) => r[1]), ['s', 'o', 'r', 't → a', 'm', 'e']);
    for (const row of on.slice(0, 3)) assert.deepEqual(row.slice(2), ['0', 'identical'], `position ${row[0]} with the mask`);
    for (const row of on.slice(3)) assert.equal(row[3], 'changed', `position ${row[0]} sees the change`);
    await widget.getByText('Positions 1–3, before the change: identical, max |Δ| = 0 exactly.').waitFor();

    await widget.getByRole('button', { name: 'causal mask: on' }).click();
    await widget.getByRole('button', { name: 'causal mask: off' }).waitFor();
    await page.waitForFunction(() => location.hash.includes('cm-mask=0'));
    await widget.getByText(/before the change: changed, max \|Δ\| = /).waitFor();
    const off = await positions(widget);
    for (const row of off) {
      assert.equal(row[3], 'changed', `position ${row[0]} without the mask`);
      assert.ok(Number(row[2]) > 0, `position ${row[0]}: max |Δ| = ${row[2]}`);
    }
    assert.ok((await mask(widget)).flat().every((m) => m === '0'), 'no −∞ without the mask');
    assert.deepEqual(problems, []);
    assert.deepEqual(requests.filter((url) => !url.startsWith(server.url)), []);
    await close();
  });

  it('edits another position and letter, and restores them from a link', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#causal-mask&cm=attention&cm-pos=7&cm-letter=z`);
    const widget = page.locator('attn-causal-mask');
    await widget.getByText('Positions 1–7, before the change: identical, max |Δ| = 0 exactly.').waitFor({ timeout: 60000 });
    const rows = await positions(widget);
    assert.deepEqual(rows[7].slice(1, 2), ['o → z']);
    await widget.getByRole('combobox', { name: 'change position' }).selectOption('1');
    await widget.getByText('Position 1, before the change: identical, max |Δ| = 0 exactly.').waitFor();
    await page.waitForFunction(() => location.hash.includes('cm-pos=1'));
    assert.deepEqual(problems, []);
    await close();
  });
});
