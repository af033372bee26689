// <attn-scaling> on its slide: the engine's measured variance of q·k is d_k and 1 after the
// scale; without the scale a wide key's softmax turns one-hot and its gradient dies.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { canvasColours, fitsSlide, plotSeries } from './widget-checks.mjs';

const { server, browser } = await setUp();

/** the statistics table: { 'unscaled, q·k': [entropy, max weight, ‖J‖], 'scaled, …': […] } */
const statistics = (widget) => widget.locator('table.stats').evaluate((table) => Object.fromEntries(
  [...table.rows].slice(1).map((tr) => [tr.cells[0].textContent, [...tr.cells].slice(1).map((c) => Number(c.textContent.replaceAll('−', '-')))])));

describe('why divide by √d_k', () => {
  it('measures Var(q·k) ≈ d_k and ≈ 1 after scaling', async () => {
    const { page, problems, requests, close } = await openPage(browser, `${server.url}#why-sqrt-dk`);
    const widget = page.locator('attn-scaling');
    await page.locator('attn-scaling[data-ready]').waitFor({ timeout: 60000 });
    const counts = await canvasColours(widget);
    assert.equal(counts.length, 3, 'variance plot, softmax bars, gradient plot');
    for (const count of counts) assert.ok(count > 20, `a canvas shows only ${count} colours`);
    assert.ok(await fitsSlide(widget), 'the widget fits its slide');
    // the panels read (a), (b), (c) in the page's order, and the bars of (b) have a legend naming both rows
    const letters = (await widget.locator('.grid h4').allTextContents()).map((t) => t.match(/^\(([abc])\)/)?.[1]).filter(Boolean);
    assert.deepEqual(letters, ['a', 'b', 'c']);
    assert.deepEqual(await widget.locator('.bar-legend > span').allTextContents(), ['unscaled, q·k', 'scaled, q·k/√dₖ']);

    const [variance, gradient] = await Promise.all([0, 1].map((k) => plotSeries(widget.locator('figure.plot').nth(k))));
    const [[, raw], [, scaled]] = variance['dₖ = 64'];
    assert.ok(Math.abs(raw - 64) < 6.4, `Var(q·k) at d_k = 64 is ${raw}`);
    assert.ok(Math.abs(scaled - 1) < 0.1, `Var(q·k/√d_k) at d_k = 64 is ${scaled}`);
    for (const [dK, v] of variance['Var(q·k)']) assert.ok(Math.abs(v / dK - 1) < 0.25, `Var(q·k) = ${v} at d_k = ${dK}`);
    // the gradient of the unscaled softmax collapses at large d_k (an order of magnitude below the scaled one)
    const at512 = (name) => gradient[name].find(([dK]) => dK === 512)[1];
    assert.ok(at512('unscaled, q·k') < 0.1 * at512('scaled, q·k/√dₖ'), `the unscaled gradient has vanished at d_k = 512: ${at512('unscaled, q·k')} vs ${at512('scaled, q·k/√dₖ')}`);
    assert.deepEqual(problems, []);
    assert.deepEqual(requests.filter((url) => !url.startsWith(server.url)), []);
    await close();
  });

  it('shows the unscaled softmax of a wide key one-hot and the scaled one spread out', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#why-sqrt-dk`);
    const widget = page.locator('attn-scaling');
    await page.locator('attn-scaling[data-ready]').waitFor({ timeout: 60000 });
    await widget.getByRole('slider', { name: 'key width dₖ' }).fill('9');
    await widget.getByText(/^dₖ = 512: Var/).waitFor();
    await page.waitForFunction(() => location.hash.includes('dk=512'));
    const wide = await statistics(widget);
    const [unscaled, scaled] = [wide['unscaled, q·k'], wide['scaled, q·k/√dₖ']];
    assert.ok(unscaled[1] > 0.9, `unscaled max weight ${unscaled[1]}`);
    assert.ok(unscaled[0] < scaled[0], 'the unscaled row has the lower entropy');
    assert.ok(unscaled[2] < scaled[2], 'and the smaller gradient');

    // a higher temperature flattens the same row
    await widget.getByRole('slider', { name: 'temperature' }).fill('2');
    await widget.getByText(/temperature 4$/).waitFor();
    await page.waitForFunction(() => location.hash.includes('temp=4'));
    const hot = await statistics(widget);
    assert.ok(hot['scaled, q·k/√dₖ'][0] > scaled[0], 'temperature 4 raises the entropy');
    assert.deepEqual(problems, []);
    await close();
  });
});
