// A widget whose code cannot be fetched says so in its own box, and the rest of the page goes on
// (that the registry forgets the failure, for the next ask, is tests/js/registry.test.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { slideReady } from './widget-checks.mjs';

const { server, browser } = await setUp();

describe('a widget whose code fails to load', () => {
  it('says so where it stands, and the other widgets still load', async () => {
    const { page, problems, close } = await openPage(browser, 'about:blank');
    let refused = 0;
    await page.route(/\/assets\/kv-cache-[^/]*\.js$/, (route) => {
      refused += 1;
      return route.abort();
    });
    await page.goto(`${server.url}#kv-cache`);
    const widget = page.locator('attn-kv-cache');
    const alert = widget.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.textContent(), /^This widget could not be loaded \(.+\)\. Reload the page to try again\.$/);
    assert.ok(refused >= 1);
    // the rest of the page still works: the next slide's widget draws
    await page.keyboard.press('ArrowRight');
    await slideReady(page);
    assert.ok(problems.every((p) => /kv-cache|Failed to fetch|net::ERR_FAILED|dynamically imported module/i.test(p)), problems.join('\n'));
    await close();
  });
});
