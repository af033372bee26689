// Checks shared by the widget tests: whether canvases show a picture, the page's main-thread tasks
// in a browser trace and its long tasks, what a package entry declares, a widget's downloads, and
// screenshots of one slide at the deck's two reference sizes in both themes, for a person to look at.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { openPage, packageEngine, SCREENSHOTS } from './browser.mjs';
import { DIST } from './server.mjs';

/** An `init` script for openPage: records the page's main-thread tasks over 50 ms of wall time
 * (the 'longtask' API) from its first script on. */
export function recordLongTasks() {
  globalThis.longTasks = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) globalThis.longTasks.push({ start: entry.startTime, duration: entry.duration });
  }).observe({ type: 'longtask', buffered: true });
}

/** the long tasks recordLongTasks saw that started from `from` (page time, ms) to `to` */
export const longTasksBetween = (page, from = 0, to = Infinity) => page.evaluate(([start, end]) =>
  globalThis.longTasks.filter((t) => t.start >= start && t.start <= end), [from, to === Infinity ? Number.MAX_VALUE : to]);

/** one of the built page's shipped models, loaded into the package's engine in Node */
export async function shippedModel(name) {
  const engine = await packageEngine();
  const folder = join(DIST, 'models', name);
  return engine.loadModel({ weights: new Uint8Array(readFileSync(join(folder, 'model.safetensors'))),
    config: readFileSync(join(folder, 'config.json'), 'utf8'), vocab: readFileSync(join(folder, 'vocab.json'), 'utf8') });
}

/** one head's attention weights on `text` as rows of numbers, as `model` (a shippedModel) computes
 * them in Node */
export function headWeights(model, text, layer, head) {
  const name = `layer${layer}.attn.head${head}.weights`;
  const m = model.forward({ tokens: model.tokenize(text).ids, trace: [name] }).trace[name];
  return Array.from({ length: m.rows }, (_, i) => Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols)));
}

/** the values a package entry ("attnlab/widgets") exports, as its declarations tell TypeScript */
export function declaredExports(entry) {
  const root = new URL('../../', import.meta.url);
  const { exports } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
  const file = fileURLToPath(new URL(exports[entry.replace(/^attnlab/, '.')].types, root));
  const program = ts.createProgram([file], { noEmit: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext });
  const checker = program.getTypeChecker();
  return checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file)))
    .filter((s) => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s).flags & ts.SymbolFlags.Value)
    .map((s) => s.name).sort();
}

/** distinct colours on each visible canvas inside `locator` (a blank canvas has one), once its widget has painted */
export const canvasColours = async (locator) => {
  await locator.evaluateAll((elements) => new Promise((resolve) => {
    const hosts = elements.map((e) => e.getRootNode().host ?? e.closest('[aria-busy]')).filter(Boolean);
    const check = () => (hosts.some((h) => h.hasAttribute('aria-busy')) ? requestAnimationFrame(check) : resolve());
    check();
  }));
  return locator.locator('canvas').evaluateAll((canvases) =>
    canvases.filter((c) => c.checkVisibility()).map((c) => {
      const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
      const seen = new Set();
      for (let i = 0; i < data.length; i += 4 * 3) seen.add(`${data[i]},${data[i + 1]},${data[i + 2]},${data[i + 3]}`);
      return seen.size;
    }));
};

/** distinct colours among the cells of each heatmap (figure.heatmap, its cells where its data-plot
 * says) inside `locator`: its axes and legend left out, so a matrix of one value has one */
export const heatmapCellColours = (locator) => locator.locator('figure.heatmap').evaluateAll((figures) => figures.map((figure) => {
  const canvas = figure.querySelector('canvas');
  const [left, top, width, height] = figure.dataset.plot.split(' ').map(Number);
  const k = canvas.width / canvas.offsetWidth;
  // a pixel inside the edges: the cells' outer pixels blend with the background
  const { data } = canvas.getContext('2d').getImageData(Math.ceil(left * k) + 1, Math.ceil(top * k) + 1, Math.floor(width * k) - 2, Math.floor(height * k) - 2);
  const seen = new Set();
  for (let i = 0; i < data.length; i += 4) seen.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
  return seen.size;
}));

/** The page's main-thread tasks between two console.timeStamp marks of a Chrome trace (recorded
 * with browser.startTracing and the 'devtools.timeline' category): the wall time each took, the CPU
 * time its thread spent on it, and how much of that was the garbage collector's (a task the heap
 * posted, or a collection inside another task), all in ms. Without `from`, every task of that
 * thread in the trace up to `to` (the page's load too). */
export function tasksBetween(trace, from, to) {
  const events = JSON.parse(trace.toString()).traceEvents;
  const mark = (message) => events.find((e) => e.name === 'TimeStamp' && e.args?.data?.message === message);
  const end = mark(to);
  const start = from === undefined ? undefined : mark(from);
  const onThread = (e) => e.ph === 'X' && e.pid === end.pid && e.tid === end.tid;
  const cpu = (e) => (e.tdur ?? e.dur) / 1000;
  const thread = events.filter(onThread);
  const collections = thread.filter((e) => e.name === 'MajorGC' || e.name === 'MinorGC');
  return thread.filter((e) => e.name === 'ThreadControllerImpl::RunTask' && e.ts >= (start?.ts ?? 0) && e.ts <= end.ts).map((e) => ({
    wall: e.dur / 1000,
    cpu: cpu(e),
    gc: e.args?.src_file?.includes('/heap/') ? cpu(e)
      : collections.filter((c) => c.ts >= e.ts && c.ts + c.dur <= e.ts + e.dur).reduce((sum, c) => sum + cpu(c), 0),
  }));
}

/** every widget under `scope` (default: the active slide) is defined and has painted its latest
 * picture; those in the window have written their latest numbers into their screen-reader tables
 * too (the others write theirs when they come into view). A widget that measures the engine is ready
 * once it has painted its first points (its progress line tells of the rest). After two minutes it fails, naming the widgets still waited for. */
export async function slideReady(page, scope = 'section.slide.active') {
  const pending = (selector) => {
    const inWindow = (e) => {
      const box = e.getBoundingClientRect();
      return e.checkVisibility() && box.bottom > 0 && box.right > 0 && box.top < innerHeight && box.left < innerWidth;
    };
    const painted = (e) => e.dataset.ready === 'true' && !e.hasAttribute('aria-busy');
    return [...document.querySelectorAll(`${selector} *`)].filter((e) => e.localName.startsWith('attn-'))
      .filter((e) => !(customElements.get(e.localName) && painted(e) && !(inWindow(e) && e.shadowRoot?.querySelector('.sr-table[aria-busy]'))))
      .map((e) => `<${e.localName}> in #${e.closest('section')?.id}: ${customElements.get(e.localName) ? '' : 'undefined, '}`
        + `ready=${e.dataset.ready}, busy=${e.hasAttribute('aria-busy')}, says "${e.shadowRoot?.textContent.trim().slice(0, 80) ?? ''}"`);
  };
  try {
    await page.waitForFunction(`(${pending})(${JSON.stringify(scope)}).length === 0`, null, { timeout: 120000 });
  } catch (error) {
    const left = await page.evaluate(pending, scope).catch(() => []);
    throw new Error(`${error.message}; not ready: ${left.join('; ') || 'none (it was the page)'}`);
  }
}

/** Calls `read` again until `done` holds for what it returns, or `timeout` ms have passed, and
 * returns the last value read (undefined where `read` threw): a widget writes its screen-reader
 * table a frame or more after its picture, and a table being rewritten may not exist for a moment. */
export async function eventually(read, done, { timeout = 30000 } = {}) {
  const end = Date.now() + timeout;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (done(value) || Date.now() > end) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Waits until the widget (a locator) has painted and is not busy: no render, no measurement or
 * training under way. What a paused or cancelled widget shows then stays, unless it runs on. */
export const untilIdle = (widget) => widget.evaluate((element) => new Promise((resolve) => {
  const check = () => (element.dataset.ready !== 'true' || element.hasAttribute('aria-busy') ? requestAnimationFrame(check) : resolve());
  check();
}));

/** the same JSON, for `eventually` */
export const equalTo = (want) => (value) => JSON.stringify(value) === JSON.stringify(want);

/** whether the numbers of `value` (nested arrays) are those of `want`, each within `unit`, one unit
 * of the last decimal the page shows: the page's engine may be the relaxed-SIMD one, whose fused
 * multiply-adds round a last bit apart from Node's engine's, and a shown digit can turn over */
export function withinShown(value, want, unit) {
  if (Array.isArray(want)) return Array.isArray(value) && value.length === want.length && want.every((w, i) => withinShown(value[i], w, unit));
  return typeof value === 'number' && Math.abs(value - want) <= unit * 1.001;
}

/** two animation frames on: a deck rescaled by a resize has laid out, and canvases redrawn at the new scale */
export const nextFrames = (page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));

/** Screenshots `${SCREENSHOTS}<name>-<width>-<theme>.png` of the page as it is, at 1280×720 and
 * 1920×1080, light and dark (the system theme switched, as a reader's would), for a person to look
 * at; returns their paths and leaves the page light at 1280×720. */
export async function screenshotPage(page, name) {
  const paths = [];
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    for (const [width, height] of [[1280, 720], [1920, 1080]]) {
      await page.setViewportSize({ width, height });
      await slideReady(page);
      await nextFrames(page);
      const path = `${SCREENSHOTS}${name}-${width}-${colorScheme}.png`;
      await page.screenshot({ path });
      paths.push(path);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 720 });
  return paths;
}

/** screenshotPage of `url` opened afresh; returns the paths and any console problems */
export async function screenshotSlide(browser, url, name) {
  const { page, problems, close } = await openPage(browser, url);
  const paths = await screenshotPage(page, name);
  await close();
  return { paths, problems };
}

/** the series of a Plot (`figure`: its figure.plot), read from its screen-reader table: { name: [[x, y], …] } */
export const plotSeries = (figure) => figure.locator('table').evaluate((table) => {
  const number = (text) => Number(text.replaceAll('−', '-'));
  const series = {};
  // a header row, then one row per point: its series' name, x, y
  for (const tr of [...table.rows].slice(1)) {
    const [name, ...cells] = tr.cells;
    (series[name.textContent] ??= []).push(cells.map((cell) => number(cell.textContent)));
  }
  return series;
});

/** whether the element lies inside its slide's padding box (nothing clipped by the slide); runs in the page */
function insideSlide(element) {
  const slide = element.closest('section.slide');
  const inner = element.getBoundingClientRect();
  const outer = slide.getBoundingClientRect();
  const scale = outer.width / slide.offsetWidth;
  const padding = getComputedStyle(slide);
  return inner.right <= outer.right - parseFloat(padding.paddingRight) * scale + 1
    && inner.bottom <= outer.bottom - parseFloat(padding.paddingBottom) * scale + 1;
}

/** whether the element lies inside its slide's padding box (nothing clipped by the slide) */
export const fitsSlide = (locator) => locator.evaluate(insideSlide);

/** the tags of the active slide's widgets that reach past its padding box */
export const widgetsPastSlide = (page) => page.evaluate(`[...document.querySelectorAll('section.slide.active *')]
  .filter((e) => e.localName.startsWith('attn-') && !(${insideSlide})(e)).map((e) => e.localName)`);

/** How far a widget's drawn content (every box in its shadow root, not the screen-reader copies
 * nor KaTeX's MathML, which are clipped to a pixel, nor the shapes inside an SVG, which clips them)
 * reaches past its slide's padding box, in px: { below, beyond }, both ≤ 0 when it fits. */
export const overflowPastSlide = (widget) => widget.evaluate((element) => {
  const slide = element.closest('section.slide');
  const box = slide.getBoundingClientRect();
  const style = getComputedStyle(slide);
  const scale = box.width / slide.offsetWidth;
  const drawn = [element, ...[...element.shadowRoot.querySelectorAll('*')].filter((e) => !e.closest('.sr-only, .katex-mathml') && !e.parentElement?.closest('svg'))]
    .map((e) => e.getBoundingClientRect()).filter((r) => r.width > 0);
  return {
    below: Math.max(...drawn.map((r) => r.bottom)) - (box.bottom - parseFloat(style.paddingBottom) * scale),
    beyond: Math.max(...drawn.map((r) => r.right)) - (box.right - parseFloat(style.paddingRight) * scale),
  };
});

/** Follows a link to `hash` within the open deck (the slide and the settings it names go to the
 * widgets, as a reader's link does) and waits until the slide is drawn. */
export async function followHash(page, hash) {
  await page.evaluate((target) => new Promise((resolve) => {
    if (location.hash === target) {
      resolve();
      return;
    }
    addEventListener('hashchange', () => resolve(), { once: true });
    location.hash = target;
  }), hash.startsWith('#') ? hash : `#${hash}`);
  await slideReady(page);
}

// (not locators: they look through every widget's shadow DOM, tens of milliseconds on the page's thread)
/** the deck's slide ids, in order */
export const slideIds = (page) => page.evaluate(() => [...document.querySelectorAll('section.slide')].map((s) => s.id));
/** the id of the slide shown */
export const activeSlide = (page) => page.evaluate(() => document.querySelector('section.slide.active').id);

/** clicks one of the widget's Share/Save buttons and returns the download's name and bytes */
export async function save(page, widget, label) {
  if (!(await widget.locator('.share[open]').count())) await widget.locator('.share summary').click();
  const [file] = await Promise.all([page.waitForEvent('download'), widget.getByRole('button', { name: label }).click()]);
  return { name: file.suggestedFilename(), bytes: readFileSync(await file.path()) };
}

/** a CSV file as tables: { caption, head, rows } split at empty lines (no quoted line breaks here) */
export function parseCsv(text) {
  const split = (line) => [...line.matchAll(/("([^"]|"")*"|[^,]*)(,|$)/g)].slice(0, -1).map((m) => m[1].replace(/^"|"$/g, '').replaceAll('""', '"'));
  return text.trim().split('\r\n\r\n').map((block) => {
    const [caption, head, ...rows] = block.split('\r\n');
    return { caption: split(caption)[0], head: split(head), rows: rows.map(split) };
  });
}
