// <attn-rope> on its slide: the rotated query and key drawn, the score the engine computes, and
// RoPE's promise kept: shifting both positions together leaves the score where it was.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { canvasColours, fitsSlide, slideReady } from './widget-checks.mjs';

const N = 32;
const D = 8;

/** the widget's own engine call, repeated: v at every position, W_Q = I, W_K a signed permutation, W_V = I */
function ropeScores(engine) {
  const v = [1, 0.5, 0.8, -0.3, 0.6, 0.9, -0.7, 0.4];
  const from = [3, 2, 0, 1, 5, 4, 7, 6];
  const sign = [-1, 1, 1, 1, -1, 1, 1, -1];
  const x = new Float32Array(N * D);
  for (let p = 0; p < N; p++) x.set(v, p * D);
  const cAttnWeight = new Float32Array(D * 3 * D);
  for (let i = 0; i < D; i++) {
    cAttnWeight[i * 3 * D + i] = 1;
    cAttnWeight[i * 3 * D + 2 * D + i] = 1;
    cAttnWeight[from[i] * 3 * D + D + i] = sign[i];
  }
  const cProjWeight = new Float32Array(D * D);
  for (let i = 0; i < D; i++) cProjWeight[i * D + i] = 1;
  return engine.attention({ x, n: N, d: D, heads: 1, rope: true, scaled: false, cAttnWeight,
    cAttnBias: new Float32Array(3 * D), cProjWeight, cProjBias: new Float32Array(D), trace: ['scores'] }).heads[0].scores.data;
}

const { server, browser, engine } = await setUp({ engine: true });
const expected = ropeScores(engine);

const number = (text) => Number(text.trim().replaceAll('−', '-'));

/** the printed score line: { m, n, score, offset } from "score q₂ᵀk₅ = −0.4038 (n − m = 3)" */
const scoreLine = (widget) => widget.locator('.score').evaluate((p) => p.textContent).then((text) => {
  const digits = (s) => Number([...s].map((c) => '₀₁₂₃₄₅₆₇₈₉'.indexOf(c)).join(''));
  const match = text.match(/q([₀-₉]+)ᵀk([₀-₉]+)\s=\s(\S+)\s*\(n − m = (\S+)\)/);
  assert.ok(match, `score line "${text}"`);
  return { m: digits(match[1]), n: digits(match[2]), score: number(match[3]), offset: number(match[4]) };
});

/** waits for the widget to have finished drawing */
const settled = (page) => page.waitForFunction(() => {
  const widget = document.querySelector('attn-rope');
  return widget.dataset.ready === 'true' && !widget.hasAttribute('aria-busy');
});

describe('RoPE: only the offset counts', () => {
  it('draws both pictures and prints the engine\'s scores', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#rope`);
    await slideReady(page);
    const widget = page.locator('attn-rope');
    const [picture, map] = await canvasColours(widget);
    assert.ok(picture > 5, `the 2-D picture shows ${picture} colours`);
    assert.ok(map > 20, `the heatmap shows ${map} colours`);
    assert.ok(await fitsSlide(widget), 'the widget fits its slide');
    // the element fills its column; what it draws must stay within 760 px of the slide
    const drawn = await widget.evaluate((w) => {
      const scale = w.getBoundingClientRect().width / w.offsetWidth;
      const left = w.getBoundingClientRect().left;
      // the innermost elements: containers stretch to the column's width whatever they hold
      const parts = [...w.shadowRoot.querySelectorAll('.body *')]
        .filter((e) => e.childElementCount === 0 && e.checkVisibility() && !e.closest('.sr-only'));
      return Math.max(...parts.map((e) => e.getBoundingClientRect().right - left)) / scale;
    });
    assert.ok(drawn <= 760, `the widget's content is ${drawn} px wide`);

    const shown = await scoreLine(widget);
    assert.deepEqual([shown.m, shown.n, shown.offset], [2, 5, 3]);
    const engine = expected[2 * N + 5];
    assert.ok(Math.abs(shown.score - engine) <= 1e-4, `score shown ${shown.score}, engine ${engine}`);

    // the heatmap's screen-reader table holds the same 32 × 32 scores (the table is written when idle)
    const table = widget.locator('figure.heatmap table');
    await table.waitFor({ state: 'attached' });
    const rows = await table.evaluate((t) => [...t.rows].slice(1).map((tr) => [...tr.cells].slice(1).map((c) => c.textContent)));
    assert.equal(rows.length, N);
    for (let m = 0; m < N; m++) {
      assert.equal(rows[m].length, N);
      for (let n = 0; n < N; n++) {
        const value = number(rows[m][n]);
        assert.ok(Math.abs(value - expected[m * N + n]) <= 1e-4, `S[${m}][${n}] shown ${value}, engine ${expected[m * N + n]}`);
      }
    }
    assert.deepEqual(problems, []);
    await close();
  });

  it('keeps the score when both positions move together, and changes it with the offset', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#rope`);
    await slideReady(page);
    const widget = page.locator('attn-rope');
    const before = await scoreLine(widget);
    const forward = widget.getByRole('button', { name: 'shift both by +1' });
    for (let step = 0; step < 3; step++) {
      await forward.click();
      await settled(page);
    }
    await page.waitForFunction(() => location.hash.includes('rope-m=5') && location.hash.includes('rope-n=8'));
    const shifted = await scoreLine(widget);
    assert.deepEqual([shifted.m, shifted.n, shifted.offset], [5, 8, 3]);
    assert.ok(Math.abs(shifted.score - before.score) <= 1e-4, `score ${before.score} became ${shifted.score}`);
    assert.equal(await widget.getByRole('slider', { name: 'query position m' }).inputValue(), '5');

    await widget.getByRole('slider', { name: 'key position n' }).fill('12');
    await page.waitForFunction(() => location.hash.includes('rope-n=12'));
    await settled(page);
    const other = await scoreLine(widget);
    assert.deepEqual([other.m, other.n, other.offset], [5, 12, 7]);
    assert.ok(Math.abs(other.score - before.score) > 1e-3, `offset 7 scores ${other.score}, offset 3 ${before.score}`);
    assert.ok(Math.abs(other.score - expected[5 * N + 12]) <= 1e-4);

    // the shift buttons stop at the ends
    await widget.getByRole('slider', { name: 'query position m' }).fill('0');
    await settled(page);
    assert.equal(await widget.getByRole('button', { name: 'shift both by −1' }).isDisabled(), true);
    assert.equal(await forward.isDisabled(), false);
    assert.deepEqual(problems, []);
    await close();
  });

  it('sets both positions from a click on the heatmap', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#rope`);
    await slideReady(page);
    const widget = page.locator('attn-rope');
    const canvas = widget.locator('figure.heatmap canvas');
    const geometry = await canvas.evaluate((c) => {
      const box = c.getBoundingClientRect();
      const [left, top, width, height] = c.closest('figure').dataset.plot.split(' ').map(Number);
      return { x: box.x, y: box.y, shown: box.width, drawing: parseFloat(c.style.width), left, top, width, height };
    });
    // the cell of query position 20 (row) and key position 9 (column)
    const k = geometry.shown / geometry.drawing;
    const x = geometry.x + k * (geometry.left + geometry.width * (9.5 / N));
    const y = geometry.y + k * (geometry.top + geometry.height * (20.5 / N));
    await page.mouse.click(x, y);
    await page.waitForFunction(() => location.hash.includes('rope-m=20') && location.hash.includes('rope-n=9'));
    await settled(page);
    const shown = await scoreLine(widget);
    assert.deepEqual([shown.m, shown.n, shown.offset], [20, 9, -11]);
    assert.ok(Math.abs(shown.score - expected[20 * N + 9]) <= 1e-4, `score shown ${shown.score}, engine ${expected[20 * N + 9]}`);
    assert.equal(await widget.getByRole('slider', { name: 'key position n' }).inputValue(), '9');
    assert.deepEqual(problems, []);
    await close();
  });

  it('does not overflow a phone', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#rope`, { viewport: { width: 390, height: 844 } });
    await page.locator('attn-rope[data-ready="true"]').waitFor({ timeout: 120000 });
    await page.locator('attn-rope').scrollIntoViewIfNeeded();
    await settled(page);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `the page is ${width} px wide`);
    assert.deepEqual(problems, []);
    await close();
  });
});
