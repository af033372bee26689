// The plot every widget draws its curves with: series of points and lines on linear or logarithmic
// axes, with ticks chosen for the range (or given, such as the sizes measured) written with
// superscript powers, a legend, labels at the ends of curves, series picked out while the others
// fade, exact zeros of a log axis on a strip of their own, and a table of the numbers for screen
// readers. Series take their colours from one palette that reads on the light and the dark theme;
// text, frame and gridlines take the theme's own.
import { formatNumber, formatSignificant } from '../math/format';
import { axisTicks, formatTick, spreadLabels, thinTicks } from '../math/ticks';
import { CANVAS_FONT, gridColour, sharpCanvas, type SharpCanvas } from './canvas';
import { ScreenReaderTable, type TableRows } from './screen-reader-table';

export interface Series {
  name: string;
  x: ArrayLike<number>;
  y: ArrayLike<number>;
  /** one of the palette's colours (see SERIES_COLOURS) */
  colour: string;
  /** "line" (default), "points", or both; "dashed" for fits and reference lines */
  style?: 'line' | 'points' | 'line+points' | 'dashed';
  /** picked out: drawn over the others, bolder, while the series not picked out thin */
  emphasised?: boolean;
  /** written beside its last point, where the eye already is */
  label?: string;
  /** false: drawn and in the table, not in the legend (a fit that its points' entry names) */
  legend?: boolean;
}

export interface PlotOptions {
  xLabel: string;
  yLabel: string;
  xLog?: boolean;
  yLog?: boolean;
  width: number;
  height: number;
  /** fixed ranges; default: the data's, out to the round ticks around it */
  xRange?: [number, number];
  yRange?: [number, number];
  /** the ticks to show (the sizes measured, say); default: round values chosen for the range */
  xTicks?: readonly number[];
  yTicks?: readonly number[];
  /** on a log y axis, exact zeros drawn hollow on a strip below it rather than left out (an underflow is a result) */
  zeroStrip?: boolean;
  /** a heading above the picture */
  title?: string;
  /** false: no legend (the widget names the series once for several plots) */
  legend?: boolean;
  /** the table of the numbers; default: one row per point (its series, x and y) */
  table?: (series: readonly Series[]) => TableRows;
}

/** Series colours: the Okabe–Ito hues (told apart with any colour vision), orange and sky blue
 * darkened, so that each keeps 3:1 contrast on the light theme's white and the dark theme's
 * near-black alike. */
export const SERIES_COLOURS = {
  blue: '#0072B2', orange: '#C48500', green: '#009E73', vermillion: '#D55E00', purple: '#CC79A7', sky: '#3594D4',
} as const;

/** the width of a series' line: picked out, plain, and not picked out while another is (thinner
 * rather than paler: a paled colour loses its contrast with the dark page) */
const LINE_WIDTH = { picked: 3, plain: 2, thin: 1.25 } as const;
const MARGIN = { left: 24, top: 8, right: 10, bottom: 38 };
/** the narrowest a plot is laid out at, for a narrow box (its text keeps its size) */
const MIN_WIDTH = 240;
/** how far past the frame a point may show (the largest point's radius) */
const POINT_ROOM = 5;
/** the strip of exact zeros below a log axis */
const ZERO_STRIP = 24;
const LABEL_GAP = 13;
/** the short dash in its series' colour that leads to a curve's label */
const LABEL_DASH = 10;

const usable = (v: number, log: boolean) => Number.isFinite(v) && (!log || v > 0);

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

/** the lowest and highest usable value of `values` over every series, or undefined when none is */
function extent(series: readonly Series[], pick: (s: Series) => ArrayLike<number>, log: boolean): [number, number] | undefined {
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of series) {
    const values = pick(s);
    for (let i = 0; i < values.length; i++) {
      if (!usable(values[i], log)) continue;
      lo = Math.min(lo, values[i]);
      hi = Math.max(hi, values[i]);
    }
  }
  if (!Number.isFinite(lo)) return undefined;
  return lo === hi ? (log ? [lo / 2, hi * 2] : [lo - 1, hi + 1]) : [lo, hi];
}

/** the theme's colours where the plot is: text, muted text, and the lines of the grid */
function axisColours(element: Element): { text: string; muted: string; grid: string } {
  const style = getComputedStyle(element);
  const text = style.color || '#222';
  return {
    text,
    muted: style.getPropertyValue('--muted').trim() || text,
    grid: gridColour(element),
  };
}

export class Plot {
  readonly element: HTMLElement;
  private readonly picture: SharpCanvas;
  private readonly legend: HTMLElement;
  private readonly heading: HTMLElement;
  private readonly table = new ScreenReaderTable();

  constructor(private options: PlotOptions) {
    this.element = document.createElement('figure');
    this.element.className = 'plot';
    this.element.style.margin = '0';
    this.heading = document.createElement('h4');
    this.heading.className = 'plot-title';
    this.heading.style.cssText = 'margin:0 0 2px;font-size:14px;font-weight:600';
    this.picture = sharpCanvas(`${options.yLabel} against ${options.xLabel}`);
    this.picture.canvas.style.display = 'block';
    this.legend = document.createElement('figcaption');
    this.legend.className = 'legend muted';
    this.legend.style.cssText = 'display:flex;flex-wrap:wrap;gap:0 12px;margin-top:2px;font-size:12px';
    this.element.append(this.heading, this.picture.canvas, this.legend, this.table.element);
    this.configure({});
  }

  /** changes some options; the next draw() uses them */
  configure(options: Partial<PlotOptions>): void {
    this.options = { ...this.options, ...options };
    const { title, legend } = this.options;
    this.heading.textContent = title ?? '';
    this.heading.hidden = !title;
    this.legend.hidden = legend === false;
  }

  /** draws the series (in a later frame, see canvas.ts), their legend, and their table */
  draw(series: readonly Series[]): void {
    // painted in a later frame, and again when the theme changes: with the options of this drawing
    const options = this.options;
    const { width, height, xLog, yLog, xLabel, yLabel, table } = options;
    // the picked-out series last, over the others
    const order = [...series].sort((a, b) => Number(Boolean(a.emphasised)) - Number(Boolean(b.emphasised)));
    // on a narrower box the plot is laid out again, narrower, its text the same size
    this.picture.draw(width, height, (g, shownWidth) => this.paint(g, order, { ...options, width: shownWidth }), { min: Math.min(width, MIN_WIDTH) });
    this.fillLegend(series);
    // on a log axis values span decades: fixed decimals would read tiny ones as 0
    this.table.fill(table?.(series) ?? {
      caption: `${yLabel} against ${xLabel}`,
      head: ['series', xLabel, yLabel],
      rows: series.flatMap((s) => Array.from(s.x, (x, i) => [s.name, x, s.y[i]] as [string, number, number])),
      format: (v, column) => ((column === 0 ? xLog : yLog) ? formatSignificant(v, 4) : formatNumber(v, column === 0 ? 4 : 6)),
    });
  }

  /** one entry per listed series, those not picked out dimmed while one is */
  private fillLegend(series: readonly Series[]): void {
    if (this.options.legend === false) return;
    const picking = series.some((s) => s.emphasised);
    this.legend.replaceChildren(...series.filter((s) => s.legend !== false).map((s) => {
      const item = document.createElement('span');
      item.append(legendSwatch(s), s.name);
      if (picking && !s.emphasised) item.style.opacity = '0.5';
      return item;
    }));
  }

  /** paints the axes, the series in order (the picked-out last) and their labels */
  private paint(g: CanvasRenderingContext2D, series: readonly Series[], options: PlotOptions): void {
    const { width, height, xLog = false, yLog = false, zeroStrip = false } = options;
    const colours = axisColours(this.element);
    g.font = CANVAS_FONT;
    // an axis with nothing on it yet spans one decade, or 0 to 1
    const nothing = (log: boolean): [number, number] => (log ? [1, 10] : [0, 1]);
    const x = axisTicks(...(extent(series, (s) => s.x, xLog) ?? nothing(xLog)), { log: xLog, chosen: options.xTicks, fixed: options.xRange });
    const y = axisTicks(...(extent(series, (s) => s.y, yLog) ?? nothing(yLog)), { log: yLog, chosen: options.yTicks, fixed: options.yRange });
    const zeros = zeroStrip && yLog && series.some((s) => Array.from(s.y).includes(0));
    const strip = zeros ? ZERO_STRIP : 0;

    const yTexts = y.ticks.map((v) => formatTick(v, yLog));
    const left = MARGIN.left + 6 + Math.max(8, ...yTexts.map((t) => g.measureText(t).width), zeros ? g.measureText('0').width : 0);
    const labelled = series.filter((s) => s.label);
    const labelRoom = labelled.length ? 4 + LABEL_DASH + 3 + Math.max(...labelled.map((s) => g.measureText(s.label!).width)) : 0;
    const pw = width - left - MARGIN.right - labelRoom;
    const ph = height - MARGIN.top - MARGIN.bottom - strip;
    const unit = (v: number, [a, b]: [number, number], log: boolean) => (log ? Math.log(v / a) / Math.log(b / a) : (v - a) / (b - a || 1));
    const px = (v: number) => left + unit(v, x.range, xLog) * pw;
    const py = (v: number) => MARGIN.top + (1 - unit(v, y.range, yLog)) * ph;
    const bottom = MARGIN.top + ph;
    const zeroY = bottom + strip / 2 + 2;

    // the grid, in the theme's muted line colour, and the frame
    g.lineWidth = 1;
    g.strokeStyle = colours.grid;
    for (const v of x.ticks) { g.beginPath(); g.moveTo(px(v), MARGIN.top); g.lineTo(px(v), bottom); g.stroke(); }
    for (const v of y.ticks) { g.beginPath(); g.moveTo(left, py(v)); g.lineTo(left + pw, py(v)); g.stroke(); }
    g.strokeStyle = colours.muted;
    g.strokeRect(left, MARGIN.top, pw, ph);
    if (zeros) {
      // a broken axis: the strip of exact zeros lies below every positive value
      g.setLineDash([3, 3]);
      g.strokeRect(left, bottom + 4, pw, strip - 4);
      g.setLineDash([]);
    }

    // tick labels in muted text, the axis names in the text colour
    g.fillStyle = colours.muted;
    g.textAlign = 'right';
    g.textBaseline = 'middle';
    y.ticks.forEach((v, i) => g.fillText(yTexts[i], left - 5, py(v)));
    if (zeros) g.fillText('0', left - 5, zeroY);
    g.textAlign = 'center';
    g.textBaseline = 'top';
    const xTexts = x.ticks.map((v) => formatTick(v, xLog));
    const xWidths = xTexts.map((t) => g.measureText(t).width);
    for (const i of thinTicks(x.ticks.map(px), xWidths)) {
      // the last label may be wider than the right margin: keep it on the canvas
      g.fillText(xTexts[i], Math.min(px(x.ticks[i]), width - xWidths[i] / 2 - 1), bottom + strip + 4);
    }
    g.fillStyle = colours.text;
    g.fillText(options.xLabel, left + pw / 2, bottom + strip + 20);
    g.save();
    g.translate(12, MARGIN.top + ph / 2);
    g.rotate(-Math.PI / 2);
    g.textBaseline = 'middle';
    g.fillText(options.yLabel, 0, 0);
    g.restore();

    const picking = series.some((s) => s.emphasised);
    // clipped to the frame, and a point's width beyond it: a point on the frame shows whole
    g.save();
    g.beginPath();
    g.rect(left - POINT_ROOM, MARGIN.top - POINT_ROOM, pw + 2 * POINT_ROOM, ph + strip + 2 * POINT_ROOM);
    g.clip();
    for (const s of series) {
      const style = s.style ?? 'line';
      const bold = picking && s.emphasised;
      const thin = picking && !s.emphasised;
      g.strokeStyle = g.fillStyle = s.colour;
      g.lineWidth = LINE_WIDTH[bold ? 'picked' : thin ? 'thin' : 'plain'];
      g.setLineDash(style === 'dashed' ? [6, 4] : []);
      const at = (i: number) => usable(s.x[i], xLog) && usable(s.y[i], yLog);
      if (style !== 'points') {
        g.beginPath();
        let pen = false;
        for (let i = 0; i < s.x.length; i++) {
          if (!at(i)) { pen = false; continue; }
          if (pen) g.lineTo(px(s.x[i]), py(s.y[i]));
          else g.moveTo(px(s.x[i]), py(s.y[i]));
          pen = true;
        }
        g.stroke();
      }
      g.setLineDash([]);
      if (style !== 'points' && style !== 'line+points') continue;
      const radius = (s.x.length > 24 ? 2.2 : 3.2) + (bold ? 1.5 : thin ? -0.7 : 0);
      for (let i = 0; i < s.x.length; i++) {
        g.beginPath();
        if (at(i)) {
          g.arc(px(s.x[i]), py(s.y[i]), radius, 0, 2 * Math.PI);
          g.fill();
          // a ring in the text colour picks the points out in either theme
          if (bold) {
            g.lineWidth = 1.5;
            g.strokeStyle = colours.text;
            g.stroke();
            g.strokeStyle = s.colour;
          }
        } else if (zeros && s.y[i] === 0 && usable(s.x[i], xLog)) {
          // hollow: no value to draw, only that it is exactly 0
          g.lineWidth = 1.5;
          g.arc(px(s.x[i]), zeroY, radius + 0.5, 0, 2 * Math.PI);
          g.stroke();
        }
      }
    }
    g.restore();
    // each label at its series' last point
    const ends = labelled.flatMap((s) => {
      for (let i = s.x.length - 1; i >= 0; i--) if (usable(s.x[i], xLog) && usable(s.y[i], yLog)) return [{ series: s, x: px(s.x[i]), y: py(s.y[i]) }];
      return [];
    });
    this.paintLabels(g, ends, picking, colours.text, [MARGIN.top + 5, bottom - 5]);
  }

  /** labels right of the points `ends` give, moved apart where they would overlap, each behind a
   * dash in its series' colour (the text itself in the text colour, readable on either theme) */
  private paintLabels(g: CanvasRenderingContext2D, ends: readonly { series: Series; x: number; y: number }[], picking: boolean,
    text: string, [top, bottom]: [number, number]): void {
    const ys = spreadLabels(ends.map((e) => e.y), LABEL_GAP, top, bottom);
    g.textAlign = 'left';
    g.textBaseline = 'middle';
    ends.forEach(({ series, x, y }, i) => {
      g.strokeStyle = series.colour;
      g.lineWidth = picking && !series.emphasised ? LINE_WIDTH.thin : LINE_WIDTH.plain;
      g.beginPath();
      g.moveTo(x + 3, y);
      g.lineTo(x + 4 + LABEL_DASH, ys[i]);
      g.stroke();
      g.fillStyle = text;
      g.fillText(series.label!, x + 4 + LABEL_DASH + 3, ys[i]);
    });
  }
}
