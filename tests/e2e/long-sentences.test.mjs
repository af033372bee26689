// The heatmap and the head view with many tokens: every text they draw (tick labels, axis names,
// the legend's numbers) is recorded as it is drawn, and no two overlap, none is cut off by its
// canvas's edge, and each is written in 12 px or more; the hovered row's and column's labels are
// always written (in bold) and named in the readout, however thin their cells, as is the key a
// highlighted row of weights looks at most. The shipped
// coreference model reads 16 tokens, so the long sentences (64 and 128 tokens) are drawn by the
// widgets' own Heatmap and HeadView with made-up weights.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';

const { server, browser } = await setUp();

/** An `init` script: each canvas keeps the texts of its latest painting (painting starts with
 * clearRect), each as its text, font and its ink's four corners in the canvas's CSS pixels. */
function recordTexts() {
  const { fillText, clearRect } = CanvasRenderingContext2D.prototype;
  CanvasRenderingContext2D.prototype.clearRect = function clear(...args) {
    this.canvas.texts = [];
    return clearRect.apply(this, args);
  };
  CanvasRenderingContext2D.prototype.fillText = function record(text, x, y, ...rest) {
    const ink = this.measureText(text);
    const ratio = this.canvas.width / parseFloat(this.canvas.style.width || `${this.canvas.width}`);
    const t = this.getTransform();
    const [left, right] = [x - ink.actualBoundingBoxLeft, x + ink.actualBoundingBoxRight];
    const [top, bottom] = [y - ink.actualBoundingBoxAscent, y + ink.actualBoundingBoxDescent];
    const corners = [[left, top], [right, top], [right, bottom], [left, bottom]].map(([px, py]) => {
      const p = t.transformPoint(new DOMPoint(px, py));
      return [p.x / ratio, p.y / ratio];
    });
    (this.canvas.texts ??= []).push({ text, font: this.font, corners });
    return fillText.call(this, text, x, y, ...rest);
  };
}

/** whether two convex quadrilaterals overlap by more than `slack` px (separating axis theorem) */
function overlap(a, b, slack = 0.5) {
  for (const poly of [a, b]) {
    for (let i = 0; i < 4; i++) {
      const [x1, y1] = poly[i];
      const [x2, y2] = poly[(i + 1) % 4];
      const length = Math.hypot(x2 - x1, y2 - y1) || 1;
      const axis = [(y1 - y2) / length, (x2 - x1) / length];
      const project = (p) => p.map(([x, y]) => x * axis[0] + y * axis[1]);
      const [pa, pb] = [project(a), project(b)];
      if (Math.min(...pa) >= Math.max(...pb) - slack || Math.min(...pb) >= Math.max(...pa) - slack) return false;
    }
  }
  return true;
}

/** the texts the canvas drew last, once painted */
async function textsOf(canvas) {
  await canvas.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await canvas.evaluate((c) => new Promise((resolve, reject) => {
    const end = performance.now() + 20000;
    const check = () => {
      if (c.texts?.length) resolve();
      else if (performance.now() > end) reject(new Error('the canvas drew no text'));
      else requestAnimationFrame(check);
    };
    check();
  }));
  const { texts, width, height } = await canvas.evaluate((c) => ({ texts: c.texts, width: parseFloat(c.style.width), height: c.height * parseFloat(c.style.width) / c.width }));
  return { texts, width, height };
}

/** fails when two of the texts overlap, one leaves the canvas or is written under 12 px */
function assertReadable({ texts, width, height }, what) {
  const where = (t) => `“${t.text}” at ${t.corners.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ')}`;
  for (const t of texts) {
    assert.ok(Number(t.font.match(/(\d+(\.\d+)?)px/)?.[1]) >= 12, `${what}: ${where(t)} is written in ${t.font}`);
    for (const [x, y] of t.corners) {
      assert.ok(x >= -0.5 && y >= -0.5 && x <= width + 0.5 && y <= height + 0.5, `${what}: ${where(t)} leaves the ${width}×${height} canvas`);
    }
  }
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) {
      assert.ok(!overlap(texts[i].corners, texts[j].corners), `${what}: ${where(texts[i])} overlaps ${where(texts[j])}`);
    }
  }
}

const WORDS = ('the animal didn’t cross the street because it was too tired and an extraordinarily long word ␣the ⏎ '
  + 'café 你好 …²/₃ <0xE2><0x80> 😀 with more words after them').split(' ');
const labelsOf = (n) => Array.from({ length: n }, (_, i) => WORDS[i % WORDS.length]);

/** causal attention weights with a few strong entries: row i over keys 0 … i */
function weightsOf(n) {
  const data = new Float32Array(n * n);
  for (let i = 0; i < n; i++) {
    let sum = 0;
    for (let j = 0; j <= i; j++) sum += data[i * n + j] = 1 + ((i * 7 + j * 13) % 17 === 0 ? 40 : (i + j) % 5);
    for (let j = 0; j <= i; j++) data[i * n + j] /= sum;
  }
  return { rows: n, cols: n, data };
}

/** where to point at cell (row, col) of a heatmap's canvas, in the page */
const cellPoint = (canvas, row, col, n) => canvas.evaluate((c, [r, k, count]) => {
  const box = c.getBoundingClientRect();
  const [left, top, width, height] = c.closest('figure').dataset.plot.split(' ').map(Number);
  const scale = box.width / parseFloat(c.style.width);
  return { x: box.x + scale * (left + (width * (k + 0.5)) / count), y: box.y + scale * (top + (height * (r + 0.5)) / count) };
}, [row, col, n]);

describe('long sentences in the heatmap and the head view', () => {
  it('keeps the explorer’s heatmap and head view readable on its longest sentence', async () => {
    const sentence = Array.from({ length: 6 }, () => 'the cat sat on the mat because it was tired').join(' ');
    const { page, problems, close } = await openPage(browser, `${server.url}embed.html#explorer&it=${encodeURIComponent(sentence)}`, { init: recordTexts });
    const widget = page.locator('attn-explorer[data-ready]');
    await widget.waitFor({ timeout: 60000 });
    const heatmap = widget.locator('.picture figure.heatmap canvas');
    assertReadable(await textsOf(heatmap), 'explorer heatmap');
    await widget.getByRole('button', { name: 'Head view' }).click();
    await page.waitForFunction(() => location.hash.includes('xview=head'));
    assertReadable(await textsOf(widget.locator('canvas[aria-label^="head view"]')), 'explorer head view');
    assert.deepEqual(problems, []);
    await close();
  });

  for (const n of [64, 128]) {
    it(`writes ${n} tokens’ labels apart, and the hovered row’s and column’s always`, async () => {
      const { page, problems, close } = await openPage(browser, `${server.url}embed.html#attention-map`, { init: recordTexts });
      const widget = page.locator('attn-attention-map[data-ready]');
      await widget.waitFor({ timeout: 60000 });
      const canvas = widget.locator('figure.heatmap canvas');
      // the widget's own Heatmap, given a long sentence
      await widget.evaluate((element, [labels, weights]) => {
        const map = element.map;
        map.configure({ rowLabels: labels, colLabels: labels, width: 310, height: 310 });
        map.draw({ ...weights, data: Float32Array.from(Object.values(weights.data)) });
        map.setHighlight({ row: 5 });
      }, [labelsOf(n), weightsOf(n)]);
      const drawn = await textsOf(canvas);
      assertReadable(drawn, `${n}-token heatmap`);
      assert.ok(drawn.texts.length >= 20, `${drawn.texts.length} labels written`);
      assert.ok(drawn.texts.some((t) => t.text === WORDS[5] && /\b[67]00\b|bold/.test(t.font)), 'the highlighted row’s label, in bold');
      // and where that row looks most, whatever the thinning
      const row5 = Array.from(weightsOf(n).data.slice(5 * n, 6 * n));
      const looked = labelsOf(n)[row5.indexOf(Math.max(...row5))];
      assert.ok(drawn.texts.some((t) => t.text === looked && /\b[67]00\b|bold/.test(t.font)), `the label of the key row 5 looks at most, “${looked}”, in bold`);

      for (const [row, col] of [[n - 1, 1], [n - 3, n - 3], [6, 2]]) {
        const point = await cellPoint(canvas, row, col, n);
        await page.mouse.move(point.x, point.y);
        const readout = await widget.locator('figure.heatmap .readout').textContent();
        assert.match(readout, new RegExp(`^“${labelsOf(n)[row]}” → “${labelsOf(n)[col]}”: `), `hovering cell ${row}, ${col}`);
        const hovered = await textsOf(canvas);
        assertReadable(hovered, `${n}-token heatmap, cell ${row}, ${col} hovered`);
        const bold = hovered.texts.filter((t) => /\b[67]00\b|bold/.test(t.font)).map((t) => t.text);
        for (const label of [labelsOf(n)[row], labelsOf(n)[col]]) {
          assert.ok(bold.some((t) => t === label || (t.endsWith('…') && label.startsWith(t.slice(0, -1)))), `“${label}” is written in bold: ${bold}`);
        }
      }
      assert.deepEqual(problems, []);
      await close();
    });

    it(`keeps the head view’s ${n} rows of words apart, naming the query and its strongest keys`, async () => {
      const { page, problems, close } = await openPage(browser, `${server.url}embed.html#explorer&xview=head`, { init: recordTexts });
      const widget = page.locator('attn-explorer[data-ready]');
      await widget.waitFor({ timeout: 60000 });
      const canvas = widget.locator('canvas[aria-label^="head view"]');
      const query = n - 7;
      await widget.evaluate((element, [labels, weights, q]) => {
        element.headView.draw({ ...weights, data: Float32Array.from(Object.values(weights.data)) }, labels, q);
      }, [labelsOf(n), weightsOf(n), query]);
      const drawn = await textsOf(canvas);
      assertReadable(drawn, `${n}-token head view`);
      const bold = drawn.texts.filter((t) => /\b[67]00\b|bold/.test(t.font));
      assert.ok(bold.some((t) => t.text === labelsOf(n)[query]), `the query “${labelsOf(n)[query]}” is written in bold`);
      assert.ok(drawn.texts.length >= 20, `${drawn.texts.length} words written`);
      const { height } = await canvas.boundingBox();
      assert.ok(height < 520, `the head view is ${height} px high`);
      assert.deepEqual(problems, []);
      await close();
    });
  }
});
