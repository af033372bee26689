// The head view: one head's attention as lines from each query word (a left column of words) to
// every key word (a right column), a line's opacity and width its weight; the chosen query's lines
// in the accent colour, the others faint. Hovering a query word previews it, a click chooses it.
import { at, row, type MatrixData } from '../math/matrix';
import { topIndices } from '../math/ranking';
import { foreground, sharpCanvas } from './canvas';

/** above this many words the head view draws only each query's strongest lines */
const ALL_LINES_UP_TO = 8;
const LINES_PER_QUERY = 3;

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
    G.rowHeight = Math.min(26, Math.floor(400 / Math.max(1, weights.rows)));
    this.picture.draw(G.width, G.top + weights.rows * G.rowHeight + 6, (g) => this.paint(g));
  }

  private paint(g: CanvasRenderingContext2D): void {
    const m = this.weights;
    if (!m) return;
    const G = this.geometry;
    const fg = foreground(this.element);
    const accent = getComputedStyle(this.element).getPropertyValue('--accent').trim() || '#1f5fbf';
    const y = (i: number) => G.top + (i + 0.5) * G.rowHeight;
    g.font = '12px system-ui, "DejaVu Sans", sans-serif';
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
    // key words tinted by the chosen query's weight on them
    g.font = '14px system-ui, "DejaVu Sans", sans-serif';
    for (let j = 0; j < m.cols; j++) {
      const w = at(m, this.query, j);
      g.globalAlpha = Math.min(1, w) * 0.35;
      g.fillStyle = accent;
      g.fillRect(G.rightX - 4, y(j) - G.rowHeight / 2 + 2, G.width - G.rightX, G.rowHeight - 4);
      g.globalAlpha = 1;
      g.fillStyle = fg;
      g.textAlign = 'left';
      g.fillText(this.labels[j] ?? '', G.rightX + 4, y(j));
    }
    for (let i = 0; i < m.rows; i++) {
      g.textAlign = 'right';
      g.font = `${i === this.query ? '700 ' : ''}14px system-ui, "DejaVu Sans", sans-serif`;
      g.fillStyle = i === this.query ? accent : fg;
      g.fillText(this.labels[i] ?? '', G.leftX - 10, y(i));
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
    const i = Math.floor((y - this.geometry.top) / this.geometry.rowHeight);
    return x < (this.geometry.leftX + this.geometry.rightX) / 2 && i >= 0 && i < m.rows ? i : undefined;
  }
}
