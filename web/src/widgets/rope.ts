// <attn-rope>: RoPE's rotation made visible, computed by the engine. One head with RoPE (d = 8, four
// 2-D pairs) reads the same vector at 32 positions, so positions differ only by their rotation. The
// widget draws one pair of the query at m and of the key at n as two arrows, prints the full score
// q_mᵀk_n, and shows every score S[m][n] as a heatmap whose diagonals repeat: only n − m counts.
// Settings: query (m), key (n), pair (i).
import type { RemoteEngine } from '../app/engine';
import { limitsOf } from '../app/state';
import type { HeadResult, MatrixData } from '../engine/index';
import { formatNumber, formatSignificant, subscript } from '../math/format';
import { at } from '../math/matrix';
import { CANVAS_FONT, foreground, sharpCanvas } from '../primitives/canvas';
import { EngineElement } from '../primitives/engine-element';
import { Heatmap } from '../primitives/heatmap';
import { SERIES_COLOURS } from '../primitives/plot';
import { slider } from '../primitives/slider';

const styles = `
.controls { display: flex; flex-wrap: wrap; gap: 6px 20px; margin: 0 0 6px; }
.controls input { width: 100px; }
.controls output { min-width: 1.4em; }
.score-line { display: flex; flex-wrap: wrap; gap: 6px 16px; align-items: center; margin: 0 0 10px; }
.score { margin: 0; font-size: 20px; font-weight: 600; font-variant-numeric: tabular-nums; }
.offset { color: var(--muted); font-weight: 400; margin-left: 10px; white-space: nowrap; }
.shift { display: inline-flex; gap: 6px; font-size: 14px; }
.main { display: grid; grid-template-columns: 290px 388px; gap: 6px 24px; align-items: start; }
.main h4 { margin: 0 0 4px; font-size: 14px; font-weight: 600; }
@media (max-width: 799px) { .main { grid-template-columns: minmax(0, 1fr); } .score { font-size: 18px; } }
`;

const N = 32;
const D = 8;
/** the token vector, the same at every position: pairs of different lengths and angles */
const V = [1, 0.5, 0.8, -0.3, 0.6, 0.9, -0.7, 0.4];
/** W_K as a signed permutation, k_j = sign_j · v_from(j): another vector than q, with the slow pairs
 * (2, 3) at right angles to q's so that the scores change sign along the fast pairs' stripes */
const KEY_FROM = [3, 2, 0, 1, 5, 4, 7, 6];
const KEY_SIGN = [-1, 1, 1, 1, -1, 1, 1, -1];
const QUERY_COLOUR = SERIES_COLOURS.blue;
const KEY_COLOUR = SERIES_COLOURS.vermillion;
const PICTURE = { width: 290, height: 336, legend: 54 };

/** the engine's inputs: x = v at all positions, [W_Q | W_K | W_V] = [I | signed permutation | I], W_O = I */
function inputs() {
  const x = new Float32Array(N * D);
  for (let p = 0; p < N; p++) x.set(V, p * D);
  const cAttnWeight = new Float32Array(D * 3 * D);
  for (let i = 0; i < D; i++) {
    cAttnWeight[i * 3 * D + i] = 1;
    cAttnWeight[i * 3 * D + 2 * D + i] = 1;
    cAttnWeight[KEY_FROM[i] * 3 * D + D + i] = KEY_SIGN[i];
  }
  const cProjWeight = new Float32Array(D * D);
  for (let i = 0; i < D; i++) cProjWeight[i * D + i] = 1;
  return { x, n: N, d: D, heads: 1, rope: true, scaled: false, cAttnWeight, cAttnBias: new Float32Array(3 * D), cProjWeight,
    cProjBias: new Float32Array(D) };
}


/** an angle in (−π, π] */
const wrap = (a: number) => Math.atan2(Math.sin(a), Math.cos(a));
const degrees = (a: number) => (a * 180) / Math.PI;

type Rotated = Required<Pick<HeadResult, 'q' | 'k' | 'scores'>>;

export class Rope extends EngineElement {
  static readonly observedAttributes = EngineElement.attributesOf('attn-rope');
  private readonly picture = sharpCanvas('a pair of the rotated query and key');
  private readonly map = new Heatmap({ xLabel: 'key position n', yLabel: 'query position m', tint: 'signed', width: 256, height: 256,
    onClick: ({ row, col }) => this.change({ query: row, key: col }) });
  /** the engine's answer does not depend on the settings: asked once */
  private result?: Promise<Rotated>;
  /** the scores the heatmap holds: drawn, and its table written, once */
  private drawn?: MatrixData;
  private view?: ReturnType<Rope['build']>;

  constructor() {
    super(styles, 'move both positions together: the arrows turn, the angle between them and the score stay.');
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const m = this.value<number>('query');
    const n = this.value<number>('key');
    const pair = this.value<number>('pair');
    const view = (this.view ??= this.build());
    if (!view.root.isConnected) this.body.replaceChildren(view.root);
    view.query.set(m);
    view.key.set(n);
    view.pair.set(pair);
    const [query, key] = [limitsOf(this.localName, 'query'), limitsOf(this.localName, 'key')];
    view.back.disabled = m <= query.min || n <= key.min;
    view.forward.disabled = m >= query.max || n >= key.max;

    const { q, k, scores } = await (this.result ??= this.rotate(engine));
    // no-break spaces: a narrow screen wraps the line before the score, never inside it
    view.score.textContent = `score q${subscript(m)}ᵀk${subscript(n)}\u00a0=\u00a0${formatNumber(at(scores, m, n), 4)}`;
    view.offset.textContent = `(n − m = ${formatNumber(n - m, 0)})`;
    if (this.drawn !== scores) {
      this.map.draw(scores);
      this.drawn = scores;
    }
    this.map.setHighlight({ row: m, col: n });

    view.pictureTitle.textContent = `(a) pair ${pair}: dimensions ${2 * pair} and ${2 * pair + 1}`;
    this.drawPicture(q, k, pair, m, n);
  }

  private async rotate(engine: RemoteEngine): Promise<Rotated> {
    try {
      const { q, k, scores } = (await engine.attention({ ...inputs(), trace: ['q', 'k', 'scores'] })).heads[0]!;
      if (!q || !k || !scores) throw new Error('the engine returned no rotated queries, keys or scores');
      return { q, k, scores };
    } catch (error) {
      this.result = undefined;  // the next change asks again
      throw error;
    }
  }

  /** the pair's plane: every position's query and key faintly, the chosen two as arrows, the angle between them */
  private drawPicture(q: MatrixData, k: MatrixData, pair: number, m: number, n: number): void {
    // display arithmetic on the engine's vectors: the pair's points and angles, for the arrows and their labels
    const point = (matrix: MatrixData, position: number) => [at(matrix, position, 2 * pair), at(matrix, position, 2 * pair + 1)] as const;
    const angle = (matrix: MatrixData, position: number) => Math.atan2(point(matrix, position)[1], point(matrix, position)[0]);
    const perPosition = degrees(wrap(angle(q, 1) - angle(q, 0)));
    const from = angle(q, m);
    const between = wrap(angle(k, n) - from);
    this.picture.canvas.setAttribute('aria-label', `pair ${pair} of the query at m = ${m} and of the key at n = ${n}, ` +
      `${formatNumber(degrees(between), 1)}° apart; the pair turns ${formatSignificant(perPosition, 3)}° per position`);
    const { width, height, legend } = PICTURE;
    const canvas = this.picture.canvas;
    // one scale for every pair (rotations keep lengths): the longest pair reaches 0.85 of the half-width
    let longest = 0;
    for (const matrix of [q, k]) for (let i = 0; i < D; i += 2) longest = Math.max(longest, Math.hypot(at(matrix, 0, i), at(matrix, 0, i + 1)));
    const scale = (0.85 * width) / 2 / (longest || 1);
    const [cx, cy] = [width / 2, legend + (height - legend) / 2];
    const toCanvas = ([x, y]: readonly [number, number]) => [cx + scale * x, cy - scale * y] as const;
    this.picture.draw(width, height, (g) => {
      const fg = foreground(canvas);
      const muted = getComputedStyle(canvas).getPropertyValue('--muted').trim() || fg;
      g.font = CANVAS_FONT;
      // axes and the unit circle
      g.strokeStyle = muted;
      g.lineWidth = 1;
      g.globalAlpha = 0.45;
      g.beginPath();
      g.moveTo(cx - width / 2 + 4, cy); g.lineTo(cx + width / 2 - 4, cy);
      g.moveTo(cx, legend + 2); g.lineTo(cx, height - 2);
      g.stroke();
      g.setLineDash([3, 4]);
      g.beginPath(); g.arc(cx, cy, scale, 0, 2 * Math.PI); g.stroke();
      g.setLineDash([]);
      g.globalAlpha = 1;
      // where the query's and the key's pair point at each of the 32 positions
      for (const [matrix, colour] of [[q, QUERY_COLOUR], [k, KEY_COLOUR]] as const) {
        g.fillStyle = colour;
        g.globalAlpha = 0.45;
        for (let p = 0; p < N; p++) {
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
      g.fillText(`turns ${formatSignificant(perPosition, 3)}°`, width - 4, 9);
      g.fillText('per position', width - 4, 26);
    });
  }

  private build() {
    const root = document.createElement('div');
    const controls = document.createElement('div');
    controls.className = 'controls';
    const query = slider({ label: 'query position m', ...limitsOf(this.localName, 'query'), value: 2,
      onInput: (m) => this.change({ query: m }) });
    const key = slider({ label: 'key position n', ...limitsOf(this.localName, 'key'), value: 5,
      onInput: (n) => this.change({ key: n }) });
    const pair = slider({ label: 'pair i', ...limitsOf(this.localName, 'pair'), value: 0, onInput: (i) => this.change({ pair: i }) });
    query.element.dataset.control = 'query';
    key.element.dataset.control = 'key';
    pair.element.dataset.control = 'pair';
    controls.append(query.element, key.element, pair.element);

    const scoreLine = document.createElement('div');
    scoreLine.className = 'score-line';
    const score = document.createElement('p');
    score.className = 'score';
    score.setAttribute('aria-live', 'polite');
    const value = document.createElement('span');
    const offset = document.createElement('span');
    offset.className = 'offset';
    score.append(value, offset);
    const shift = document.createElement('div');
    shift.className = 'shift';
    shift.setAttribute('role', 'group');
    shift.setAttribute('aria-label', 'move both positions');
    shift.dataset.control = 'query key';
    const shiftButton = (by: number) => {
      const b = document.createElement('button');
      b.textContent = `shift both by ${by > 0 ? '+1' : '−1'}`;
      b.addEventListener('click', () => this.change({ query: this.value<number>('query') + by, key: this.value<number>('key') + by }));
      return b;
    };
    const back = shiftButton(-1);
    const forward = shiftButton(1);
    shift.append(back, forward);
    scoreLine.append(score, shift);

    const main = document.createElement('div');
    main.className = 'main';
    const cell = (...content: HTMLElement[]) => {
      const div = document.createElement('div');
      const title = document.createElement('h4');
      div.append(title, ...content);
      main.append(div);
      return title;
    };
    const pictureTitle = cell(this.picture.canvas);
    cell(this.map.element).textContent = '(b) all scores qₘᵀkₙ: equal along diagonals';
    root.append(controls, scoreLine, main);
    return { root, query, key, pair, score: value, offset, back, forward, pictureTitle };
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

customElements.get('attn-rope') ?? customElements.define('attn-rope', Rope);
