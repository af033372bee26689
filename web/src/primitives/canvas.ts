// A canvas drawn at the resolution it is shown at: device pixels times any CSS scaling of its
// container (the deck's, or a slide tool's transform), so pictures stay sharp on a scaled slide.
// The page fires "attn-redraw" on window when that scale or the colour theme changes; every
// canvas made here redraws itself then, without asking the engine again.

export type Draw = (g: CanvasRenderingContext2D, width: number, height: number) => void;

export interface SharpCanvas {
  readonly canvas: HTMLCanvasElement;
  /** sets the CSS size and the drawing, and draws */
  draw(width: number, height: number, draw: Draw): void;
  /** draws again; `scale` is displayScale(canvas) when the caller has measured it */
  redraw(scale?: number): void;
  /** where a pointer event is, in the coordinates `draw` paints in, however the canvas is scaled or shrunk */
  pointer(e: MouseEvent): { x: number; y: number };
}

const live = new Set<WeakRef<SharpCanvas>>();
globalThis.addEventListener?.('attn-redraw', () => {
  // measure every shown canvas first, then draw: alternating the two would lay the page out again
  // for each canvas. Hidden canvases (other slides) wait for the event that shows them.
  const shown: [SharpCanvas, number][] = [];
  for (const ref of live) {
    const canvas = ref.deref();
    if (!canvas) live.delete(ref);
    else if (canvas.canvas.isConnected && canvas.canvas.checkVisibility()) shown.push([canvas, displayScale(canvas.canvas)]);
  }
  for (const [canvas, scale] of shown) canvas.redraw(scale);
});

/** how much larger than its CSS size the element appears on screen (1 when not laid out) */
export function displayScale(element: Element): number {
  const shown = element.getBoundingClientRect().width;
  const layout = (element as HTMLElement).offsetWidth;
  return shown > 0 && layout > 0 ? shown / layout : 1;
}

export function sharpCanvas(label: string): SharpCanvas {
  const canvas = document.createElement('canvas');
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', label);
  let size = { width: 0, height: 0 };
  let painter: Draw | undefined;
  const self: SharpCanvas = {
    canvas,
    draw(width, height, draw) {
      size = { width, height };
      painter = draw;
      // the width it is designed for; a narrower container shrinks it (max-width in the base styles)
      canvas.style.width = `${width}px`;
      canvas.style.aspectRatio = `${width} / ${height}`;
      self.redraw();
    },
    redraw(scale = displayScale(canvas)) {
      if (!painter) return;
      const ratio = Math.min(4, (globalThis.devicePixelRatio || 1) * Math.max(1, scale));
      canvas.width = Math.round(size.width * ratio);
      canvas.height = Math.round(size.height * ratio);
      const g = canvas.getContext('2d');
      if (!g) return;
      g.setTransform(ratio, 0, 0, ratio, 0, 0);
      g.clearRect(0, 0, size.width, size.height);
      painter(g, size.width, size.height);
    },
    pointer(e) {
      const box = canvas.getBoundingClientRect();
      const scale = box.width > 0 ? size.width / box.width : 1;
      return { x: (e.clientX - box.left) * scale, y: (e.clientY - box.top) * scale };
    },
  };
  live.add(new WeakRef(self));
  return self;
}

/** the text colour the element is drawn in, for axes and labels */
export function foreground(element: Element): string {
  return getComputedStyle(element).color || '#222';
}

export const CANVAS_FONT = '12px system-ui, "DejaVu Sans", sans-serif';
