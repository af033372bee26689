// A canvas drawn at the resolution it is shown at: device pixels times any CSS scaling of its
// container (the deck's, or a slide tool's transform), so pictures stay sharp on a scaled slide.
//
// Painting is deferred to the next animation frame and done only for canvases on screen: a widget
// may draw and highlight in one go (one paint), a widget on a hidden slide paints when its slide
// is shown, and a frame paints canvases only until its time budget is spent, leaving the rest to
// the next frame, so that a slide full of pictures never blocks the page. A canvas is on screen
// when its widget is (on-screen.ts). The page fires
// "attn-redraw" on window when the scale may have changed (a slide shown, the window resized),
// with `detail.restyle` when the colours changed; canvases repaint then without asking the engine.

import { colourMaps, LIGHT_PAGE, parseColour, type ColourMaps } from '../math/colormap';
import { onScreen, whenScreenChanges } from './on-screen';

export type Draw = (g: CanvasRenderingContext2D, width: number, height: number) => void;

/** A drawing that lays itself out again at a narrower width (a phone, a narrow column of someone
 * else's slide) rather than shrinking its text: drawn at the width it is given, down to `min`, and
 * at the height `height` gives for that width (default: the height it was designed for). */
export interface Fit {
  min: number;
  height?: (width: number) => number;
}

export interface SharpCanvas {
  readonly canvas: HTMLCanvasElement;
  /** sets the CSS size and the drawing; it is painted in the next frame where it is on screen.
   * With `fit`, `width` × `height` is the size it is designed for, and a narrower container gets a
   * narrower drawing: `draw` is called with the size it is painted at. */
  draw(width: number, height: number, draw: Draw, fit?: Fit): void;
  /** paints again (a highlight or a colour changed) */
  redraw(): void;
  /** where a pointer event is, in the coordinates `draw` paints in, however the canvas is scaled or shrunk */
  pointer(e: MouseEvent): { x: number; y: number };
}

interface Picture {
  readonly canvas: HTMLCanvasElement;
  /** the size it is designed for, and the size it was last painted at (smaller where it fits a narrower box) */
  size: { width: number; height: number };
  painted: { width: number; height: number };
  painter?: Draw;
  fit?: Fit;
  /** the display scale painted at; 0 when the drawing is out of date */
  paintedAt: number;
}

/** milliseconds of painting per frame before the rest waits for the next frame */
const FRAME_BUDGET_MS = 6;

const live = new Set<WeakRef<Picture>>();
/** pictures to paint (or to check for a changed scale) once they are on screen */
const due = new Set<Picture>();
let frameRequested = false;
let settledWaiters: (() => void)[] = [];
/** every picture counts as shown (a print view: see paintEverywhere) */
let everywhere = false;
whenScreenChanges(() => requestFrame());

function requestFrame(): void {
  if (frameRequested) return;
  frameRequested = true;
  requestAnimationFrame(paintFrame);
}

function paintFrame(): void {
  frameRequested = false;
  for (const p of due) if (!p.canvas.isConnected) due.delete(p);
  const shown = [...due].filter((p) => everywhere || onScreen(p.canvas));
  // measure every canvas first, then paint: alternating would lay the page out again for each
  const scales = shown.map((p) => displayScale(p.canvas));
  const sizes = shown.map(fittedSize);
  const start = performance.now();
  for (const [i, p] of shown.entries()) {
    if (performance.now() - start > FRAME_BUDGET_MS) {
      requestFrame();
      return;
    }
    due.delete(p);
    if (p.paintedAt !== scales[i] || p.painted.width !== sizes[i].width || p.painted.height !== sizes[i].height) paint(p, scales[i], sizes[i]);
  }
  // a canvas the observer has not seen yet may be on screen: the picture is not settled before it has
  if (!everywhere && [...due].some((p) => onScreen(p.canvas) === undefined)) return;
  const waiters = settledWaiters;
  settledWaiters = [];
  for (const resolve of waiters) resolve();
}

/** the size to paint `p` at: its own, or, for a drawing that fits, the width its box has now */
function fittedSize(p: Picture): { width: number; height: number } {
  if (!p.fit) return p.size;
  const shown = p.canvas.offsetWidth;
  const width = shown > 0 ? Math.max(p.fit.min, Math.min(p.size.width, shown)) : p.size.width;
  return { width, height: Math.round(p.fit.height?.(width) ?? p.size.height) };
}

function paint(p: Picture, scale: number, size = fittedSize(p)): void {
  if (!p.painter) return;
  const { width, height } = size;
  if (p.fit) {
    p.canvas.style.height = `${height}px`;
    watch(p);
  }
  const ratio = Math.min(4, (globalThis.devicePixelRatio || 1) * Math.max(1, scale));
  p.canvas.width = Math.round(width * ratio);
  p.canvas.height = Math.round(height * ratio);
  const g = p.canvas.getContext('2d');
  if (!g) return;
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  g.clearRect(0, 0, width, height);
  p.painter(g, width, height);
  p.painted = size;
  p.paintedAt = scale;
}

function schedule(p: Picture): void {
  due.add(p);
  requestFrame();
}

/** resolves once every canvas on screen shows its latest drawing */
export function canvasesPainted(): Promise<void> {
  const unsettled = frameRequested || (!everywhere && [...due].some((p) => p.canvas.isConnected && onScreen(p.canvas) === undefined));
  return unsettled ? new Promise((resolve) => settledWaiters.push(resolve)) : Promise.resolve();
}

/** pictures made of elements rather than pixels (tinted table cells), recoloured with the theme */
const themed = new Set<WeakRef<() => void>>();

function repaintAll(restyle: boolean): void {
  if (restyle) {
    for (const ref of themed) {
      const recolour = ref.deref();
      if (recolour) recolour();
      else themed.delete(ref);
    }
  }
  for (const ref of live) {
    const p = ref.deref();
    if (!p) {
      live.delete(ref);
      continue;
    }
    if (restyle) p.paintedAt = 0;
    due.add(p);
  }
  requestFrame();
}
globalThis.addEventListener?.('attn-redraw', (e) => repaintAll(Boolean((e as CustomEvent<{ restyle?: boolean }>).detail?.restyle)));
globalThis.matchMedia?.('(prefers-color-scheme: dark)').addEventListener('change', () => repaintAll(true));
// a printout shows every picture, on shown slides or not, whatever the frame budget
globalThis.addEventListener?.('beforeprint', () => {
  for (const p of due) if (p.canvas.isConnected) paint(p, 1);
  due.clear();
});

/** From now on every canvas is painted, on screen or not, a frame's budget at a time: for a view
 * made to be printed, where every page shows its pictures (a reveal.js deck's PDF view). */
export function paintEverywhere(): void {
  everywhere = true;
  repaintAll(false);
}

/** how much larger than its CSS size the element appears on screen (1 when not laid out) */
export function displayScale(element: Element): number {
  const shown = element.getBoundingClientRect().width;
  const layout = (element as HTMLElement).offsetWidth;
  return shown > 0 && layout > 0 ? shown / layout : 1;
}

/** drawings that fit their box, painted again when its width changes: watched from their first
 * paint on the page until they leave it (a widget drew a new picture in its place), so that a
 * canvas off the page can be collected, and watched again if it comes back and is painted */
const pictureOf = new WeakMap<Element, Picture>();
const watched = new WeakSet<Element>();
const resized = typeof ResizeObserver === 'undefined' ? undefined : new ResizeObserver((entries) => {
  for (const entry of entries) {
    if (!entry.target.isConnected) {
      resized?.unobserve(entry.target);
      watched.delete(entry.target);
      continue;
    }
    const p = pictureOf.get(entry.target);
    if (p?.fit) schedule(p);
  }
});

function watch(p: Picture): void {
  if (!resized || watched.has(p.canvas) || !p.canvas.isConnected) return;
  resized.observe(p.canvas);
  watched.add(p.canvas);
}

export function sharpCanvas(label: string): SharpCanvas {
  const canvas = document.createElement('canvas');
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', label);
  const picture: Picture = { canvas, size: { width: 0, height: 0 }, painted: { width: 0, height: 0 }, paintedAt: 0 };
  live.add(new WeakRef(picture));
  pictureOf.set(canvas, picture);
  return {
    canvas,
    draw(width, height, draw, fit) {
      picture.size = { width, height };
      picture.painter = draw;
      picture.paintedAt = 0;
      // the width it is designed for; a drawing that fits is laid out again for a narrower box,
      // others keep their size (their text stays readable) and their widget scrolls sideways
      picture.fit = fit;
      canvas.style.width = `${width}px`;
      canvas.style.minWidth = fit ? `${fit.min}px` : '';
      canvas.style.maxWidth = fit ? '100%' : '';
      canvas.style.aspectRatio = fit ? '' : `${width} / ${height}`;
      if (!fit) canvas.style.height = '';
      else if (!picture.painted.width) canvas.style.height = `${Math.round(fit.height?.(width) ?? height)}px`;
      schedule(picture);
    },
    redraw() {
      picture.paintedAt = 0;
      schedule(picture);
    },
    pointer(e) {
      const box = canvas.getBoundingClientRect();
      const scale = box.width > 0 ? (picture.painted.width || picture.size.width) / box.width : 1;
      return { x: (e.clientX - box.left) * scale, y: (e.clientY - box.top) * scale };
    },
  };
}

/** the colour maps for a picture in `element`, on the background of its theme (the widgets' --bg) */
export function themeColours(element: Element): ColourMaps {
  const background = parseColour(getComputedStyle(element).getPropertyValue('--bg'));
  return background ? colourMaps(background) : LIGHT_PAGE;
}

/** Colours `element` with `recolour` once it is on the page (the next frame), and again whenever
 * the page's colours change; `recolour` is kept only as long as the element keeps it. */
export function colourWithTheme(element: Element, recolour: () => void): void {
  (element as Element & { recolour?: () => void }).recolour = recolour;
  themed.add(new WeakRef(recolour));
  requestAnimationFrame(recolour);
}

/** the text colour the element is drawn in, for axes and labels */
export function foreground(element: Element): string {
  return getComputedStyle(element).color || '#222';
}

/** the colour of a picture's grid, axes and guides: the theme's border colour, quiet on either page */
export function gridColour(element: Element): string {
  return getComputedStyle(element).getPropertyValue('--border').trim() || foreground(element);
}

export const CANVAS_FONT = '12px system-ui, "DejaVu Sans", sans-serif';
