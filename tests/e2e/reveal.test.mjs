// attnlab/reveal in a real reveal.js deck (examples/reveal, as `npm run build` ships it): the arrow
// keys keep moving the slides after a click into a widget or an embedded iframe, a field being typed
// into keeps its keys, fragments step the worked example, a hover under the deck's scale finds the
// cell under the pointer, pictures are painted at that scale, and ?print-pdf draws every widget.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { openPage, setUp } from './browser.mjs';
import { canvasColours, declaredExports, nextFrames, slideReady } from './widget-checks.mjs';

const DECK = new URL('../../build/examples/reveal/', import.meta.url).pathname;

assert.ok(existsSync(`${DECK}index.html`), 'build/examples/reveal is missing: bash scripts/build.sh package');
const { server, browser } = await setUp({ root: DECK, isolated: false });

/** the deck at `slide`, ready, with the widgets of the shown slide drawn */
async function openDeck(slide, { viewport = { width: 1280, height: 800 }, query = '' } = {}) {
  const opened = await openPage(browser, `${server.url}${query}#/${slide}`, { viewport });
  await opened.page.waitForFunction(() => window.deck?.isReady(), null, { timeout: 60000 });
  if (!query) await slideReady(opened.page, 'section.present');
  return opened;
}

const slideShown = (page) => page.evaluate(() => window.deck.getCurrentSlide().id);
const stage = (page) => page.evaluate(() => document.querySelector('section.present attn-attention-steps').getAttribute('step'));

function noStrangers(requests) {
  assert.deepEqual(requests.filter((u) => !u.startsWith(server.url) && !u.startsWith('data:') && !u.startsWith('blob:')), []);
}

/** the control the pointer used has let go of the focus (in the task after the click, which a busy
 * page may run a while later), so the deck's keys reach the deck */
const focusHandedBack = (page) => page.waitForFunction(() => {
  let focused = document.activeElement;
  while (focused?.shadowRoot?.activeElement) focused = focused.shadowRoot.activeElement;
  return !(focused instanceof HTMLInputElement || focused instanceof HTMLButtonElement);
});

describe('attnlab/reveal in a reveal.js deck', () => {
  it('gives the arrow keys back to the deck after a click into a widget, but not while typing', async () => {
    const { page, problems, requests, close } = await openDeck('positions');
    // a slider moved with the pointer, then →: the deck moves on
    const slider = page.locator('attn-positional-encoding input[type="range"]').first();
    const before = await slider.inputValue();
    await slider.click({ position: { x: 10, y: 5 } });
    assert.notEqual(await slider.inputValue(), before, 'the click moved the slider');
    await focusHandedBack(page);
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => window.deck.getCurrentSlide().id === 'iframe');
    // a button pressed with the pointer, then ←: the deck moves back
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => window.deck.getCurrentSlide().id === 'positions');
    await page.locator('attn-positional-encoding button', { hasText: 'ALiBi' }).click();
    await focusHandedBack(page);
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => window.deck.getCurrentSlide().id === 'explorer');
    // ← in the sentence being typed moves the caret, not the deck
    await slideReady(page, 'section.present');
    const field = page.locator('attn-explorer').getByRole('textbox', { name: 'sentence' });
    await field.click();
    await page.keyboard.press('End');
    const caret = () => field.evaluate((input) => input.selectionStart);
    const end = await caret();
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await caret(), end - 2);
    assert.equal(await slideShown(page), 'explorer');
    assert.deepEqual(problems, []);
    noStrangers(requests);
    await close();
  });

  it('loads one engine for the deck, and asks it nothing while the viewer moves between drawn slides', async () => {
    // every message the page sends to a worker (the engine's) is counted
    const init = () => {
      window.enginePosts = 0;
      const post = Worker.prototype.postMessage;
      Worker.prototype.postMessage = function count(...args) {
        window.enginePosts++;
        return post.apply(this, args);
      };
    };
    const { page, problems, requests, close } = await openPage(browser, `${server.url}#/title`, { init });
    await page.waitForFunction(() => window.deck?.isReady(), null, { timeout: 60000 });
    // the three widgets, on three slides, render while the title is shown (the iframe's slide is
    // beyond reveal.js's view distance and not loaded yet)
    await slideReady(page, '.slides');
    assert.equal(requests.filter((u) => u.endsWith('.wasm')).length, 1, 'one engine');
    const posted = await page.evaluate(() => window.enginePosts);
    for (const h of [1, 2, 3, 2, 1, 0]) {
      await page.evaluate((index) => window.deck.slide(index), h);
      await nextFrames(page);
    }
    await slideReady(page, '.slides');
    assert.equal(await page.evaluate(() => window.enginePosts), posted, 'no engine call for slides already drawn');
    assert.deepEqual(problems, []);
    await close();
  });

  it('steps the worked example one stage per fragment, then moves on, and back', async () => {
    const { page, problems, close } = await openDeck('worked-example');
    assert.equal(await stage(page), '1');
    for (let step = 2; step <= 6; step++) {
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction((s) => document.querySelector('attn-attention-steps').getAttribute('step') === String(s), step);
      assert.equal(await slideShown(page), 'worked-example');
    }
    await slideReady(page, 'section.present');
    assert.match(await page.locator('section.present attn-attention-steps h4[aria-live]').textContent(), /^6\. /);
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => window.deck.getCurrentSlide().id === 'explorer');
    // back into the slide: every fragment shown, the last stage; one more ← steps back a stage
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => window.deck.getCurrentSlide().id === 'worked-example');
    assert.equal(await stage(page), '6');
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => document.querySelector('attn-attention-steps').getAttribute('step') === '5');
    assert.deepEqual(problems, []);
    await close();
  });

  it('finds the hovered cell and paints sharp pictures under the deck\'s scale', async () => {
    const { page, problems, close } = await openDeck('explorer', { viewport: { width: 1700, height: 1000 } });
    const scale = await page.evaluate(() => window.deck.getScale());
    assert.ok(scale > 1.1, `the deck is scaled (${scale})`);
    const map = page.locator('attn-explorer figure.heatmap').first();
    const canvas = map.locator('canvas');
    const geometry = await canvas.evaluate((c) => {
      const box = c.getBoundingClientRect();
      const [left, top, width, height] = c.closest('figure').dataset.plot.split(' ').map(Number);
      return { box: { x: box.x, y: box.y, width: box.width }, drawing: parseFloat(c.style.width), left, top, width, height,
        backing: c.width, layout: c.offsetWidth, ratio: devicePixelRatio };
    });
    // the backing store has as many pixels as the canvas covers on screen
    assert.ok(Math.abs(geometry.backing - geometry.box.width * geometry.ratio) <= 2,
      `canvas of ${geometry.backing} px shown ${geometry.box.width.toFixed(1)} px wide`);
    // the cell of "it" (row 7) and "mat" (column 5) of 10 words, in screen pixels
    const k = geometry.box.width / geometry.drawing;
    const x = geometry.box.x + k * (geometry.left + geometry.width * (5.5 / 10));
    const y = geometry.box.y + k * (geometry.top + geometry.height * (7.5 / 10));
    await page.mouse.move(x, y);
    await map.locator('figcaption', { hasText: /^“it” → “mat”: / }).waitFor();
    assert.deepEqual(problems, []);
    await close();
  });

  it('hands the keys of an embedded widget back to the deck', async () => {
    const { page, problems, requests, close } = await openDeck('iframe');
    const frame = page.frameLocator('iframe');
    await frame.locator('attn-attention-map[data-ready="true"]').waitFor({ timeout: 120000 });
    await frame.locator('attn-attention-map canvas').click();
    assert.equal(await page.evaluate(() => document.activeElement.localName), 'iframe', 'the keys go to the iframe');
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => window.deck.getCurrentSlide().id === 'positions');
    assert.deepEqual(problems, []);
    noStrangers(requests);
    await close();
  });

  it('draws every widget in the PDF view, a page per stage of the worked example', async () => {
    const { page, problems, close } = await openDeck('', { query: '?print-pdf', viewport: { width: 1280, height: 800 } });
    await page.waitForSelector('.pdf-page', { timeout: 60000 });
    await slideReady(page, '.slides');
    const steps = await page.locator('attn-attention-steps').evaluateAll((ws) => ws.map((w) => w.getAttribute('step')));
    assert.deepEqual(steps, ['1', '2', '3', '4', '5', '6']);
    for (const tag of ['attn-explorer', 'attn-positional-encoding']) {
      const counts = await canvasColours(page.locator(tag));
      assert.ok(counts.length > 0 && counts.every((c) => c > 20), `${tag} draws in the PDF view: ${counts}`);
    }
    const embedded = page.frameLocator('iframe').locator('attn-attention-map');
    await embedded.and(page.frameLocator('iframe').locator('[data-ready="true"]')).waitFor({ timeout: 120000 });
    const drawn = await canvasColours(embedded);
    assert.ok(drawn.length === 1 && drawn[0] > 20, `the iframe's widget draws in the PDF view: ${drawn}`);
    // the worked example's numbers are there on every page: the output of the last stage
    const cells = await page.locator('attn-attention-steps').last().locator('td').count();
    assert.ok(cells > 0);
    assert.deepEqual(problems, []);
    await close();
  });

  it('exports what its declaration file declares', async () => {
    const { page, close } = await openDeck('title');
    const exported = await page.evaluate(async () => Object.keys(await import('./attnlab/attnlab-reveal.js')).sort());
    assert.deepEqual(exported, declaredExports('attnlab/reveal'));
    await close();
  });
});
