// <attn-multi-head>: the heads of one layer side by side on a sentence, in the trained coreference
// model or a model the reader opened, and what multi-head attention does with their outputs: each
// head gives an n×d_k matrix, Concat lays them side by side (n×h·d_k) and W_O (h·d_k×d) mixes them
// back to n×d. Every matrix is the engine's trace of a forward pass (W_O: the layer's weights, the
// one tensor read out of the engine, for any model); the shapes are read from it.
// Settings: model, sentence, layer, token (the query row compared across heads; −1 = the reading's own).
import type { RemoteEngine } from '../runtime/engine';
import { queryRow, readingNotes, readSentence, readText, runModel, weightsName, type SentenceReading } from '../runtime/coreference-reading';
import { formatNumber } from '../math/format';
import { at, maxAbsFinite, row, type MatrixData } from '../math/matrix';
import { argmax } from '../math/ranking';
import { shortLabel } from '../math/text';
import { foreground, sharpCanvas, themeColours, type SharpCanvas } from '../primitives/canvas';
import { h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { cellImage, Heatmap } from '../primitives/heatmap';
import { ScreenReaderTable } from '../primitives/screen-reader-table';
import { SERIES_COLOURS } from '../primitives/plot';

const styles = `
.toolbar { margin-bottom: 6px; }
.toolbar input[type="text"] { width: 27em; }
.notes:empty { display: none; }
.notes { margin: 0 0 4px; font-size: 14px; color: var(--bad); }
.heads { display: flex; flex-wrap: wrap; gap: 14px; align-items: flex-start; }
.heads h4 { margin: 0 0 2px; font-size: 14px; font-weight: 600; white-space: nowrap; border-bottom: 3px solid; padding-bottom: 1px; }
.heads .readout { font-size: 14px; min-height: 1.45em; }
/* many heads: small pictures whose titles wrap under them, and no hover line, which would not fit */
.heads.compact { gap: 6px 10px; }
.heads.compact h4 { white-space: normal; font-size: 14px; line-height: 1.25; overflow-wrap: anywhere; min-height: 3.75em;
  display: flex; align-items: flex-end; }
.heads.compact .readout { display: none; }
.summary { margin: 0 0 4px; font-size: 14px; }
.flow { display: flex; flex-wrap: wrap; align-items: center; gap: 10px; }
.flow figure { margin: 0; display: flex; flex-direction: column; align-items: center; gap: 2px; min-width: 0; }
.flow figcaption { font-size: 12px; color: var(--muted); white-space: nowrap; font-variant-numeric: tabular-nums; }
.flow .op { font-size: 15px; color: var(--muted); white-space: nowrap; }
.flow .split { display: flex; flex-wrap: wrap; gap: 12px; }
.dims { font-size: 14px; color: var(--muted); margin-left: 8px; }
`;

/** one colour per head, shared by its heatmap title and its block in Concat */
const HEAD_COLOURS = [SERIES_COLOURS.blue, SERIES_COLOURS.orange, SERIES_COLOURS.green, SERIES_COLOURS.purple,
  SERIES_COLOURS.vermillion, SERIES_COLOURS.sky];
const headColour = (head: number) => HEAD_COLOURS[head % HEAD_COLOURS.length];
/** up to this many heads, each gets a labelled heatmap and its own output block; more share a row of small pictures */
const LABELLED_HEADS = 4;
/** the row the small pictures share (the slide's width less the last one's legend), and their sizes */
const THUMB = { row: 1080, widest: 150, smallest: 64 };
/** the flow's room: matrix cells are at most 3×7 CSS px, and fewer when the matrices are larger */
const FLOW = { width: 1060, height: 180, cell: { width: 3, height: 7 }, operators: 260 };

/** a matrix drawn as coloured cells in a box of the given CSS size, without axes: its shape is the
 * point; its numbers are in a table for screen readers and Download CSV */
class MatrixBlock {
  private readonly picture: SharpCanvas;
  private readonly caption = h('figcaption');
  private readonly table = new ScreenReaderTable();
  readonly element: HTMLElement;

  constructor(label: string) {
    this.picture = sharpCanvas(label);
    this.element = h('figure', {}, this.picture.canvas, this.caption, this.table.element);
  }

  /** outline: a CSS colour (default: the text colour); bands: colours of equal groups of columns,
   * drawn as a strip above them (the heads inside Concat) */
  draw(m: MatrixData, size: { width: number; height: number }, caption: string,
    { outline, bands = [] }: { outline?: string; bands?: string[] } = {}): void {
    this.caption.textContent = caption;
    this.picture.canvas.setAttribute('aria-label', caption);
    this.table.fill({
      caption, size: { rows: m.rows, columns: m.cols },
      head: ['', ...Array.from({ length: m.cols }, (_, j) => String(j))],
      rows: () => Array.from({ length: m.rows }, (_, i) => [String(i), ...m.data.subarray(i * m.cols, (i + 1) * m.cols)] as [string, ...number[]]),
    });
    const range = maxAbsFinite(m) || 1;
    const strip = bands.length ? 6 : 0;
    const { width, height } = size;
    this.picture.draw(width + 2, strip + height + 2, (g, w, h) => {
      const band = width / Math.max(1, bands.length);
      bands.forEach((colour, k) => {
        g.fillStyle = colour;
        g.fillRect(1 + k * band, 0, Math.max(1, band - 1), strip - 2);
      });
      // cells larger than a pixel stay sharp; a matrix squeezed into fewer pixels is averaged
      const shrunk = width < m.cols || height < m.rows;
      g.imageSmoothingEnabled = shrunk;
      g.imageSmoothingQuality = 'high';
      g.drawImage(cellImage(m, themeColours(g.canvas), 'signed', range), 1, strip + 1, width, height);
      g.strokeStyle = outline ?? foreground(this.element);
      g.lineWidth = 1.5;
      g.strokeRect(0.75, strip + 0.75, w - 1.5, h - strip - 1.5);
    });
  }
}

export default class MultiHead extends EngineElement {
  private readonly modelList = this.bound.model('coreference');
  // a new sentence starts from the reading's own query word
  private readonly sentence = this.bound.text('sentence', { commit: 'change', also: () => ({ token: -1 }) });
  private readonly layer = this.bound.numbered('layer');
  private readonly dims = h('span', 'dims');
  private readonly notes = h('p', { className: 'notes', attrs: { role: 'status' } });
  private readonly heads = h('div', 'heads');
  private readonly summary = h('p', 'summary');
  private readonly flow = h('div', 'flow');
  /** per head, made once the model's number of heads is known */
  private pictures: { title: HTMLElement; map: Heatmap; output: MatrixBlock }[] = [];
  private readonly concat = new MatrixBlock('Concat of the heads');
  private readonly wO = new MatrixBlock('W_O');
  private readonly out = new MatrixBlock('MultiHead output');

  constructor() {
    super(styles, 'each head has its own W_Q, W_K, W_V and so its own pattern; Concat puts the heads\' n×d_k outputs side by side and W_O mixes them into one n×d.', { models: ['coreference'] });
  }

  protected override layout(): HTMLElement[] {
    return [h('div', 'toolbar', this.modelList.element, this.sentence.element, this.layer.element, this.dims), this.notes, this.heads, this.summary, this.flow];
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const { opened } = await this.modelInUse('coreference');
    const text = this.value<string>('sentence');
    const reading = opened ? await readText(opened.model, text) : await readSentence(engine, text);
    const { n_layers: layers, n_heads: heads, d_model: d } = reading.config;
    if (this.pictures.length !== heads) this.makePictures(heads);
    if (!reading.tokens.length) throw new Error('Type a sentence: it has no words.');

    const layer = this.layer.upTo(layers);
    const query = queryRow(reading, this.value<number>('token'));
    const prefix = `layer${layer}.attn`;
    const headNames = this.pictures.map((_, k) => weightsName(layer, k));
    const outputNames = this.pictures.map((_, k) => `${prefix}.head${k}.output`);
    const { trace } = await runModel(reading, [...headNames, ...outputNames, `${prefix}.concat`, `${prefix}.out`]);
    const n = reading.tokens.length;
    const compact = heads > LABELLED_HEADS;

    const labels = reading.labels.map((l) => shortLabel(l, compact ? 8 : 10));
    const tops = this.pictures.map(({ title, map }, k) => {
      const weights = trace[headNames[k]];
      const top = argmax(row(weights, query));
      const weight = formatNumber(at(weights, query, top), 2);
      // the query word is the same for every head: the small pictures name it once, in the summary
      title.textContent = compact ? `head ${k} → “${labels[top]}” ${weight}` : `head ${k}: “${labels[query]}” → “${labels[top]}” ${weight}`;
      map.configure({ rowLabels: labels, colLabels: labels });
      map.draw(weights);
      map.setHighlight({ row: query });
      return labels[top];
    });
    this.summary.textContent = this.compare(reading, labels[query], tops, layer);

    // every n-row matrix has rows of one height, and columns of one width, so their shapes compare
    const concat = trace[`${prefix}.concat`];
    const out = trace[`${prefix}.out`];
    const rowHeight = Math.min(FLOW.cell.height, FLOW.height / n);
    const blocks = compact ? [concat, out] : [...outputNames.map((name) => trace[name]), concat, out];
    const columns = blocks.reduce((sum, m) => sum + m.cols, 0);
    const side = Math.max(64, Math.round(n * rowHeight));
    const colWidth = Math.min(FLOW.cell.width, (FLOW.width - FLOW.operators - side - 12 * blocks.length) / columns);
    const size = (m: MatrixData) => ({ width: Math.max(2, Math.round(m.cols * colWidth)), height: Math.round(m.rows * rowHeight) });
    this.pictures.forEach(({ output }, k) => {
      const result = trace[outputNames[k]];
      if (!compact) output.draw(result, size(result), `head ${k}: ${result.rows}×${result.cols}`, { outline: headColour(k) });
    });
    this.concat.draw(concat, size(concat), `Concat: ${concat.rows}×${concat.cols}`, { bands: this.pictures.map((_, k) => headColour(k)) });
    const wO = await reading.model.parameter(`h.${layer}.attn.c_proj.weight`);
    this.wO.draw(wO, { width: side, height: side }, `W_O: ${wO.rows}×${wO.cols}`);
    this.out.draw(out, size(out), `MultiHead(X): ${out.rows}×${out.cols}`);
    this.notes.textContent = readingNotes(reading).join(' ');
    const unit = opened ? 'tokens' : 'words';
    this.dims.textContent = `n = ${n} ${unit}, d_model = ${d}, h = ${heads}, so d_k = d_model/h = ${d}/${heads} = ${d / heads}`;
  }

  /** what the heads have in common, or how they differ, for the chosen word */
  private compare(reading: SentenceReading, word: string, tops: string[], layer: number): string {
    const heads = new Map<string, number[]>();
    tops.forEach((top, k) => heads.set(top, [...(heads.get(top) ?? []), k]));
    const looking = `In layer ${layer}, “${word}” looks most at`;
    if (heads.size === 1) {
      const agree = `${looking} “${tops[0]}” in all ${tops.length} heads`;
      return reading.sentence && layer === reading.config.n_layers - 1 && word === 'it'
        ? `${agree}: every head has found the referent, each by its own projections.`
        : `${agree}. Click a row to compare another word.`;
    }
    const named = [...heads].map(([top, ks]) => `“${top}” (head${ks.length > 1 ? 's' : ''} ${ks.join(', ')})`);
    return `${looking} ${named.join(', ')}: ${heads.size} different words. Click a row to compare another word.`;
  }

  /** a heatmap per head (small ones for many heads), an output block per head when they are few,
   * and the flow from them through Concat and W_O */
  private makePictures(heads: number): void {
    const compact = heads > LABELLED_HEADS;
    const side = compact ? Math.max(THUMB.smallest, Math.min(THUMB.widest, Math.floor(THUMB.row / heads) - 14)) : 175;
    this.pictures = Array.from({ length: heads }, (_, k) => ({
      // a small picture's title is as wide as it (the last one's legend beside it takes no title room)
      title: h('h4', { attrs: { style: `border-color: ${headColour(k)}${compact ? `; width: ${side + 4}px` : ''}` } }),
      map: new Heatmap({
        xLabel: 'key word', yLabel: 'query word', tint: 'weights', width: side, height: side, legend: k === heads - 1, axes: !compact,
        onClick: (cell) => this.change({ token: cell.row }),
      }),
      output: new MatrixBlock(`head ${k} output`),
    }));
    this.heads.classList.toggle('compact', compact);
    this.heads.replaceChildren(...this.pictures.map(({ title, map }) => h('div', {}, title, map.element)));
    const op = (text: string) => h('span', { className: 'op', textContent: text });
    const split = compact ? [] : [h('div', 'split', ...this.pictures.map((p) => p.output.element)), op('→ Concat →')];
    this.flow.replaceChildren(...split, this.concat.element, op('·'), this.wO.element, op('+ b_O ='), this.out.element);
  }
}
