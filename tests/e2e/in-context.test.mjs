// <attn-in-context> on its slide: the shipped run's curves are training.json's, the frozen model's
// guesses, continuation and fingerprint are Node's engine's on the same letters, letters it cannot
// read get a message and the widget reads again once they are fixed, and "Train here" trains a
// fresh model in the worker whose first measurements equal Node's for that seed.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openPage, packageEngine, setUp } from './browser.mjs';
import { DIST } from './server.mjs';
import { plotSeries, screenshotPage, shippedModel, slideReady } from './widget-checks.mjs';

const { server, browser } = await setUp({ engine: true });
const log = JSON.parse(readFileSync(join(DIST, 'models', 'induction', 'training.json'), 'utf8'));

/** what Node's engine makes of the letters: a guess before each, the continuation, the fingerprint */
function nodeReading(model, letters) {
  const { ids } = model.tokenize(`[BOS]${letters}`);
  const { logits } = model.forward({ tokens: ids });
  const guesses = [];
  for (let r = 0; r < letters.length; r++) {
    let best = 0;
    for (let c = 1; c < logits.cols; c++) if (logits.data[r * logits.cols + c] > logits.data[r * logits.cols + best]) best = c;
    guesses.push(model.decode([best]));
  }
  const written = model.generate({ tokens: ids, maxNew: 8, temperature: 0 });
  return { guesses, continuation: model.decode(written.slice(ids.length)), fingerprint: model.fingerprint() };
}

const guessRow = (widget) => widget.locator('table.letters tr').nth(1).locator('td').allTextContents();

describe('in-context learning', () => {
  it('draws the shipped run, reads letters as Node does with the weights unchanged, and refuses letters it cannot read', async () => {
    const model = await shippedModel('induction');
    const { page, problems, close } = await openPage(browser, `${server.url}#in-context-learning`);
    await slideReady(page);
    const widget = page.locator('attn-in-context');
    const letters = 'kQzTwmRbXePzTwmRb';
    const node = nodeReading(model, letters);
    await widget.locator('.verdict strong').filter({ hasText: node.continuation }).waitFor();
    assert.equal(node.continuation, 'XePzTwmR', 'the copy goes on');
    assert.deepEqual(await guessRow(widget), node.guesses);
    assert.match(await widget.locator('.frozen').textContent(), new RegExp(`before reading: ${node.fingerprint}, after: ${node.fingerprint} — unchanged`));

    // the curves are the shipped run's
    const [loss, prefix] = await Promise.all([plotSeries(widget.locator('figure.plot').nth(0)), plotSeries(widget.locator('figure.plot').nth(1))]);
    assert.deepEqual(loss.repeat.map(([x]) => x), log.steps);
    loss.repeat.forEach(([, y], i) => assert.ok(Math.abs(y - log.repeat[i]) < 1e-3, `repeat at ${log.steps[i]}`));
    loss['first copy (unpredictable)'].forEach(([, y], i) => assert.ok(Math.abs(y - log.first[i]) < 1e-3));
    const last = log.prefixMatching[log.prefixMatching.length - 1];
    assert.ok(Math.abs(prefix['layer 1 head 3'].at(-1)[1] - last[7]) < 1e-3);
    assert.ok(Math.max(...last.slice(4)) > 0.7 && Math.max(...last.slice(0, 4)) < 0.2, 'layer 1 holds the induction heads');
    await screenshotPage(page, 'in-context-learning');

    // fresh letters, a part repeated
    const typed = 'MqWzoPLdUqWzoPL';
    await widget.getByRole('textbox', { name: 'letters' }).fill(typed);
    const fresh = nodeReading(model, typed);
    await widget.locator('.verdict strong').filter({ hasText: fresh.continuation }).waitFor();
    assert.deepEqual(await guessRow(widget), fresh.guesses);
    assert.equal(fresh.guesses.slice(-3).join(''), typed.slice(-3), 'the repeat is guessed letter by letter once it is under way');

    // what it cannot read as letters: a special token's name, a character outside its alphabet; each
    // column is one token as the model read it, the guesses still Node's
    const odd = 'ab[EOS]abé';
    await widget.getByRole('textbox', { name: 'letters' }).fill(odd);
    const oddReading = nodeReading(model, odd);
    await widget.locator('.verdict strong').filter({ hasText: oddReading.continuation }).waitFor();
    assert.deepEqual(await widget.locator('table.letters tr').nth(0).locator('td').allTextContents(), ['a', 'b', '[EOS]', 'a', 'b', '[UNK]']);
    assert.equal((await guessRow(widget)).length, 6);

    // letters longer than its context: the engine's reason, then it reads again
    await widget.getByRole('textbox', { name: 'letters' }).fill('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN');
    await widget.locator('.error').filter({ hasText: 'context' }).waitFor();
    await widget.getByRole('textbox', { name: 'letters' }).fill(letters);
    await widget.locator('.verdict strong').filter({ hasText: node.continuation }).waitFor();
    assert.deepEqual(problems, []);
    await close();
  });

  it('trains a fresh model here, measured as Node measures the same seed', async () => {
    const engine = await packageEngine();
    const trainer = engine.createTrainer({ task: 'induction', seed: 3 });
    const at0 = trainer.heldOutLossByPart({ count: 64 });
    for (let s = 0; s < 20; s++) trainer.step();
    const at20 = trainer.heldOutLossByPart({ count: 64 });
    trainer.dispose();

    const { page, problems, close } = await openPage(browser, `${server.url}#in-context-learning&icl-seed=3`);
    await slideReady(page);
    const widget = page.locator('attn-in-context');
    await widget.getByRole('button', { name: 'Train here' }).click();
    // the run's own curves replace the shipped run's (41 points) from its first measurement on
    await widget.locator('[role="status"]').filter({ hasText: /Training: step ([4-9]\d|\d{3}) of 800, seed 3/ }).waitFor();
    await widget.getByRole('button', { name: 'Pause' }).click();
    await widget.getByRole('button', { name: 'Go on' }).waitFor();
    const loss = await plotSeries(widget.locator('figure.plot').nth(0));
    assert.ok(loss.repeat.length >= 3 && loss.repeat.length < log.steps.length, `${loss.repeat.length} points`);
    assert.deepEqual(loss.repeat.slice(0, 2).map(([x]) => x), [0, 20]);
    assert.ok(Math.abs(loss.repeat[0][1] - at0.repeat) < 1e-3 && Math.abs(loss.repeat[1][1] - at20.repeat) < 1e-3, JSON.stringify(loss.repeat.slice(0, 2)));
    assert.ok(Math.abs(loss['first copy (unpredictable)'][1][1] - at20.first) < 1e-3);
    assert.deepEqual(problems, []);
    await close();
  });
});
