// <attn-rope>: RoPE's rotation made visible, computed by the engine. One head with RoPE (d = 8, four
// 2-D pairs) reads the same vector at 32 positions, so positions differ only by their rotation. The
// widget draws one pair of the query at m and of the key at n as two arrows, prints the full score
// q_mᵀk_n, and shows every score S[m][n] as a heatmap whose diagonals repeat: only n − m counts.
// Settings: query (m), key (n), pair (i).
import type { RemoteEngine } from '../runtime/engine';
import { limitsOf } from '../runtime/state';
import type { HeadResult, MatrixData } from '../engine/index';
import { formatNumber, formatSignificant, subscript } from '../math/format';
import { at } from '../math/matrix';
import { degrees, longestPair, pairAngles, pairPoint, ROPE_DEMO, ropeDemoInputs } from '../math/rope';
import { CANVAS_FONT, foreground, gridColour, sharpCanvas } from '../primitives/canvas';
import { button, h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { Heatmap } from '../primitives/heatmap';
import { SERIES_COLOURS } from '../primitives/plot';

const styles = `
.toolbar input { width: 100px; }
.toolbar output { min-width: 1.4em; }
.score-line { display: flex; flex-wrap: wrap; gap: 6px 16px; align-items: center; margin: 0 0 10px; }
.score { margin: 0; font-size: 20px; font-weight: 600; font-variant-numeric: tabular-nums; }
.offset { color: var(--muted); font-weight: 400; margin-left: 10px; white-space: nowrap; }
.shift { display: inline-flex; gap: 6px; font-size: 14px; }
.main { display: grid; grid-template-columns: 290px 388px; gap: 6px 24px; align-items: start; }
.main h4 { margin: 0 0 4px; font-size: 14px; font-weight: 600; }
@media (max-width: 799px) { .main { grid-template-columns: minmax(0, 1fr); } .score { font-size: 18px; } }
`;

const QUERY_COLOUR = SERIES_COLOURS.blue;
const KEY_COLOUR = SERIES_COLOURS.vermillion;
const PICTURE = { width: 290, height: 336, legend: 54 };

type Rotated = Required<Pick<HeadResult, 'q' | 'k' | 'scores'>>;

export default class Rope extends EngineElement {
  private readonly picture = sharpCanvas('a pair of the rotated query and key');
  private readonly map = new Heatmap({ xLabel: 'key position n', yLabel: 'query position m', tint: 'signed', width: 256, height: 256,
    onClick: ({ row, col }) => this.change({ query: row, key: col }) });
  /** the engine's answer does not depend on the settings: asked once */
  private result?: Promise<Rotated>;
  /** the scores the heatmap holds: drawn, and its table written, once */
  private drawn?: MatrixData;
  private readonly query = this.bound.slider('query');
  private readonly key = this.bound.slider('key');
  private readonly pair = this.bound.slider('pair');
  private readonly back = this.shiftButton(-1);
  private readonly forward = this.shiftButton(1);
  private readonly score = h('span');
  private readonly offset = h('span', 'offset');
  private readonly pictureTitle = h('h4');

  constructor() {
    super(styles, 'move both positions together: the arrows turn, the angle between them and the score stay.');
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const m = this.value<number>('query');
    const n = this.value<number>('key');
    const pair = this.value<number>('pair');
    const [query, key] = [limitsOf(this.localName, 'query'), limitsOf(this.localName, 'key')];
    this.back.disabled = m <= query.min || n <= key.min;
    this.forward.disabled = m >= query.max || n >= key.max;

    const { q, k, scores } = await (this.result ??= this.rotate(engine));
    // no-break spaces: a narrow screen wraps the line before the score, never inside it
    this.score.textContent = `score q${subscript(m)}ᵀk${subscript(n)}\u00a0=\u00a0${formatNumber(at(scores, m, n), 4)}`;
    this.offset.textContent = `(n − m = ${formatNumber(n - m, 0)})`;
    if (this.drawn !== scores) {
      this.map.draw(scores);
      this.drawn = scores;
    }
    this.map.setHighlight({ row: m, col: n });

    this.pictureTitle.textContent = `(a) pair ${pair}: dimensions ${2 * pair} and ${2 * pair + 1}`;
    this.drawPicture(q, k, pair, m, n);
  }

  /** moves the query and the key together, keeping their offset */
  private shiftButton(by: 1 | -1): HTMLButtonElement {
    return button(`shift both by ${by > 0 ? '+1' : '−1'}`,
      () => this.change({ query: this.value<number>('query') + by, key: this.value<number>('key') + by }));
  }

  private async rotate(engine: RemoteEngine): Promise<Rotated> {
    try {
      const { q, k, scores } = (await engine.attention({ ...ropeDemoInputs(), trace: ['q', 'k', 'scores'] })).heads[0]!;
      if (!q || !k || !scores) throw new Error('the engine returned no rotated queries, keys or scores');
      return { q, k, scores };
    } catch (error) {
      this.result = undefined;  // the next change asks again
      throw error;
    }
  }

  /** the pair's plane: every position's query and key faintly, the chosen two as arrows, the angle between them */
  private drawPicture(q: MatrixData, k: MatrixData, pair: number, m: number, n: number): void {
    const point = (matrix: MatrixData, position: number) => pairPoint(matrix, position, pair);
    const { from, between, perPosition } = pairAngles(q, k, pair, m, n);
    this.picture.canvas.setAttribute('aria-label', `pair ${pair} of the query at m = ${m} and of the key at n = ${n}, ` +
      `${formatNumber(degrees(between), 1)}° apart; the pair turns ${formatSignificant(degrees(perPosition), 3)}° per position`);
    const { width, height, legend } = PICTURE;
    const canvas = this.picture.canvas;
    // one scale for every pair (rotations keep lengths): the longest pair reaches 0.85 of the half-width
    const scale = (0.85 * width) / 2 / (longestPair(q, k) || 1);
    const [cx, cy] = [width / 2, legend + (height - legend) / 2];
    const toCanvas = ([x, y]: readonly number[]) => [cx + scale * x, cy - scale * y] as const;
    this.picture.draw(width, height, (g) => {
      const fg = foreground(canvas);
      const muted = getComputedStyle(canvas).getPropertyValue('--muted').trim() || fg;
      g.font = CANVAS_FONT;
      // axes and the unit circle
      g.strokeStyle = gridColour(canvas);
      g.lineWidth = 1;
      g.beginPath();
      g.moveTo(cx - width / 2 + 4, cy); g.lineTo(cx + width / 2 - 4, cy);
      g.moveTo(cx, legend + 2); g.lineTo(cx, height - 2);
      g.stroke();
      g.setLineDash([3, 4]);
      g.beginPath(); g.arc(cx, cy, scale, 0, 2 * Math.PI); g.stroke();
      g.setLineDash([]);
      // where the query's and the key's pair point at each of the 32 positions
      for (const [matrix, colour] of [[q, QUERY_COLOUR], [k, KEY_COLOUR]] as const) {
        g.fillStyle = colour;
        g.globalAlpha = 0.45;
        for (let p = 0; p < ROPE_DEMO.n; p++) {
          const [x, y] = toCanvas(point(matrix, p));
          g.beginPath(); g.arc(x, y, 2.5, 0, 2 * Math.PI); g.fill();
        }
        g.globalAlpha = 1;
      }
      // the angle between them, drawn from the query's direction to the key's
      const radius = 30;
      g.strokeStyle = fg;
      g.lineWidth = 1.5;
      g.beginPath(); g.arc(cx, cy, radius, -from, -(from + between), between > 0); g.stroke();
      for (const [matrix, position, colour] of [[q, m, QUERY_COLOUR], [k, n, KEY_COLOUR]] as const) arrow(g, [cx, cy], toCanvas(point(matrix, position)), colour);
      // the legend, above the plane (the angle's value too: beside the arc it would collide with close arrows)
      g.textAlign = 'left';
      g.textBaseline = 'middle';
      const labels = [[`q at m = ${m}`, QUERY_COLOUR], [`k at n = ${n}`, KEY_COLOUR]] as const;
      labels.forEach(([text, colour], j) => {
        const y = 9 + j * 17;
        g.strokeStyle = colour;
        g.lineWidth = 3;
        g.beginPath(); g.moveTo(4, y); g.lineTo(24, y); g.stroke();
        g.fillStyle = fg;
        g.fillText(text, 30, y);
      });
      g.strokeStyle = fg;
      g.lineWidth = 1.5;
      g.beginPath(); g.moveTo(20, 49); g.lineTo(4, 49); g.lineTo(4 + 16 * Math.cos(0.9), 49 - 16 * Math.sin(0.9)); g.stroke();
      g.beginPath(); g.arc(4, 49, 10, -0.9, 0); g.stroke();
      g.fillStyle = fg;
      g.fillText(`angle q → k = ${formatNumber(degrees(between), 1)}°`, 30, 43);
      g.fillStyle = muted;
      g.textAlign = 'right';
      g.fillText(`turns ${formatSignificant(degrees(perPosition), 3)}°`, width - 4, 9);
      g.fillText('per position', width - 4, 26);
    });
  }

  protected override layout(): HTMLElement {
    return h('div', {},
      h('div', 'toolbar', this.query.element, this.key.element, this.pair.element),
      h('div', 'score-line', h('p', { className: 'score', attrs: { 'aria-live': 'polite' } }, this.score, this.offset),
        h('div', { className: 'shift', attrs: { role: 'group', 'aria-label': 'move both positions' }, data: { control: 'query key' } },
          this.back, this.forward)),
      h('div', 'main',
        h('div', {}, this.pictureTitle, this.picture.canvas),
        h('div', {}, h('h4', { textContent: '(b) all scores qₘᵀkₙ: equal along diagonals' }), this.map.element)));
  }
}

/** a thick arrow from `from` to `to` in canvas coordinates */
function arrow(g: CanvasRenderingContext2D, from: readonly [number, number], to: readonly [number, number], colour: string): void {
  const direction = Math.atan2(to[1] - from[1], to[0] - from[0]);
  const head = 11;
  g.strokeStyle = colour;
  g.fillStyle = colour;
  g.lineWidth = 3;
  g.lineCap = 'round';
  g.beginPath();
  g.moveTo(from[0], from[1]);
  g.lineTo(to[0] - head * 0.7 * Math.cos(direction), to[1] - head * 0.7 * Math.sin(direction));
  g.stroke();
  g.beginPath();
  g.moveTo(to[0], to[1]);
  g.lineTo(to[0] - head * Math.cos(direction - 0.4), to[1] - head * Math.sin(direction - 0.4));
  g.lineTo(to[0] - head * Math.cos(direction + 0.4), to[1] - head * Math.sin(direction + 0.4));
  g.closePath();
  g.fill();
}
