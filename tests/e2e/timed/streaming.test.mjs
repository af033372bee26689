// Generation streams from a model the reader opened (a GPT-2 checkpoint made on the spot): the
// sampled line grows a piece at a time as the worker returns each token, Stop ends it where it is,
// and no main-thread task lasts 50 ms meanwhile. A wall-time check of the page's main thread, so it
// runs alone (timed/): beside the other browser files, a task's wall time is the machine's.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from '../browser.mjs';
import { byteLevelTokenizer, randomGpt2Checkpoint } from '../../bench/random-checkpoint.mjs';
import { checkpoint, openFiles } from '../opened-checkpoints.mjs';
import { longTasksBetween, recordLongTasks, slideReady } from '../widget-checks.mjs';

const { server, browser, engine } = await setUp({ engine: true });
const { json: tokenizer, size: vocab_size } = byteLevelTokenizer();
const gpt2 = checkpoint(engine, 'gpt2', randomGpt2Checkpoint({ vocab_size, n_positions: 128, n_embd: 32, n_head: 4, n_layer: 2 }, 5), tokenizer);

describe('generation on an opened model', () => {
  it('streams generation token by token from the worker, never blocking the page, and Stop ends it', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#generation&gen-n=127&gen-t=1`, { init: recordLongTasks });
    await slideReady(page);
    await openFiles(page, gpt2.paths);
    await page.locator('attn-generation[data-ready]:not([aria-busy])').waitFor();
    // watch the sampled line as a new generation streams in (after the prompt's pieces), and press
    // Stop once 11 more have arrived
    const from = await page.evaluate(() => performance.now());
    const watched = page.evaluate(() => new Promise((resolve) => {
      const widget = document.querySelector('attn-generation');
      const line = widget.shadowRoot.querySelector('.text.sampled');
      const counts = [];
      new MutationObserver(() => {
        counts.push(line.childElementCount);
        if (line.childElementCount === counts[0] + 11) [...widget.shadowRoot.querySelectorAll('button')].find((b) => b.textContent === 'Stop').click();
      }).observe(line, { childList: true });
      widget.addEventListener('attn-rendered', () => resolve(counts), { once: true });
    }));
    await page.evaluate(() => { location.hash = location.hash.replace('gen-t=1', 'gen-t=1.2'); });
    const counts = await watched;
    const growing = counts.filter((n, i) => i > 0 && n === counts[i - 1] + 1).length;
    assert.ok(growing >= 8, `the sampled line grew a piece at a time (${counts.join(' ')})`);
    const generation = page.locator('attn-generation');
    assert.match(await generation.locator('.pace').textContent(), /per token \(median of \d+ steps\): stopped before \d+ tokens/);
    assert.ok(await generation.locator('.text.sampled > *').count() < counts[0] + 11 + 8, 'the sampled line ends where Stop was pressed');
    assert.deepEqual(await longTasksBetween(page, from), [], 'no main-thread task over 50 ms while streaming');
    assert.deepEqual(problems, []);
    await close();
  });

});
