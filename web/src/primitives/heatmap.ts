// A matrix as a canvas heatmap with axis labels (numbers or tokens) and a colour legend, for
// matrices too large to print as numbers; the same numbers are in a table for screen readers.
// Labels are thinned so they never overlap; hovering shows the entry under the pointer.
import { css, type ColourMaps } from '../math/colormap';
import { formatNumber, formatSignificant } from '../math/format';
import { at, maxAbsFinite, type MatrixData } from '../math/matrix';
import { CANVAS_FONT, foreground, sharpCanvas, themeColours, type SharpCanvas } from './canvas';
import { ScreenReaderTable } from './screen-reader-table';

export interface HeatmapOptions {
  xLabel: string;
  yLabel: string;
  /** "weights": values in [0, 1]; "signed": diverging around 0 */
  tint: 'weights' | 'signed';
  /** CSS pixel size of the plot area (without axes) */
  width: number;
  height: number;
  /** names of the rows and columns (tokens); default: their numbers */
  rowLabels?: readonly string[];
  colLabels?: readonly string[];
  /** hide the legend (small multiples that share one) */
  legend?: boolean;
  /** hide the ticks and axis names (thumbnails; default: shown) */
  axes?: boolean;
  /** numbered columns: write xLabel under their numbers (default), or leave it to a title that says
   * it, and the room to the picture below */
  xName?: boolean;
  /** called with the cell under the pointer (or undefined when it leaves) */
  onHover?: (cell: { row: number; col: number } | undefined) => void;
  onClick?: (cell: { row: number; col: number }) => void;
}

/** every k-th tick so that labels of `labelPx` pixels fit into `cellPx` cells */
export function tickStep(count: number, cellPx: number, labelPx: number): number {
  const candidates = [1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 50, 64, 100];
  return candidates.find((k) => k * cellPx >= labelPx) ?? Math.ceil(count / 2);
}

/** black for a light CSS colour "rgb(r, g, b)", white for a dark one */
function opposite(colour: string): string {
  const [r = 0, g = 0, b = 0] = (colour.match(/\d+(\.\d+)?/g) ?? []).map(Number);
  return 0.299 * r + 0.587 * g + 0.114 * b > 128 ? '#000' : '#fff';
}

export class Heatmap {
  readonly element: HTMLElement;
  private readonly picture: SharpCanvas;
  private readonly readout: HTMLElement;
  private readonly table = new ScreenReaderTable();
  private matrix?: MatrixData;
  private highlight?: { row?: number; col?: number };
  private margin = { left: 46, top: 8, right: 86, bottom: 38 };

  constructor(private options: HeatmapOptions) {
    this.element = document.createElement('figure');
    this.element.className = 'heatmap';
    this.element.style.margin = '0';
    this.picture = sharpCanvas(`${options.yLabel} by ${options.xLabel} heatmap`);
    this.readout = document.createElement('figcaption');
    this.readout.className = 'muted readout';
    this.readout.textContent = '\u00a0';
    this.element.append(this.picture.canvas, this.readout, this.table.element);
    const canvas = this.picture.canvas;
    canvas.addEventListener('mousemove', (e) => this.hover(this.cellAt(e)));
    canvas.addEventListener('mouseleave', () => this.hover(undefined));
    canvas.addEventListener('click', (e) => {
      const cell = this.cellAt(e);
      if (cell) this.options.onClick?.(cell);
    });
  }

  /** changes options (labels, size) for the next draw */
  configure(options: Partial<HeatmapOptions>): void {
    this.options = { ...this.options, ...options };
  }

  /** outlines a row and/or column (undefined: none) */
  setHighlight(highlight?: { row?: number; col?: number }): void {
    this.highlight = highlight;
    this.picture.redraw();
  }

  /** the value the strongest colour stands for: 1 for weights, the largest |entry| for signed */
  get range(): number {
    return this.options.tint === 'weights' || !this.matrix ? 1 : maxAbsFinite(this.matrix) || 1;
  }

  draw(m: MatrixData): void {
    this.matrix = m;
    const { width, height, rowLabels, colLabels, legend = true, axes = true } = this.options;
    const longest = (labels?: readonly string[]) => Math.max(0, ...(labels ?? []).map((l) => l.length));
    this.margin = axes ? {
      left: rowLabels ? Math.min(110, 14 + 7 * longest(rowLabels)) : 46,
      top: 8,
      right: legend ? 86 : 8,
      bottom: colLabels ? Math.min(90, 30 + 6 * longest(colLabels)) : this.options.xName === false ? 22 : 38,
    } : { left: 2, top: 2, right: legend ? 86 : 2, bottom: 2 };
    const M = this.margin;
    // where the cells are in the drawing (left top width height), for a host or a test that points at one
    this.element.dataset.plot = `${M.left} ${M.top} ${width} ${height}`;
    this.picture.draw(M.left + width + M.right, M.top + height + M.bottom, (g) => this.paint(g, m));
    this.fillTable(m);
  }

  private paint(g: CanvasRenderingContext2D, m: MatrixData): void {
    const { width, height, tint, legend = true } = this.options;
    const M = this.margin;
    const range = this.range;
    const cw = width / m.cols;
    const ch = height / m.rows;
    // one pixel per cell, scaled up without smoothing: a few microseconds however many cells
    g.imageSmoothingEnabled = false;
    const colours = themeColours(this.element);
    g.drawImage(cellImage(m, colours, tint, range), M.left, M.top, width, height);
    const fg = foreground(this.element);
    if (this.highlight) {
      const { row, col } = this.highlight;
      // the text colour with a thin line of the opposite one inside, visible on light and dark cells alike
      for (const [colour, lineWidth] of [[fg, 3], [opposite(fg), 1]] as const) {
        g.strokeStyle = colour;
        g.lineWidth = lineWidth;
        if (row !== undefined) g.strokeRect(M.left + 1.5, M.top + row * ch + 1.5, width - 3, ch - 3);
        if (col !== undefined) g.strokeRect(M.left + col * cw + 1.5, M.top + 1.5, cw - 3, height - 3);
      }
    }
    g.fillStyle = fg;
    g.font = CANVAS_FONT;
    if (this.options.axes !== false) this.paintAxes(g, m, cw, ch);
    if (!legend) return;
    const lx = M.left + width + 14;
    for (let y = 0; y < height; y++) {
      const t = 1 - y / (height - 1);
      g.fillStyle = css(tint === 'weights' ? colours.sequential(t) : colours.diverging((2 * t - 1) * range, range));
      g.fillRect(lx, M.top + y, 12, 1.5);
    }
    g.fillStyle = fg;
    g.textAlign = 'left';
    g.textBaseline = 'top';
    // a tiny range (a difference that is almost zero) keeps its digits: "1.5e−8", not "0.00"
    const end = (v: number) => (range < 0.01 ? formatSignificant(v, 2) : formatNumber(v, 2));
    g.fillText(end(range), lx + 16, M.top);
    g.textBaseline = 'bottom';
    g.fillText(end(tint === 'weights' ? 0 : -range), lx + 16, M.top + height);
  }

  private paintAxes(g: CanvasRenderingContext2D, m: MatrixData, cw: number, ch: number): void {
    const { width, height, rowLabels, colLabels } = this.options;
    const M = this.margin;
    // x ticks (token names are written downwards)
    if (colLabels) {
      const step = tickStep(m.cols, cw, 14);
      for (let j = 0; j < m.cols; j += step) {
        g.save();
        g.translate(M.left + (j + 0.5) * cw, M.top + height + 4);
        g.rotate(Math.PI / 3);
        g.textAlign = 'left';
        g.textBaseline = 'middle';
        g.fillText(colLabels[j] ?? '', 0, 0);
        g.restore();
      }
    } else {
      g.textAlign = 'center';
      g.textBaseline = 'top';
      const step = tickStep(m.cols, cw, 26);
      for (let j = 0; j < m.cols; j += step) g.fillText(String(j), M.left + (j + 0.5) * cw, M.top + height + 4);
      if (this.options.xName !== false) g.fillText(this.options.xLabel, M.left + width / 2, M.top + height + 21);
    }
    // y ticks
    g.textAlign = 'right';
    g.textBaseline = 'middle';
    const yStep = tickStep(m.rows, ch, 15);
    for (let i = 0; i < m.rows; i += yStep) g.fillText(rowLabels?.[i] ?? String(i), M.left - 6, M.top + (i + 0.5) * ch);
    if (!rowLabels) {
      g.save();
      g.translate(12, M.top + height / 2);
      g.rotate(-Math.PI / 2);
      g.textAlign = 'center';
      g.fillText(this.options.yLabel, 0, 0);
      g.restore();
    }
  }

  private fillTable(m: MatrixData): void {
    const { rowLabels, colLabels, xLabel, yLabel } = this.options;
    const cols = Array.from({ length: m.cols }, (_, j) => colLabels?.[j] ?? String(j));
    this.table.fill({
      caption: `${yLabel} (rows) by ${xLabel} (columns)`,
      head: ['', ...cols],
      rows: Array.from({ length: m.rows }, (_, i) => [rowLabels?.[i] ?? String(i),
        ...Array.from({ length: m.cols }, (_, j) => at(m, i, j))] as [string, ...number[]]),
    });
  }

  private cellAt(e: MouseEvent): { row: number; col: number } | undefined {
    const m = this.matrix;
    if (!m) return undefined;
    const point = this.picture.pointer(e);
    const x = point.x - this.margin.left;
    const y = point.y - this.margin.top;
    const col = Math.floor((x / this.options.width) * m.cols);
    const row = Math.floor((y / this.options.height) * m.rows);
    return row < 0 || col < 0 || row >= m.rows || col >= m.cols ? undefined : { row, col };
  }

  private hover(cell: { row: number; col: number } | undefined): void {
    this.options.onHover?.(cell);
    const m = this.matrix;
    if (!m || !cell) {
      this.readout.textContent = '\u00a0';
      return;
    }
    const { rowLabels, colLabels, yLabel, xLabel } = this.options;
    const name = (labels: readonly string[] | undefined, axis: string, k: number) => (labels ? `“${labels[k]}”` : `${axis} ${k}`);
    this.readout.textContent = `${name(rowLabels, yLabel, cell.row)} → ${name(colLabels, xLabel, cell.col)}: ${formatNumber(at(m, cell.row, cell.col), 4)}`;
  }
}

/** A colour key for heatmaps drawn without their own legend (small multiples): the tint's colours
 * from left to right, named `low` … `high`; each picture gives its own range in words. */
export function colourKey(tint: HeatmapOptions['tint'], low: string, high: string): HTMLElement {
  const key = document.createElement('span');
  key.className = 'colour-key';
  key.style.cssText = 'display:inline-flex;align-items:center;gap:6px;white-space:nowrap';
  const strip = sharpCanvas(`colour key: ${low} to ${high}`);
  strip.draw(90, 10, (g, width, height) => {
    const colours = themeColours(strip.canvas);
    for (let x = 0; x < width; x++) {
      const t = x / (width - 1);
      g.fillStyle = css(tint === 'weights' ? colours.sequential(t) : colours.diverging(2 * t - 1, 1));
      g.fillRect(x, 0, 1.5, height);
    }
  });
  key.append(low, strip.canvas, high);
  return key;
}

/** the matrix as an image of one pixel per cell, in the heatmap's colours (grey for ±∞ and NaN) */
export function cellImage(m: MatrixData, colours: ColourMaps, tint: HeatmapOptions['tint'], range: number): HTMLCanvasElement {
  const image = document.createElement('canvas');
  image.width = m.cols;
  image.height = m.rows;
  const g = image.getContext('2d');
  if (!g || m.rows === 0 || m.cols === 0) return image;
  const pixels = g.createImageData(m.cols, m.rows);
  for (let k = 0; k < m.rows * m.cols; k++) {
    const v = m.data[k];
    const finite = Number.isFinite(v);
    const [r, gr, b] = !finite ? [128, 128, 128] : tint === 'weights' ? colours.sequential(v / range) : colours.diverging(v, range);
    pixels.data.set([r, gr, b, finite ? 255 : 64], 4 * k);
  }
  g.putImageData(pixels, 0, 0);
  return image;
}
