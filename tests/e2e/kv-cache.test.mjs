// <attn-kv-cache> on its slide: the shipped language model decodes greedily through its KV cache;
// every step adds one row of keys and values per layer, projects only the new token, and the
// result equals the engine's full recompute; the numbers equal the package's engine in Node.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { canvasColours, eventually, fitsSlide, shippedModel, slideReady } from './widget-checks.mjs';

const { server, browser } = await setUp();
const model = await shippedModel('english');

/** the widget's check table { quantity: value }, once it reports `length` tokens in the cache */
async function facts(widget, length) {
  return await eventually(() => widget.locator('table').filter({ hasText: 'cache bytes' }).evaluate((table) =>
    Object.fromEntries([...table.rows].slice(1).map((tr) => [tr.cells[0].textContent, Number(tr.cells[1].textContent.replaceAll('−', '-'))]))),
  (shown) => shown?.['tokens in the cache'] === length) ?? {};
}

/** the prompt and `steps` greedy tokens through the Node engine's cache, and the cache's size */
function greedy(text, steps) {
  const tokens = [...model.tokenize(`[BOS]${text}`).ids];
  let state = model.startGeneration(tokens);
  for (let s = 0; s < steps; s++) {
    state = model.generateStep({ temperature: 0 });
    tokens.push(state.token);
  }
  return { tokens, cacheBytes: state.cacheBytes };
}

describe('KV cache', () => {
  it('grows by one row per token, projects only the new one, and equals the full recompute', async () => {
    const { page, problems, requests, close } = await openPage(browser, `${server.url}#kv-cache`);
    const widget = page.locator('attn-kv-cache');
    await slideReady(page);
    const colours = await canvasColours(widget);
    assert.ok(colours.length >= 3 && colours.every((c) => c > 4), `canvases show ${colours} colours`);
    assert.ok(await fitsSlide(widget), 'the widget fits its slide');

    const config = model.config;
    const dKv = ((config.n_kv_heads || config.n_heads) * config.d_model) / config.n_heads;
    const want = greedy('The cat', 6);
    let shown = await facts(widget, want.tokens.length);
    assert.equal(shown['tokens in the cache'], want.tokens.length);
    assert.equal(shown['cache bytes'], want.cacheBytes);
    assert.equal(want.cacheBytes, 2 * config.n_layers * want.tokens.length * dKv * 4);
    assert.equal(shown['rows projected this step'], 1);
    assert.ok(shown['max |Δ| of the last logits'] < 1e-4, `logits differ by ${shown['max |Δ| of the last logits']}`);
    assert.ok(shown['max |Δ| of the keys'] < 1e-4, `keys differ by ${shown['max |Δ| of the keys']}`);
    const pieces = await widget.locator('.tokens span').allTextContents();
    assert.equal(pieces.length, want.tokens.length);
    const generated = model.decode(want.tokens.slice(-6)).replaceAll(' ', '␣').replaceAll('\n', '⏎').replaceAll('\t', '⇥');
    assert.equal(pieces.slice(-6).join(''), generated);

    // one more token: one more row, 2·L·d_kv·4 more bytes
    await widget.getByRole('button', { name: 'next token ▶' }).click();
    await page.waitForFunction(() => location.hash.includes('kc-step=7'));
    shown = await facts(widget, want.tokens.length + 1);
    assert.equal(shown['cache bytes'] - want.cacheBytes, 2 * config.n_layers * dKv * 4);
    assert.equal(shown['cache bytes'], greedy('The cat', 7).cacheBytes);
    assert.deepEqual(problems, []);
    assert.deepEqual(requests.filter((url) => !url.startsWith(server.url)), []);
    await close();
  });

  it('starts again from a prompt the reader types, and from a link', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#kv-cache&kc=Love%20is%20&kc-step=3&kc-l=1&kc-h=2`);
    const widget = page.locator('attn-kv-cache');
    await slideReady(page);
    const want = greedy('Love is ', 3);
    assert.equal((await facts(widget, want.tokens.length))['cache bytes'], want.cacheBytes);
    assert.equal(await widget.getByRole('combobox', { name: 'layer' }).inputValue(), '1');
    await widget.getByRole('textbox', { name: 'prompt' }).fill('A');
    await page.waitForFunction(() => location.hash.includes('kc=A') && location.hash.includes('kc-step=0'));
    assert.equal((await facts(widget, 2))['cache bytes'], greedy('A', 0).cacheBytes);
    assert.deepEqual(problems, []);
    await close();
  });
});
