// <attn-kv-heads> on its slide: eight query heads grouped over 8, 2 or 1 key/value heads (heads
// sharing K and V still differ), and the parameters and KV-cache bytes of MHA, GQA and MQA for the
// model the reader sizes, equal to the engine's.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { canvasColours, equalTo, eventually, fitsSlide, slideReady } from './widget-checks.mjs';

const { server, browser, engine } = await setUp({ engine: true });

/** the exact numbers behind the budget table: { parameters: [MHA, GQA, MQA], 'KV-cache bytes': […] } */
const budgetShown = (widget) => widget.locator('table').filter({ hasText: 'KV-cache bytes' }).evaluate((table) =>
  Object.fromEntries([...table.rows].slice(1).map((tr) => [tr.cells[0].textContent, [...tr.cells].slice(1).map((c) => Number(c.textContent))])));
// (a title is written on two lines)
const titles = async (widget) => (await widget.locator('.heads h5').allTextContents()).map((t) => t.replace(/\s+/g, ' '));
/** the heads' weights, from their screen-reader tables */
const headWeights = (widget) => widget.locator('.heads figure table').evaluateAll((tables) =>
  tables.map((t) => [...t.rows].slice(1).map((tr) => [...tr.cells].slice(1).map((c) => Number(c.textContent)))));

/** the screen-reader table is rewritten a frame or two after the picture: wait for the numbers
 * to be the engine's (and fail with the last ones seen) */
async function checkBudget(widget, { d, heads, groups, layers, n, bytesPerValue }) {
  const expected = [heads, groups, 1].map((kvHeads) => engine.attentionBudget({ d, heads, kvHeads, layers, n, bytesPerValue }));
  const want = { parameters: expected.map((b) => b.parameters), 'KV-cache bytes': expected.map((b) => b.kvCacheBytes) };
  assert.deepEqual(await eventually(() => budgetShown(widget), equalTo(want)), want);
}

describe('multi-query and grouped-query attention', () => {
  it('groups eight query heads over their key/value heads, and sizes a 7B-class model', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#gqa`);
    const widget = page.locator('attn-kv-heads');
    await slideReady(page);
    const counts = await canvasColours(widget);
    assert.equal(counts.length, 8);
    for (const c of counts) assert.ok(c > 10, `a head's map shows ${c} colours`);
    assert.ok(await fitsSlide(widget), 'the widget fits its slide');
    // g = 2: heads 0–3 read K/V 0, heads 4–7 K/V 1, and heads sharing K and V still differ
    assert.deepEqual(await titles(widget), ['Q0 · KV0', 'Q1 · KV0', 'Q2 · KV0', 'Q3 · KV0', 'Q4 · KV1', 'Q5 · KV1', 'Q6 · KV1', 'Q7 · KV1']);
    await page.waitForFunction(() => document.querySelector('attn-kv-heads').shadowRoot.querySelectorAll('.heads figure table').length === 8);
    const weights = await headWeights(widget);
    assert.notDeepEqual(weights[0], weights[1], 'two heads of one group look in different places');
    for (const w of weights) for (const row of w) assert.ok(Math.abs(row.reduce((s, v) => s + v, 0) - 1) < 2e-3, 'rows sum to 1');
    // the default model: 32 layers, d = 4096, 32 heads, GQA with 8 groups, 4096 tokens at fp16
    await checkBudget(widget, { d: 4096, heads: 32, groups: 8, layers: 32, n: 4096, bytesPerValue: 2 });
    const table = await widget.locator('table.budget').innerText();
    assert.match(table, /2 GiB/);
    assert.match(table, /512 MiB/);
    assert.match(table, /64 MiB/);

    // MQA: one key/value head for all
    await widget.getByRole('button', { name: 'MQA (1 K/V)' }).click();
    await page.waitForFunction(() => location.hash.includes('kv=1'));
    await slideReady(page);
    assert.ok((await titles(widget)).every((t) => t.endsWith('KV0')));
    // a 70B-class model at fp32 and 32k tokens
    await widget.getByRole('button', { name: '70B-class' }).click();
    await widget.getByRole('button', { name: 'fp32' }).click();
    await widget.getByRole('slider', { name: 'context n' }).fill('15');
    await page.waitForFunction(() => location.hash.includes('kv-l=80') && location.hash.includes('kv-b=fp32') && location.hash.includes('kv-n=32768'));
    await slideReady(page);
    await checkBudget(widget, { d: 8192, heads: 64, groups: 8, layers: 80, n: 32768, bytesPerValue: 4 });
    // the preset the model is shows as chosen
    assert.deepEqual(await widget.locator('[data-control="layers d heads groups"] button[aria-pressed="true"]').allTextContents(), ['70B-class']);
    assert.deepEqual(problems, []);
    await close();
  });

  it('says which numbers do not fit together', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#gqa&kv-h=3`);
    const widget = page.locator('attn-kv-heads');
    await slideReady(page);
    await widget.getByRole('alert').filter({ hasText: 'h = 3 must divide d = 4096' }).waitFor();
    await page.goto(`${server.url}#gqa&kv-g=5`);
    await widget.getByRole('alert').filter({ hasText: 'g = 5 must divide h = 32' }).waitFor();
    assert.deepEqual(problems, []);
    await close();
  });
});
