// <attn-flash> on its slide: the online softmax walks ⌈n/B_r⌉·⌈n/B_c⌉ tiles, one per key press, and
// after the last one each row's running max m and sum ℓ equal the row max and Σ e^{s−max} of the
// naive computation by the package's engine in Node; timed in this browser, flash reaches n = 16,384
// under 64 MB of peak heap while naive's peak holds its n×n matrix, flash's time grows like n², and
// the timing pauses off screen and stops on Cancel, and no task on the page's thread takes 50 ms of CPU;
// until its own timing has ended, the stored one (every point of the sweep) is drawn and named.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { openPage, SCREENSHOTS, setUp } from '../browser.mjs';
import { canvasColours, eventually, fitsSlide, nextFrames, plotSeries, screenshotPage, slideReady, tasksBetween, untilIdle } from '../widget-checks.mjs';

/** the widget's small case: one head of width 8 on seeded input */
const SMALL = { d: 8, inputSeed: 11, weightSeed: 12, std: 0.5 };
/** timing up to n = 16,384 takes a minute or two on a loaded machine */
const MEASURED = { timeout: 480000 };

const { server, browser, engine } = await setUp({ engine: true });

/** each row's max of the scaled scores and Σ_j e^{s_ij − max}, by the engine in Node without flash */
function naiveRows(n) {
  const { d, inputSeed, weightSeed, std } = SMALL;
  const x = engine.randomNormal({ rows: n, cols: d, seed: inputSeed });
  const weights = engine.randomNormal({ rows: d, cols: 3 * d, seed: weightSeed, std });
  const projection = engine.randomNormal({ rows: d, cols: d, seed: weightSeed + 1, std });
  const result = engine.attention({ x: x.data, n, d, heads: 1, cAttnWeight: weights.data, cAttnBias: new Float32Array(3 * d),
    cProjWeight: projection.data, cProjBias: new Float32Array(d), trace: ['scaled'] });
  const s = result.heads[0].scaled;
  return Array.from({ length: n }, (_, i) => {
    const row = Array.from(s.data.subarray(i * n, (i + 1) * n));
    const max = Math.max(...row);
    return { max, sum: row.reduce((sum, v) => sum + Math.exp(v - max), 0) };
  });
}

const number = (text) => Number(text.replaceAll('−', '-').replace('∞', 'Infinity'));

/** the rows the widget shows once its table reports `done` of `tiles` tiles: [{ max, sum }] */
async function shownRows(widget, done, tiles) {
  const table = widget.locator('.sr-only table').filter({ hasText: `after ${done} of ${tiles} tiles` });
  await table.waitFor({ state: 'attached', timeout: 60000 });
  return table.evaluate((t) => [...t.rows].slice(1).map((tr) => [...tr.cells].map((c) => c.textContent)))
    .then((rows) => rows.map(([, max, sum]) => ({ max: number(max), sum: number(sum) })));
}

const sweepState = (widget) => widget.evaluate((e) => e.dataset.sweep);
/** the share of the timing done, from its progress bar */
const done = (widget) => widget.locator('.sweep progress').evaluate((bar) => bar.value);
const untilSweep = (page, state, timeout = MEASURED.timeout) => page.waitForFunction((wanted) =>
  document.querySelector('attn-flash')?.dataset.sweep === wanted, state, { timeout });

/** the widget's measurements: [{ kernel, n, ms, peak, alone }] (alone: naive's n×n bytes where it was not run) */
const measurements = (widget) => widget.locator('.sr-only table').filter({ hasText: 'measured in this browser' }).evaluate((table) =>
  [...table.rows].slice(1).map((tr) => {
    const [kernel, n, ms, peak] = [...tr.cells].map((c) => c.textContent);
    const alone = peak.match(/alone: (\d+)/);
    return { kernel, n: Number(n), ms: ms === '' ? undefined : Number(ms), peak: alone ? undefined : Number(peak), alone: alone ? Number(alone[1]) : undefined };
  }));

/** the widget's measurements once they include flash at n = `longest` (the table is written when the page is idle) */
async function measurementsTo(widget, longest) {
  return await eventually(() => measurements(widget), (rows) => rows?.some((r) => r.kernel === 'flash' && r.n === longest))
    ?? measurements(widget);
}

/** the stored timing the slide shows until it has its own */
const STORED = JSON.parse(readFileSync(new URL('../../../web/src/math/stored/flash.json', import.meta.url), 'utf8'));

describe('flash attention', () => {
  it('walks ⌈n/B_r⌉·⌈n/B_c⌉ tiles by key press, ending on naive\'s row max and normaliser', MEASURED, async () => {
    const { page, problems, requests, close } = await openPage(browser, `${server.url}#flash-attention&fl-n=10&fl-br=4&fl-bc=3&fl-max=4096`);
    const widget = page.locator('attn-flash');
    await slideReady(page);
    const tiles = Math.ceil(10 / 4) * Math.ceil(10 / 3);
    const range = widget.getByRole('slider', { name: 'tiles done' });
    assert.equal(await range.getAttribute('max'), String(tiles), 'the stepper runs over every tile');
    await shownRows(widget, 0, tiles);

    // → runs the next tile before the deck leaves the slide
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => location.hash.includes('fl-step=1'));
    let rows = await shownRows(widget, 1, tiles);
    assert.ok(rows.slice(0, 4).every((r) => Number.isFinite(r.max)) && rows.slice(4).every((r) => r.max === -Infinity),
      'the first tile starts the first block of rows only');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => location.hash.includes('fl-step=2'));
    await shownRows(widget, 2, tiles);
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => location.hash.includes('fl-step=1'));

    // the last tile: m and ℓ are the naive row max and softmax normaliser
    await range.fill(String(tiles));
    await page.waitForFunction((t) => location.hash.includes(`fl-step=${t}`), tiles);
    rows = await shownRows(widget, tiles, tiles);
    const want = naiveRows(10);
    rows.forEach((row, i) => {
      assert.ok(Math.abs(row.max - want[i].max) < 1e-5, `row ${i}: m = ${row.max}, naive max ${want[i].max}`);
      assert.ok(Math.abs(row.sum - want[i].sum) < 1e-5 * want[i].sum, `row ${i}: ℓ = ${row.sum}, naive Σ e^(s−max) = ${want[i].sum}`);
    });
    await slideReady(page);
    const gaps = await widget.locator('.check .same, .check .moved').allTextContents();
    assert.equal(gaps.length, 3, 'm, ℓ and the output are compared');
    for (const gap of gaps) assert.ok(number(gap.replace('max |Δ| = ', '')) < 1e-5, gap);
    assert.equal(await widget.locator('.check .moved').count(), 0);
    assert.ok(await widget.getByRole('button', { name: 'next tile ▶' }).isDisabled());
    const colours = await canvasColours(widget);
    assert.ok(colours.length >= 3 && colours.every((c) => c > 4), `canvases show ${colours} colours`);
    assert.ok(await fitsSlide(widget), 'the widget fits its slide');

    // at the last tile → leaves the slide (once the slider no longer has the keys)
    await widget.evaluate((e) => e.shadowRoot.activeElement?.blur());
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => !document.querySelector('#flash-attention').classList.contains('active'));
    assert.deepEqual(problems, []);
    assert.deepEqual(requests.filter((url) => !url.startsWith(server.url)), []);
    await close();
  });

  it('times flash to n = 16,384 under 64 MB, naive holding its n×n matrix, flash\'s time ∝ n²', MEASURED, async () => {
    // every widget of the deck drawn first (in the background, from the last slide), so that the
    // timing shares the page with nothing else
    const { page, problems, requests, close } = await openPage(browser, `${server.url}#summary&fl-max=16384&fl-step=6`);
    const widget = page.locator('attn-flash');
    await slideReady(page, 'section.slide');
    assert.equal(await sweepState(widget), 'paused');
    // nothing timed here yet: the stored earlier timing is drawn, named with its date and machine,
    // every point of the sweep to 16,384 (scripts/store-measurements.ts flash) in its table
    assert.equal(await widget.evaluate((w) => w.dataset.shows), 'stored');
    assert.equal(await widget.locator('.sweep h4').textContent(), 'Timed earlier (d = 64):');
    assert.match(await widget.locator('.summary .stored').textContent(), new RegExp(`^Stored \\(${STORED.measuredOn.date} on .+\\) until the timing here ends`));
    const plan = [256, 512, 1024, 2048, 4096, 8192, 16384].flatMap((n) => (n <= 8192 ? [`flash ${n}`, `naive ${n}`] : [`flash ${n}`]));
    assert.deepEqual(STORED.points.map((p) => `${p.kernel} ${p.n}`), plan);
    await browser.startTracing(undefined, { categories: ['toplevel', 'devtools.timeline'] });
    await page.evaluate(() => {
      console.timeStamp('flash: shown');
      location.hash = '#flash-attention&fl-max=16384&fl-step=6';
    });
    await untilSweep(page, 'running', 60000);
    // on screen, the stored timing's table is written (every point) while the timing here runs
    const storedTable = widget.locator('.sr-only table').filter({ hasText: 'stored, measured' });
    const storedRows = await eventually(() => storedTable.evaluate((table) =>
      [...table.rows].slice(1).map((tr) => [...tr.cells].slice(0, 2).map((c) => c.textContent).join(' ')), undefined, { timeout: 1000 }),
    (rows) => rows?.length > 0, { timeout: 60000 });
    assert.deepEqual(storedRows.filter((r) => !r.startsWith('naive: not run')), plan);
    await untilSweep(page, 'done');
    await page.evaluate(() => console.timeStamp('flash: timed'));
    const tasks = tasksBetween(await browser.stopTracing(), 'flash: shown', 'flash: timed');
    // The page's own work stays in short tasks: none spends 50 ms of CPU. (Wall time is no measure
    // here: on two cores the engine's threads take the CPU from the page's thread while timing.)
    assert.ok(tasks.length > 10, 'the trace covers the timing');
    assert.deepEqual(tasks.filter((t) => t.cpu > 50), [], 'no main-thread task spends over 50 ms of CPU while timing');
    await slideReady(page);

    assert.equal(await widget.evaluate((w) => w.dataset.shows), 'here', 'the timing here replaced the stored one');
    const rows = await measurementsTo(widget, 16384);
    const flash = rows.filter((r) => r.kernel === 'flash');
    const naive = rows.filter((r) => r.kernel === 'naive');
    const longest = flash[flash.length - 1];
    assert.equal(longest.n, 16384, 'flash reaches n = 16,384');
    assert.ok(longest.peak < 64e6, `flash's peak at n = 16,384 is ${longest.peak} B`);
    assert.ok(longest.peak >= 4 * 16384 * 64 * 4, 'flash\'s peak holds its Q, K, V and output');
    const largest = naive[naive.length - 1];
    assert.equal(largest.n, 8192, 'naive runs up to the engine\'s limit');
    assert.ok(largest.peak >= 4 * largest.n ** 2, `naive's peak at n = ${largest.n} is ${largest.peak} B, its n×n floats ${4 * largest.n ** 2}`);
    const skipped = rows.find((r) => r.kernel === 'naive: not run');
    assert.deepEqual([skipped?.n, skipped?.alone], [16384, 4 * 16384 ** 2], 'naive at 16,384 is marked as not run, with its matrix\'s size');
    assert.match(await widget.locator('.summary .not-run').textContent(), /Naive stops at 8,192: at n = 16,384 .* 1 GiB\./);

    // the slopes shown are the fits over n ≥ 1024, and flash's time grows like n²
    const figures = widget.locator('figure.plot');
    const time = await plotSeries(figures.nth(0));
    const memory = await plotSeries(figures.nth(1));
    const memorySlope = (prefix) => number(Object.keys(memory).find((name) => name.startsWith(prefix)).replace(prefix, ''));
    const flashName = Object.keys(time).find((name) => name.startsWith('flash, slope '));
    assert.ok(flashName, `series: ${Object.keys(time)}`);
    const slope = number(flashName.replace('flash, slope ', ''));
    const fitted = time[flashName].filter(([n]) => n >= 1024).map(([n, ms]) => [Math.log(n), Math.log(ms)]);
    const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
    const [mx, my] = [mean(fitted.map((p) => p[0])), mean(fitted.map((p) => p[1]))];
    const fit = fitted.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0) / fitted.reduce((s, [x]) => s + (x - mx) ** 2, 0);
    assert.ok(Math.abs(fit - slope) < 0.02, `shown slope ${slope}, fitted from the table ${fit}`);
    console.log(`flash to n = 16,384: ${flash.map((r) => `${r.n}: ${r.ms} ms, ${r.peak} B`).join('; ')}; naive at ${largest.n}: `
      + `${largest.ms} ms, ${largest.peak} B; time slope ${slope}, memory slopes ${memorySlope('flash, slope ')} and ${memorySlope('naive, slope ')}`);
    assert.ok(slope >= 1.6 && slope <= 2.4, `flash's time slope is ${slope}: ${JSON.stringify(time[flashName])}`);
    const [flashMemory, naiveMemory] = [memorySlope('flash, slope '), memorySlope('naive, slope ')];
    assert.ok(Math.abs(flashMemory - 1) < 0.15, `flash's memory slope is ${flashMemory}`);
    // naive's inputs and output (∝ n) still count at n = 1,024
    assert.ok(naiveMemory > 1.7 && naiveMemory < 2.1, `naive's memory slope is ${naiveMemory}`);

    const colours = await canvasColours(widget);
    assert.ok(colours.length >= 3 && colours.every((c) => c > 4), `canvases show ${colours} colours`);
    assert.ok(await fitsSlide(widget), 'the widget fits its slide');
    assert.deepEqual(problems, []);
    assert.deepEqual(requests.filter((url) => !url.startsWith(server.url)), []);

    // screenshots of the finished timing, mid-animation and at the last tile
    await screenshotPage(page, 'flash');
    await widget.getByRole('slider', { name: 'tiles done' }).fill('9');
    await page.waitForFunction(() => location.hash.includes('fl-step=9'));
    await screenshotPage(page, 'flash-last');
    await widget.getByRole('slider', { name: 'n', exact: true }).fill('24');
    await widget.getByRole('combobox', { name: 'tile rows B_r' }).selectOption('3');
    await page.waitForFunction(() => location.hash.includes('fl-n=24') && location.hash.includes('fl-br=3'));
    await slideReady(page);
    await widget.getByRole('slider', { name: 'tiles done' }).fill('20');
    await page.waitForFunction(() => location.hash.includes('fl-step=20'));
    await screenshotPage(page, 'flash-24');
    assert.ok(await fitsSlide(widget), 'n = 24 fits its slide');
    assert.deepEqual(problems, []);
    await close();
  });

  it('waits for the slide, pauses off screen, and stops on Cancel', MEASURED, async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#summary&fl-max=4096`);
    // drawn in the background, it does not time anything while another slide is shown
    await page.waitForFunction(() => document.querySelector('attn-flash')?.dataset.ready === 'true', null, { timeout: 120000 });
    const widget = page.locator('attn-flash');
    assert.equal(await sweepState(widget), 'paused');
    assert.equal(await widget.locator('.sweep .state').textContent(), 'starts when on screen');
    await page.evaluate(() => { location.hash = '#flash-attention&fl-max=4096'; });
    await untilSweep(page, 'running', 60000);

    // another slide: the current call finishes, then the timing waits
    await page.evaluate(() => { location.hash = '#summary&fl-max=4096'; });
    await untilSweep(page, 'paused', 120000);
    await untilIdle(widget);
    const paused = await done(widget);
    await nextFrames(page);
    assert.equal(await done(widget), paused, 'nothing is timed off screen');
    await page.evaluate(() => { location.hash = '#flash-attention&fl-max=4096'; });
    await untilSweep(page, 'running', 60000);

    // Cancel: stops after the current call and keeps the points; Measure goes on from there
    await widget.getByRole('button', { name: 'Cancel' }).click();
    await untilSweep(page, 'stopped', 120000);
    const kept = await done(widget);
    assert.ok(kept > 0 && kept < 1, `the points measured so far stay: ${kept}`);
    assert.match(await widget.locator('.sweep .state').textContent(), /^stopped: \d+ of \d+ points$/);
    await widget.getByRole('button', { name: 'Measure', exact: true }).click();
    await untilSweep(page, 'done');
    assert.equal(await done(widget), 1);
    assert.equal((await measurementsTo(widget, 4096)).filter((r) => r.kernel === 'flash').length, 5, 'flash at n = 256 … 4,096');
    assert.ok(await widget.getByRole('button', { name: 'Measure again' }).isVisible());
    assert.deepEqual(problems, []);
    await close();
  });
});
