// A widget's downloads: the PNG of its pictures decodes at twice the widget's size and is not blank,
// the CSV parses to the engine's numbers (as the package computes them in Node), the SVG of a
// diagram is a standalone SVG; the file names say which widget and settings.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { parseCsv, save, shippedModel, slideReady } from './widget-checks.mjs';

const SENTENCE = 'the cat sat on the mat because it was soft';

const { server, browser } = await setUp();
const model = await shippedModel('coreference');

describe('a widget\'s downloads', () => {
  it('saves the components\' pictures as a PNG at 2× and their numbers as the engine\'s CSV', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#components&cl=1`);
    await slideReady(page);
    const widget = page.locator('attn-components');

    const png = await save(page, widget, 'Download PNG');
    assert.equal(png.name, 'attnlab-components_cl-1.png');
    assert.equal(png.bytes.subarray(1, 4).toString(), 'PNG');
    const size = await widget.evaluate((e) => ({ width: e.offsetWidth, height: e.offsetHeight }));
    assert.deepEqual({ width: png.bytes.readUInt32BE(16), height: png.bytes.readUInt32BE(20) },
      { width: 2 * size.width, height: 2 * size.height });
    const colours = await page.evaluate(async (base64) => {
      const bitmap = await createImageBitmap(new Blob([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))]));
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      const g = canvas.getContext('2d');
      g.drawImage(bitmap, 0, 0);
      const { data } = g.getImageData(0, 0, bitmap.width, bitmap.height);
      const seen = new Set();
      for (let i = 0; i < data.length; i += 4 * 7) seen.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
      return seen.size;
    }, png.bytes.toString('base64'));
    assert.ok(colours > 100, `the PNG shows ${colours} colours`);

    const csv = await save(page, widget, 'Download CSV');
    assert.equal(csv.name, 'attnlab-components_cl-1.csv');
    const tables = parseCsv(csv.bytes.toString('utf8'));
    assert.equal(tables.length, 8);
    const { trace } = model.forward({ tokens: model.tokenize(SENTENCE).ids, trace: ['layer1.ln_1'] });
    // the fourth picture is LayerNorm(x): ten tokens by 64 dimensions
    const norm = tables[3];
    assert.equal(norm.head.length, 1 + 64);
    assert.deepEqual(norm.rows.map((r) => r[0]), SENTENCE.split(' '));
    const expected = trace['layer1.ln_1'];
    norm.rows.forEach((r, i) => r.slice(1).forEach((text, j) => {
      assert.ok(Math.abs(Number(text) - expected.data[i * 64 + j]) <= 1e-6, `LN(x)[${i}][${j}] = ${text}`);
    }));
    assert.deepEqual(problems, []);
    await close();
  });

  it('saves the architecture as a standalone SVG', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#architecture&family=decoder`);
    await slideReady(page);
    const widget = page.locator('attn-architecture');
    const svg = await save(page, widget, 'Download SVG');
    assert.equal(svg.name, 'attnlab-architecture_family-decoder.svg');
    const text = svg.bytes.toString('utf8');
    assert.match(text, /^<svg[^>]* xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.match(text, /Token embedding/);
    assert.doesNotMatch(text, /var\(--/, 'colours are written in, not left to the page\'s variables');
    // it opens on its own
    const opened = await browser.newPage();
    await opened.setContent(`<img src="data:image/svg+xml;base64,${svg.bytes.toString('base64')}">`);
    assert.ok(await opened.locator('img').evaluate((img) => img.decode().then(() => img.naturalWidth > 100)));
    await opened.close();
    assert.equal(await widget.getByRole('button', { name: 'Download CSV' }).isHidden(), true, 'a diagram has no table of numbers');
    assert.deepEqual(problems, []);
    await close();
  });
});
