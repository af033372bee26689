// <attn-patches> on its slide: a 32×32 image cut into P×P patches, embedded, and one identity head
// over the patches (plus sinusoidal positions). The query patch's weights shown are the engine's for
// the same image; on the checkerboard a patch attends to its own colour; the patch size sets the
// number of patches; a drawing goes into the link and comes back from it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { canvasColours, fitsSlide, slideReady } from './widget-checks.mjs';

const { server, browser, engine } = await setUp({ engine: true });

const SIDE = 32;

/** the checkerboard of 4-pixel squares, white (1) at the top left, written out here */
const checkerboard = () => Float32Array.from({ length: SIDE * SIDE }, (_, k) =>
  ((Math.floor((k % SIDE) / 4) + Math.floor(k / SIDE / 4)) % 2 === 0 ? 1 : 0));

/** the link's drawing (vp-px): one bit per pixel, six to a base64url character, first pixel highest */
function decodeDrawing(text) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const image = new Float32Array(SIDE * SIDE);
  for (let k = 0; k < image.length; k++) image[k] = (alphabet.indexOf(text[Math.floor(k / 6)]) >> (5 - (k % 6))) & 1;
  return image;
}

/** as the widget computes it: pixels to −1 … 1, P×P patches embedded to d = max(32, P²) by E
 * (seed 1), the sinusoidal table added, one head with W_Q = W_K = W_V = I; the query's row of weights */
function queryWeights(image, patch, query) {
  const d = Math.max(32, patch * patch);
  const { embedded } = engine.patchEmbedding({ image: image.map((v) => 2 * v - 1), height: SIDE, width: SIDE, patch, d, seed: 1 });
  const n = embedded.rows;
  const table = engine.positionalTable({ kind: 'sinusoidal', n, d });
  const x = embedded.data.map((v, i) => v + table.data[i]);
  const I = Array.from({ length: d * d }, (_, i) => (i % (d + 1) === 0 ? 1 : 0));
  const weights = engine.attention({ x, n, d, wQ: I, wK: I, wV: I, dK: d, dV: d, trace: ['weights'] }).heads[0].weights;
  return Array.from(weights.data.subarray(query * n, (query + 1) * n));
}

/** the query's weights from the widget's screen-reader table, once it names `query` and has `n` rows */
async function shownWeights(page, query, n) {
  const handle = await page.waitForFunction(([q, count]) => {
    const table = document.querySelector('attn-patches').shadowRoot.querySelector('figure.image table');
    if (!table?.caption?.textContent.includes(`query patch ${q} `) || table.rows.length !== count + 1) return undefined;
    return [...table.rows].slice(1).map((tr) => Number(tr.cells[3].textContent.replaceAll('−', '-')));
  }, [query, n], { timeout: 60000 });
  return handle.jsonValue();
}

const assertClose = (shown, expected, what) => {
  assert.equal(shown.length, expected.length, `${what}: ${shown.length} weights shown, ${expected.length} computed`);
  for (let j = 0; j < expected.length; j++) {
    assert.ok(Math.abs(shown[j] - expected[j]) < 2e-5, `${what}: weight on patch ${j} shown ${shown[j]}, engine ${expected[j]}`);
  }
};

/** where picture pixel (x, y) is on the screen */
async function onImage(widget, x, y) {
  const box = await widget.locator('figure.image canvas').boundingBox();
  return { x: box.x + (x / SIDE) * box.width, y: box.y + (y / SIDE) * box.height };
}

const imagePicture = (widget) => widget.locator('figure.image canvas').evaluate((c) => c.toDataURL());

describe('an image as a sentence of patches', () => {
  it('shows the picture, its patches and the attention over them, with the engine\'s weights', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#applications&vp=checkerboard`);
    const widget = page.locator('attn-patches');
    await slideReady(page);
    const counts = await canvasColours(widget);
    assert.equal(counts.length, 4, 'the image and three heatmaps');
    for (const count of counts) assert.ok(count > 5, `a picture shows only ${count} colours`);
    assert.ok(await fitsSlide(widget), 'the widget fits its slide');
    assert.match(await widget.locator('h4').allTextContents().then((t) => t.join(' | ')),
      /patches flattened: 64 × 16 \| embedded x_patch: 64 × 32 \| attention weights: 64 × 64/);
    assert.match(await widget.locator('.formula').textContent(), /Flatten/);

    // query 27 (row 3, column 3) is white; its weights are the engine's
    const white = await shownWeights(page, 27, 64);
    assertClose(white, queryWeights(checkerboard(), 4, 27), 'checkerboard, P = 4, query 27');
    assert.ok(Math.abs(white.reduce((s, w) => s + w, 0) - 1) < 1e-3, 'the weights sum to 1');

    // every patch is a square of one colour: a patch attends to its own colour far more than to the other
    for (const query of [27, 28]) {
      if (query === 28) {
        // the black patch to its right
        await widget.locator('figure.image canvas').focus();
        await page.keyboard.press('ArrowRight');
        await page.waitForFunction(() => location.hash.includes('vp-q=28'));
        await slideReady(page);
      }
      const weights = await shownWeights(page, query, 64);
      const colour = (j) => (Math.floor(j / 8) + (j % 8)) % 2;
      const own = weights.filter((_, j) => colour(j) === colour(query));
      const other = weights.filter((_, j) => colour(j) !== colour(query));
      assert.ok(Math.min(...own) > Math.max(...other), `query ${query}: least own colour ${Math.min(...own)}, most other ${Math.max(...other)}`);
    }
    assert.deepEqual(problems, []);
    await close();
  });

  it('cuts into as many patches as the patch size gives, and picks the query by pointer and keys', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#applications&vp-p=2`);
    const widget = page.locator('attn-patches');
    await slideReady(page);
    assert.match(await widget.locator('h4').last().textContent(), /256 × 256/);
    assert.equal((await shownWeights(page, 27, 256)).length, 256);

    // P = 8: 16 patches; the query keeps its place on the image (patch 27 of the 16 × 16 grid, row 1,
    // column 11, has its centre at pixel (23, 3): patch 2 of the 4 × 4 grid)
    await widget.getByRole('button', { name: '8 × 8 patches' }).click();
    await page.waitForFunction(() => location.hash.includes('vp-p=8') && location.hash.includes('vp-q=2'));
    await slideReady(page);
    assert.match(await widget.locator('h4').last().textContent(), /16 × 16/);
    assert.equal((await shownWeights(page, 2, 16)).length, 16);

    // a query out of range is the last patch
    await page.goto(`${server.url}#applications&vp-p=4&vp-q=200`);
    await slideReady(page);
    assert.equal((await shownWeights(page, 63, 64)).length, 64);

    // a click picks the patch under it: pixel (22, 9) is in row 2, column 5 of the 8 × 8 grid
    const point = await onImage(widget, 22, 9);
    await page.mouse.click(point.x, point.y);
    await page.waitForFunction(() => location.hash.includes('vp-q=21'));
    await slideReady(page);
    // with the image focused, the arrows move the query and not the slides
    await widget.locator('figure.image canvas').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(() => location.hash.includes('vp-q=30'));
    await slideReady(page);
    assert.ok(page.url().includes('#applications'), `the slide stayed: ${page.url()}`);
    assertClose(await shownWeights(page, 30, 64), queryWeights(await ringFromTable(widget), 4, 30), 'ring, query 30');
    assert.deepEqual(problems, []);
    await close();
  });

  it('colours each row of weights up to its own largest, so that an untrained head\'s thin rows show', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#applications`);
    const widget = page.locator('attn-patches');
    await slideReady(page);
    const image = await ringFromTable(widget);
    const query = queryWeights(image, 4, 27);
    assert.ok(Math.max(...query) < 0.5, `the default query's row is thin: its largest weight is ${Math.max(...query)}`);
    assert.equal(await widget.locator('h4').filter({ hasText: 'attention weights' }).textContent(),
      'attention weights: 64 × 64, each row up to its own max');
    // in every row sampled, the cell of its largest weight has the legend's top colour
    for (const q of [5, 27, 40]) {
      const row = queryWeights(image, 4, q);
      const top = row.indexOf(Math.max(...row));
      const [cell, legend] = await widget.locator('figure.heatmap').nth(2).evaluate((figure, [i, j]) => {
        const canvas = figure.querySelector('canvas');
        const [left, y0, width, height] = figure.dataset.plot.split(' ').map(Number);
        const k = canvas.width / canvas.offsetWidth;
        const g = canvas.getContext('2d');
        const pixel = (x, y) => Array.from(g.getImageData(Math.floor(x * k), Math.floor(y * k), 1, 1).data.slice(0, 3));
        return [pixel(left + ((j + 0.5) * width) / 64, y0 + ((i + 0.5) * height) / 64), pixel(left + width + 20, y0 + 1)];
      }, [q, top]);
      assert.ok(cell.every((v, c) => Math.abs(v - legend[c]) <= 12), `row ${q}: its largest cell ${cell}, the legend's top ${legend}`);
    }
    assert.deepEqual(problems, []);
    await close();
  });

  it('draws with the pointer into the link, and the link brings the drawing back', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#applications`);
    const widget = page.locator('attn-patches');
    await slideReady(page);
    const before = await imagePicture(widget);
    // a stroke down the black left edge of the ring's picture paints white
    const from = await onImage(widget, 2.5, 3.5);
    const to = await onImage(widget, 2.5, 27.5);
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(to.x, to.y, { steps: 12 });
    await page.mouse.up();
    await page.waitForFunction(() => location.hash.includes('vp=drawn') && location.hash.includes('vp-px='));
    await slideReady(page);
    const link = page.url();
    const drawing = decodeDrawing(new URLSearchParams(new URL(link).hash.slice(1).replace(/^[^&]*/, '')).get('vp-px'));
    for (let y = 4; y < 27; y++) assert.equal(drawing[y * SIDE + 2], 1, `pixel (2, ${y}) is drawn`);
    assert.equal(drawing[16 * SIDE + 16], 0, 'the middle of the ring stays black');
    const after = await imagePicture(widget);
    assert.notEqual(after, before, 'the image changed');
    const weights = await shownWeights(page, 27, 64);
    assertClose(weights, queryWeights(drawing, 4, 27), 'the drawing, query 27');

    // the same link, opened again, shows the same drawing and weights
    await page.goto('about:blank');
    await page.goto(link);
    await slideReady(page);
    assert.equal(await imagePicture(widget), after, 'the drawing came back from the link');
    assertClose(await shownWeights(page, 27, 64), weights, 'the drawing after reloading');

    // invert, then clear: every pixel black
    await widget.getByRole('button', { name: 'clear' }).click();
    await page.waitForFunction(() => /vp-px=A{171}/.test(location.hash));
    await slideReady(page);
    assert.deepEqual(problems, []);
    await close();
  });
});

/** the picture the widget reads, put back together from its flattened patches (P = 4, values −1 … 1) */
async function ringFromTable(widget) {
  const rows = await widget.locator('figure.heatmap').first().locator('table').evaluate((table) =>
    [...table.rows].slice(1).map((tr) => [...tr.cells].slice(1).map((c) => Number(c.textContent.replaceAll('−', '-')))));
  const image = new Float32Array(SIDE * SIDE);
  rows.forEach((patch, j) => patch.forEach((v, k) => {
    const y = Math.floor(j / 8) * 4 + Math.floor(k / 4);
    const x = (j % 8) * 4 + (k % 4);
    image[y * SIDE + x] = (v + 1) / 2;
  }));
  return image;
}
