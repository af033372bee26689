// <attn-scaling-laws> on its slide: the three laws of Kaplan et al. (2020) drawn with their published
// exponents and constants, and the toy-scale experiment: five sizes trained on "sort" in the page's
// worker, their held-out losses falling strictly with size, equal to the package's engine in Node,
// with a negative fitted exponent; until then a stored earlier measurement (the same losses, made by
// scripts/store-measurements.ts) is shown and named; the page's own work stays in short tasks
// meanwhile, training waits until the widget is on screen, and Cancel and Measure again work.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { openPage, SCREENSHOTS, setUp } from '../browser.mjs';
import { canvasColours, eventually, fitsSlide, longTasksBetween, nextFrames, plotSeries, recordLongTasks, screenshotPage, slideReady, tasksBetween, untilIdle } from '../widget-checks.mjs';

/** a full run of five sizes, twice over on a loaded two-core machine; and after the whole deck drew */
const TRAINED = { timeout: 300000 };
const WARMED_AND_TRAINED = { timeout: 600000 };

/** Kaplan et al. (2020), arXiv:2001.08361, eqs. 1.1–1.3: L(X) = (X_c / X)^α */
const PAPER = { N: { alpha: 0.076, scale: 8.8e13 }, D: { alpha: 0.095, scale: 5.4e13 }, C: { alpha: 0.05, scale: 3.1e8 } };

/** the widget's experiment, as the engine is asked for it */
const RUN = { task: 'sort', steps: 200, batchSize: 32, learningRate: 3e-3, warmupSteps: 20 };
const SIZES = [[8, 1], [16, 2], [32, 4], [48, 4], [64, 4]].map(([dModel, heads]) => ({ dModel, heads, layers: 2, dFF: 4 * dModel }));

/** the stored measurement the slide shows until it has its own (scripts/store-measurements.ts scaling-laws) */
const STORED = JSON.parse(readFileSync(new URL('../../../web/src/math/stored/scaling-laws.json', import.meta.url), 'utf8'));

const { server, browser, engine } = await setUp({ engine: true });

const number = (text) => Number(text.replaceAll('−', '-').replaceAll(',', ''));

/** the experiment's state (waiting, training, cancelled, done), steps done and planned, and what it says */
const progress = (widget) => widget.locator('.run').evaluate((run) => {
  const bar = run.querySelector('progress');
  return { state: run.dataset.state, done: bar.value, total: bar.max, text: run.querySelector('.status').textContent };
});

const untilState = (page, state, timeout = TRAINED.timeout) => page.waitForFunction((wanted) =>
  document.querySelector('attn-scaling-laws')?.shadowRoot?.querySelector('.run')?.dataset.state === wanted, state, { timeout });

/** the table of sizes: { dModel, heads, parameters, loss, msPerStep } (NaN where not measured yet) */
const sizeRows = (widget) => widget.locator('table.sizes tbody tr').evaluateAll((rows) => rows.map((tr) => {
  const [dModel, heads, parameters, loss, msPerStep] = [...tr.cells].map((c) => c.textContent);
  const read = (text) => (text === '—' ? NaN : Number(text.replaceAll(',', '')));
  return { dModel: read(dModel), heads: read(heads), parameters: read(parameters), loss: read(loss), msPerStep: read(msPerStep) };
}));

/** least squares on the logarithms: the exponent k of y = c·x^k */
function fittedExponent(points) {
  const logs = points.map(([x, y]) => [Math.log(x), Math.log(y)]);
  const mx = logs.reduce((s, [u]) => s + u, 0) / logs.length;
  const my = logs.reduce((s, [, v]) => s + v, 0) / logs.length;
  const sxy = logs.reduce((s, [u, v]) => s + (u - mx) * (v - my), 0);
  const sxx = logs.reduce((s, [u]) => s + (u - mx) ** 2, 0);
  return sxy / sxx;
}

/** the held-out loss of one size trained by the package's engine in Node, as the widget trains it */
function trainedInNode(size, seed) {
  const trainer = engine.createTrainer({ ...RUN, seed, size });
  for (let s = 0; s < RUN.steps; s++) trainer.step();
  const loss = trainer.heldOutLoss({ count: 200 });
  trainer.dispose();
  return loss;
}

describe('scaling laws', () => {
  it('draws the three published laws with their exponents, one at a time from its tabs', TRAINED, async () => {
    const { page, problems, requests, close } = await openPage(browser, `${server.url}#scaling-laws`);
    const widget = page.locator('attn-scaling-laws');
    await untilState(page, 'training', 120000);
    const lawPlot = widget.locator('figure.plot').first();
    for (const [law, tab] of [['N', 'parameters N'], ['D', 'data D'], ['C', 'compute C']]) {
      // while the experiment trains: the tabs answer at once
      await widget.getByRole('button', { name: tab }).click();
      if (law !== 'N') await page.waitForFunction((key) => location.hash.includes(`sl-law=${key}`), law);
      await widget.getByRole('button', { name: tab, pressed: true }).waitFor();
      const { alpha, scale } = PAPER[law];
      const written = alpha.toFixed(3);
      await widget.locator('figure.plot figcaption').first().filter({ hasText: `slope −${written}` }).waitFor();
      const legend = await lawPlot.locator('figcaption').textContent();
      assert.ok(legend.includes(`L(${law}) = (${law}_c / ${law})^${written}`), legend);
      const series = await eventually(() => plotSeries(lawPlot), (s) => Object.keys(s ?? {})[0]?.includes(`slope −${written}`)) ?? {};
      const [points] = Object.values(series);
      assert.ok(points.length >= 4, `${law}: ${points.length} points`);
      for (const [x, loss] of points) {
        const want = (scale / x) ** alpha;
        assert.ok(Math.abs(loss - want) < 1e-3 * want, `L(${law} = ${x}) = ${loss}, the paper's ${want}`);
      }
      const slope = Math.log(points.at(-1)[1] / points[0][1]) / Math.log(points.at(-1)[0] / points[0][0]);
      assert.ok(Math.abs(slope + alpha) < 2e-3, `${law}: slope ${slope}`);
      assert.match(await widget.locator('.constants').textContent(), new RegExp(`^α_${law} = ${written}, ${law}_c = `));
    }
    assert.match(await widget.locator('.source').textContent(), /Kaplan et al\. \(2020\).*arXiv:2001\.08361/);
    // a value out of range falls back to the first law, without an error
    await widget.evaluate((w) => w.setAttribute('law', 'Q'));
    await widget.locator('figure.plot figcaption').first().filter({ hasText: 'slope −0.076' }).waitFor();
    await widget.getByRole('button', { name: 'parameters N', pressed: true }).waitFor();
    assert.equal(await widget.locator('.error').count(), 0);
    assert.deepEqual(problems, []);
    assert.deepEqual(requests.filter((url) => !url.startsWith(server.url)), []);
    await close();
  });

  it('waits in the background, then trains five sizes on screen: the loss falls strictly with size, as in Node, in short tasks', WARMED_AND_TRAINED, async () => {
    const { page, problems, requests, close } = await openPage(browser, `${server.url}#summary`, { init: recordLongTasks });
    const widget = page.locator('attn-scaling-laws');
    // every widget of the deck drawn in the background while the page is idle (or failed, which is
    // another test's business): this one without training
    await page.waitForFunction(() => [...document.querySelectorAll('*')].filter((e) => e.localName.startsWith('attn-'))
      .every((e) => e.dataset.ready === 'true' || e.shadowRoot?.querySelector('.error')), null, { timeout: TRAINED.timeout });
    let shown = await progress(widget);
    assert.equal(shown.state, 'waiting');
    assert.equal(shown.done, 0);
    assert.equal(shown.text, 'Trains 5 sizes here once it is on screen.');
    assert.ok(!(await widget.evaluate((w) => w.hasAttribute('aria-busy'))), 'not busy in the background');
    // nothing measured here yet: the stored measurement, named as such, with its date and machine
    assert.equal(await widget.evaluate((w) => w.dataset.shows), 'stored');
    assert.deepEqual((await sizeRows(widget)).map((r) => r.loss), STORED.sizes.map((m) => Number(m.loss.toFixed(3))));
    assert.match(await widget.locator('h3').nth(1).textContent(), /^Measured earlier \(toy scale, stored\)$/);
    assert.match(await widget.locator('.setup').textContent(), new RegExp(`Seed 1. Shown: measured ${STORED.measuredOn.date} on .+, Node`));

    // on screen: it trains, and the page's work while it does is this widget's
    await browser.startTracing(undefined, { categories: ['toplevel', 'devtools.timeline'] });
    await page.evaluate(() => { location.hash = '#scaling-laws'; });
    await untilState(page, 'training', 60000);
    const since = await page.evaluate(() => {
      console.timeStamp('scaling laws: training');
      return performance.now();
    });
    // meanwhile the package's engine trains the two smallest sizes in Node
    const nodeLosses = SIZES.slice(0, 2).map((size) => trainedInNode(size, 1));
    await untilState(page, 'done');
    await page.evaluate(() => console.timeStamp('scaling laws: trained'));
    const tasks = tasksBetween(await browser.stopTracing(), 'scaling laws: training', 'scaling laws: trained');
    await slideReady(page);
    // The page's own work stays in short tasks: none spends 50 ms of CPU on anything but collecting
    // garbage (whose pauses follow the whole page's heap, the deck's other widgets included).
    // Wall-clock long tasks are reported, not asserted: on two cores the engine's threads and any
    // other program take the CPU from the page's thread, and a 5 ms task then lasts 100 ms.
    const longTasks = await longTasksBetween(page, since);
    const busiest = (values) => Math.max(0, ...values).toFixed(1);
    console.log(`while training: ${tasks.length} main-thread tasks, the busiest ${busiest(tasks.map((t) => t.cpu - t.gc))} ms of CPU `
      + `besides garbage collection (the longest collection: ${busiest(tasks.map((t) => t.gc))} ms); `
      + `${longTasks.length} over 50 ms of wall time, the longest ${Math.max(0, ...longTasks.map((t) => t.duration))} ms`);
    assert.ok(tasks.length > 100, 'the trace covers the training');
    assert.deepEqual(tasks.filter((t) => t.cpu - t.gc > 50), [], 'no main-thread task spends over 50 ms of CPU while training');

    const rows = await sizeRows(widget);
    console.log(`trained: ${rows.map((r) => `d_model ${r.dModel}: ${r.parameters} parameters, loss ${r.loss}, ${r.msPerStep} ms/step`).join('; ')}`);
    assert.deepEqual(rows.map((r) => r.dModel), SIZES.map((s) => s.dModel));
    // the parameter counts are the engine's
    const counts = SIZES.map((size) => {
      const trainer = engine.createTrainer({ ...RUN, seed: 1, size });
      const parameters = trainer.parameters;
      trainer.dispose();
      return parameters;
    });
    assert.deepEqual(rows.map((r) => r.parameters), counts);
    const losses = rows.map((r) => r.loss);
    assert.ok(losses.every((loss) => loss > 0 && Number.isFinite(loss)), `losses ${losses}`);
    assert.ok(losses.every((loss, i) => i === 0 || loss < losses[i - 1]), `the loss falls strictly with size: ${losses}`);
    assert.ok(rows.every((r) => r.msPerStep > 0), 'every size is timed');
    // the same training in Node gives the same losses (to the three decimals shown), and so did the
    // command that stored the earlier measurement, which the run here has replaced
    nodeLosses.forEach((loss, i) => assert.ok(Math.abs(losses[i] - loss) < 2e-3, `d_model ${SIZES[i].dModel}: page ${losses[i]}, Node ${loss}`));
    nodeLosses.forEach((loss, i) => assert.ok(Math.abs(STORED.sizes[i].loss - loss) < 1e-6, `stored d_model ${SIZES[i].dModel}: ${STORED.sizes[i].loss}, Node ${loss}`));
    assert.deepEqual(STORED.sizes.map((m) => m.parameters), counts);
    assert.equal(await widget.evaluate((w) => w.dataset.shows), 'here');
    assert.match(await widget.locator('h3').nth(1).textContent(), /^Measured here/);

    // the plot holds the measured points (exact) and the fitted line; the exponent shown is their fit's
    const measured = await plotSeries(widget.locator('figure.plot').nth(1));
    const points = measured.measured;
    // (the plot's table shows four significant digits)
    points.forEach(([p, loss], i) => {
      assert.ok(Math.abs(p - counts[i]) <= 5e-4 * counts[i], `plotted ${p} parameters, the engine's ${counts[i]}`);
      assert.ok(Math.abs(loss - losses[i]) < 6e-4, `plotted ${loss}, table ${losses[i]}`);
    });
    const exponent = Number(await widget.locator('.fit').getAttribute('data-exponent'));
    assert.ok(exponent < 0, `fitted exponent ${exponent}`);
    assert.ok(Math.abs(exponent - fittedExponent(points)) < 1e-3, `exponent ${exponent}, the points' ${fittedExponent(points)}`);
    assert.equal(number(await widget.locator('.fit strong').textContent()), Number(exponent.toFixed(2)));
    const fitName = Object.keys(measured).find((name) => name.startsWith('fit'));
    assert.equal(fitName, `fit: P^${exponent.toFixed(2).replace('-', '−')}`);
    shown = await progress(widget);
    assert.equal(shown.done, shown.total);
    assert.match(shown.text, /^5 sizes trained in \d+\.\d s, one worker call per step; the loss falls with every size\.$/);
    assert.match(await widget.locator('.setup').textContent(), /Task “sort”, 200 steps × batch 32, 2 layers.*Seed 1\./);
    assert.match(await widget.locator('h3').nth(1).textContent(), /toy scale/);

    const colours = await canvasColours(widget);
    assert.equal(colours.length, 2, 'the law and the measurement');
    for (const c of colours) assert.ok(c > 8, `a plot shows ${c} colours`);
    assert.ok(await fitsSlide(widget), 'the widget fits its slide');
    // and its content fits the widget (a table wider than its column would spill past the slide)
    const spilled = await widget.evaluate((host) => {
      const box = host.getBoundingClientRect();
      return [...host.shadowRoot.querySelectorAll('*')].filter((e) => !e.closest('.sr-only, .share') && e.checkVisibility())
        .filter((e) => e.getBoundingClientRect().right > box.right + 1 || e.getBoundingClientRect().bottom > box.bottom + 1)
        .map((e) => e.localName + (e.className ? `.${e.className}` : ''));
    });
    assert.deepEqual(spilled, []);
    // how the trained experiment looks, at both sizes in both themes
    assert.equal((await screenshotPage(page, 'scaling-laws')).length, 4);
    assert.deepEqual(problems, []);
    assert.deepEqual(requests.filter((url) => !url.startsWith(server.url)), []);
    await close();
  });

  it('pauses on another slide and goes on when back; Cancel keeps the sizes done, Measure again takes the next seed', TRAINED, async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#scaling-laws`);
    const widget = page.locator('attn-scaling-laws');
    let shown;

    // shown: it trains; another slide: it pauses; back: it goes on
    await untilState(page, 'training', 120000);
    await page.waitForFunction(() => document.querySelector('attn-scaling-laws').shadowRoot.querySelector('progress').value >= 20);
    await page.keyboard.press('ArrowRight');
    await untilState(page, 'waiting', 30000);
    await untilIdle(widget);
    const paused = (await progress(widget)).done;
    await nextFrames(page);
    shown = await progress(widget);
    assert.equal(shown.done, paused, 'no training while the slide is hidden');
    assert.equal(shown.text, 'Paused while off screen.');
    await page.keyboard.press('ArrowLeft');
    await untilState(page, 'training', 30000);

    // the first size done, then Cancel: the sizes done are kept
    await page.waitForFunction(() => document.querySelector('attn-scaling-laws').shadowRoot.querySelector('progress').value > 200, null, { timeout: TRAINED.timeout });
    const first = (await sizeRows(widget))[0].loss;
    await widget.getByRole('button', { name: 'Cancel' }).click();
    await untilState(page, 'cancelled', 30000);
    shown = await progress(widget);
    const kept = (await sizeRows(widget)).filter((r) => !Number.isNaN(r.loss)).length;
    assert.ok(kept >= 1 && kept < 5, `${kept} sizes kept`);
    assert.equal(shown.text, `Stopped after ${kept} of 5 sizes; the ${kept} measured are kept.`);
    assert.ok(await widget.getByRole('button', { name: 'Measure again' }).isVisible());
    assert.ok(!(await widget.evaluate((w) => w.hasAttribute('aria-busy'))), 'not busy once cancelled');
    assert.equal(await widget.evaluate((w) => w.dataset.shows), 'here', 'a stopped run shows the sizes it measured');

    // Measure again: the next seed, from the first size; the stored measurement is shown meanwhile
    await widget.getByRole('button', { name: 'Measure again' }).click();
    await untilState(page, 'training', 30000);
    assert.match(await widget.locator('.setup').textContent(), /Seed 2\./);
    assert.equal(await widget.evaluate((w) => w.dataset.shows), 'stored');
    await page.waitForFunction(() => document.querySelector('attn-scaling-laws').shadowRoot.querySelector('progress').value > 200, null, { timeout: TRAINED.timeout });
    await widget.getByRole('button', { name: 'Cancel' }).click();
    await untilState(page, 'cancelled', 30000);
    const again = (await sizeRows(widget))[0].loss;
    assert.ok(Math.abs(again - trainedInNode(SIZES[0], 2)) < 2e-3, `seed 2: ${again}`);
    assert.notEqual(again, first);
    assert.deepEqual(problems, []);
    await close();
  });

  it('shows the compute law while a run is in progress, in the dark theme', TRAINED, async () => {
    const { page, close } = await openPage(browser, `${server.url}#scaling-laws&sl-law=C`, { colorScheme: 'dark' });
    await untilState(page, 'training', 120000);
    await page.waitForFunction(() => document.querySelector('attn-scaling-laws').shadowRoot.querySelector('progress').value > 300, null, { timeout: TRAINED.timeout });
    await page.screenshot({ path: `${SCREENSHOTS}scaling-laws-compute-training-1280-dark.png` });
    await close();
  });
});
