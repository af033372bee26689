// Multi-head attention on an opened model as wide as GPT-2 small (a GPT-2 checkpoint of d_model =
// 768 and 12 heads made on the spot): W_O, 768×768, is read from the engine and drawn on every
// layer, and no main-thread task lasts 50 ms while the layers change. A wall-time check of the
// page's main thread, so it runs alone (timed/).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from '../browser.mjs';
import { byteLevelTokenizer, randomGpt2Checkpoint } from '../../bench/random-checkpoint.mjs';
import { checkpoint, linkedModel, openFiles } from '../opened-checkpoints.mjs';
import { canvasColours, followHash, longTasksBetween, recordLongTasks, slideReady } from '../widget-checks.mjs';

const { server, browser, engine } = await setUp({ engine: true });
const { json: tokenizer, size: vocab_size } = byteLevelTokenizer();
const gpt2 = checkpoint(engine, 'gpt2', randomGpt2Checkpoint({ vocab_size, n_positions: 128, n_embd: 768, n_head: 12, n_layer: 2 }, 5), tokenizer);

describe('multi-head attention at GPT-2\'s width', () => {
  it('draws each layer\'s W_O (768×768) from the engine without a main-thread task of 50 ms', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#multi-head`, { init: recordLongTasks });
    await slideReady(page);
    await openFiles(page, gpt2.paths);
    const name = await linkedModel(page);
    const widget = page.locator('attn-multi-head');
    const wO = widget.locator('.flow figure', { hasText: 'W_O: 768×768' });
    await wO.waitFor({ timeout: 60000 });
    const from = await page.evaluate(() => performance.now());
    for (const layer of [1, 0, 1]) {
      await followHash(page, `#multi-head&mhlayer=${layer}&model=${name}`);
      await widget.locator(`button[aria-label="layer ${layer}"][aria-pressed="true"]`).waitFor();
      await page.locator('attn-multi-head[data-ready]:not([aria-busy])').waitFor();
      const [colours] = await canvasColours(wO);
      assert.ok(colours > 20, `layer ${layer}'s W_O shows ${colours} colours`);
    }
    assert.deepEqual(await longTasksBetween(page, from), []);
    assert.deepEqual(problems, []);
    await close();
  });
});
