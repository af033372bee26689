// <attn-sinusoidal-shift> on its slide: T_k·PE(pos), from the rotation alone, lands on the table's
// row pos + k (difference < 1e-5), at the reader's position, shift and width; the rows shown are
// the engine's.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { canvasColours, fitsSlide, screenshotSlide, slideReady } from './widget-checks.mjs';

const { server, browser, engine } = await setUp({ engine: true });

const number = (text) => Number(text.replaceAll('−', '-'));
/** the three rows the widget shows (its screen-reader table, 4 decimals) */
const rowsShown = (widget) => widget.locator('figure.heatmap').nth(1).locator('table').evaluate((table) =>
  [...table.rows].slice(1).map((tr) => [...tr.cells].slice(1).map((c) => Number(c.textContent.replaceAll('−', '-')))));

/** the rows shown equal the engine's; the screen-reader table is rewritten a frame or two after the
 * picture, so its header (the rows' names) is awaited first */
async function checkRows(page, widget, pos, k, d) {
  await page.waitForFunction((name) => [...document.querySelector('attn-sinusoidal-shift').shadowRoot.querySelectorAll('figure.heatmap table')]
    .some((t) => t.rows[3]?.cells[0]?.textContent === name), `PE(${pos + k})`);
  const shown = await rowsShown(widget);
  const table = engine.positionalTable({ kind: 'sinusoidal', n: pos + k + 1, d }).data;
  const moved = engine.sinusoidalShift({ pos, k, d }).data;
  const expected = [table.slice(pos * d, (pos + 1) * d), moved, table.slice((pos + k) * d, (pos + k + 1) * d)];
  for (let r = 0; r < 3; r++) {
    assert.equal(shown[r].length, d);
    for (let j = 0; j < d; j++) assert.ok(Math.abs(shown[r][j] - expected[r][j]) < 1e-4, `row ${r}, dimension ${j}: ${shown[r][j]} vs ${expected[r][j]}`);
  }
  const largest = number(await widget.locator('.verdict strong').textContent());
  assert.ok(largest < 1e-5, `|T_k·PE(pos) − PE(pos + k)| = ${largest}`);
}

describe('a shift is a rotation', () => {
  it('moves a position by k with T_k alone, as the engine computes it', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#shift`);
    const widget = page.locator('attn-sinusoidal-shift');
    await slideReady(page);
    const counts = await canvasColours(widget);
    assert.equal(counts.length, 2);
    for (const count of counts) assert.ok(count > 8, `a heatmap shows only ${count} colours`);
    assert.ok(await fitsSlide(widget), 'the widget fits its slide');
    await checkRows(page, widget, 3, 5, 16);
    await widget.getByRole('slider', { name: 'shift k' }).fill('37');
    await widget.getByRole('slider', { name: 'position pos' }).fill('120');
    await page.waitForFunction(() => location.hash.includes('sh-k=37') && location.hash.includes('sh-pos=120'));
    await slideReady(page);
    await checkRows(page, widget, 120, 37, 16);
    assert.match(await widget.locator('h4').first().textContent(), /^T₃₇ \(16×16\)/);
    assert.deepEqual(problems, []);
    await close();
  });

  it('takes any width and position from a link, clamped', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#shift&sh-pos=999&sh-k=100&sh-d=63`);
    const widget = page.locator('attn-sinusoidal-shift');
    await slideReady(page);
    // 999 → 200, 63 → the nearest even width, 64
    await checkRows(page, widget, 200, 100, 64);
    assert.deepEqual(problems, []);
    await close();
  });

  it('looks right at both sizes in both themes', async () => {
    const { paths, problems } = await screenshotSlide(browser, `${server.url}#shift&sh-pos=40&sh-k=9&sh-d=32`, 'sinusoidal-shift');
    assert.equal(paths.length, 4);
    assert.deepEqual(problems, []);
  });
});
