// The glossary in Chromium: a marked term opens its definition (the glossary slide's, word for word)
// on hover, on a tap and on keyboard focus, beside the term and inside the window; Escape closes it
// without opening the deck's overview, the arrow keys stay the deck's, and "see it live →" moves the
// deck to the term's slide. G and the bar's A–Z open the glossary slide (not while typing), G again
// goes back. The same in the offline file from file://, and in embed.html, where a widget's caption
// term links to the deck page. Screenshots of popups and the glossary slide at three sizes in both
// themes (build/screenshots/glossary/) for a person to look at.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { OFFLINE, openOffline, openPage, SCREENSHOTS, setUp } from './browser.mjs';
import { activeSlide, nextFrames, slideReady } from './widget-checks.mjs';

const SHOTS = `${SCREENSHOTS}glossary/`;
mkdirSync(SHOTS, { recursive: true });
assert.ok(existsSync(OFFLINE), 'build/offline/attnlab.html is missing: bash scripts/build.sh web');
const { server, browser } = await setUp();

/** The open popup of `scope` (the page, or a widget's shadow root): its term, definition and link,
 * where it is, where its term is, and whether the term says it is expanded and described by it. */
const popupOf = (scope) => scope.locator('.attn-term-popup:popover-open').evaluate((popup) => {
  const term = popup.previousElementSibling;
  const box = (r) => ({ left: r.left, top: r.top, right: r.right, bottom: r.bottom });
  const link = popup.querySelector('a');
  return {
    open: popup.matches(':popover-open'),
    role: popup.getAttribute('role'),
    term: popup.querySelector('.popup-term').textContent,
    definition: popup.querySelector('.popup-definition').textContent,
    link: link.hidden ? undefined : link.getAttribute('href'),
    target: link.getAttribute('target'),
    key: term.dataset.term,
    expanded: term.getAttribute('aria-expanded'),
    describedBy: term.getAttribute('aria-describedby') === popup.querySelector('.popup-definition').id,
    popup: box(popup.getBoundingClientRect()),
    termBox: box(term.getBoundingClientRect()),
    window: { width: innerWidth, height: innerHeight },
  };
});

const isOpen = (scope) => scope.locator('.attn-term-popup:popover-open').count().then((n) => n > 0);

/** the popup lies inside the window and clear of its term */
function assertPlaced(p) {
  assert.ok(p.popup.left >= 0 && p.popup.top >= 0 && p.popup.right <= p.window.width && p.popup.bottom <= p.window.height,
    `popup ${JSON.stringify(p.popup)} outside the window ${JSON.stringify(p.window)}`);
  const overlaps = p.popup.left < p.termBox.right && p.termBox.left < p.popup.right && p.popup.top < p.termBox.bottom && p.termBox.top < p.popup.bottom;
  assert.ok(!overlaps, `popup ${JSON.stringify(p.popup)} covers its term ${JSON.stringify(p.termBox)}`);
}

/** the glossary slide's definition of `key`, as text */
const glossaryDefinition = (page, key) => page.locator(`#glossary-${key} .definition`).textContent();

describe('the glossary', () => {
  it('opens a term\'s definition on hover, tap and focus, closes on Escape, links to its slide; G opens the glossary', { timeout: 120000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, hasTouch: true });
    const page = await context.newPage();
    const problems = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${server.url}#why-sqrt-dk`);
    const slide = page.locator('section#why-sqrt-dk');
    await slide.and(page.locator('.active')).waitFor();
    assert.ok(await page.locator('#glossary .glossary-entry').count() >= 60);

    // hover: the definition the glossary slide has, beside the term; leaving closes it
    await slide.locator('[data-term="softmax"]').hover();
    await page.locator('.attn-term-popup:popover-open').waitFor();
    let popup = await popupOf(page);
    assert.equal(popup.role, 'dialog');
    assert.equal(popup.term, 'softmax');
    assert.equal(popup.definition, await glossaryDefinition(page, 'softmax'));
    assert.match(popup.definition, /subtracts the row's maximum/);
    assert.equal(popup.link, '#why-sqrt-dk');
    assert.equal(popup.expanded, 'true');
    assert.ok(popup.describedBy, 'the term is described by the definition');
    assertPlaced(popup);
    await page.mouse.move(1200, 650);
    await page.waitForFunction(() => !document.querySelector('.attn-term-popup:popover-open'));
    assert.equal(await slide.locator('[data-term="softmax"]').getAttribute('aria-expanded'), 'false');

    // keyboard: Tab reaches the slide's first term, which opens; Tab goes on into the popup's link
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.term), 'attention-score');
    await page.locator('.attn-term-popup:popover-open').waitFor();
    popup = await popupOf(page);
    assert.equal(popup.term, 'attention score');
    assert.equal(popup.definition, await glossaryDefinition(page, 'attention-score'));
    assert.equal(popup.link, '#self-attention');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'see it live →');
    // Escape closes it and hands the focus back to the term; the deck's overview stays shut
    await page.keyboard.press('Escape');
    assert.equal(await isOpen(page), false);
    assert.equal(await page.evaluate(() => document.activeElement.dataset.term), 'attention-score');
    assert.equal(await page.locator('#overview').isHidden(), true);
    // Enter opens it again; the arrows still move the deck, and the popup goes with its slide
    await page.keyboard.press('Enter');
    await page.locator('.attn-term-popup:popover-open').waitFor();
    await page.keyboard.press('ArrowRight');
    assert.equal(await activeSlide(page), 'multi-head');
    await page.waitForFunction(() => !document.querySelector('.attn-term-popup:popover-open'));
    await page.keyboard.press('ArrowLeft');
    assert.equal(await activeSlide(page), 'why-sqrt-dk');

    // "see it live →" moves the deck to the term's slide
    await slide.locator('[data-term="attention-score"]').hover();
    await page.locator('.attn-term-popup:popover-open a').click();
    await page.locator('section#self-attention.active').waitFor();
    await page.waitForURL(/#self-attention/);
    assert.equal(await isOpen(page), false);

    // a tap: opens and stays, on a slide and in a widget's caption (its shadow root); a tap elsewhere closes
    await page.goto(`${server.url}#causal-mask`);
    await slideReady(page);
    const mask = page.locator('section#causal-mask');
    await mask.locator('.text [data-term="decoder"]').tap();
    await page.locator('.attn-term-popup:popover-open').waitFor();
    popup = await popupOf(page);
    assert.equal(popup.definition, await glossaryDefinition(page, 'decoder'));
    assert.equal(popup.link, '#families');
    assertPlaced(popup);
    // longer than a hovered popup's grace once the pointer has gone
    await page.waitForTimeout(400);
    assert.equal(await isOpen(page), true, 'a tapped term stays open');
    await page.screenshot({ path: `${SHOTS}tap-causal-mask.png` });
    const widget = page.locator('attn-causal-mask');
    await widget.locator('.caption [data-term="query"]').tap();
    await widget.locator('.attn-term-popup:popover-open').waitFor();
    assert.equal(await isOpen(mask.locator('.text')), false, 'one popup at a time');
    popup = await popupOf(widget);
    assert.equal(popup.term, 'query');
    assert.equal(popup.definition, await glossaryDefinition(page, 'query'));
    assert.equal(popup.link, '#self-attention');
    assertPlaced(popup);
    await page.touchscreen.tap(1200, 120);
    await page.waitForFunction(() => !document.querySelector('attn-causal-mask').shadowRoot.querySelector('.attn-term-popup:popover-open'));

    // G: not while typing into a field; then the glossary, and G again goes back; the bar's A–Z too
    const field = widget.getByRole('textbox', { name: 'letters' });
    await field.focus();
    await page.keyboard.press('End');
    await page.keyboard.type('g');
    assert.equal(await activeSlide(page), 'causal-mask');
    assert.match(await field.inputValue(), /g$/);
    await field.evaluate((input) => input.blur());
    await page.keyboard.press('g');
    await page.locator('section#glossary.active').waitFor();
    await page.waitForURL(/#glossary/);
    await page.keyboard.press('G');
    await page.locator('section#causal-mask.active').waitFor();
    await page.locator('#glossary-toggle').click();
    await page.locator('section#glossary.active').waitFor();
    // the glossary's own links move the deck too
    await page.locator('#glossary-rope a').click();
    await page.locator('section#rope.active').waitFor();
    assert.deepEqual(problems, []);

    // screenshots: a popup on two slides and the glossary, at three sizes in both themes
    const shots = [
      ['why-sqrt-dk', 'section#why-sqrt-dk [data-term="softmax"]'],
      ['positions', 'section#positions [data-term="alibi"]'],
      ['glossary'],
    ];
    for (const colorScheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme });
      for (const [width, height] of [[1280, 720], [1920, 1080], [390, 844]]) {
        await page.setViewportSize({ width, height });
        for (const [id, term] of shots) {
          await page.evaluate((slide) => { location.hash = `#${slide}`; }, id);
          await page.locator(`section#${id}.active`).waitFor();
          const target = term ? page.locator(term) : page.locator(`section#${id} h2`);
          await target.scrollIntoViewIfNeeded();
          if (term) {
            await target.hover();
            await page.locator('.attn-term-popup:popover-open').waitFor();
            assertPlaced(await popupOf(page));
          }
          await nextFrames(page);
          await page.screenshot({ path: `${SHOTS}${id}-${width}-${colorScheme}.png` });
          await page.mouse.move(0, 0);
        }
      }
    }
    // the glossary fits its slide: the list scrolls within it, every column inside the slide
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.evaluate(() => { location.hash = '#glossary'; });
    const fits = await page.locator('section#glossary .glossary-scroll').evaluate((box) => {
      const slide = box.closest('section').getBoundingClientRect();
      const inner = box.getBoundingClientRect();
      return { inside: inner.bottom <= slide.bottom && inner.right <= slide.right + 20, scrolls: box.scrollHeight > box.clientHeight };
    });
    assert.deepEqual(fits, { inside: true, scrolls: true });
    // its foot fades while more lies below, and not once scrolled to the end
    const faded = () => page.locator('section#glossary .glossary-scroll').evaluate((box) => getComputedStyle(box).maskImage !== 'none');
    assert.equal(await faded(), true);
    await page.locator('section#glossary .glossary-scroll').evaluate((box) => { box.scrollTop = box.scrollHeight; });
    await page.waitForFunction(() => document.querySelector('section#glossary .glossary-scroll').classList.contains('at-end'));
    assert.equal(await faded(), false);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('works in the offline file from file://', async () => {
    const { page, problems, refused, close } = await openOffline(browser, 'kv-cache');
    await page.locator('section#kv-cache.active').waitFor();
    await page.locator('section#kv-cache [data-term="causal-mask"]').hover();
    await page.locator('.attn-term-popup:popover-open').waitFor();
    const popup = await popupOf(page);
    assert.equal(popup.definition, await glossaryDefinition(page, 'causal-mask'));
    assert.match(popup.definition, /Mij=0/);
    await page.locator('.attn-term-popup:popover-open a').click();
    await page.locator('section#causal-mask.active').waitFor();
    await page.keyboard.press('g');
    await page.locator('section#glossary.active').waitFor();
    assert.deepEqual(problems, []);
    assert.deepEqual(refused, []);
    await close();
  });

  it('opens a widget caption\'s term in embed.html, linking to the deck page', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}embed.html#causal-mask`);
    const widget = page.locator('attn-causal-mask');
    await widget.locator('.caption [data-term="key"]').hover();
    await widget.locator('.attn-term-popup:popover-open').waitFor();
    // the first formula in the widget loads KaTeX's fonts, and the popup, grown, is placed again
    await page.evaluate(() => document.fonts.ready);
    await nextFrames(page);
    const popup = await popupOf(widget);
    assert.equal(popup.term, 'key');
    assert.match(popup.definition, /by which position .+ is found/);
    assert.equal(popup.link, `${server.url}index.html#self-attention`);
    assert.equal(popup.target, '_blank');
    assertPlaced(popup);
    await page.screenshot({ path: `${SHOTS}embed-causal-mask.png` });
    // no deck here: G does nothing, Escape closes the popup
    await page.keyboard.press('g');
    await page.keyboard.press('Escape');
    assert.equal(await isOpen(widget), false);
    assert.match(page.url(), /embed\.html#causal-mask$/);
    // the link's page is the deck at that slide
    await page.goto(popup.link);
    await page.locator('section#self-attention.active').waitFor();
    assert.deepEqual(problems, []);
    await close();
  });
});
