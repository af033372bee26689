// <attn-multi-head>: the heads of one layer of the trained coreference model side by side on a
// sentence, and what multi-head attention does with their outputs: each head gives an n×d_k
// matrix, Concat lays them side by side (n×h·d_k) and W_O (d×d) mixes them back to n×d. Every
// matrix is the engine's trace of a forward pass; the shapes are read from it and from the config.
// Settings: sentence, layer, token (the query row compared across heads; −1 = "it").
import type { RemoteEngine } from '../runtime/engine';
import { queryRow, readingNotes, readSentence, runModel, weightsName, type SentenceReading } from '../runtime/coreference-reading';
import { css } from '../math/colormap';
import { formatNumber } from '../math/format';
import { at, maxAbsFinite, row, type MatrixData } from '../math/matrix';
import { argmax } from '../math/ranking';
import { shortLabel } from '../math/text';
import { foreground, sharpCanvas, themeColours, type SharpCanvas } from '../primitives/canvas';
import { h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { Heatmap } from '../primitives/heatmap';
import { SERIES_COLOURS } from '../primitives/plot';

const styles = `
.toolbar { margin-bottom: 6px; }
.toolbar input[type="text"] { width: 27em; }
.notes:empty { display: none; }
.notes { margin: 0 0 4px; font-size: 13px; color: var(--bad); }
.heads { display: flex; flex-wrap: wrap; gap: 14px; align-items: flex-start; }
.heads h4 { margin: 0 0 2px; font-size: 13px; font-weight: 600; white-space: nowrap; border-bottom: 3px solid; padding-bottom: 1px; }
.heads .readout { font-size: 12px; min-height: 1.45em; }
.summary { margin: 2px 0 6px; font-size: 14px; }
.flow { display: flex; flex-wrap: wrap; align-items: center; gap: 10px; }
.flow figure { margin: 0; display: flex; flex-direction: column; align-items: center; gap: 2px; }
.flow figcaption { font-size: 12px; color: var(--muted); white-space: nowrap; font-variant-numeric: tabular-nums; }
.flow .op { font-size: 15px; color: var(--muted); white-space: nowrap; }
.flow .split { display: flex; flex-wrap: wrap; gap: 12px; }
.wo { display: grid; place-items: center; width: 64px; height: 64px; border: 1.5px dashed var(--fg); border-radius: 2px; font-size: 15px; }
.dims { font-size: 13px; color: var(--muted); margin-left: 8px; }
`;

/** one colour per head, shared by its heatmap title and its block in Concat */
const HEAD_COLOURS = [SERIES_COLOURS.blue, SERIES_COLOURS.orange, SERIES_COLOURS.green, SERIES_COLOURS.purple,
  SERIES_COLOURS.vermillion, SERIES_COLOURS.sky];
const headColour = (head: number) => HEAD_COLOURS[head % HEAD_COLOURS.length];
const LABEL_CHARS = 10;
/** CSS pixels per matrix entry in the Concat picture (a column is narrow so that n×64 fits) */
const CELL = { width: 3, height: 7 };

/** a matrix drawn as coloured cells, without axes: its shape is the point */
class MatrixBlock {
  private readonly picture: SharpCanvas;
  private readonly caption = h('figcaption');
  readonly element: HTMLElement;

  constructor(label: string) {
    this.picture = sharpCanvas(label);
    this.element = h('figure', {}, this.picture.canvas, this.caption);
  }

  /** outline: a CSS colour (default: the text colour); bands: colours of equal groups of columns,
   * drawn as a strip above them (the heads inside Concat) */
  draw(m: MatrixData, caption: string, { outline, bands = [] }: { outline?: string; bands?: string[] } = {}): void {
    this.caption.textContent = caption;
    this.picture.canvas.setAttribute('aria-label', caption);
    const range = maxAbsFinite(m) || 1;
    const strip = bands.length ? 6 : 0;
    this.picture.draw(m.cols * CELL.width + 2, strip + m.rows * CELL.height + 2, (g, w, h) => {
      const band = (m.cols * CELL.width) / Math.max(1, bands.length);
      bands.forEach((colour, k) => {
        g.fillStyle = colour;
        g.fillRect(1 + k * band, 0, band - 1, strip - 2);
      });
      const colours = themeColours(g.canvas);
      for (let i = 0; i < m.rows; i++) {
        for (let j = 0; j < m.cols; j++) {
          g.fillStyle = css(colours.diverging(at(m, i, j), range));
          g.fillRect(1 + j * CELL.width, strip + 1 + i * CELL.height, CELL.width + 0.3, CELL.height + 0.3);
        }
      }
      g.strokeStyle = outline ?? foreground(this.element);
      g.lineWidth = 1.5;
      g.strokeRect(0.75, strip + 0.75, w - 1.5, h - strip - 1.5);
    });
  }
}

export default class MultiHead extends EngineElement {
  // a new sentence starts from "it"
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
  private readonly wOCaption = h('figcaption');
  private readonly out = new MatrixBlock('MultiHead output');

  constructor() {
    super(styles, 'each head has its own W_Q, W_K, W_V and so its own pattern; Concat puts the heads\' n×d_k outputs side by side and W_O mixes them into one n×d.', { models: ['coreference'] });
  }

  protected override layout(): HTMLElement[] {
    return [h('div', 'toolbar', this.sentence.element, this.layer.element, this.dims), this.notes, this.heads, this.summary, this.flow];
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const reading = await readSentence(engine, this.value<string>('sentence'));
    const { n_layers: layers, n_heads: heads, d_model: d } = reading.config;
    if (this.pictures.length !== heads) this.makePictures(heads);
    this.notes.textContent = readingNotes(reading).join(' ');
    if (!reading.tokens.length) throw new Error('Type a sentence: it has no words.');

    const layer = this.layer.upTo(layers);
    const query = queryRow(reading, this.value<number>('token'));
    const prefix = `layer${layer}.attn`;
    const headNames = this.pictures.map((_, k) => weightsName(layer, k));
    const outputNames = this.pictures.map((_, k) => `${prefix}.head${k}.output`);
    const { trace } = await runModel(reading, [...headNames, ...outputNames, `${prefix}.concat`, `${prefix}.out`]);

    const labels = reading.labels.map((l) => shortLabel(l, LABEL_CHARS));
    const tops = this.pictures.map(({ title, map, output }, k) => {
      const weights = trace[headNames[k]];
      const top = argmax(row(weights, query));
      title.textContent = `head ${k}: “${labels[query]}” → “${labels[top]}” ${formatNumber(at(weights, query, top), 2)}`;
      map.configure({ rowLabels: labels, colLabels: labels });
      map.draw(weights);
      map.setHighlight({ row: query });
      const result = trace[outputNames[k]];
      output.draw(result, `head ${k}: ${result.rows}×${result.cols}`, { outline: headColour(k) });
      return labels[top];
    });
    this.summary.textContent = this.compare(reading, labels[query], tops, layer);

    const concat = trace[`${prefix}.concat`];
    const out = trace[`${prefix}.out`];
    this.concat.draw(concat, `Concat: ${concat.rows}×${concat.cols}`, { bands: this.pictures.map((_, k) => headColour(k)) });
    this.wOCaption.textContent = `W_O: ${concat.cols}×${d}`;
    this.out.draw(out, `MultiHead(X): ${out.rows}×${out.cols}`);
    this.dims.textContent = `n = ${reading.tokens.length} words, d_model = ${d}, h = ${heads}, so d_k = d_model/h = ${d}/${heads} = ${d / heads}`;
  }

  /** what the heads have in common, or how they differ, for the chosen word */
  private compare(reading: SentenceReading, word: string, tops: string[], layer: number): string {
    const distinct = new Set(tops);
    const looking = `In layer ${layer}, “${word}” looks most at`;
    if (distinct.size === 1) {
      const agree = `${looking} “${tops[0]}” in all ${tops.length} heads`;
      return reading.sentence && layer === reading.config.n_layers - 1 && word === 'it'
        ? `${agree}: every head has found the referent, each by its own projections.`
        : `${agree}. Click a row to compare another word.`;
    }
    return `${looking} ${tops.map((t, h) => `“${t}” (head ${h})`).join(', ')}: ${distinct.size} different words. ` +
      'Click a row to compare another word.';
  }

  /** a heatmap and an output block per head, and the flow from them through Concat and W_O */
  private makePictures(heads: number): void {
    this.pictures = Array.from({ length: heads }, (_, k) => ({
      title: h('h4', { attrs: { style: `border-color: ${headColour(k)}` } }),
      map: new Heatmap({
        xLabel: 'key word', yLabel: 'query word', tint: 'weights', width: 175, height: 175, legend: k === heads - 1,
        onClick: (cell) => this.change({ token: cell.row }),
      }),
      output: new MatrixBlock(`head ${k} output`),
    }));
    this.heads.replaceChildren(...this.pictures.map(({ title, map }) => h('div', {}, title, map.element)));
    const op = (text: string) => h('span', { className: 'op', textContent: text });
    const wO = h('figure', {}, h('div', { className: 'wo', textContent: 'W_O' }), this.wOCaption);
    this.flow.replaceChildren(h('div', 'split', ...this.pictures.map((p) => p.output.element)),
      op('→ Concat →'), this.concat.element, op('·'), wO, op('+ b_O ='), this.out.element);
  }
}
