// attnlab/widgets on someone else's page: the package's widget bundle imported by a plain HTML page
// in another folder, without cross-origin isolation, and from another origin; the widgets render,
// share one single-thread engine, find the engine and the models beside the bundle, and the
// module's exports are the ones its declarations promise.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPage, setUp } from './browser.mjs';
import { serve } from './server.mjs';
import { canvasColours, declaredExports, slideReady } from './widget-checks.mjs';

const BUNDLE = new URL('../../build/package/widgets/', import.meta.url).pathname;

/** a lecturer's page: two widgets and the bundle from `src` */
const lecture = (src) => `<!doctype html><meta charset="utf-8"><title>Lecture 7</title><link rel="icon" href="data:,">
<h1>Attention, live</h1>
<attn-attention-map></attn-attention-map>
<attn-positional-encoding kind="rope" n="16"></attn-positional-encoding>
<attn-scaling height="300px"></attn-scaling>
<script type="module">
  import { engineInfo, widgets } from ${JSON.stringify(src)};
  window.lecture = { widgets, info: await engineInfo() };
</script>`;

assert.ok(existsSync(join(BUNDLE, 'attnlab-widgets.js')), 'build/package/widgets is missing: bash scripts/build.sh package');
const scratch = mkdtempSync(join(tmpdir(), 'attnlab-lecture-'));
mkdirSync(join(scratch, 'course/week7'), { recursive: true });
cpSync(BUNDLE, join(scratch, 'vendor/attnlab'), { recursive: true });
writeFileSync(join(scratch, 'course/week7/index.html'), lecture('../../vendor/attnlab/attnlab-widgets.js'));
after(() => rmSync(scratch, { recursive: true, force: true }));
const { browser } = await setUp({ root: null });

async function check(page, problems, requests, origins) {
  await page.waitForFunction(() => window.lecture, null, { timeout: 60000 });
  await slideReady(page, 'body');
  const { widgets, info } = await page.evaluate(() => window.lecture);
  assert.ok(widgets.includes('attn-explorer') && widgets.includes('attn-attention-steps'), widgets.join(' '));
  assert.equal(info.threadsUsed, 1, 'no cross-origin isolation: the single-thread engine');
  assert.doesNotMatch(info.build, /thread/);
  for (const tag of ['attn-attention-map', 'attn-positional-encoding']) {
    const counts = await canvasColours(page.locator(tag));
    assert.ok(counts.length > 0 && counts.every((c) => c > 20), `${tag} draws: ${counts}`);
  }
  assert.deepEqual(problems, []);
  assert.deepEqual(requests.filter((u) => !origins.some((o) => u.startsWith(o)) && !u.startsWith('blob:') && !u.startsWith('data:')), []);
}

describe('the widget bundle on another page', () => {
  it('renders from a folder of its own, with the engine and models beside the bundle', async () => {
    const site = await serve(scratch, { isolated: false });
    const { page, problems, requests, close } = await openPage(browser, `${site.url}course/week7/`);
    await check(page, problems, requests, [site.url]);
    assert.ok(requests.some((u) => u.includes('/vendor/attnlab/models/coreference/')), 'the models come from beside the bundle');
    await close();
    site.close();
  });

  it('renders when the bundle comes from another origin', async () => {
    const cdn = await serve(join(scratch, 'vendor'), { isolated: false, cors: true });
    const folder = mkdtempSync(join(scratch, 'site-'));
    writeFileSync(join(folder, 'index.html'), lecture(`${cdn.url}attnlab/attnlab-widgets.js`));
    const site = await serve(folder, { isolated: false });
    const { page, problems, requests, close } = await openPage(browser, site.url);
    await check(page, problems, requests, [site.url, cdn.url]);
    await close();
    site.close();
    cdn.close();
  });

  it('keeps the keys typed into its fields and buttons from the page, but not Escape', async () => {
    const site = await serve(scratch, { isolated: false });
    const { page, problems, close } = await openPage(browser, `${site.url}course/week7/`);
    await page.waitForFunction(() => window.lecture, null, { timeout: 60000 });
    await slideReady(page, 'body');
    await page.evaluate(() => {
      window.hostKeys = [];
      document.addEventListener('keydown', (e) => window.hostKeys.push(e.key));
    });
    const widget = page.locator('attn-positional-encoding');
    await widget.getByRole('slider', { name: 'positions n' }).focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowLeft');
    await widget.getByRole('button', { name: 'ALiBi' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('attn-positional-encoding[kind="alibi"]').waitFor();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Escape');
    assert.deepEqual(await page.evaluate(() => window.hostKeys), ['ArrowRight', 'Escape'],
      'only the arrow pressed on a button and Escape reach the page');
    assert.deepEqual(problems, []);
    await close();
    site.close();
  });

  it('shows only the controls its `controls` attribute keeps', async () => {
    const site = await serve(scratch, { isolated: false });
    const { page, problems, close } = await openPage(browser, `${site.url}course/week7/`);
    await page.waitForFunction(() => window.lecture, null, { timeout: 60000 });
    await slideReady(page, 'body');
    const widget = page.locator('attn-positional-encoding');
    const shown = () => widget.locator('[data-control]').evaluateAll((controls) =>
      controls.filter((c) => c.checkVisibility()).map((c) => c.dataset.control));
    assert.deepEqual(await shown(), ['share', 'kind', 'n', 'd', 'base'], 'RoPE: every control it uses');
    await widget.evaluate((e) => e.setAttribute('controls', 'kind'));
    assert.deepEqual(await shown(), ['kind']);
    await widget.evaluate((e) => e.setAttribute('controls', 'none'));
    assert.deepEqual(await shown(), []);
    assert.ok((await canvasColours(widget)).every((c) => c > 20), 'the pictures stay');
    await widget.evaluate((e) => e.removeAttribute('controls'));
    assert.equal((await shown()).length, 5);
    assert.deepEqual(problems, []);
    await close();
    site.close();
  });

  it('keeps the height its `height` attribute sets, while loading and once drawn', async () => {
    const site = await serve(scratch, { isolated: false });
    const { page, close } = await openPage(browser, `${site.url}course/week7/`);
    const height = () => page.locator('attn-scaling').evaluate((e) => e.offsetHeight);
    await page.locator('attn-scaling').waitFor({ state: 'attached' });
    await page.waitForFunction(() => customElements.get('attn-scaling'));
    assert.equal(await height(), 300, 'while loading');
    await slideReady(page, 'body');
    assert.equal(await height(), 300, 'once drawn');
    await close();
    site.close();
  });

  it('exports what its declaration file declares', async () => {
    const site = await serve(scratch, { isolated: false });
    const { page, close } = await openPage(browser, `${site.url}course/week7/`);
    const exported = await page.evaluate(async () => Object.keys(await import('../../vendor/attnlab/attnlab-widgets.js')).sort());
    assert.deepEqual(exported, declaredExports('attnlab/widgets'));
    await close();
    site.close();
  });
});
