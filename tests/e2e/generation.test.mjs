// <attn-generation> on its slide: the shipped english model (byte-level BPE pieces) continues a text,
// greedily and sampled (temperature, top-k, top-p, seed); the continuations and the probabilities
// shown equal the package's engine in Node, the default's distribution is spread over several
// pieces, temperature 0 is deterministic, and a generated token's attention is drawn over the text
// before it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { canvasColours, eventually, fitsSlide, shippedModel, slideReady } from './widget-checks.mjs';

const { server, browser } = await setUp();
const model = await shippedModel('english');

/** the end of a fortune: both continuations stop after it */
const EOS = 3;
/** the slide's own text, and the tokens it generates */
const TEXT = 'A friend is';
const STEPS = 20;

/** the prompt and its continuation by the Node engine: greedy, or sampled through the cache */
function continuation(text, steps, sampling) {
  const prompt = [...model.tokenize(`[BOS]${text}`).ids];
  if (!sampling) return [...model.generate({ tokens: prompt, maxNew: steps, temperature: 0, stop: EOS })];
  const tokens = [...prompt];
  model.startGeneration(prompt);
  while (tokens.length < prompt.length + steps && tokens[tokens.length - 1] !== EOS) tokens.push(model.generateStep(sampling).token);
  return tokens;
}

/** the text of a line once it equals `want` (the widget re-renders after each change); the sampled
 * line's generated tokens are buttons, which show a newline as ⏎ */
async function lineText(widget, line, text) {
  const want = line === 'sampled' ? text.replaceAll('\n', '⏎') : text;
  const shown = await eventually(() => widget.locator(`.text.${line}`).textContent(), (t) => t === want);
  return line === 'sampled' ? shown?.replaceAll('⏎', '\n') : shown;
}

describe('generation', () => {
  it('continues greedily and by seeded sampling, with the engine\'s probabilities', async () => {
    const { page, problems, requests, close } = await openPage(browser, `${server.url}#generation`);
    const widget = page.locator('attn-generation');
    await slideReady(page);
    const colours = await canvasColours(widget);
    assert.ok(colours.every((c) => c > 4), `canvases show ${colours} colours`);
    assert.ok(await fitsSlide(widget), 'the widget fits its slide');

    const sampling = { temperature: 0.8, topP: 0.95, seed: 1 };
    const greedy = continuation(TEXT, STEPS);
    const sampled = continuation(TEXT, STEPS, sampling);
    assert.equal(await lineText(widget, 'greedy', model.decode(greedy.slice(1))), model.decode(greedy.slice(1)));
    assert.equal(await lineText(widget, 'sampled', model.decode(sampled.slice(1))), model.decode(sampled.slice(1)));

    // the bars: the distribution the last token was drawn from, before and after reshaping
    const before = sampled.slice(0, -1);
    const shaped = model.nextTokenProbabilities({ tokens: before, ...sampling });
    const plain = model.nextTokenProbabilities({ tokens: before, temperature: 1 });
    const rows = await widget.locator('table').filter({ hasText: 'sampled from' }).evaluate((table) =>
      [...table.rows].slice(1).map((tr) => [...tr.cells].map((c) => c.textContent)));
    assert.ok(rows.length >= 10, `${rows.length} bars`);
    const top = [...plain.keys()].sort((a, b) => plain[b] - plain[a] || a - b);
    rows.forEach(([, p, q], k) => {
      assert.equal(Number(p), Number(plain[top[k]].toFixed(4)), `softmax of bar ${k}`);
      assert.equal(Number(q), Number(shaped[top[k]].toFixed(4)), `reshaped probability of bar ${k}`);
    });
    assert.ok(shaped.some((p) => p === 0), 'top-p 0.95 drops the unlikely tail');
    // a real choice: no piece takes nearly all of it, and several can be drawn
    assert.ok(Math.max(...plain) < 0.8, `the most likely piece has p = ${Math.max(...plain)}`);
    assert.ok(shaped.filter((p) => p > 0.02).length >= 3, 'at least three pieces above 0.02');

    // a generated token's attention tints the text before it
    await widget.locator('.text.sampled button').nth(4).click();
    await page.waitForFunction(() => location.hash.includes('gen-tok=4'));
    await widget.locator('.text.sampled button.chosen[aria-label^="generated token 5:"]').waitFor();
    const tints = () => widget.locator('.text.sampled > *').evaluateAll((elements) => elements.map((e) => e.style.background).filter(Boolean));
    const promptPieces = model.tokenize(TEXT).ids.length;
    const light = await eventually(tints, (all) => all?.length === promptPieces + 5);
    assert.equal(light.length, promptPieces + 5, `the prompt's ${promptPieces} pieces and the first five generated tokens are tinted`);
    // the tint follows the theme (zero weight is the page's own colour on either)
    await page.locator('#theme-toggle').click();
    const dark = await eventually(tints, (all) => all?.length === light.length && all.every((tint, i) => tint !== light[i]));
    assert.ok(dark.every((tint, i) => tint !== light[i]), `the tint is the dark theme's: ${dark} against ${light}`);
    assert.deepEqual(problems, []);
    assert.deepEqual(requests.filter((url) => !url.startsWith(server.url)), []);
    await close();
  });

  it('is deterministic at temperature 0: the sampled line is the greedy one', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#generation&gen=Love%20&gen-t=0&gen-n=30&gen-seed=9`);
    const widget = page.locator('attn-generation');
    await slideReady(page);
    const want = model.decode(continuation('Love ', 30).slice(1));
    assert.equal(await lineText(widget, 'greedy', want), want);
    assert.equal(await lineText(widget, 'sampled', want), want);
    assert.deepEqual(problems, []);
    await close();
  });
});
