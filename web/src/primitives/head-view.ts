// The head view: one head's attention as lines from each query word (a left column of words) to
// every key word (a right column), a line's opacity and width its weight; the chosen query's lines
// in the accent colour, the others faint. Hovering a query word previews it, a click chooses it.
// A long sentence keeps the picture's height: its rows get closer (down to a few pixels), words are
// written in 12 px and thinned to every k-th so that none overlaps, and the chosen query's word and
// (once words are thinned) those it looks at most are always written, in bold, the thinned ones
// near them left out.
import { at, row, type MatrixData } from '../math/matrix';
import { topIndices } from '../math/ranking';
import { labelStep, thinLabels } from '../math/ticks';
import { foreground, sharpCanvas } from './canvas';

/** above this many words the head view draws only each query's strongest lines */
const ALL_LINES_UP_TO = 8;
const LINES_PER_QUERY = 3;
/** the height the rows share when there are many of them (px), and the most one row gets */
const ROWS_HEIGHT = 440;
const MAX_ROW_HEIGHT = 26;
/** the chosen query's strongest keys whose words are always written: up to this many, from this weight */
const NAMED_KEYS = 4;
const NAMED_WEIGHT = 0.05;
const font = (px: number, bold = false) => `${bold ? '700 ' : ''}${px}px system-ui, "DejaVu Sans", sans-serif`;

/** Lines from each query word (left column) to every key word (right), weight as opacity and width. */
export class HeadView {
  private readonly picture = sharpCanvas('head view: lines from each query word to the key words, thicker for more attention');
  readonly element = this.picture.canvas;
  private labels: string[] = [];
  private weights?: MatrixData;
  private query = 0;
  private readonly geometry = { width: 460, top: 26, leftX: 170, rightX: 290, rowHeight: 24 };

  /** `onQuery(query, commit)`: the pointer is over a query word (−1: it left), or clicked one (commit) */
  constructor(onQuery: (query: number, commit: boolean) => void) {
    const canvas = this.element;
    canvas.addEventListener('mousemove', (e) => {
      const q = this.queryAt(e);
      if (q !== undefined && q !== this.query) onQuery(q, false);
    });
    canvas.addEventListener('mouseleave', () => onQuery(-1, false));
    canvas.addEventListener('click', (e) => {
      const q = this.queryAt(e);
      if (q !== undefined) onQuery(q, true);
    });
  }

  draw(weights: MatrixData, labels: string[], query: number): void {
    this.weights = weights;
    this.labels = labels;
    this.query = query;
    const G = this.geometry;
    // whole pixels while rows are tall, fractions when many share the height
    const share = ROWS_HEIGHT / Math.max(1, weights.rows);
    G.rowHeight = Math.min(MAX_ROW_HEIGHT, share >= 8 ? Math.floor(share) : share);
    this.picture.draw(G.width, Math.ceil(G.top + weights.rows * G.rowHeight + 6), (g) => this.paint(g));
  }

  private paint(g: CanvasRenderingContext2D): void {
    const m = this.weights;
    if (!m) return;
    const G = this.geometry;
    const fg = foreground(this.element);
    const accent = getComputedStyle(this.element).getPropertyValue('--accent').trim() || '#1f5fbf';
    const y = (i: number) => G.top + (i + 0.5) * G.rowHeight;
    g.font = font(12);
    g.fillStyle = fg;
    g.textBaseline = 'middle';
    g.textAlign = 'right';
    g.fillText('query (looking)', G.leftX, 10);
    g.textAlign = 'left';
    g.fillText('key (looked at)', G.rightX, 10);
    g.lineCap = 'round';
    // the other queries faintly, their strongest lines only when the sentence is long
    g.strokeStyle = fg;
    for (let i = 0; i < m.rows; i++) {
      if (i === this.query) continue;
      const keys = m.cols > ALL_LINES_UP_TO ? topIndices(row(m, i), LINES_PER_QUERY) : row(m, i).map((_, j) => j);
      for (const j of keys) this.line(g, y(i), y(j), at(m, i, j), 0.18);
    }
    g.strokeStyle = accent;
    for (let j = 0; j < m.cols; j++) this.line(g, y(this.query), y(j), at(m, this.query, j), 1);
    // key words tinted by the chosen query's weight on them (a gap between rows while they are tall)
    const inset = G.rowHeight >= 12 ? 2 : 0;
    for (let j = 0; j < m.cols; j++) {
      g.globalAlpha = Math.min(1, at(m, this.query, j)) * 0.35;
      g.fillStyle = accent;
      g.fillRect(G.rightX - 4, y(j) - G.rowHeight / 2 + inset, G.width - G.rightX, G.rowHeight - 2 * inset);
    }
    g.globalAlpha = 1;
    // the words: 14 px while rows are tall enough, else 12 px, thinned so that none overlaps; the
    // chosen query's and those of the keys it looks at most always written, in bold
    const size = G.rowHeight >= 18 ? 14 : 12;
    const extent = size + 3;
    const weights = row(m, this.query);
    // (a short sentence has every word written: the tint alone tells the strongest)
    const thinned = labelStep(G.rowHeight, extent) > 1;
    const named = thinned ? topIndices(weights, NAMED_KEYS).filter((j) => weights[j] >= NAMED_WEIGHT) : [];
    g.fillStyle = fg;
    g.textAlign = 'left';
    for (const j of thinLabels(m.cols, G.rowHeight, extent, named)) {
      g.font = font(size, named.includes(j));
      g.fillText(fit(g, this.labels[j] ?? '', G.width - G.rightX - 6), G.rightX + 4, y(j));
    }
    g.textAlign = 'right';
    for (const i of thinLabels(m.rows, G.rowHeight, extent, [this.query])) {
      g.font = font(size, i === this.query);
      g.fillStyle = i === this.query ? accent : fg;
      g.fillText(fit(g, this.labels[i] ?? '', G.leftX - 12), G.leftX - 10, y(i));
    }
  }

  private line(g: CanvasRenderingContext2D, from: number, to: number, weight: number, strength: number): void {
    if (!(weight > 0.005)) return;
    const G = this.geometry;
    g.globalAlpha = Math.min(1, weight) * strength;
    g.lineWidth = 0.75 + 5 * Math.min(1, weight);
    g.beginPath();
    g.moveTo(G.leftX - 4, from);
    g.lineTo(G.rightX - 8, to);
    g.stroke();
    g.globalAlpha = 1;
  }

  /** the query row under the pointer (the left half of the picture), if any */
  private queryAt(e: MouseEvent): number | undefined {
    const m = this.weights;
    if (!m) return undefined;
    const { x, y } = this.picture.pointer(e);
    const G = this.geometry;
    // a few pixels past the first or last row still count as it (rows may be a few pixels high)
    if (x >= (G.leftX + G.rightX) / 2 || y < G.top - 3 || y > G.top + m.rows * G.rowHeight + 3) return undefined;
    return m.rows > 0 ? Math.min(m.rows - 1, Math.max(0, Math.floor((y - G.top) / G.rowHeight))) : undefined;
  }
}

/** `text` cut with "…" to at most `width` px in the context's font */
function fit(g: CanvasRenderingContext2D, text: string, width: number): string {
  if (g.measureText(text).width <= width) return text;
  const chars = [...text];
  let n = chars.length - 1;
  while (n > 1 && g.measureText(`${chars.slice(0, n).join('')}…`).width > width) n--;
  return `${chars.slice(0, n).join('')}…`;
}
