// A canvas heatmap with axis labels and a colour legend, for matrices too large to print
// (positional tables, similarity matrices). Draws at the device's pixel ratio; labels are thinned
// so they never overlap; hovering shows the entry under the pointer.
import { css, diverging, sequential } from '../math/colormap';
import { formatNumber } from '../math/format';
import { at, maxAbsFinite, type MatrixData } from '../math/matrix';

export interface HeatmapOptions {
  xLabel: string;
  yLabel: string;
  tint: 'weights' | 'signed';
  /** CSS pixel size of the plot area (without axes) */
  width: number;
  height: number;
}

const MARGIN = { left: 46, top: 8, right: 86, bottom: 38 };
const FONT = '12px system-ui, "DejaVu Sans", sans-serif';

/** every k-th tick so that labels of `labelPx` pixels fit into `cellPx` cells */
export function tickStep(count: number, cellPx: number, labelPx: number): number {
  const candidates = [1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 50, 64, 100];
  return candidates.find((k) => k * cellPx >= labelPx) ?? Math.ceil(count / 2);
}

export class Heatmap {
  readonly element: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly readout: HTMLElement;
  private matrix?: MatrixData;

  constructor(private readonly options: HeatmapOptions) {
    this.element = document.createElement('div');
    this.element.className = 'heatmap';
    this.canvas = document.createElement('canvas');
    this.readout = document.createElement('div');
    this.readout.className = 'muted readout';
    this.readout.textContent = '\u00a0';
    this.element.append(this.canvas, this.readout);
    this.canvas.addEventListener('mousemove', (e) => this.describe(e));
    this.canvas.addEventListener('mouseleave', () => (this.readout.textContent = '\u00a0'));
  }

  draw(m: MatrixData): void {
    this.matrix = m;
    const { width, height, tint } = this.options;
    const ratio = globalThis.devicePixelRatio || 1;
    const fullW = MARGIN.left + width + MARGIN.right;
    const fullH = MARGIN.top + height + MARGIN.bottom;
    this.canvas.width = Math.round(fullW * ratio);
    this.canvas.height = Math.round(fullH * ratio);
    this.canvas.style.width = `${fullW}px`;
    this.canvas.style.height = `${fullH}px`;
    const g = this.canvas.getContext('2d');
    if (!g) return;
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.clearRect(0, 0, fullW, fullH);
    const range = tint === 'weights' ? 1 : maxAbsFinite(m) || 1;
    const cw = width / m.cols;
    const ch = height / m.rows;
    for (let i = 0; i < m.rows; i++) {
      for (let j = 0; j < m.cols; j++) {
        const v = at(m, i, j);
        g.fillStyle = tint === 'weights' ? css(sequential(v / range)) : css(diverging(v, range));
        // overlap by a hair so no seams show between cells
        g.fillRect(MARGIN.left + j * cw, MARGIN.top + i * ch, cw + 0.5, ch + 0.5);
      }
    }
    const style = getComputedStyle(this.element);
    const fg = style.color || '#222';
    g.fillStyle = fg;
    g.font = FONT;
    // x ticks
    g.textAlign = 'center';
    g.textBaseline = 'top';
    const xStep = tickStep(m.cols, cw, 26);
    for (let j = 0; j < m.cols; j += xStep) g.fillText(String(j), MARGIN.left + (j + 0.5) * cw, MARGIN.top + height + 4);
    g.fillText(this.options.xLabel, MARGIN.left + width / 2, MARGIN.top + height + 21);
    // y ticks
    g.textAlign = 'right';
    g.textBaseline = 'middle';
    const yStep = tickStep(m.rows, ch, 15);
    for (let i = 0; i < m.rows; i += yStep) g.fillText(String(i), MARGIN.left - 6, MARGIN.top + (i + 0.5) * ch);
    g.save();
    g.translate(12, MARGIN.top + height / 2);
    g.rotate(-Math.PI / 2);
    g.textAlign = 'center';
    g.fillText(this.options.yLabel, 0, 0);
    g.restore();
    // legend
    const lx = MARGIN.left + width + 14;
    for (let y = 0; y < height; y++) {
      const t = 1 - y / (height - 1);
      g.fillStyle = tint === 'weights' ? css(sequential(t)) : css(diverging((2 * t - 1) * range, range));
      g.fillRect(lx, MARGIN.top + y, 12, 1.5);
    }
    g.fillStyle = fg;
    g.textAlign = 'left';
    g.textBaseline = 'top';
    g.fillText(formatNumber(range, 2), lx + 16, MARGIN.top);
    g.textBaseline = 'bottom';
    g.fillText(formatNumber(tint === 'weights' ? 0 : -range, 2), lx + 16, MARGIN.top + height);
  }

  private describe(e: MouseEvent): void {
    const m = this.matrix;
    if (!m) return;
    const box = this.canvas.getBoundingClientRect();
    const j = Math.floor(((e.clientX - box.left - MARGIN.left) / this.options.width) * m.cols);
    const i = Math.floor(((e.clientY - box.top - MARGIN.top) / this.options.height) * m.rows);
    if (i < 0 || j < 0 || i >= m.rows || j >= m.cols) {
      this.readout.textContent = '\u00a0';
      return;
    }
    this.readout.textContent = `${this.options.yLabel} ${i}, ${this.options.xLabel} ${j}: ${formatNumber(at(m, i, j), 4)}`;
  }
}
