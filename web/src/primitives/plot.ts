// A line/point plot of one or more series on linear or logarithmic axes, with ticks, axis names,
// a legend and a table of the numbers for screen readers: the shared way widgets draw curves.
import { formatNumber, formatSignificant } from '../math/format';
import { niceTicks } from '../math/ticks';
import { CANVAS_FONT, foreground, sharpCanvas, type SharpCanvas } from './canvas';
import { ScreenReaderTable } from './screen-reader-table';

export interface Series {
  name: string;
  x: ArrayLike<number>;
  y: ArrayLike<number>;
  /** one of the palette's colours (see SERIES_COLOURS) */
  colour: string;
  /** "line" (default), "points", or both; "dashed" for reference lines */
  style?: 'line' | 'points' | 'line+points' | 'dashed';
}

export interface PlotOptions {
  xLabel: string;
  yLabel: string;
  xLog?: boolean;
  yLog?: boolean;
  width: number;
  height: number;
  /** fixed ranges; default: the data's */
  xRange?: [number, number];
  yRange?: [number, number];
}

/** colour-blind-safe series colours (Okabe–Ito) */
export const SERIES_COLOURS = {
  blue: '#0072B2', orange: '#E69F00', green: '#009E73', vermillion: '#D55E00', purple: '#CC79A7', sky: '#56B4E9',
} as const;

/** the legend's sample of a series, drawn as the series is: a line, a dashed line, a dot, or a line through a dot */
function legendSwatch(s: Series): HTMLElement {
  const style = s.style ?? 'line';
  const swatch = document.createElement('span');
  swatch.style.cssText = 'display:inline-block;position:relative;width:18px;height:10px;vertical-align:middle;margin-right:5px';
  if (style !== 'points') {
    const line = document.createElement('span');
    line.style.cssText = `position:absolute;left:0;right:0;top:3.5px;border-top:3px ${style === 'dashed' ? 'dashed' : 'solid'} ${s.colour}`;
    swatch.append(line);
  }
  if (style === 'points' || style === 'line+points') {
    const dot = document.createElement('span');
    dot.style.cssText = `position:absolute;left:5px;top:1px;width:8px;height:8px;border-radius:50%;background:${s.colour}`;
    swatch.append(dot);
  }
  return swatch;
}

const M = { left: 58, top: 10, right: 12, bottom: 40 };

export class Plot {
  readonly element: HTMLElement;
  private readonly picture: SharpCanvas;
  private readonly legend: HTMLElement;
  private readonly table = new ScreenReaderTable();

  constructor(private options: PlotOptions) {
    this.element = document.createElement('figure');
    this.element.className = 'plot';
    this.element.style.margin = '0';
    this.picture = sharpCanvas(`${options.yLabel} against ${options.xLabel}`);
    this.legend = document.createElement('figcaption');
    this.legend.className = 'legend muted';
    this.legend.style.cssText = 'display:flex;flex-wrap:wrap;gap:4px 14px;margin-top:2px';
    this.element.append(this.picture.canvas, this.legend, this.table.element);
  }

  configure(options: Partial<PlotOptions>): void {
    this.options = { ...this.options, ...options };
  }

  draw(series: readonly Series[]): void {
    const { width, height } = this.options;
    this.picture.draw(width, height, (g) => this.paint(g, series));
    this.legend.replaceChildren(...series.map((s) => {
      const item = document.createElement('span');
      item.append(legendSwatch(s), s.name);
      return item;
    }));
    // on a log axis values span decades: fixed decimals would read tiny ones as 0
    const { xLog, yLog, xLabel, yLabel } = this.options;
    this.table.fill({
      caption: `${yLabel} against ${xLabel}`,
      head: ['series', xLabel, yLabel],
      rows: series.flatMap((s) => Array.from(s.x, (x, i) => [s.name, x, s.y[i]] as [string, number, number])),
      format: (v, column) => ((column === 0 ? xLog : yLog) ? formatSignificant(v, 4) : formatNumber(v, column === 0 ? 4 : 6)),
    });
  }

  private paint(g: CanvasRenderingContext2D, series: readonly Series[]): void {
    const { width, height, xLog = false, yLog = false } = this.options;
    const usable = (v: number, log: boolean) => Number.isFinite(v) && (!log || v > 0);
    const extent = (pick: (s: Series) => ArrayLike<number>, log: boolean, fixed?: [number, number]): [number, number] => {
      if (fixed) return fixed;
      let lo = Infinity;
      let hi = -Infinity;
      for (const s of series) for (const v of Array.from(pick(s))) if (usable(v, log)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
      if (!Number.isFinite(lo)) return log ? [1, 10] : [0, 1];
      if (lo === hi) return log ? [lo / 2, hi * 2] : [lo - 1, hi + 1];
      return [lo, hi];
    };
    const [x0, x1] = extent((s) => s.x, xLog, this.options.xRange);
    const [y0, y1] = extent((s) => s.y, yLog, this.options.yRange);
    const xTicks = niceTicks(x0, x1, xLog);
    const yTicks = niceTicks(y0, y1, yLog);
    const [xa, xb] = [Math.min(x0, xTicks[0]), Math.max(x1, xTicks[xTicks.length - 1])];
    const [ya, yb] = [Math.min(y0, yTicks[0]), Math.max(y1, yTicks[yTicks.length - 1])];
    const t = (v: number, a: number, b: number, log: boolean) => (log ? Math.log(v / a) / Math.log(b / a) : (v - a) / (b - a));
    g.font = CANVAS_FONT;
    // room for the widest y tick ("1e−10") beside the rotated axis name
    const left = Math.max(M.left, 26 + Math.max(...yTicks.map((v) => g.measureText(tickText(v)).width)));
    const pw = width - left - M.right;
    const ph = height - M.top - M.bottom;
    const px = (v: number) => left + t(v, xa, xb, xLog) * pw;
    const py = (v: number) => M.top + (1 - t(v, ya, yb, yLog)) * ph;
    const fg = foreground(this.element);
    g.strokeStyle = fg;
    g.globalAlpha = 0.18;
    g.lineWidth = 1;
    for (const v of xTicks) { g.beginPath(); g.moveTo(px(v), M.top); g.lineTo(px(v), M.top + ph); g.stroke(); }
    for (const v of yTicks) { g.beginPath(); g.moveTo(left, py(v)); g.lineTo(left + pw, py(v)); g.stroke(); }
    g.globalAlpha = 1;
    g.strokeRect(left, M.top, pw, ph);
    g.fillStyle = fg;
    g.textAlign = 'center';
    g.textBaseline = 'top';
    for (const v of xTicks) {
      // the last label may be wider than the right margin: keep it on the canvas
      const text = tickText(v);
      g.fillText(text, Math.min(px(v), width - g.measureText(text).width / 2 - 1), M.top + ph + 4);
    }
    g.fillText(this.options.xLabel, left + pw / 2, M.top + ph + 22);
    g.textAlign = 'right';
    g.textBaseline = 'middle';
    for (const v of yTicks) g.fillText(tickText(v), left - 5, py(v));
    g.save();
    g.translate(12, M.top + ph / 2);
    g.rotate(-Math.PI / 2);
    g.textAlign = 'center';
    g.fillText(this.options.yLabel, 0, 0);
    g.restore();
    g.save();
    g.beginPath();
    g.rect(left, M.top, pw, ph);
    g.clip();
    for (const s of series) {
      const style = s.style ?? 'line';
      g.strokeStyle = s.colour;
      g.fillStyle = s.colour;
      g.lineWidth = 2;
      g.setLineDash(style === 'dashed' ? [6, 4] : []);
      if (style !== 'points') {
        g.beginPath();
        let pen = false;
        for (let i = 0; i < s.x.length; i++) {
          if (!usable(s.x[i], xLog) || !usable(s.y[i], yLog)) { pen = false; continue; }
          if (pen) g.lineTo(px(s.x[i]), py(s.y[i]));
          else g.moveTo(px(s.x[i]), py(s.y[i]));
          pen = true;
        }
        g.stroke();
      }
      if (style === 'points' || style === 'line+points') {
        for (let i = 0; i < s.x.length; i++) {
          if (!usable(s.x[i], xLog) || !usable(s.y[i], yLog)) continue;
          g.beginPath();
          g.arc(px(s.x[i]), py(s.y[i]), 3.2, 0, 2 * Math.PI);
          g.fill();
        }
      }
    }
    g.restore();
  }
}

function tickText(v: number): string {
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(0).replace('-', '−');
  // as few decimals as show the tick exactly (0.001 needs three, 2.5 one)
  const decimals = [0, 1, 2, 3].find((d) => Math.abs(Number(v.toFixed(d)) - v) <= 1e-9 * Math.max(1, a)) ?? 4;
  return formatNumber(v, decimals);
}
