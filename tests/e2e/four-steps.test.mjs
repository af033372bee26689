// <attn-four-steps> on the self-attention slide: the trained coreference model's attention on the
// seminar sentence, one step per → (projections, scores, softmax, weighted sum), each drawn as a
// heatmap with the model's shapes; layer 1, head 3's weights and outputs are Node's, the row of "it"
// on "mat", the other rows' outputs other mixes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openPage, setUp } from './browser.mjs';
import { DIST } from './server.mjs';
import { canvasColours, followHash, headWeights, overflowPastSlide, screenshotPage, shippedModel, slideReady } from './widget-checks.mjs';

const config = JSON.parse(readFileSync(join(DIST, 'models/coreference/config.json'), 'utf8'));
const SENTENCE = 'the cat sat on the mat because it was soft';
const N = SENTENCE.split(' ').length;
const model = await shippedModel('coreference');
const D_K = config.d_model / config.n_heads;

const { server, browser } = await setUp();

/** the panels drawn (not waiting for a later step), with their shapes and distinct colours */
const drawn = (widget) => widget.locator('.step:not(.pending)').evaluateAll((panels) => panels.map((p) => p.dataset.panel));
const shape = (widget, panel) => widget.locator(`.step[data-panel="${panel}"]`).getAttribute('data-shape');
const onStep = (page, step) => page.waitForFunction((s) => document.querySelector('attn-four-steps').shadowRoot
  .querySelector(`.step.current`)?.dataset.step === String(s), step);

describe('self-attention in four steps', () => {
  it('advances one step per →, drawing each intermediate with the model\'s shapes', async () => {
    assert.equal(D_K, 16);
    const { page, problems, requests, close } = await openPage(browser, `${server.url}#self-attention`);
    await slideReady(page);
    const widget = page.locator('attn-four-steps');
    const counter = await page.locator('#slide-counter').textContent();

    await onStep(page, 1);
    assert.deepEqual(await drawn(widget), ['q', 'k', 'v']);
    for (const panel of ['q', 'k', 'v']) assert.equal(await shape(widget, panel), `${N}x${D_K}`);
    const first = await canvasColours(widget.locator('.step:not(.pending)'));
    assert.equal(first.length, 3);
    for (const count of first) assert.ok(count > 20, `step 1 shows only ${count} colours`);
    // no placeholders: the later steps' results are drawn already, faded until their step
    const later = await canvasColours(widget.locator('.step.pending'));
    assert.equal(later.length, 3);
    for (const count of later) assert.ok(count > 4, `a later step shows only ${count} colours`);
    assert.deepEqual(await widget.locator('.step.pending .heatmap').evaluateAll((maps) => maps.map((m) => Number(getComputedStyle(m).opacity) < 0.5)),
      [true, true, true]);
    assert.equal(await widget.getByText('press →').count(), 0, 'no "press →" placeholder');

    const expected = [[2, 'e', `${N}x${N}`], [3, 'alpha', `${N}x${N}`], [4, 'out', `${N}x${D_K}`]];
    for (const [step, panel, size] of expected) {
      await page.keyboard.press('ArrowRight');
      await onStep(page, step);
      await page.waitForFunction((s) => location.hash.includes(`sa-step=${s}`), step);
      assert.equal(await page.locator('#slide-counter').textContent(), counter, `still on the slide at step ${step}`);
      assert.ok((await drawn(widget)).includes(panel));
      assert.equal(await shape(widget, panel), size);
      const counts = await canvasColours(widget.locator(`.step[data-panel="${panel}"]`));
      assert.ok(counts[0] > 20, `step ${step} shows only ${counts[0]} colours`);
    }

    // hovering a score names the query and key it compares, with its value
    await widget.locator('.step[data-panel="e"] canvas').hover();
    await widget.locator('[data-testid="instance"]', { hasText: /^e\(“\w+”, “\w+”\) = q · k \/ √d_k = −?\d+\.\d{3}: row “\w+” of Q against row “\w+” of K\.$/ }).waitFor();

    // the weights' rows sum to 1, read from the screen-reader table
    const table = await widget.locator('.step[data-panel="alpha"] table tr').evaluateAll((trs) =>
      trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    assert.deepEqual(table[0].slice(1), 'the cat sat on the mat because it was soft'.split(' '));
    assert.equal(table.length, N + 1);
    for (const row of table.slice(1)) {
      const sum = row.slice(1).reduce((s, text) => s + Number(text), 0);
      assert.ok(Math.abs(sum - 1) < 0.002, `row "${row[0]}" sums to ${sum}`);
    }
    // layer 1, head 3 by default: Node's weights; the row of "it" on "mat", as the text below says
    const weights = headWeights(model, SENTENCE, 1, 3);
    table.slice(1).forEach((row, i) => row.slice(1).forEach((text, j) =>
      assert.ok(Math.abs(Number(text) - weights[i][j]) <= 0.00005 + 1e-7, `α(${row[0]}, ${j}): page ${text}, Node ${weights[i][j]}`)));
    const it = weights[7];
    assert.equal(it.indexOf(Math.max(...it)), 5);
    await page.mouse.move(0, 0);
    await widget.locator('[data-testid="instance"]', { hasText: `The row of “it” puts ${(100 * it[5]).toFixed(1)} % of its weight on “mat”.` }).waitFor();
    // α·V: each row its own mix of the values, not ten copies of "mat"'s: the rows differ from their
    // mean by a fair share of the values' spread (the ten rows of a head attending all to "mat" would not)
    const name = 'layer1.attn.head3.output';
    const out = model.forward({ tokens: model.tokenize(SENTENCE).ids, trace: [name] }).trace[name];
    const outRows = await widget.locator('.step[data-panel="out"] table tr').evaluateAll((trs) =>
      trs.slice(1).map((tr) => [...tr.children].slice(1).map((c) => Number(c.textContent.replace('−', '-')))));
    outRows.forEach((row, i) => row.forEach((value, j) =>
      assert.ok(Math.abs(value - out.data[i * out.cols + j]) <= 0.00005 + 1e-6, `out(${i}, ${j}): page ${value}, Node ${out.data[i * out.cols + j]}`)));
    const mean = outRows[0].map((_, j) => outRows.reduce((s, r) => s + r[j], 0) / N);
    const spread = (rows) => Math.sqrt(rows.flat().reduce((s, v) => s + v * v, 0) / rows.flat().length);
    const apart = spread(outRows.map((r) => r.map((v, j) => v - mean[j])));
    assert.ok(apart > 0.3 * spread(outRows), `the rows of α·V stand ${apart} from their mean, the values ${spread(outRows)} from 0`);

    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((before) => document.querySelector('#slide-counter').textContent !== before, counter);
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => document.querySelector('section.slide.active').id === 'self-attention');
    await page.keyboard.press('ArrowLeft');
    await onStep(page, 3);
    assert.deepEqual(problems, []);
    assert.deepEqual(requests.filter((u) => !u.startsWith(server.url) && !u.startsWith('data:')), []);
    await close();
  });

  it('switches layer and head from the URL and the drop-downs', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#self-attention&sa-layer=0&sa-head=2&sa-step=4`);
    await slideReady(page);
    const widget = page.locator('attn-four-steps');
    await onStep(page, 4);
    const chosen = (name) => widget.getByRole('combobox', { name }).inputValue();
    assert.equal(await chosen('layer'), '0');
    assert.equal(await chosen('head'), '2');
    const before = await widget.locator('.step[data-panel="alpha"] table').textContent();
    await widget.getByRole('combobox', { name: 'layer' }).selectOption('1');
    await page.waitForFunction(() => location.hash.includes('sa-layer=1') || !location.hash.includes('sa-layer'));
    await page.waitForFunction((old) => document.querySelector('attn-four-steps').shadowRoot
      .querySelector('.step[data-panel="alpha"] table').textContent !== old, before);
    assert.deepEqual(problems, []);
    await close();
  });

  it('fits the slide and looks right at both sizes in both themes', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#self-attention&sa-step=1`);
    const widget = page.locator('attn-four-steps');
    for (const step of [1, 2, 3, 4]) {
      await followHash(page, `#self-attention&sa-step=${step}`);
      const { below, beyond } = await overflowPastSlide(widget);
      assert.ok(below <= 0, `step ${step}: ${below} px below the slide`);
      assert.ok(beyond <= 0, `step ${step}: ${beyond} px beyond its right edge`);
      if (step === 1 || step === 4) assert.equal((await screenshotPage(page, `four-steps-${step}`)).length, 4);
    }
    assert.deepEqual(problems, []);
    await close();
  });
});
