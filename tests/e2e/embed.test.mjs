// embed.html and every widget's "Share": the embed code copied from a widget in the deck is an
// iframe of embed.html showing that widget alone with the same settings; the embed page keeps its
// hash in step with the reader's changes, follows a new hash, and names the widgets for a bad one.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { canvasColours, slideReady } from './widget-checks.mjs';

const { server, browser } = await setUp();

describe('embedding one widget', () => {
  it('copies an iframe of this view from the deck, which shows the widget with the same settings', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#explorer&xlayer=0&xhead=2`);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await slideReady(page);
    const widget = page.locator('attn-explorer');
    await widget.locator('.share summary').click();
    await widget.getByRole('button', { name: 'Copy embed code' }).click();
    const code = await widget.locator('.share input').inputValue();
    assert.match(code, /^<iframe src="http:\/\/127\.0\.0\.1:\d+\/embed\.html#explorer&[^"]*" title="attnlab: attn-explorer" width="100%" height="\d+"/);
    await widget.locator('.share [role="status"]', { hasText: 'Copied.' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), code);
    const src = code.match(/src="([^"]+)"/)[1];
    assert.match(src, /xlayer=0/);
    assert.match(src, /xhead=2/);

    // a lecturer's page with that code
    await page.setContent(`<!doctype html><title>Lecture</title><h1>Coreference</h1>${code}`);
    const frame = page.frameLocator('iframe');
    const embedded = frame.locator('attn-explorer');
    await embedded.locator('.distribution h3', { hasText: 'layer 0, head 2' }).waitFor({ timeout: 60000 });
    assert.equal(await embedded.getAttribute('layer'), '0');
    assert.equal(await embedded.getAttribute('head'), '2');
    const counts = await canvasColours(embedded.locator('.picture'));
    assert.ok(counts[0] > 20, `the embedded heatmap shows ${counts[0]} colours`);
    assert.deepEqual(problems, []);
    await close();
  });

  it('keeps the hash in step with the reader, follows a new one, and names the widgets for a bad one', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}embed.html#causal-mask&cm=attention`);
    await slideReady(page, 'body');
    const widget = page.locator('attn-causal-mask');
    assert.equal(await widget.getAttribute('text'), 'attention');
    assert.equal(await page.locator('#embed > *').count(), 1, 'the widget alone');
    await widget.getByRole('button', { name: 'causal mask: on' }).click();
    await page.waitForFunction(() => location.hash.includes('cm-mask=0'));

    await page.evaluate(() => { location.hash = '#positional-encoding&pe=alibi&head=3'; });
    await page.locator('attn-positional-encoding[kind="alibi"][head="3"]').waitFor();
    await slideReady(page, 'body');

    await page.evaluate(() => { location.hash = '#no-such-widget'; });
    await page.locator('#embed p', { hasText: '#explorer' }).waitFor();
    assert.deepEqual(problems, []);
    await close();
  });
});
