// <attn-patches>: an image as a sentence of patches, the way a Vision Transformer reads it. A 32×32
// picture (built in, or drawn by the reader) is cut into P×P patches in raster order, each flattened
// and embedded by the engine, x_patch = Flatten(patch)·E with a seeded E; the sinusoidal table is
// added, and one attention head with W_Q = W_K = W_V = I runs over the patches. The head is not
// trained, so its weights show how alike two patches (and their positions) are; the query patch's
// weights are tinted over the image. Settings: picture (checkerboard | stripes | ring | letter |
// drawn), pixels (the drawing's bits, math/patch-image.ts), patch (2 | 4 | 8), query (its index).
import type { RemoteEngine } from '../runtime/engine';
import { PATCH_PICTURES, PATCH_SIZES } from '../runtime/registry';
import { formatNumber } from '../math/format';
import { identity, row, type MatrixData } from '../math/matrix';
import {
  builtInPicture, centredPixels, decodePixels, encodePixels, invertImage, movePatch, patchAt,
  patchesPerSide, samePlace, SIDE,
} from '../math/patch-image';
import { button, h } from '../primitives/controls';
import { DrawingPad, type PadPoint } from '../primitives/drawing-pad';
import { EngineElement } from '../runtime/engine-element';
import { equation, loadTypesetting } from '../primitives/equation';
import { term } from '../primitives/glossary';
import { Heatmap } from '../primitives/heatmap';
import { ScreenReaderTable } from '../primitives/screen-reader-table';

type Picture = (typeof PATCH_PICTURES)[number];
type PatchSize = (typeof PATCH_SIZES)[number];

/** the image's CSS size: 7 pixels a picture pixel */
const IMAGE_PX = 7 * SIDE;

const styles = `
.stage { display: flex; gap: 4px 20px; align-items: flex-start; margin-bottom: 4px; }
.image { margin: 0; flex: none; width: ${IMAGE_PX}px; }
.image canvas { display: block; touch-action: none; cursor: crosshair; }
.image p { margin: 2px 0 0; font-size: 14px; line-height: 1.3; font-variant-numeric: tabular-nums; min-height: 2.8em; }
.maps { display: flex; flex-wrap: wrap; gap: 2px 16px; align-items: flex-start; }
.maps h4 { margin: 0; font-size: 14px; font-weight: 600; white-space: nowrap; }
.maps .readout { font-size: 14px; min-height: 1.4em; }
.formula { margin: 0 0 4px; }
.formula .eq { font-size: 16px; }
.attention { display: flex; gap: 4px 20px; align-items: flex-start; }
.caption { flex: 1 1 16em; margin: 16px 0 0; font-size: 14px; line-height: 1.45; color: var(--muted); max-width: 36em; }
.caption .eq { font-size: 15px; color: var(--fg); white-space: nowrap; }
/* a phone: the embedding under the image, not cut off beside it */
@media (max-width: 799px) { .stage, .attention { flex-wrap: wrap; } .maps h4 { white-space: normal; } }
`;

/** E's seed: the same embedding for every picture */
const SEED = 1;
/** the pen: pixels within this many picture pixels of the pointer's path */
const PEN = 1.1;
/** a press that moves less than this (CSS pixels) is a click, which picks the patch */
const CLICK_SLOP = 4;
/** the overlay's colour and its opacity on the patch with the largest weight */
const TINT = [255, 128, 0] as const;
const TINT_OPACITY = 0.78;

const HINTS: Record<Picture, string> = {
  checkerboard: 'a white patch attends to white patches, a black one to black ones.',
  stripes: 'patches cut from the same phase of the stripes attend to each other.',
  ring: 'alike patches attend to each other: background to background, ring to ring.',
  letter: 'patches of the A attend to alike strokes, the background to the background.',
  drawn: 'drag on the image to draw (from white, to erase); alike patches light up.',
};

/** d, the width of the embedding: at least 32, and at least P² so that E can keep every pixel */
const embeddingWidth = (patch: number) => Math.max(32, patch * patch);

type Computed = { patch: number; query: number; weights: MatrixData };

/** where patch j is in a grid `side` patches wide */
const place = (j: number, side: number) => `row ${Math.floor(j / side)}, column ${j % side}`;

export default class Patches extends EngineElement {
  private readonly pad = new DrawingPad({
    label: 'the image', size: IMAGE_PX, pen: PEN, clickSlop: CLICK_SLOP,
    decorate: (g, width, drawing) => this.decorate(g, width, drawing),
    onDrawn: (image) => this.drawn(image),
    onHover: (point) => this.hoverPatch(point),
    // a click picks the patch under it
    onClick: ({ x, y }) => {
      const picked = patchAt(x, y, this.settings().patch);
      if (picked !== undefined) this.change({ query: picked });
    },
  });
  /** a click on a row of any of the maps picks that patch */
  private readonly pickRow = ({ row }: { row: number }) => this.change({ query: row });
  private readonly flattened = new Heatmap({ xLabel: 'pixel', yLabel: 'patch', tint: 'signed', width: 64, height: 150, onClick: this.pickRow });
  private readonly embedded = new Heatmap({ xLabel: 'dimension', yLabel: 'patch', tint: 'signed', width: 112, height: 150, onClick: this.pickRow });
  // an untrained head spreads most rows thin (a white patch's over every white patch, none near 1):
  // each row is coloured up to its own largest weight, so the pattern shows rather than a pale wash
  private readonly weights = new Heatmap({ xLabel: 'key patch', yLabel: 'query patch', tint: 'weights', width: 140, height: 140, rowScaled: true,
    onClick: this.pickRow });
  private readonly numbers = new ScreenReaderTable();
  private readonly pictures = this.bound.choices<Picture>('picture', {
    choices: PATCH_PICTURES.filter((p) => p !== 'drawn').map((p) => ({ value: p, text: p })), showName: false });
  // the query keeps its place on the image when the patches change size
  private readonly sizes = this.bound.choices<PatchSize>('patch', {
    choices: PATCH_SIZES.map((p) => ({ value: p, text: p, label: `${p} × ${p} patches` })),
    also: (p) => {
      const { patch, query } = this.settings();
      return { query: samePlace(query, patch, Number(p)) };
    } });
  private readonly formula = h('div', 'formula');
  private readonly caption = h('p', 'caption');
  private readonly titles = { flattened: h('h4'), embedded: h('h4'), weights: h('h4') };
  private readonly queryLine = h('p');
  private readonly announce = h('span', { className: 'sr-only', attrs: { 'aria-live': 'polite' } });
  /** what was computed for the image shown */
  private computed?: Computed;

  constructor() {
    super(styles, HINTS.ring);
  }

  /** the patch side P, and the query patch (the last patch when the setting is past it) */
  private settings(): { patch: number; query: number } {
    const patch = Number(this.value<PatchSize>('patch'));
    return { patch, query: Math.min(this.value<number>('query'), patchesPerSide(patch) ** 2 - 1) };
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const picture = this.value<Picture>('picture');
    const { patch, query } = this.settings();
    const side = patchesPerSide(patch);
    const n = side * side;
    const d = embeddingWidth(patch);
    this.setHint(HINTS[picture]);
    await loadTypesetting();
    // the caption is typeset: written once the typesetting is there (the layout comes before)
    if (!this.caption.hasChildNodes()) this.caption.append(
      'One ', term('attention-head', 'attention head'), ' over the patches, with ', term('sinusoidal-encoding', 'sinusoidal positions'),
      ' added, ', equation('X = x_{\\text{patch}} + PE'),
      ', and the identity for its projections, ', equation('W_Q = W_K = W_V = I'),
      '. No vision model is trained here, so the weights ', equation('\\mathrm{softmax}(XX^\\top/\\sqrt{d})'),
      ' only say how alike two patches are: the same pixels (and nearby places) score high. A trained ', term('vit', 'ViT'), ' learns ',
      equation('W_Q'), ' and ', equation('W_K'), ' that look for what matters instead: edges, parts, the object.');

    const image = (this.pad.image = picture === 'drawn' ? decodePixels(this.value<string>('pixels')) : builtInPicture(picture));
    const [{ patches, embedded }, table] = await Promise.all([
      engine.patchEmbedding({ image: centredPixels(image), height: SIDE, width: SIDE, patch, d, seed: SEED }),
      engine.positionalTable({ kind: 'sinusoidal', n, d }),
    ]);
    const x = embedded.data.map((v, i) => v + table.data[i]!);
    const I = identity(d);
    const weights = (await engine.attention({ x, n, d, wQ: I, wK: I, wV: I, dK: d, dV: d, trace: ['weights'] })).heads[0]!.weights!;
    this.computed = { patch, query, weights };

    this.formula.replaceChildren(equation(
      `x_{\\text{patch}} = \\mathrm{Flatten}(\\text{patch})\\,E,\\quad E \\in \\mathbb{R}^{${patch * patch} \\times ${d}},\\; E_{ij} \\sim \\mathcal{N}(0,\\, 1/${patch * patch})`));
    this.titles.flattened.textContent = `patches flattened: ${n} × ${patch * patch}`;
    this.titles.embedded.textContent = `embedded x_patch: ${n} × ${d}`;
    this.titles.weights.textContent = `attention weights: ${n} × ${n}, each row up to its own max`;
    for (const [map, matrix] of [[this.flattened, patches], [this.embedded, embedded], [this.weights, weights]] as const) {
      map.draw(matrix);
      map.setHighlight({ row: query });
    }
    const queryRow = row(weights, query);
    this.numbers.fill({
      caption: `the weights of query patch ${query} (${place(query, side)}) on every patch`, head: ['patch', 'row', 'column', 'weight'],
      rows: queryRow.map((w, j) => [String(j), Math.floor(j / side), j % side, w] as [string, ...number[]]),
      format: (v, column) => (column < 2 ? String(v) : formatNumber(v, 5)),
    });
    this.describeQuery(query, side, queryRow);
    this.announce.textContent = this.queryLine.textContent;
    this.pad.canvas.setAttribute('aria-label', `the ${picture === 'drawn' ? 'drawn image' : picture}, cut into ${side} × ${side} patches of ${patch} × ${patch} pixels; ` +
      `query patch ${query} is outlined and the patches it attends to are tinted orange. Arrow keys move the query.`);
    this.pad.draw();
  }

  /** a new drawing: into the link */
  private drawn(image: Float32Array): void {
    this.change({ picture: 'drawn', pixels: encodePixels(image) });
  }

  /** the caption under the image: where the query is and where it looks most */
  private describeQuery(query: number, side: number, row: number[]): void {
    const best = row.map((w, j) => [w, j] as const).filter(([, j]) => j !== query).sort((a, b) => b[0] - a[0]).slice(0, 2);
    this.queryLine.textContent = `query ${query} (${place(query, side)}): itself ${formatNumber(row[query]!, 3)}, ` +
      `then ${best.map(([w, j]) => `${j} (${formatNumber(w, 3)})`).join(', ')}`;
  }

  /** over the image: the query's weights as a tint, the patch grid and the query outlined; while the
   * reader draws, the grid only (the weights are out of date) */
  private decorate(g: CanvasRenderingContext2D, width: number, drawing: boolean): void {
    const computed = drawing ? undefined : this.computed;
    const patch = computed?.patch ?? this.settings().patch;
    const side = patchesPerSide(patch);
    const cell = (patch * width) / SIDE;
    if (computed) {
      const { weights, query } = computed;
      const shares = row(weights, query);
      // relative to the largest weight on another patch: the query's weight on itself is often
      // the largest by far, and would leave every other tint too faint to see
      const top = Math.max(...shares.filter((_, j) => j !== query)) || 1;
      for (const [j, w] of shares.entries()) {
        g.fillStyle = `rgb(${TINT.join(' ')} / ${(TINT_OPACITY * Math.min(1, w / top)).toFixed(3)})`;
        g.fillRect((j % side) * cell, Math.floor(j / side) * cell, cell, cell);
      }
    }
    g.strokeStyle = 'rgb(128 128 128 / 0.9)';
    g.lineWidth = 1;
    g.beginPath();
    for (let k = 1; k < side; k++) {
      const at = Math.round(k * cell) + 0.5;
      g.moveTo(at, 0); g.lineTo(at, width);
      g.moveTo(0, at); g.lineTo(width, at);
    }
    g.stroke();
    if (computed) {
      const { query } = computed;
      const x = (query % side) * cell;
      const y = Math.floor(query / side) * cell;
      // a dark line with a light one inside: seen on black and on white pixels
      for (const [colour, lineWidth, inset] of [['#000', 5, 2.5], ['#27c4ff', 2.5, 2.5]] as const) {
        g.strokeStyle = colour;
        g.lineWidth = lineWidth;
        g.strokeRect(x + inset, y + inset, cell - 2 * inset, cell - 2 * inset);
      }
    }
  }

  /** hovering the image names the patch under the pointer and the query's weight on it */
  private hoverPatch(point: PadPoint | undefined): void {
    const computed = this.computed;
    if (!computed) return;
    const side = patchesPerSide(computed.patch);
    const j = point && patchAt(point.x, point.y, computed.patch);
    const queryRow = row(computed.weights, computed.query);
    if (j === undefined) {
      this.describeQuery(computed.query, side, queryRow);
      return;
    }
    this.queryLine.textContent = `patch ${j} (${place(j, side)}): query ${computed.query} gives it ${formatNumber(queryRow[j]!, 4)}`;
  }

  private onKey(e: KeyboardEvent): void {
    const { patch, query } = this.settings();
    const next = movePatch(query, e.key, patch);
    if (next === undefined || e.altKey || e.ctrlKey || e.metaKey) return;
    // the arrows move the query here, not the slides
    e.preventDefault();
    e.stopPropagation();
    if (next !== query) this.change({ query: next });
  }

  protected override layout(): HTMLElement {
    const drawing = h('div', { className: 'group', attrs: { role: 'group', 'aria-label': 'drawing' }, data: { control: 'pixels' } },
      button('clear', () => this.drawn(new Float32Array(SIDE * SIDE))), button('invert', () => this.drawn(invertImage(this.pad.image))));
    const canvas = this.pad.canvas;
    canvas.addEventListener('keydown', (e) => this.onKey(e));
    const figure = (title: HTMLElement, map: Heatmap) => h('div', {}, title, map.element);
    return h('div', {},
      h('div', 'toolbar', this.pictures.element, this.sizes.element, drawing),
      h('div', 'stage',
        // the query and where it looks, under the image (or the patch under the pointer); a screen
        // reader hears of a new query only, not of every patch the pointer passes
        h('figure', 'image', canvas, this.queryLine, this.announce, this.numbers.element),
        h('div', {}, this.formula, h('div', 'maps', figure(this.titles.flattened, this.flattened), figure(this.titles.embedded, this.embedded)))),
      h('div', 'attention maps', figure(this.titles.weights, this.weights), this.caption));
  }
}
