// <attn-families> on its slide: the three families' masks as the engine traced them in a shipped
// model of each, and the shipped encoder-decoder reversing letters: its output and its
// cross-attention's argmax on the anti-diagonal for a string it never trained on, equal to the
// package's engine in Node.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { canvasColours, eventually, fitsSlide, shippedModel, slideReady } from './widget-checks.mjs';

const { server, browser, engine } = await setUp({ engine: true });
const model = await shippedModel('reverse-seq2seq');

/** the cross-attention table's rows (without the header column), once it has `rows` rows */
async function crossAttention(widget, rows) {
  return await eventually(() => widget.locator('table').filter({ hasText: 'writes \\ reads' }).evaluate((table) =>
    [...table.rows].slice(1).map((tr) => [...tr.cells].slice(1).map((c) => Number(c.textContent)))),
  (shown) => shown?.length === rows) ?? [];
}

describe('the three families', () => {
  it('reverses a held-out string along the anti-diagonal of its cross-attention', async () => {
    // a string the model never trained on, from the task's held-out split
    const trainer = engine.createTrainer({ task: 'reverse-seq2seq', seed: 1 });
    const letters = trainer.example({ split: 'heldOut', seed: 3 }).sourceText.replaceAll(' ', '');
    trainer.dispose();
    assert.match(letters, /^[a-z]{2,8}$/);
    const { page, problems, requests, close } = await openPage(browser, `${server.url}#families&ed=${letters}`);
    const widget = page.locator('attn-families');
    await slideReady(page);
    const colours = await canvasColours(widget);
    assert.ok(colours.length >= 5 && colours.every((c) => c > 1), `canvases show ${colours} colours`);
    assert.ok(await fitsSlide(widget), 'the widget fits its slide');

    const reversed = [...letters].reverse().join('');
    await widget.getByText('reversed correctly').waitFor();
    assert.equal(await widget.locator('.result code').textContent(), reversed);
    const source = model.tokenize(letters).ids;
    const written = model.generate({ source, tokens: [2], maxNew: letters.length + 1, temperature: 0, stop: 3 });
    assert.equal(model.decode([...written].slice(1, -1)), reversed);
    const config = model.config;
    const name = `decoder.layer${config.n_decoder_layers - 1}.cross.head0.weights`;
    const weights = model.forward({ source, tokens: written, trace: [name] }).trace[name];
    // a row for each letter the decoder reads: the start and the output letters, not the stop it writes last
    const shown = await crossAttention(widget, letters.length + 1);
    assert.equal(shown.length, letters.length + 1);
    shown.forEach((row, i) => row.forEach((w, j) => assert.equal(w, Number(weights.data[i * weights.cols + j].toFixed(3)), `weight ${i},${j}`)));
    // output letter i reads source letter k − 1 − i hardest
    for (let i = 0; i < letters.length; i++) {
      const row = shown[i];
      assert.equal(row.indexOf(Math.max(...row)), letters.length - 1 - i, `output letter ${i + 1} looks at its source letter`);
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(requests.filter((url) => !url.startsWith(server.url)), []);
    await close();
  });

  it('reads what the reader types, and says when it is not letters', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#families`);
    const widget = page.locator('attn-families');
    await slideReady(page);
    await widget.getByRole('textbox', { name: 'letters to reverse' }).fill('drawer');
    await page.waitForFunction(() => location.hash.includes('ed=drawer'));
    await widget.locator('.result code', { hasText: 'reward' }).waitFor();
    await widget.getByRole('textbox', { name: 'letters to reverse' }).fill('7');
    await widget.getByText('Type two to eight letters a–z.').waitFor();
    assert.deepEqual(problems, []);
    await close();
  });
});
