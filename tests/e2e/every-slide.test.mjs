// Every slide as a reader sees it: in the light theme at 1280×720, the dark theme at 1920×1080 and
// on a 390×844 phone, once its widgets have drawn, nothing reaches past its slide sideways (and on the
// phone nothing but a display formula scrolls sideways: pictures and tables are laid out for its
// width), no text
// is too small to read, and every picture stands out from the page it is drawn on. Each failure
// names the slide, the view, the element and the value. (Layout, colour and size only: what the
// widgets compute is their own tests' business.)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { followHash, nextFrames, slideIds, slideReady } from './widget-checks.mjs';

const { server, browser } = await setUp();

/** the smallest text anywhere, in CSS px of the slide (1280×720; a phone's own px) */
const MIN_TEXT = 12;
/** the smallest running text on a slide of the deck (a formula is measured by its base size, not its
 * scripts'); the small print of a picture (SMALL_PRINT) may be MIN_TEXT */
const MIN_DECK_TEXT = 14;
/** a picture's small print: its legend and its caption (its tick labels are drawn on its canvas) */
const SMALL_PRINT = 'figcaption, caption, .legend';
/** the lowest contrast ratio of a picture's strongest colour, and of every line, against its background (WCAG's for graphics) */
const MIN_CONTRAST = 3;
/** the share of a picture's pixels that must differ perceptibly from its background */
const MIN_DRAWN = 0.01;

/** An init script: remembers, for each canvas, the size of the text drawn on it (in the canvas's
 * own pixels, transform included) and the colours and opacities of its lines, since it was last
 * sized (a repaint starts by sizing it). */
function recordCanvasDrawing() {
  const drawn = new WeakMap();
  const entry = (canvas) => {
    if (!drawn.has(canvas)) drawn.set(canvas, { text: [], lines: new Set() });
    return drawn.get(canvas);
  };
  globalThis.canvasDrawing = (canvas) => drawn.get(canvas) ?? { text: [], lines: new Set() };
  for (const side of ['width', 'height']) {
    const property = Object.getOwnPropertyDescriptor(HTMLCanvasElement.prototype, side);
    Object.defineProperty(HTMLCanvasElement.prototype, side, {
      ...property,
      set(value) {
        drawn.delete(this);
        property.set.call(this, value);
      },
    });
  }
  const context = CanvasRenderingContext2D.prototype;
  for (const method of ['fillText', 'strokeText']) {
    const original = context[method];
    context[method] = function draw(text, ...rest) {
      const px = Number(/(\d+(?:\.\d+)?)px/.exec(this.font)?.[1]);
      const { a, b } = this.getTransform();
      if (String(text).trim() && px) entry(this.canvas).text.push({ text: String(text), px: px * Math.hypot(a, b) });
      return original.call(this, text, ...rest);
    };
  }
  const stroke = context.stroke;
  context.stroke = function draw(...args) {
    if (typeof this.strokeStyle === 'string') entry(this.canvas).lines.add(`${this.strokeStyle} ${this.globalAlpha}`);
    return stroke.apply(this, args);
  };
}

/** Runs in the page: what is wrong with the slide `id` as shown, as strings (`problems`), and how
 * many canvases and canvas texts it measured (`measured`: the hook saw their drawing). `deck`: the slide is
 * one of the deck's 1280×720 pages (not a phone's stacked one), where running text must be
 * MIN_DECK_TEXT. */
function inspectSlide([id, deck, limits]) {
  const slide = document.getElementById(id);
  const scale = slide.getBoundingClientRect().width / slide.offsetWidth;
  const problems = [];
  const measured = { canvases: 0, texts: 0 };
  const name = (e) => {
    const host = e.getRootNode().host;
    const own = `${e.localName}${e.id ? `#${e.id}` : ''}${typeof e.className === 'string' && e.className ? `.${e.className.trim().split(/\s+/).join('.')}` : ''}`;
    return host ? `<${host.localName}> ${own}` : own;
  };
  // every element of the slide, inside widgets' shadow roots too
  const elements = [];
  const walk = (root) => {
    for (const e of root.querySelectorAll('*')) {
      elements.push(e);
      if (e.shadowRoot) walk(e.shadowRoot);
    }
  };
  walk(slide);
  /** the element's parent, through a shadow root to its host */
  const up = (e) => e.parentElement ?? e.getRootNode().host ?? null;
  const hidden = (e) => {
    for (let a = e; a && a !== slide; a = up(a)) {
      if (a.matches('.sr-only, .sr-table, .katex-mathml')) return true;
    }
    return !e.checkVisibility({ visibilityProperty: true, opacityProperty: true });
  };
  const shown = elements.filter((e) => !hidden(e));

  // sideways: past the slide's edges, unless a scroller or a clipping box on the way holds it
  const box = slide.getBoundingClientRect();
  const held = (e) => {
    for (let a = up(e); a && a !== slide; a = up(a)) {
      if (['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(a).overflowX)) return true;
      if (a.localName === 'svg') return true;
    }
    return false;
  };
  // and on the deck's pages, below its padding, where the slide ends or the deck's bar lies
  const bottom = box.bottom - parseFloat(getComputedStyle(slide).paddingBottom) * scale;
  const reported = new Set();
  for (const e of shown) {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || held(e)) continue;
    let outer = false;
    for (let a = up(e); a && a !== slide && !outer; a = up(a)) outer = reported.has(a);
    if (outer) continue;
    const past = Math.max(r.right - box.right, box.left - r.left) / scale;
    const below = deck ? (r.bottom - bottom) / scale : 0;
    if (past > 1) problems.push(`${name(e)} reaches ${Math.round(past)} px past the slide's side`);
    if (below > 1) problems.push(`${name(e)} reaches ${Math.round(below)} px below the slide`);
    if (past > 1 || below > 1) reported.add(e);
  }

  // on a phone, pictures and tables fit the width: only a display formula may scroll sideways, in a box of its own
  if (!deck) {
    for (const e of shown) {
      if (e.matches('.katex-display') || !['auto', 'scroll'].includes(getComputedStyle(e).overflowX)) continue;
      if (e.scrollWidth > e.clientWidth + 1) problems.push(`${name(e)} scrolls sideways: ${e.scrollWidth} px of content in ${e.clientWidth}`);
    }
  }

  // text: each element's own text, at the size it is shown
  const formulaBase = (e) => (e.closest('.katex') && getComputedStyle(e.closest('.katex')).fontSize)
    || (e.matches('sub, sup') && getComputedStyle(e.parentElement).fontSize);
  for (const e of shown) {
    const own = [...e.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim())
      || (e.matches('input, select, textarea') && e.type !== 'range' && e.type !== 'checkbox');
    if (!own) continue;
    let px = parseFloat(formulaBase(e) || getComputedStyle(e).fontSize);
    const svg = e.closest('svg');
    if (svg?.viewBox.baseVal?.width) px *= svg.getBoundingClientRect().width / scale / svg.viewBox.baseVal.width;
    const least = deck && !e.closest(limits.smallPrint) ? limits.deckText : limits.text;
    if (px < least - 0.01) problems.push(`${name(e)} "${e.textContent.trim().slice(0, 30)}" is ${px.toFixed(1)} px`);
  }

  // pictures: the background each is drawn on, its text, its lines and its pixels
  const channel = (c) => {
    const v = c / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const contrast = (x, y) => {
    const [hi, lo] = [luminance(x), luminance(y)].sort((p, q) => q - p);
    return (hi + 0.05) / (lo + 0.05);
  };
  const probe = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
  const rgb = (colour) => {
    probe.clearRect(0, 0, 1, 1);
    probe.fillStyle = colour;
    probe.fillRect(0, 0, 1, 1);
    return [...probe.getImageData(0, 0, 1, 1).data.slice(0, 3)];
  };
  const background = (e) => {
    for (let a = e; a; a = up(a)) {
      const colour = getComputedStyle(a).backgroundColor;
      if (!/^rgba\(.*,\s*0\)$|transparent/.test(colour)) return rgb(colour);
    }
    return [255, 255, 255];
  };
  for (const canvas of shown.filter((e) => e.localName === 'canvas')) {
    const r = canvas.getBoundingClientRect();
    if (canvas.width === 0 || r.width < 8) continue;
    const onScreen = r.width / canvas.width / scale;
    const { text, lines } = globalThis.canvasDrawing(canvas);
    measured.canvases++;
    measured.texts += text.length;
    const smallest = text.reduce((least, t) => (t.px < least.px ? t : least), { px: Infinity });
    if (smallest.px * onScreen < limits.text - 0.1) {
      problems.push(`${name(canvas)} draws "${smallest.text}" at ${(smallest.px * onScreen).toFixed(1)} px`);
    }
    const page = background(canvas);
    const grid = getComputedStyle(canvas).getPropertyValue('--border').trim();
    // every line but the grid's, as it shows through its opacity
    for (const line of lines) {
      const [colour, alpha] = [line.slice(0, line.lastIndexOf(' ')), Number(line.slice(line.lastIndexOf(' ') + 1))];
      if (grid && rgb(colour).join() === rgb(grid).join()) continue;
      const ratio = contrast(rgb(colour).map((v, c) => v * alpha + page[c] * (1 - alpha)), page);
      if (ratio < limits.contrast) problems.push(`${name(canvas)} draws a line in ${colour} at opacity ${alpha}: ${ratio.toFixed(2)}:1 against its background`);
    }
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let counted = 0;
    let differing = 0;
    let strongest = 1;
    const stride = Math.max(1, Math.floor(data.length / 4 / 40000));
    for (let i = 0; i < data.length; i += 4 * stride) {
      const alpha = data[i + 3] / 255;
      const pixel = [0, 1, 2].map((c) => data[i + c] * alpha + page[c] * (1 - alpha));
      counted++;
      if (Math.max(...pixel.map((v, c) => Math.abs(v - page[c]))) > 24) differing++;
      strongest = Math.max(strongest, contrast(pixel, page));
    }
    if (differing / counted < limits.drawn) problems.push(`${name(canvas)}: ${(100 * differing / counted).toFixed(1)} % of it differs from its background`);
    if (strongest < limits.contrast) problems.push(`${name(canvas)}: its strongest colour is ${strongest.toFixed(2)}:1 against its background`);
  }
  return { problems, measured };
}

/** What is known to fail and not yet fixed, each with its reason: a problem of these slides that
 * matches is left out (anything else on them still fails). Remove an entry once its slide is fixed. */
const PENDING = [
];
const pending = (id, problem) => PENDING.some((p) => p.slide === id && p.problem.test(problem));

const LIMITS = { text: MIN_TEXT, deckText: MIN_DECK_TEXT, smallPrint: SMALL_PRINT, contrast: MIN_CONTRAST, drawn: MIN_DRAWN };

const VIEWS = [
  { colorScheme: 'light', viewport: { width: 1280, height: 720 } },
  { colorScheme: 'dark', viewport: { width: 1920, height: 1080 } },
  { colorScheme: 'light', viewport: { width: 390, height: 844 } },
];

describe('every slide, in both themes and on a phone', () => {
  for (const { colorScheme, viewport } of VIEWS) {
    const view = `${colorScheme}, ${viewport.width}×${viewport.height}`;
    it(`fits, reads and shows at ${view}`, { timeout: 240000 }, async () => {
      const { page, problems, close } = await openPage(browser, server.url, { colorScheme, viewport, init: recordCanvasDrawing });
      const ids = await slideIds(page);
      const phone = await page.evaluate(() => document.documentElement.classList.contains('stacked'));
      const found = [];
      const measured = { canvases: 0, texts: 0 };
      if (phone) await slideReady(page, 'body');
      for (const id of ids) {
        if (phone) await page.locator(`section#${id}`).scrollIntoViewIfNeeded();
        else await followHash(page, id);
        await slideReady(page, phone ? `section#${id}` : undefined);
        await nextFrames(page);
        const slide = await page.evaluate(inspectSlide, [id, !phone, LIMITS]);
        for (const problem of slide.problems) if (!pending(id, problem)) found.push(`#${id} (${view}): ${problem}`);
        measured.canvases += slide.measured.canvases;
        measured.texts += slide.measured.texts;
      }
      // the checks saw the pictures (a hook that recorded nothing would pass anything)
      assert.ok(measured.canvases >= ids.length && measured.texts > 10 * ids.length, JSON.stringify(measured));
      if (phone) {
        // the deck's bar has a row of its own, below the slides' scrolling box: it covers none of them
        const [bar, slides] = await page.evaluate(() => ['#deck-bar', '#stage'].map((s) => document.querySelector(s).getBoundingClientRect().toJSON()));
        assert.ok(bar.top >= slides.bottom - 1, `the bar (top ${bar.top}) lies over the slides (bottom ${slides.bottom})`);
        // and every control of the bar is whole on the screen
        const cut = await page.locator('#deck-bar button').evaluateAll((buttons) => buttons
          .filter((b) => { const r = b.getBoundingClientRect(); return r.left < 0 || r.right > innerWidth || b.scrollWidth > b.clientWidth + 1; })
          .map((b) => b.textContent));
        assert.deepEqual(cut, [], 'controls of the bar cut off on the phone');
      }
      assert.deepEqual(problems, []);
      assert.equal(found.length, 0, `${found.length} problems:\n${found.join('\n')}`);
      await close();
    });
  }
});
