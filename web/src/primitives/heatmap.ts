// A matrix as a canvas heatmap with axis labels (numbers or tokens) and a colour legend, for
// matrices too large to print as numbers; the same numbers are in a table for screen readers.
// Labels are thinned so they never overlap, and the margins are measured to hold them (a label
// too long for its margin is cut with "…"); the row and column under the pointer, and a highlighted
// row or column, always have their labels written, in bold. Hovering shows the entry under the
// pointer in the readout (and in the canvas's tooltip where a host hides the readout). Cells
// thinner than a device pixel are averaged rather than skipped, and a row or column too thin to
// outline inside is outlined around.
import { css, type ColourMaps } from '../math/colormap';
import { formatNumber, formatSignificant } from '../math/format';
import { at, maxAbsFinite, row, type MatrixData } from '../math/matrix';
import { argmax } from '../math/ranking';
import { thinLabels } from '../math/ticks';
import { CANVAS_FONT, foreground, gridColour, sharpCanvas, themeColours, type SharpCanvas } from './canvas';
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
  /** the value the strongest colour stands for, when pictures share a scale or weights are small
   * (default: 1 for weights, the largest |entry| for signed); the legend's ends say it */
  range?: number;
  /** weights only: each row coloured from 0 to its own largest entry, for rows spread too thin to
   * show on one scale; the legend's top says "row max" (the readout and the table keep the values) */
  rowScaled?: boolean;
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

/** the angle column labels are written at, downwards from the horizontal */
const COLUMN_ANGLE = Math.PI / 3;
/** px a tick label needs across its line (12 px text and a gap) */
const LABEL_EXTENT = 15;
/** the widest margins labels may take: row labels on the left, column labels below */
const MAX_LEFT = 110;
const MAX_BOTTOM = 90;
const BOLD_FONT = `600 ${CANVAS_FONT}`;
/** the narrowest the cells' area gets in a narrow box */
const MIN_CELLS = 96;

let scratch: CanvasRenderingContext2D | null | undefined;
/** the width of `text` in `font`, measured on a canvas of its own (7 px a character without one) */
function textWidth(text: string, font: string): number {
  scratch ??= globalThis.document?.createElement('canvas').getContext('2d');
  if (!scratch) return 7 * [...text].length;
  scratch.font = font;
  return scratch.measureText(text).width;
}

/** `text`, cut with "…" to at most `width` px in `font` (both weights of the font: a label is bold
 * when emphasised) */
function fitLabel(text: string, width: number): string {
  const fits = (t: string) => textWidth(t, BOLD_FONT) <= width;
  if (fits(text)) return text;
  const chars = [...text];
  let n = chars.length - 1;
  while (n > 1 && !fits(`${chars.slice(0, n).join('')}…`)) n--;
  return `${chars.slice(0, n).join('')}…`;
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
  /** the cell under the pointer */
  private hovered?: { row: number; col: number };
  /** the labels as drawn (cut to their margins) */
  private shownRowLabels?: string[];
  private shownColLabels?: string[];
  private margin = { left: 46, top: 8, right: 86, bottom: 38 };
  /** the size of the cells' area as last laid out: the options' size, or narrower in a narrow box */
  private cells = { width: 0, height: 0 };

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

  private get rowScaled(): boolean {
    return this.options.tint === 'weights' && this.options.rowScaled === true;
  }

  /** the value the strongest colour stands for: the range asked for, else 1 for weights and the
   * largest |entry| for signed */
  get range(): number {
    if (this.options.range !== undefined && this.options.range > 0) return this.options.range;
    return this.options.tint === 'weights' || !this.matrix ? 1 : maxAbsFinite(this.matrix) || 1;
  }

  draw(m: MatrixData): void {
    this.matrix = m;
    const { width, height, legend = true, axes = true } = this.options;
    if (this.hovered && (this.hovered.row >= m.rows || this.hovered.col >= m.cols)) this.hovered = undefined;
    this.margin = axes ? this.axesMargin(m) : { left: 2, top: 2, right: legend ? this.legendWidth() : 2, bottom: 2 };
    const M = this.margin;
    // on a narrower box the cells narrow, keeping their shape, and the labels keep their size
    const cellsAt = (shownWidth: number) => {
      const w = Math.min(width, shownWidth - M.left - M.right);
      return { width: w, height: Math.max(Math.min(height, MIN_CELLS), height * (w / width)) };
    };
    this.cells = cellsAt(M.left + width + M.right);
    this.setPlotData();
    const narrowest = M.left + M.right + Math.min(width, MIN_CELLS);
    this.picture.draw(M.left + width + M.right, M.top + height + M.bottom, (g, shownWidth) => {
      this.cells = cellsAt(shownWidth);
      this.setPlotData();
      this.paint(g, m);
    }, { min: narrowest, height: (shownWidth) => M.top + cellsAt(shownWidth).height + M.bottom });
    this.fillTable(m);
  }

  /** where the cells are in the drawing (left top width height), for a host or a test that points at one */
  private setPlotData(): void {
    this.element.dataset.plot = `${this.margin.left} ${this.margin.top} ${this.cells.width} ${this.cells.height}`;
  }

  /** the legend's numbers at its top and bottom end; a tiny range (a difference that is almost
   * zero) keeps its digits: "1.5e−8", not "0.00" */
  private legendEnds(): [string, string] {
    const range = this.range;
    const end = (v: number) => (range < 0.01 ? formatSignificant(v, 2) : formatNumber(v, 2));
    if (this.rowScaled) return ['row max', end(0)];
    return [end(range), end(this.options.tint === 'weights' ? 0 : -range)];
  }

  /** the room right of the cells for the legend: 86 px, or more for long numbers */
  private legendWidth(): number {
    return Math.max(86, Math.ceil(14 + 16 + Math.max(...this.legendEnds().map((t) => textWidth(t, CANVAS_FONT))) + 8));
  }

  /** margins that hold the labels: measured, up to MAX_LEFT and MAX_BOTTOM (longer labels are cut) */
  private axesMargin(m: MatrixData): Heatmap['margin'] {
    const { width, rowLabels, colLabels, legend = true } = this.options;
    const widest = (labels: readonly string[]) => Math.max(0, ...labels.map((l) => textWidth(l, BOLD_FONT)));
    this.shownRowLabels = rowLabels?.map((l) => fitLabel(l, MAX_LEFT - 12));
    // a column label written at COLUMN_ANGLE from 4 px below the cells reaches down sin · its width
    const sin = Math.sin(COLUMN_ANGLE);
    const cos = Math.cos(COLUMN_ANGLE);
    this.shownColLabels = colLabels?.map((l) => fitLabel(l, (MAX_BOTTOM - 16) / sin));
    let right = legend ? this.legendWidth() : 8;
    // and right cos · its width from its column's centre: the last columns' may pass the cells' edge
    if (this.shownColLabels) {
      const cw = width / Math.max(1, m.cols);
      this.shownColLabels.forEach((l, j) => {
        right = Math.max(right, Math.ceil((j + 0.5) * cw + cos * textWidth(l, BOLD_FONT) + 4 * sin - width + 4));
      });
    }
    return {
      left: this.shownRowLabels ? Math.min(MAX_LEFT, Math.ceil(12 + widest(this.shownRowLabels))) : 46,
      top: 8,
      right,
      // (the text's half height, turned, reaches cos · 7 px further)
      bottom: this.shownColLabels ? Math.min(MAX_BOTTOM, Math.ceil(4 + sin * widest(this.shownColLabels) + cos * 7 + 8)) : this.options.xName === false ? 22 : 38,
    };
  }

  private paint(g: CanvasRenderingContext2D, m: MatrixData): void {
    const { tint, legend = true } = this.options;
    const { width, height } = this.cells;
    const M = this.margin;
    const range = this.range;
    const cw = width / m.cols;
    const ch = height / m.rows;
    // one pixel per cell, scaled up without smoothing: a few microseconds however many cells. Cells
    // thinner than a device pixel are averaged instead: scaling down without smoothing would drop some
    const scale = g.getTransform().a || 1;
    g.imageSmoothingEnabled = cw * scale < 1 || ch * scale < 1;
    g.imageSmoothingQuality = 'high';
    const colours = themeColours(this.element);
    g.drawImage(cellImage(m, colours, tint, range, this.rowScaled), M.left, M.top, width, height);
    // a quiet frame in the grid's colour: a matrix of near-zeros (the background's colour) still shows where it is
    g.strokeStyle = gridColour(this.element);
    g.lineWidth = 1;
    g.strokeRect(M.left - 0.5, M.top - 0.5, width + 1, height + 1);
    const fg = foreground(this.element);
    if (this.highlight) {
      const { row, col } = this.highlight;
      // the text colour with a thin line of the opposite one inside, visible on light and dark cells
      // alike; inside the row or column where it is wide enough, else around it (its cells stay visible)
      for (const [colour, lineWidth] of [[fg, 3], [opposite(fg), 1]] as const) {
        g.strokeStyle = colour;
        g.lineWidth = lineWidth;
        if (row !== undefined && row >= 0 && row < m.rows) {
          if (ch >= 6) g.strokeRect(M.left + 1.5, M.top + row * ch + 1.5, width - 3, ch - 3);
          else g.strokeRect(M.left - 2, M.top + row * ch - 2, width + 4, ch + 4);
        }
        if (col !== undefined && col >= 0 && col < m.cols) {
          if (cw >= 6) g.strokeRect(M.left + col * cw + 1.5, M.top + 1.5, cw - 3, height - 3);
          else g.strokeRect(M.left + col * cw - 2, M.top - 2, cw + 4, height + 4);
        }
      }
    }
    // the cell under the pointer, when cells are too small to see which one it is
    const hovered = this.hovered;
    if (hovered && (cw < 8 || ch < 8)) {
      const w = Math.max(cw, 5) + 3;
      const h = Math.max(ch, 5) + 3;
      const x = M.left + (hovered.col + 0.5) * cw - w / 2;
      const y = M.top + (hovered.row + 0.5) * ch - h / 2;
      for (const [colour, lineWidth] of [[opposite(fg), 3], [fg, 1.5]] as const) {
        g.strokeStyle = colour;
        g.lineWidth = lineWidth;
        g.strokeRect(x, y, w, h);
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
    const [top, bottom] = this.legendEnds();
    g.fillText(top, lx + 16, M.top);
    g.textBaseline = 'bottom';
    g.fillText(bottom, lx + 16, M.top + height);
  }

  private paintAxes(g: CanvasRenderingContext2D, m: MatrixData, cw: number, ch: number): void {
    const { width, height } = this.cells;
    const rowLabels = this.shownRowLabels;
    const colLabels = this.shownColLabels;
    const M = this.margin;
    // the hovered row and column, then the highlighted ones: written whatever the thinning, in bold;
    // and where a highlighted row of weights looks most, the column its caption is about
    const emphasised = (key: 'row' | 'col') => [this.hovered?.[key], this.highlight?.[key]].filter((i): i is number => i !== undefined);
    const rowsKept = emphasised('row');
    const colsKept = emphasised('col');
    const looked = this.highlight?.row;
    if (this.options.tint === 'weights' && looked !== undefined && looked >= 0 && looked < m.rows) colsKept.push(argmax(row(m, looked)));
    const font = (bold: boolean) => { g.font = bold ? BOLD_FONT : CANVAS_FONT; };
    // x ticks (token names are written downwards, COLUMN_ANGLE from the horizontal: neighbours are
    // sin · cw apart across their lines)
    if (colLabels) {
      for (const j of thinLabels(m.cols, cw * Math.sin(COLUMN_ANGLE), LABEL_EXTENT, colsKept)) {
        g.save();
        g.translate(M.left + (j + 0.5) * cw, M.top + height + 4);
        g.rotate(COLUMN_ANGLE);
        g.textAlign = 'left';
        g.textBaseline = 'middle';
        font(colsKept.includes(j));
        g.fillText(colLabels[j] ?? '', 0, 0);
        g.restore();
      }
      font(false);
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
    for (const i of thinLabels(m.rows, ch, LABEL_EXTENT, rowLabels ? rowsKept : [])) {
      font(rowLabels !== undefined && rowsKept.includes(i));
      g.fillText(rowLabels?.[i] ?? String(i), M.left - 6, M.top + (i + 0.5) * ch);
    }
    font(false);
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
    const { width, height } = this.cells;
    const x = point.x - this.margin.left;
    const y = point.y - this.margin.top;
    // a few pixels past the edge still count as the edge's cells (thin cells are hard to hit)
    const SLACK = 3;
    if (x < -SLACK || y < -SLACK || x > width + SLACK || y > height + SLACK) return undefined;
    const col = Math.min(m.cols - 1, Math.max(0, Math.floor((x / width) * m.cols)));
    const row = Math.min(m.rows - 1, Math.max(0, Math.floor((y / height) * m.rows)));
    return m.rows > 0 && m.cols > 0 ? { row, col } : undefined;
  }

  private hover(cell: { row: number; col: number } | undefined): void {
    const m = this.matrix;
    if (cell?.row === this.hovered?.row && cell?.col === this.hovered?.col) return;
    this.hovered = cell;
    this.options.onHover?.(cell);
    // the hovered row's and column's labels are drawn in bold, and a small cell is outlined
    if (m) this.picture.redraw();
    if (!m || !cell) {
      this.readout.textContent = '\u00a0';
      this.picture.canvas.removeAttribute('title');
      return;
    }
    const { rowLabels, colLabels, yLabel, xLabel } = this.options;
    const name = (labels: readonly string[] | undefined, axis: string, k: number) => (labels ? `“${labels[k]}”` : `${axis} ${k}`);
    this.readout.textContent = `${name(rowLabels, yLabel, cell.row)} → ${name(colLabels, xLabel, cell.col)}: ${formatNumber(at(m, cell.row, cell.col), 4)}`;
    // a host that hides the readout (thumbnails) still has it as the tooltip
    if (this.readout.checkVisibility?.() === false) this.picture.canvas.title = this.readout.textContent;
    else this.picture.canvas.removeAttribute('title');
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

/** the grey of a cell that holds ±∞ or NaN */
const NOT_FINITE = [128, 128, 128] as const;
/** A matrix of more cells than this looks its colours up in a table of the map at this many steps
 * (each within a unit of the exact colour): sampling the map for each of GPT-2's W_O's 589,824
 * cells keeps the page busy for longer than a frame. */
const COLOUR_STEPS = 4096;

/** the matrix as an image of one pixel per cell, in the heatmap's colours (grey for ±∞ and NaN);
 * `rowScaled` weights run from 0 to each row's own largest */
export function cellImage(m: MatrixData, colours: ColourMaps, tint: HeatmapOptions['tint'], range: number, rowScaled = false): HTMLCanvasElement {
  const image = document.createElement('canvas');
  image.width = m.cols;
  image.height = m.rows;
  const g = image.getContext('2d');
  if (!g || m.rows === 0 || m.cols === 0) return image;
  const pixels = g.createImageData(m.cols, m.rows);
  const rowMax = rowScaled ? Array.from({ length: m.rows }, (_, i) => maxAbsFinite({ rows: 1, cols: m.cols, data: m.data.subarray(i * m.cols, (i + 1) * m.cols) }) || 1) : [];
  const weights = tint === 'weights';
  // the table holds the map at t = 0 … 1: a weight's own t, or a signed value's 0.5 + v/(2·range)
  const table = m.rows * m.cols > COLOUR_STEPS ? new Uint8ClampedArray(3 * (COLOUR_STEPS + 1)) : undefined;
  for (let step = 0; table && step <= COLOUR_STEPS; step++) {
    const t = step / COLOUR_STEPS;
    table.set(weights ? colours.sequential(t) : colours.diverging(2 * t - 1, 1), 3 * step);
  }
  for (let k = 0; k < m.rows * m.cols; k++) {
    const v = m.data[k];
    const at = 4 * k;
    pixels.data[at + 3] = 255;
    if (!Number.isFinite(v)) {
      pixels.data.set(NOT_FINITE, at);
      pixels.data[at + 3] = 64;
      continue;
    }
    const top = rowScaled ? rowMax[Math.floor(k / m.cols)] : range;
    if (!table) {
      pixels.data.set(weights ? colours.sequential(v / top) : colours.diverging(v, range), at);
      continue;
    }
    const t = weights ? v / top : range > 0 ? 0.5 + v / (2 * range) : 0.5;
    const from = 3 * Math.round(Math.min(1, Math.max(0, t)) * COLOUR_STEPS);
    pixels.data[at] = table[from];
    pixels.data[at + 1] = table[from + 1];
    pixels.data[at + 2] = table[from + 2];
  }
  g.putImageData(pixels, 0, 0);
  return image;
}
