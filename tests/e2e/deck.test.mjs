// The seminar deck in real Chromium: keyboard, deep links, history, overview, themes, the narrow
// layout, printing, first paint before the engine, and screenshots of every slide at two sizes in
// both themes (build/screenshots/deck/) for a person to look at, each widget inside its slide.
// (The walk at a reader's pace that times the page's tasks is in timed/deck-walk.test.mjs.)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { openPage, SCREENSHOTS, setUp } from './browser.mjs';
import { DIST, serve } from './server.mjs';
import { activeSlide, nextFrames, slideIds, slideReady, widgetsPastSlide } from './widget-checks.mjs';

const SHOTS = `${SCREENSHOTS}deck/`;
mkdirSync(SHOTS, { recursive: true });
const { server, browser } = await setUp();

const counter = (page) => page.locator('#slide-counter').textContent();

describe('the deck', () => {
  it('walks every slide by keyboard with no console error and no foreign request', { timeout: 300000 }, async () => {
    const { page, problems, requests, close } = await openPage(browser, server.url);
    const warnings = [];
    page.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
    const ids = await slideIds(page);
    assert.ok(ids.length >= 10, `${ids.length} slides`);
    assert.equal(await counter(page), `1 / ${ids.length}`);
    await page.locator('#engine-info', { hasText: 'SIMD on' }).waitFor({ state: 'attached', timeout: 60000 });
    const seen = [await activeSlide(page)];
    for (let presses = 0; presses < 200 && seen.length < ids.length; presses++) {
      await slideReady(page);
      await page.keyboard.press('ArrowRight');
      const now = await activeSlide(page);
      if (now !== seen[seen.length - 1]) seen.push(now);
    }
    assert.deepEqual(seen, ids, 'every slide in order');
    await slideReady(page);
    assert.equal(await counter(page), `${ids.length} / ${ids.length}`);
    await page.keyboard.press('Home');
    assert.equal(await activeSlide(page), ids[0]);
    await page.keyboard.press('End');
    assert.equal(await activeSlide(page), ids[ids.length - 1]);
    assert.deepEqual(problems, []);
    assert.deepEqual(warnings.filter((w) => /main thread|blocking/i.test(w)), []);
    assert.deepEqual(requests.filter((u) => !u.startsWith(server.url) && !u.startsWith('data:') && !u.startsWith('blob:')), []);
    await close();
  });

  it('opens each slide from its own link, and back/forward move between slides', async () => {
    const { page, problems, close } = await openPage(browser, server.url);
    const ids = await slideIds(page);
    for (const [i, id] of ids.entries()) {
      await page.goto(`${server.url}#${id}`);
      await page.locator(`section#${id}.active`).waitFor();
      assert.equal(await counter(page), `${i + 1} / ${ids.length}`);
      assert.match(await page.title(), / — attnlab$/);
    }
    await page.goto(`${server.url}#${ids[2]}`);
    await page.locator(`section#${ids[2]}.active`).waitFor();
    await page.locator('#next-slide').click();
    await page.locator(`section#${ids[3]}.active`).waitFor();
    // the URL follows once the slide is drawn
    await page.waitForURL(new RegExp(`#${ids[3]}`));
    await page.goBack();
    await page.locator(`section#${ids[2]}.active`).waitFor();
    await page.goForward();
    await page.locator(`section#${ids[3]}.active`).waitFor();
    assert.deepEqual(problems, []);
    await close();
  });

  it('links every open question and takeaway to slides that exist, keeping the settings', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#summary&dk=128`);
    const ids = await slideIds(page);
    for (const id of ['open-questions', 'summary']) {
      const targets = await page.locator(`section#${id} li`).evaluateAll((items) =>
        items.map((li) => [...li.querySelectorAll('a')].map((a) => a.getAttribute('href').slice(1))));
      assert.equal(targets.length, id === 'summary' ? 5 : 4);
      for (const links of targets) {
        assert.ok(links.length >= 2, `${id}: each item points to at least two slides`);
        for (const target of links) assert.ok(ids.includes(target), `${id} links to #${target}, which is no slide`);
      }
    }
    await page.locator('section#summary a[href="#why-sqrt-dk"]').click();
    await page.locator('section#why-sqrt-dk.active').waitFor();
    await page.waitForURL(/#why-sqrt-dk&dk=128/);
    assert.deepEqual(problems, []);
    await close();
  });

  it('gives each slide a link with its own settings only, and brings them back on Back', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#worked-example&stage=5`);
    await page.locator('section#worked-example.active').waitFor();
    await page.waitForURL(/#worked-example&stage=5$/);
    // the stage is the worked example's: the next slide's link does not carry it
    await page.keyboard.press('End');
    await page.waitForURL(/#glossary$/);
    await page.goto(`${server.url}#why-sqrt-dk&dk=128`);
    await page.locator('section#why-sqrt-dk.active').waitFor();
    const ids = await slideIds(page);
    await page.locator('#next-slide').click();
    await page.waitForURL(new RegExp(`#${ids[ids.indexOf('why-sqrt-dk') + 1]}$`));
    // Back: the slide and its own setting, as they were
    await page.goBack();
    await page.locator('section#why-sqrt-dk.active').waitFor();
    assert.equal(await page.locator('attn-scaling').getAttribute('dk'), '128');
    assert.match(page.url(), /#why-sqrt-dk&dk=128$/);
    assert.deepEqual(problems, []);
    await close();
  });

  it('says which engine runs in the About panel, which keeps the keys it is given', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#positions`);
    await page.locator('#engine-info', { hasText: 'SIMD' }).waitFor({ state: 'attached', timeout: 60000 });
    // no engine line on the slides themselves
    assert.equal(await page.locator('#deck-bar').textContent().then((t) => /SIMD|thread/.test(t)), false);
    await page.locator('#about-toggle').click();
    const about = page.locator('#about');
    await about.waitFor();
    assert.match(await about.locator('#engine-info').textContent(), /^engine \d+\.\d+\.\d+ · simd(-threads)? · SIMD on · \d threads?$/);
    await about.screenshot({ path: `${SHOTS}about.png` });
    await page.keyboard.press('ArrowRight');
    assert.equal(await activeSlide(page), 'positions', 'the deck stays while the panel is open');
    await page.keyboard.press('Escape');
    await about.waitFor({ state: 'hidden' });
    assert.equal(await page.locator('#overview').isHidden(), true, 'Escape closed the panel only');
    assert.deepEqual(problems, []);
    await close();
  });

  it('jumps by number, shows an overview on Esc, and keeps keys typed into a widget', async () => {
    const { page, problems, close } = await openPage(browser, server.url);
    const ids = await slideIds(page);
    await page.keyboard.type('4');
    await page.keyboard.press('Enter');
    assert.equal(await activeSlide(page), ids[3]);
    await page.keyboard.press('Escape');
    const overview = page.locator('#overview');
    await overview.waitFor();
    assert.equal(await overview.locator('button').count(), ids.length);
    await overview.screenshot({ path: `${SHOTS}overview.png` });
    await overview.locator('button', { hasText: 'Positional encodings' }).click();
    assert.equal(await activeSlide(page), 'positions');
    assert.equal(await overview.isHidden(), true);
    // a slider inside a widget takes the arrow keys; the deck stays
    const widget = page.locator('attn-positional-encoding');
    await widget.locator('[data-ready]').or(page.locator('attn-positional-encoding[data-ready]')).first().waitFor({ timeout: 60000 });
    const slider = widget.getByRole('slider', { name: 'positions n' });
    await slider.focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await activeSlide(page), 'positions');
    await page.waitForFunction(() => location.hash.includes('n=31'));
    // a button inside a widget keeps Space; arrows still move the deck
    await widget.getByRole('button', { name: 'RoPE' }).focus();
    await page.keyboard.press('ArrowLeft');
    assert.notEqual(await activeSlide(page), 'positions');
    assert.deepEqual(problems, []);
    await close();
  });

  it('switches themes with the toggle, remembers the choice, and follows the system first', async () => {
    const { page, close } = await openPage(browser, server.url, { colorScheme: 'dark' });
    const background = () => page.evaluate(() => getComputedStyle(document.querySelector('section.slide.active')).backgroundColor);
    assert.equal(await background(), 'rgb(18, 21, 28)');
    await page.locator('#theme-toggle').click();
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'light');
    assert.equal(await background(), 'rgb(255, 255, 255)');
    await page.reload();
    assert.equal(await background(), 'rgb(255, 255, 255)');
    await close();
  });

  it('stacks the slides on a narrow screen', { timeout: 180000 }, async () => {
    const { page, problems, close } = await openPage(browser, server.url, { viewport: { width: 390, height: 800 } });
    assert.equal(await page.evaluate(() => document.documentElement.classList.contains('stacked')), true);
    const visible = await page.locator('section.slide').evaluateAll((slides) => slides.filter((s) => s.checkVisibility()).length);
    assert.equal(visible, await page.locator('section.slide').count());
    // each is read out too, not only the one the deck last showed
    assert.deepEqual(await page.locator('section.slide[aria-hidden="true"]').evaluateAll((slides) => slides.map((s) => s.id)), []);
    // every slide's widgets draw at once here, so measure after all of them have drawn
    await slideReady(page, 'body');
    await page.evaluate(() => document.fonts.ready);
    // (KaTeX's MathML copy is clipped to nothing; a scroller may hold wider content)
    const wide = await page.evaluate(() => {
      const scrolled = (e) => {
        for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
          if (['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(a).overflowX)) return true;
        }
        return false;
      };
      return [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && e.checkVisibility()
          && !e.closest('.katex-mathml') && !scrolled(e))
        .map((e) => `${e.localName}${e.id ? `#${e.id}` : ''} in ${e.closest('section')?.id}`);
    });
    assert.deepEqual(wide, [], 'elements wider than the phone');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `the page is ${overflow}px wider than the phone`);
    await page.screenshot({ path: `${SHOTS}phone.png` });
    // scrolled to a slide, the bar counts it and the URL names it
    const ids = await slideIds(page);
    await page.locator('section#summary').evaluate((slide) => slide.scrollIntoView({ block: 'start' }));
    await page.locator('#slide-counter', { hasText: `${ids.indexOf('summary') + 1} / ${ids.length}` }).waitFor();
    await page.waitForURL(/#summary$/);
    assert.deepEqual(problems, []);
    await close();
  });

  it('prints one slide per page', { timeout: 180000 }, async () => {
    const { page, close } = await openPage(browser, server.url);
    const ids = await slideIds(page);
    await page.emulateMedia({ media: 'print' });
    const shown = await page.locator('section.slide').evaluateAll((slides) => slides.map((s) => {
      const box = s.getBoundingClientRect();
      return s.checkVisibility() && Math.round(box.width) === 1280 && Math.round(box.height) === 720;
    }));
    assert.deepEqual(shown, ids.map(() => true));
    const pdf = await page.pdf({ preferCSSPageSize: true, printBackground: true });
    const pages = (pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) ?? []).length;
    assert.equal(pages, ids.length);
    await close();
  });

  it('paints the title and the text before the engine has loaded', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    let release;
    const held = new Promise((resolve) => { release = resolve; });
    await page.route(/\.wasm$/, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(server.url);
    await page.locator('h1', { hasText: 'computed live' }).waitFor();
    // the widgets are defined in the task after the first one: the hero says it is loading while the engine is held back
    await page.waitForFunction(() => /Loading the engine/.test(document.querySelector('attn-attention-map')?.shadowRoot?.textContent ?? ''));
    assert.ok(await page.locator('section#title .katex, section.slide .katex').count() > 10, 'formulas are typeset in the HTML');
    release();
    await page.locator('attn-attention-map[data-ready]').waitFor({ timeout: 60000 });
    await context.close();
  });

  it('survives a hostile link', async () => {
    const { page, problems, close } = await openPage(browser,
      `${server.url}#%3Cimg%20src=x%20onerror=alert(1)%3E&n=1e99&d=abc&base=-5&q=<script>alert(1)</script>&it=%F0%9F%98%80%ED%A0%80`);
    await page.locator('section#title.active').waitFor();
    assert.deepEqual(problems, []);
    await close();
  });

  it('uses the threaded build where the page is isolated and the single-thread one elsewhere', async () => {
    const isolated = await openPage(browser, server.url);
    await isolated.page.locator('#engine-info', { hasText: 'simd-threads' }).waitFor({ state: 'attached', timeout: 60000 });
    await isolated.close();
    const plain = await serve(DIST, { isolated: false });
    const { page, problems, close } = await openPage(browser, plain.url);
    await page.locator('#engine-info', { hasText: '· simd · SIMD on · 1 thread' }).waitFor({ state: 'attached', timeout: 60000 });
    assert.deepEqual(problems, []);
    await close();
    plain.close();
  });

  // The one screenshot of each slide as it opens, for a person to look at; the widget tests
  // screenshot the other states they set.
  it('takes a screenshot of every slide at two sizes in both themes, each widget inside its slide', { timeout: 600000 }, async () => {
    const spilled = [];
    for (const colorScheme of ['light', 'dark']) {
      for (const viewport of [{ width: 1280, height: 720 }, { width: 1920, height: 1080 }]) {
        const { page, problems, close } = await openPage(browser, server.url, { colorScheme, viewport });
        const ids = await slideIds(page);
        for (const [i, id] of ids.entries()) {
          await page.goto(`${server.url}#${id}`);
          await page.locator(`section#${id}.active`).waitFor();
          await slideReady(page);
          await nextFrames(page);
          await page.screenshot({ path: `${SHOTS}${String(i + 1).padStart(2, '0')}-${id}-${viewport.width}-${colorScheme}.png` });
          for (const tag of await widgetsPastSlide(page)) spilled.push(`<${tag}> on ${id} at ${viewport.width} px, ${colorScheme}`);
        }
        assert.deepEqual(problems, []);
        await close();
      }
    }
    assert.deepEqual(spilled, [], 'widgets that reach past their slide');
  });
});
