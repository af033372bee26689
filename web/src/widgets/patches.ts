// <attn-patches>: an image as a sentence of patches, the way a Vision Transformer reads it. A 32×32
// picture (built in, or drawn by the reader) is cut into P×P patches in raster order, each flattened
// and embedded by the engine, x_patch = Flatten(patch)·E with a seeded E; the sinusoidal table is
// added, and one attention head with W_Q = W_K = W_V = I runs over the patches. The head is not
// trained, so its weights show how alike two patches (and their positions) are; the query patch's
// weights are tinted over the image. Settings: picture (checkerboard | stripes | ring | letter |
// drawn), pixels (the drawing's bits, math/patch-image.ts), patch (2 | 4 | 8), query (its index).
import type { RemoteEngine } from '../app/engine';
import { PATCH_PICTURES, PATCH_SIZES } from '../app/state';
import { formatNumber } from '../math/format';
import type { MatrixData } from '../math/matrix';
import {
  builtInPicture, centredPixels, decodePixels, encodePixels, invertImage, movePatch, paintStroke, patchAt,
  patchesPerSide, samePlace, SIDE, type BuiltInPicture,
} from '../math/patch-image';
import { foreground, sharpCanvas } from '../primitives/canvas';
import { EngineElement } from '../primitives/engine-element';
import { equation, loadTypesetting } from '../primitives/equation';
import { Heatmap } from '../primitives/heatmap';
import { ScreenReaderTable } from '../primitives/screen-reader-table';

type Picture = (typeof PATCH_PICTURES)[number];
type PatchSize = (typeof PATCH_SIZES)[number];

/** the image's CSS size: 7 pixels a picture pixel */
const IMAGE_PX = 7 * SIDE;

const styles = `
.bar { display: flex; flex-wrap: wrap; gap: 6px 16px; align-items: center; margin: 0 0 8px; font-size: 14px; }
.group { display: inline-flex; gap: 4px; align-items: center; }
.group > span { color: var(--muted); margin-right: 2px; }
.bar button { padding: 2px 9px; }
.stage { display: flex; gap: 4px 20px; align-items: flex-start; margin-bottom: 4px; }
.image { margin: 0; flex: none; width: ${IMAGE_PX}px; }
.image canvas { display: block; touch-action: none; cursor: crosshair; }
.image p { margin: 3px 0 0; font-size: 13px; line-height: 1.4; font-variant-numeric: tabular-nums; min-height: 2.8em; }
.maps { display: flex; flex-wrap: wrap; gap: 2px 16px; align-items: flex-start; }
.maps h4 { margin: 0; font-size: 13px; font-weight: 600; white-space: nowrap; }
.maps .readout { font-size: 12px; min-height: 1.4em; }
.formula { margin: 0 0 4px; }
.formula .eq { font-size: 16px; }
.attention { display: flex; gap: 4px 20px; align-items: flex-start; }
.caption { flex: 1 1 16em; margin: 16px 0 0; font-size: 13.5px; line-height: 1.45; color: var(--muted); max-width: 36em; }
.caption .eq { font-size: 15px; color: var(--fg); white-space: nowrap; }
[hidden] { display: none !important; }
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

const NAMES: Record<BuiltInPicture, string> = { checkerboard: 'checkerboard', stripes: 'stripes', ring: 'ring', letter: 'letter' };
const HINTS: Record<Picture, string> = {
  checkerboard: 'a white patch attends to white patches, a black one to black ones.',
  stripes: 'patches cut from the same phase of the stripes attend to each other.',
  ring: 'alike patches attend to each other: background to background, ring to ring.',
  letter: 'patches of the A attend to alike strokes, the background to the background.',
  drawn: 'drag on the image to draw (from white, to erase); alike patches light up.',
};

/** d, the width of the embedding: at least 32, and at least P² so that E can keep every pixel */
const embeddingWidth = (patch: number) => Math.max(32, patch * patch);

/** the identity, d × d, row-major */
const identity = (d: number) => Array.from({ length: d * d }, (_, i) => (i % (d + 1) === 0 ? 1 : 0));

interface Computed {
  patch: number;
  query: number;
  weights: MatrixData;
}

export class Patches extends EngineElement {
  static readonly observedAttributes = EngineElement.attributesOf('attn-patches');
  private readonly picture = sharpCanvas('the image');
  private readonly flattened = new Heatmap({ xLabel: 'pixel', yLabel: 'patch', tint: 'signed', width: 64, height: 150,
    onClick: ({ row }) => this.change({ query: row }) });
  private readonly embedded = new Heatmap({ xLabel: 'dimension', yLabel: 'patch', tint: 'signed', width: 112, height: 150,
    onClick: ({ row }) => this.change({ query: row }) });
  private readonly weights = new Heatmap({ xLabel: 'key patch', yLabel: 'query patch', tint: 'weights', width: 140, height: 140,
    onClick: ({ row }) => this.change({ query: row }) });
  private readonly numbers = new ScreenReaderTable();
  private view?: ReturnType<Patches['build']>;
  /** the image shown (0 black … 1 white) and what was computed for it */
  private image: Float32Array = new Float32Array(SIDE * SIDE);
  private computed?: Computed;
  /** a press on the image: a click (picks a patch) until it moves, then a stroke of the pen */
  private press?: { id: number; start: { x: number; y: number }; last: { x: number; y: number }; value: number; drawing: boolean; work: Float32Array };

  constructor() {
    super(styles, HINTS.ring);
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const picture = this.value<Picture>('picture');
    const patch = Number(this.value<PatchSize>('patch'));
    const side = patchesPerSide(patch);
    const n = side * side;
    const query = Math.min(this.value<number>('query'), n - 1);
    const d = embeddingWidth(patch);
    this.setHint(HINTS[picture]);
    await loadTypesetting();
    const view = (this.view ??= this.build());
    if (!view.root.isConnected) this.body.replaceChildren(view.root);
    for (const [p, button] of view.pictureButtons) button.setAttribute('aria-pressed', String(p === picture));
    for (const [p, button] of view.patchButtons) button.setAttribute('aria-pressed', String(Number(p) === patch));

    const image = picture === 'drawn' ? decodePixels(this.value<string>('pixels')) : builtInPicture(picture);
    this.image = image;
    const [{ patches, embedded }, table] = await Promise.all([
      engine.patchEmbedding({ image: centredPixels(image), height: SIDE, width: SIDE, patch, d, seed: SEED }),
      engine.positionalTable({ kind: 'sinusoidal', n, d }),
    ]);
    const x = embedded.data.map((v, i) => v + table.data[i]!);
    const I = identity(d);
    const result = await engine.attention({ x, n, d, wQ: I, wK: I, wV: I, dK: d, dV: d, trace: ['weights'] });
    const weights = result.heads[0]!.weights!;
    this.computed = { patch, query, weights };

    view.formula.replaceChildren(equation(
      `x_{\\text{patch}} = \\mathrm{Flatten}(\\text{patch})\\,E,\\quad E \\in \\mathbb{R}^{${patch * patch} \\times ${d}},\\; E_{ij} \\sim \\mathcal{N}(0,\\, 1/${patch * patch})`));
    view.flatTitle.textContent = `patches flattened: ${n} × ${patch * patch}`;
    view.embeddedTitle.textContent = `embedded x_patch: ${n} × ${d}`;
    view.weightsTitle.textContent = `attention weights: ${n} × ${n}`;
    this.flattened.draw(patches);
    this.embedded.draw(embedded);
    this.weights.draw(weights);
    for (const map of [this.flattened, this.embedded]) map.setHighlight({ row: query });
    this.weights.setHighlight({ row: query });
    const row = Array.from(weights.data.subarray(query * n, (query + 1) * n));
    this.numbers.fill({
      caption: `the weights of query patch ${query} (row ${Math.floor(query / side)}, column ${query % side}) on every patch`,
      head: ['patch', 'row', 'column', 'weight'],
      rows: row.map((w, j) => [String(j), Math.floor(j / side), j % side, w] as [string, ...number[]]),
      format: (v, column) => (column < 2 ? String(v) : formatNumber(v, 5)),
    });
    this.describeQuery(query, side, row);
    view.announce.textContent = view.queryLine.textContent;
    this.picture.canvas.setAttribute('aria-label', `the ${picture === 'drawn' ? 'drawn image' : picture}, cut into ${side} × ${side} patches of ${patch} × ${patch} pixels; ` +
      `query patch ${query} is outlined and the patches it attends to are tinted orange. Arrow keys move the query.`);
    this.drawImage();
  }

  /** the caption under the image: where the query is and where it looks most */
  private describeQuery(query: number, side: number, row: number[]): void {
    const best = row.map((w, j) => [w, j] as const).filter(([, j]) => j !== query).sort((a, b) => b[0] - a[0]).slice(0, 2);
    this.view!.queryLine.textContent = `query ${query} (row ${Math.floor(query / side)}, column ${query % side}): itself ${formatNumber(row[query]!, 3)}, ` +
      `then ${best.map(([w, j]) => `${j} (${formatNumber(w, 3)})`).join(', ')}`;
  }

  /** the image, the patch grid, the query's weights as a tint and the query outlined; while the
   * reader draws, the stroke so far without the (out of date) weights */
  private drawImage(): void {
    const image = this.press?.drawing ? this.press.work : this.image;
    const computed = this.press?.drawing ? undefined : this.computed;
    const patch = computed?.patch ?? Number(this.value<PatchSize>('patch'));
    this.picture.draw(IMAGE_PX, IMAGE_PX, (g, width) => {
      const px = width / SIDE;
      const grey = new ImageData(SIDE, SIDE);
      for (let k = 0; k < SIDE * SIDE; k++) {
        const v = Math.round(255 * Math.min(1, Math.max(0, image[k]!)));
        grey.data.set([v, v, v, 255], 4 * k);
      }
      const cells = document.createElement('canvas');
      cells.width = SIDE;
      cells.height = SIDE;
      cells.getContext('2d')!.putImageData(grey, 0, 0);
      g.imageSmoothingEnabled = false;
      g.drawImage(cells, 0, 0, width, width);
      const side = patchesPerSide(patch);
      const cell = patch * px;
      if (computed) {
        const { weights, query } = computed;
        const n = side * side;
        const row = weights.data.subarray(query * n, (query + 1) * n);
        // relative to the largest weight on another patch: the query's weight on itself is often
        // the largest by far, and would leave every other tint too faint to see
        const top = Math.max(...row.filter((_, j) => j !== query)) || 1;
        for (let j = 0; j < n; j++) {
          g.fillStyle = `rgb(${TINT.join(' ')} / ${(TINT_OPACITY * Math.min(1, row[j]! / top)).toFixed(3)})`;
          g.fillRect((j % side) * cell, Math.floor(j / side) * cell, cell, cell);
        }
      }
      g.strokeStyle = 'rgb(128 128 128 / 0.9)';
      g.lineWidth = 1;
      g.beginPath();
      for (let k = 1; k < side; k++) {
        const at = Math.round(k * cell) + 0.5;
        g.moveTo(at, 0);
        g.lineTo(at, width);
        g.moveTo(0, at);
        g.lineTo(width, at);
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
      // the frame: the image's edge on a page as dark as its black pixels
      g.strokeStyle = foreground(this);
      g.globalAlpha = 0.5;
      g.lineWidth = 1;
      g.strokeRect(0.5, 0.5, width - 1, width - 1);
      g.globalAlpha = 1;
    });
  }

  /** the pointer's place on the image, in picture pixels */
  private pixelAt(e: PointerEvent): { x: number; y: number } {
    const point = this.picture.pointer(e);
    return { x: (point.x / IMAGE_PX) * SIDE, y: (point.y / IMAGE_PX) * SIDE };
  }

  private onPointerDown(e: PointerEvent): void {
    if (e.button !== 0 || this.press) return;
    const start = this.pixelAt(e);
    const k = Math.min(SIDE - 1, Math.max(0, Math.floor(start.y))) * SIDE + Math.min(SIDE - 1, Math.max(0, Math.floor(start.x)));
    // the pen paints the colour opposite to the pixel it starts on: drawing on black, erasing on white
    this.press = { id: e.pointerId, start, last: start, value: this.image[k]! >= 0.5 ? 0 : 1, drawing: false, work: this.image.slice() };
    try {
      this.picture.canvas.setPointerCapture(e.pointerId);
    } catch {
      // a pointer already gone: the press ends with it
    }
    e.preventDefault();
  }

  private onPointerMove(e: PointerEvent): void {
    const press = this.press;
    if (press?.id !== e.pointerId) {
      this.hoverPatch(e);
      return;
    }
    const point = this.pixelAt(e);
    if (!press.drawing) {
      const moved = Math.hypot(point.x - press.start.x, point.y - press.start.y) * (IMAGE_PX / SIDE);
      if (moved < CLICK_SLOP) return;
      press.drawing = true;
    }
    paintStroke(press.work, press.last, point, PEN, press.value);
    press.last = point;
    this.drawImage();
  }

  private onPointerUp(e: PointerEvent): void {
    const press = this.press;
    if (press?.id !== e.pointerId) return;
    this.press = undefined;
    if (press.drawing) {
      paintStroke(press.work, press.last, this.pixelAt(e), PEN, press.value);
      this.image = press.work;
      this.change({ picture: 'drawn', pixels: encodePixels(press.work) });
      this.drawImage();
      return;
    }
    const patch = Number(this.value<PatchSize>('patch'));
    const picked = patchAt(press.start.x, press.start.y, patch);
    if (picked !== undefined) this.change({ query: picked });
  }

  private onPointerCancel(e: PointerEvent): void {
    if (this.press?.id !== e.pointerId) return;
    this.press = undefined;
    this.drawImage();
  }

  /** hovering the image names the patch under the pointer and the query's weight on it */
  private hoverPatch(e: PointerEvent | undefined): void {
    const computed = this.computed;
    if (!computed || !this.view) return;
    const side = patchesPerSide(computed.patch);
    const n = side * side;
    const point = e && this.pixelAt(e);
    const j = point && patchAt(point.x, point.y, computed.patch);
    const row = Array.from(computed.weights.data.subarray(computed.query * n, (computed.query + 1) * n));
    if (j === undefined) {
      this.describeQuery(computed.query, side, row);
      return;
    }
    this.view.queryLine.textContent = `patch ${j} (row ${Math.floor(j / side)}, column ${j % side}): query ${computed.query} gives it ${formatNumber(row[j]!, 4)}`;
  }

  private onKey(e: KeyboardEvent): void {
    const patch = Number(this.value<PatchSize>('patch'));
    const side = patchesPerSide(patch);
    const query = Math.min(this.value<number>('query'), side * side - 1);
    const next = movePatch(query, e.key, patch);
    if (next === undefined || e.altKey || e.ctrlKey || e.metaKey) return;
    // the arrows move the query here, not the slides
    e.preventDefault();
    e.stopPropagation();
    if (next !== query) this.change({ query: next });
  }

  private build() {
    const root = document.createElement('div');
    const bar = document.createElement('div');
    bar.className = 'bar';
    const group = (label: string, control: string) => {
      const g = document.createElement('div');
      g.className = 'group';
      g.setAttribute('role', 'group');
      g.setAttribute('aria-label', label);
      g.dataset.control = control;
      return g;
    };
    const button = (text: string, onClick: () => void) => {
      const b = document.createElement('button');
      b.textContent = text;
      b.addEventListener('click', onClick);
      return b;
    };
    const pictures = group('picture', 'picture');
    const pictureButtons = new Map<Picture, HTMLButtonElement>();
    for (const p of PATCH_PICTURES) {
      if (p === 'drawn') continue;
      const b = button(NAMES[p], () => this.change({ picture: p }));
      pictureButtons.set(p, b);
      pictures.append(b);
    }
    const sizes = group('patch size P', 'patch');
    sizes.append(Object.assign(document.createElement('span'), { textContent: 'P =' }));
    const patchButtons = new Map<PatchSize, HTMLButtonElement>();
    for (const p of PATCH_SIZES) {
      const b = button(p, () => {
        const from = Number(this.value<PatchSize>('patch'));
        const query = Math.min(this.value<number>('query'), patchesPerSide(from) ** 2 - 1);
        this.change({ patch: p, query: samePlace(query, from, Number(p)) });
      });
      b.setAttribute('aria-label', `${p} × ${p} patches`);
      patchButtons.set(p, b);
      sizes.append(b);
    }
    const edits = group('drawing', 'pixels');
    const redraw = (image: Float32Array) => this.change({ picture: 'drawn', pixels: encodePixels(image) });
    edits.append(
      button('clear', () => redraw(new Float32Array(SIDE * SIDE))),
      button('invert', () => redraw(invertImage(this.image))),
    );
    bar.append(pictures, sizes, edits);

    const canvas = this.picture.canvas;
    canvas.tabIndex = 0;
    canvas.addEventListener('pointerdown', (e) => this.onPointerDown(e));
    canvas.addEventListener('pointermove', (e) => this.onPointerMove(e));
    canvas.addEventListener('pointerup', (e) => this.onPointerUp(e));
    canvas.addEventListener('pointercancel', (e) => this.onPointerCancel(e));
    canvas.addEventListener('pointerleave', () => this.hoverPatch(undefined));
    canvas.addEventListener('keydown', (e) => this.onKey(e));
    const imageFigure = document.createElement('figure');
    imageFigure.className = 'image';
    // the query and where it looks, under the image (or the patch under the pointer); a screen
    // reader hears of a new query only, not of every patch the pointer passes
    const queryLine = document.createElement('p');
    const announce = document.createElement('span');
    announce.className = 'sr-only';
    announce.setAttribute('aria-live', 'polite');
    imageFigure.append(canvas, queryLine, announce, this.numbers.element);

    const figure = (map: Heatmap, parent: HTMLElement) => {
      const f = document.createElement('div');
      const title = document.createElement('h4');
      f.append(title, map.element);
      parent.append(f);
      return title;
    };
    const embedding = document.createElement('div');
    const formula = document.createElement('div');
    formula.className = 'formula';
    const maps = document.createElement('div');
    maps.className = 'maps';
    const flatTitle = figure(this.flattened, maps);
    const embeddedTitle = figure(this.embedded, maps);
    embedding.append(formula, maps);

    const attention = document.createElement('div');
    attention.className = 'attention maps';
    const weightsTitle = figure(this.weights, attention);
    const caption = document.createElement('p');
    caption.className = 'caption';
    caption.append(
      'One attention head over the patches, with sinusoidal positions added, ',
      equation('X = x_{\\text{patch}} + PE'),
      ', and the identity for its projections, ',
      equation('W_Q = W_K = W_V = I'),
      '. No vision model is trained here, so the weights ',
      equation('\\mathrm{softmax}(XX^\\top/\\sqrt{d})'),
      ' only say how alike two patches are: the same pixels (and nearby places) score high. A trained ViT learns ',
      equation('W_Q'), ' and ', equation('W_K'), ' that look for what matters instead: edges, parts, the object.',
    );
    attention.append(caption);

    const stage = document.createElement('div');
    stage.className = 'stage';
    stage.append(imageFigure, embedding);
    root.append(bar, stage, attention);
    return { root, pictureButtons, patchButtons, formula, flatTitle, embeddedTitle, weightsTitle, queryLine, announce };
  }
}

customElements.get('attn-patches') ?? customElements.define('attn-patches', Patches);
