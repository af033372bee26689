// <attn-ffn> on its slide: the four non-linearities and their slopes as the engine computes them,
// the trained coreference model's FFN on one token of the seminar sentence (input, hidden layer
// before and after GELU, output) equal to the package's trace in Node, and the parameters of one FFN.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { canvasColours, eventually, fitsSlide, plotSeries, shippedModel, slideReady, withinShown } from './widget-checks.mjs';

const SENTENCE = 'the cat sat on the mat because it was soft';
const X = Array.from({ length: 161 }, (_, i) => Number((-4 + i * 0.05).toFixed(2)));
const NAMES = { relu: 'ReLU', gelu: 'GELU', gelu_tanh: 'GELU (tanh)', swiglu: 'Swish (SwiGLU’s gate)' };
const STAGES = ['ln_2', 'mlp.hidden', 'mlp.act', 'mlp.out'];

const { server, browser, engine } = await setUp({ engine: true });
const model = await shippedModel('coreference');

// (+ 0: the page never shows −0)
const round = (v, decimals) => Number(v.toFixed(decimals)) + 0;

/** the token's rows of the FFN's four stages in Node */
function tokenRows(layer, token) {
  const names = STAGES.map((s) => `layer${layer}.${s}`);
  const { trace } = model.forward({ tokens: model.tokenize(SENTENCE).ids, trace: names });
  return names.map((n) => Array.from(trace[n].data.subarray(token * trace[n].cols, (token + 1) * trace[n].cols)));
}

/** the four strips' screen-reader tables, once they show the expected rows (4 decimals) */
async function checkStrips(widget, layer, token) {
  const want = tokenRows(layer, token).map((row) => row.map((v) => round(v, 4)));
  const shown = await eventually(() => widget.locator('.strips table').evaluateAll((tables) => tables.map((table) =>
    [...table.rows[1].cells].slice(1).map((c) => Number(c.textContent.replaceAll('−', '-'))))), (v) => withinShown(v, want, 1e-4));
  assert.deepEqual(shown?.map((r) => r.length), [64, 128, 128, 64], 'the shapes 1×64, 1×128, 1×128, 1×64');
  assert.ok(withinShown(shown, want, 1e-4), `layer ${layer}, token ${token}: ${JSON.stringify(shown)} against ${JSON.stringify(want)}`);
  return tokenRows(layer, token);
}

/** the parameter counts shown, this model's and GPT-2 small's */
const counts = (widget) => widget.locator('.params .count').evaluateAll((spans) => spans.map((s) => Number(s.dataset.parameters)));

describe('the feed-forward network', () => {
  it('draws the engine\'s curves and the model\'s FFN on "it"', async () => {
    const { page, problems, requests, close } = await openPage(browser, `${server.url}#ffn`);
    const widget = page.locator('attn-ffn');
    await slideReady(page);
    const colours = await canvasColours(widget);
    assert.equal(colours.length, 7, 'two plots, four strips and the colour key');
    for (const c of colours) assert.ok(c > 8, `a picture shows ${c} colours`);
    assert.ok(await fitsSlide(widget), 'the widget fits its slide');

    // the curves and slopes at a few points, to the decimals shown
    const [curves, slopes] = await Promise.all([0, 1].map((k) => plotSeries(widget.locator('figure.plot').nth(k))));
    for (const [activation, name] of Object.entries(NAMES)) {
      const { y, derivative } = engine.activationCurve({ activation, x: X });
      for (const i of [0, 37, 78, 80, 83, 120, 160]) {
        assert.deepEqual(curves[name][i], [round(X[i], 4), round(y[i], 6)], `${name}(${X[i]})`);
        assert.deepEqual(slopes[name][i], [round(X[i], 4), round(derivative[i], 6)], `${name}′(${X[i]})`);
      }
    }

    // "it" (position 7), layer 0: the strips, and its hidden units as dots on the curve
    const [, hidden, act] = await checkStrips(widget, 0, 7);
    const dots = curves['“it”: its 128 hidden units'];
    assert.ok(withinShown(dots?.map(([x]) => x), hidden.map((h) => round(h, 4)), 1e-4), 'the dots at the hidden units');
    assert.ok(withinShown(dots?.map(([, y]) => y), act.map((a) => round(a, 6)), 1e-6), 'the dots at their activations');
    const gelu = engine.activationCurve({ activation: 'gelu', x: hidden }).y;
    act.forEach((a, j) => assert.ok(Math.abs(a - gelu[j]) < 1e-5, 'the model\'s hidden units lie on GELU'));
    assert.match(await widget.locator('.token h4').textContent(), /“it”, layer 0 · d = 64, d_ff = 128 = 2d \(the original Transformer and GPT-2 use 4d\)/);
    assert.equal(await widget.getByRole('button', { name: 'GELU', exact: true }).getAttribute('aria-pressed'), 'true');

    // parameters of one FFN: this model's and GPT-2 small's
    assert.deepEqual(await counts(widget), [engine.feedForwardParameters({ d: 64, dFF: 128, activation: 'gelu' }),
      engine.feedForwardParameters({ d: 768, dFF: 3072, activation: 'gelu' })]);
    assert.match(await widget.locator('.params').textContent(), /2·64·128 \+ 128 \+ 64 = 16,576 parameters/);

    // SwiGLU: its gate's curve highlighted, a third matrix priced; the strips stay the model's GELU
    await widget.getByRole('button', { name: 'SwiGLU', exact: true }).click();
    await page.waitForFunction(() => location.hash.includes('ff-act=swiglu'));
    await slideReady(page);
    const swiglu = [engine.feedForwardParameters({ d: 64, dFF: 128, activation: 'swiglu' }),
      engine.feedForwardParameters({ d: 768, dFF: 3072, activation: 'swiglu' })];
    assert.deepEqual(await counts(widget), swiglu);
    assert.ok(swiglu[0] > 16576);
    assert.match(await widget.locator('.params').textContent(), /\+ 64·128 \+ 128 \(the gate\)/);
    await checkStrips(widget, 0, 7);
    assert.deepEqual(problems, []);
    assert.deepEqual(requests.filter((u) => !u.startsWith(server.url) && !u.startsWith('data:')), []);
    await close();
  });

  it('follows the token and the layer chosen', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#ffn`);
    const widget = page.locator('attn-ffn');
    await slideReady(page);
    await widget.getByRole('button', { name: 'token 1: cat' }).click();
    await page.waitForFunction(() => location.hash.includes('ff-tok=1'));
    await slideReady(page);
    await checkStrips(widget, 0, 1);
    await widget.getByRole('button', { name: 'layer 1' }).click();
    await page.waitForFunction(() => location.hash.includes('ff-l=1'));
    await slideReady(page);
    await checkStrips(widget, 1, 1);
    assert.match(await widget.locator('.token h4').textContent(), /“cat”, layer 1/);
    assert.deepEqual(problems, []);
    await close();
  });

  it('takes the token from a shared link', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#ffn&ff-tok=5&ff-act=relu`);
    const widget = page.locator('attn-ffn');
    await slideReady(page);
    await checkStrips(widget, 0, 5);
    assert.equal(await widget.getByRole('button', { name: 'token 5: mat' }).getAttribute('aria-pressed'), 'true');
    assert.equal(await widget.getByRole('button', { name: 'ReLU', exact: true }).getAttribute('aria-pressed'), 'true');
    assert.deepEqual(problems, []);
    await close();
  });
});
