// A grey SIDE × SIDE picture (math/patch-image.ts), shown large, that the reader draws on with the
// pointer. A press that moves is a stroke of the pen in the colour opposite to the pixel it starts
// on (drawing on black, erasing on white), shown as it goes and handed over when it ends; a press
// that does not move is a click on a point. What the widget shows over the pixels, it draws itself.
import { paintStroke, SIDE } from '../math/patch-image';
import { foreground, sharpCanvas } from './canvas';
import { h } from './controls';

/** a point of the picture, in picture pixels (0 … SIDE) */
export type PadPoint = { x: number; y: number };

export interface DrawingPadOptions {
  label: string;
  /** its CSS width and height */
  size: number;
  /** the pen: pixels within this many picture pixels of the pointer's path */
  pen: number;
  /** a press that moves less than this (CSS pixels) is a click */
  clickSlop: number;
  onClick: (point: PadPoint) => void;
  /** a stroke ended: the picture with it */
  onDrawn: (image: Float32Array) => void;
  /** the pointer over the picture, not pressed (undefined: it left) */
  onHover: (point: PadPoint | undefined) => void;
  /** draws over the pixels, `drawing` while a stroke is under way */
  decorate: (g: CanvasRenderingContext2D, width: number, drawing: boolean) => void;
}

export class DrawingPad {
  private readonly picture: ReturnType<typeof sharpCanvas>;
  /** focusable: a widget may give its keys a meaning */
  readonly canvas: HTMLCanvasElement;
  /** the picture shown, 0 black … 1 white */
  image: Float32Array = new Float32Array(SIDE * SIDE);
  /** a press: a click until it moves, then a stroke of the pen painting `value` into `work` */
  private press?: { id: number; start: PadPoint; last: PadPoint; value: number; drawing: boolean; work: Float32Array };

  constructor(private readonly options: DrawingPadOptions) {
    this.picture = sharpCanvas(options.label);
    const canvas = (this.canvas = this.picture.canvas);
    canvas.tabIndex = 0;
    canvas.addEventListener('pointerdown', (e) => this.down(e));
    canvas.addEventListener('pointermove', (e) => this.move(e));
    canvas.addEventListener('pointerup', (e) => this.up(e));
    canvas.addEventListener('pointercancel', (e) => {
      if (this.press?.id !== e.pointerId) return;
      this.press = undefined;
      this.draw();
    });
    canvas.addEventListener('pointerleave', () => options.onHover(undefined));
  }

  /** the picture (or the stroke so far), then the widget's decoration, then a frame: the picture's
   * edge on a page as dark as its black pixels */
  draw(): void {
    const drawing = this.press?.drawing ?? false;
    const image = drawing ? this.press!.work : this.image;
    this.picture.draw(this.options.size, this.options.size, (g, width) => {
      const grey = new ImageData(SIDE, SIDE);
      for (let k = 0; k < SIDE * SIDE; k++) {
        const v = Math.round(255 * Math.min(1, Math.max(0, image[k]!)));
        grey.data.set([v, v, v, 255], 4 * k);
      }
      const cells = h('canvas', { width: SIDE, height: SIDE });
      cells.getContext('2d')!.putImageData(grey, 0, 0);
      g.imageSmoothingEnabled = false;
      g.drawImage(cells, 0, 0, width, width);
      this.options.decorate(g, width, drawing);
      g.strokeStyle = foreground(this.canvas);
      g.globalAlpha = 0.5;
      g.lineWidth = 1;
      g.strokeRect(0.5, 0.5, width - 1, width - 1);
      g.globalAlpha = 1;
    });
  }

  private pixelAt(e: PointerEvent): PadPoint {
    const point = this.picture.pointer(e);
    return { x: (point.x / this.options.size) * SIDE, y: (point.y / this.options.size) * SIDE };
  }

  private down(e: PointerEvent): void {
    if (e.button !== 0 || this.press) return;
    const start = this.pixelAt(e);
    const pixel = (v: number) => Math.min(SIDE - 1, Math.max(0, Math.floor(v)));
    const value = this.image[pixel(start.y) * SIDE + pixel(start.x)]! >= 0.5 ? 0 : 1;
    this.press = { id: e.pointerId, start, last: start, value, drawing: false, work: this.image.slice() };
    try {
      this.canvas.setPointerCapture(e.pointerId);
    } catch {
      // a pointer already gone: the press ends with it
    }
    e.preventDefault();
  }

  private move(e: PointerEvent): void {
    const press = this.press;
    if (press?.id !== e.pointerId) {
      this.options.onHover(this.pixelAt(e));
      return;
    }
    const point = this.pixelAt(e);
    if (!press.drawing) {
      const moved = Math.hypot(point.x - press.start.x, point.y - press.start.y) * (this.options.size / SIDE);
      if (moved < this.options.clickSlop) return;
      press.drawing = true;
    }
    paintStroke(press.work, press.last, point, this.options.pen, press.value);
    press.last = point;
    this.draw();
  }

  private up(e: PointerEvent): void {
    const press = this.press;
    if (press?.id !== e.pointerId) return;
    this.press = undefined;
    if (!press.drawing) {
      this.options.onClick(press.start);
      return;
    }
    paintStroke(press.work, press.last, this.pixelAt(e), this.options.pen, press.value);
    this.image = press.work;
    this.draw();
    this.options.onDrawn(press.work);
  }
}
