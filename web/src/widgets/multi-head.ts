// <attn-multi-head>: the heads of one layer of the trained coreference model side by side on a
// sentence, and what multi-head attention does with their outputs: each head gives an n×d_k
// matrix, Concat lays them side by side (n×h·d_k) and W_O (d×d) mixes them back to n×d. Every
// matrix is the engine's trace of a forward pass; the shapes are read from it and from the config.
// Settings: sentence, layer, token (the query row compared across heads; −1 = "it").
import { pageModel, type RemoteEngine } from '../app/engine';
import { queryRow, readingNotes, readSentence, runModel, weightsName, type SentenceReading } from '../app/coreference-reading';
import { css, diverging } from '../math/colormap';
import { formatNumber } from '../math/format';
import { at, maxAbsFinite, row, type MatrixData } from '../math/matrix';
import { argmax } from '../math/ranking';
import { shortLabel } from '../math/text';
import { foreground, sharpCanvas, type SharpCanvas } from '../primitives/canvas';
import { EngineElement } from '../primitives/engine-element';
import { sentenceInput } from '../primitives/sentence-input';
import { Heatmap } from '../primitives/heatmap';
import { SERIES_COLOURS } from '../primitives/plot';

const styles = `
.bar { display: flex; gap: 10px 16px; align-items: center; flex-wrap: wrap; margin-bottom: 6px; font-size: 14px; }
.bar input[type="text"] { width: 27em; }
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
.wo { display: grid; place-items: center; border: 1.5px dashed var(--fg); border-radius: 2px; font-size: 15px; }
.dims { font-size: 13px; color: var(--muted); margin-left: 8px; }
`;

/** one colour per head, shared by its heatmap title and its block in Concat */
const HEAD_COLOURS = [SERIES_COLOURS.blue, SERIES_COLOURS.orange, SERIES_COLOURS.green, SERIES_COLOURS.purple,
  SERIES_COLOURS.vermillion, SERIES_COLOURS.sky];
const LABEL_CHARS = 10;
/** CSS pixels per matrix entry in the Concat picture (a column is narrow so that n×64 fits) */
const CELL = { width: 3, height: 7 };

/** a matrix drawn as coloured cells, without axes: its shape is the point */
class MatrixBlock {
  readonly element = document.createElement('figure');
  private readonly picture: SharpCanvas;
  private readonly caption = document.createElement('figcaption');

  constructor(label: string) {
    this.picture = sharpCanvas(label);
    this.element.append(this.picture.canvas, this.caption);
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
      for (let i = 0; i < m.rows; i++) {
        for (let j = 0; j < m.cols; j++) {
          g.fillStyle = css(diverging(at(m, i, j), range));
          g.fillRect(1 + j * CELL.width, strip + 1 + i * CELL.height, CELL.width + 0.3, CELL.height + 0.3);
        }
      }
      g.strokeStyle = outline ?? foreground(this.element);
      g.lineWidth = 1.5;
      g.strokeRect(0.75, strip + 0.75, w - 1.5, h - strip - 1.5);
    });
  }
}

interface View {
  root: HTMLElement;
  input: HTMLInputElement;
  layers: HTMLButtonElement[];
  notes: HTMLElement;
  titles: HTMLElement[];
  maps: Heatmap[];
  summary: HTMLElement;
  outputs: MatrixBlock[];
  concat: MatrixBlock;
  wOCaption: HTMLElement;
  out: MatrixBlock;
  dims: HTMLElement;
}

export class MultiHead extends EngineElement {
  static readonly observedAttributes = EngineElement.attributesOf('attn-multi-head');
  private view?: View;

  constructor() {
    super(styles, 'each head has its own W_Q, W_K, W_V and so its own pattern; Concat puts the heads\' n×d_k outputs side by side and W_O mixes them into one n×d.');
  }

  override connectedCallback(): void {
    super.connectedCallback();
    pageModel('coreference').catch(() => undefined);
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const text = this.value<string>('sentence');
    const reading = await readSentence(engine, text);
    const { n_layers: layers, n_heads: heads, d_model: d } = reading.config;
    const view = (this.view ??= this.build(layers, heads));
    if (!view.root.isConnected) this.body.replaceChildren(view.root);
    if (view.input.value !== text && this.root.activeElement !== view.input) view.input.value = text;
    view.notes.textContent = readingNotes(reading).join(' ');
    if (!reading.tokens.length) throw new Error('Type a sentence: it has no words.');

    const layer = Math.min(this.value<number>('layer'), layers - 1);
    view.layers.forEach((b, l) => b.setAttribute('aria-pressed', String(l === layer)));
    const query = queryRow(reading, this.value<number>('token'));
    const prefix = `layer${layer}.attn`;
    const headNames = Array.from({ length: heads }, (_, h) => weightsName(layer, h));
    const outputNames = Array.from({ length: heads }, (_, h) => `${prefix}.head${h}.output`);
    const { trace } = await runModel(reading, [...headNames, ...outputNames, `${prefix}.concat`, `${prefix}.out`]);

    const labels = reading.labels.map((l) => shortLabel(l, LABEL_CHARS));
    const tops = headNames.map((name, h) => {
      const weights = trace[name];
      const top = argmax(row(weights, query));
      view.titles[h].textContent = `head ${h}: “${labels[query]}” → “${labels[top]}” ${formatNumber(at(weights, query, top), 2)}`;
      view.maps[h].configure({ rowLabels: labels, colLabels: labels });
      view.maps[h].draw(weights);
      view.maps[h].setHighlight({ row: query });
      return labels[top];
    });
    view.summary.textContent = this.compare(reading, labels[query], tops, layer);

    const n = reading.tokens.length;
    const dK = d / heads;
    const colours = outputNames.map((_, h) => HEAD_COLOURS[h % HEAD_COLOURS.length]);
    outputNames.forEach((name, h) => view.outputs[h].draw(trace[name], `head ${h}: ${trace[name].rows}×${trace[name].cols}`, { outline: colours[h] }));
    const concat = trace[`${prefix}.concat`];
    const out = trace[`${prefix}.out`];
    view.concat.draw(concat, `Concat: ${concat.rows}×${concat.cols}`, { bands: colours });
    view.wOCaption.textContent = `W_O: ${concat.cols}×${d}`;
    view.out.draw(out, `MultiHead(X): ${out.rows}×${out.cols}`);
    view.dims.textContent = `n = ${n} words, d_model = ${d}, h = ${heads}, so d_k = d_model/h = ${d}/${heads} = ${dK}`;
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

  private build(layers: number, heads: number): View {
    const root = document.createElement('div');
    const bar = document.createElement('div');
    bar.className = 'bar';
    const { label: sentenceLabel, input } = sentenceInput((sentence) => this.change({ sentence, token: -1 }));
    const layerGroup = document.createElement('div');
    layerGroup.setAttribute('role', 'group');
    layerGroup.setAttribute('aria-label', 'layer');
    layerGroup.className = 'row';
    layerGroup.style.gap = '4px';
    const layerButtons = Array.from({ length: layers }, (_, l) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = `layer ${l}`;
      b.addEventListener('click', () => this.change({ layer: l }));
      return b;
    });
    layerGroup.append(...layerButtons);
    const dims = document.createElement('span');
    dims.className = 'dims';
    sentenceLabel.dataset.control = 'sentence';
    layerGroup.dataset.control = 'layer';
    bar.append(sentenceLabel, layerGroup, dims);

    const notes = document.createElement('p');
    notes.className = 'notes';
    notes.setAttribute('role', 'status');

    const row = document.createElement('div');
    row.className = 'heads';
    const titles: HTMLElement[] = [];
    const maps = Array.from({ length: heads }, (_, h) => {
      const map = new Heatmap({
        xLabel: 'key word', yLabel: 'query word', tint: 'weights', width: 175, height: 175, legend: h === heads - 1,
        onClick: (cell) => this.change({ token: cell.row }),
      });
      const figure = document.createElement('div');
      const title = document.createElement('h4');
      title.style.borderColor = HEAD_COLOURS[h % HEAD_COLOURS.length];
      titles.push(title);
      figure.append(title, map.element);
      row.append(figure);
      return map;
    });
    const summary = document.createElement('p');
    summary.className = 'summary';

    const flow = document.createElement('div');
    flow.className = 'flow';
    const outputs = Array.from({ length: heads }, (_, h) => new MatrixBlock(`head ${h} output`));
    const split = document.createElement('div');
    split.className = 'split';
    split.append(...outputs.map((b) => b.element));
    const concat = new MatrixBlock('Concat of the heads');
    const out = new MatrixBlock('MultiHead output');
    const wOFigure = document.createElement('figure');
    const wO = document.createElement('div');
    wO.className = 'wo';
    wO.textContent = 'W_O';
    wO.style.width = wO.style.height = '64px';
    const wOCaption = document.createElement('figcaption');
    wOFigure.append(wO, wOCaption);
    const op = (text: string) => Object.assign(document.createElement('span'), { className: 'op', textContent: text });
    flow.append(split, op('→ Concat →'), concat.element, op('·'), wOFigure, op('+ b_O ='), out.element);

    root.append(bar, notes, row, summary, flow);
    return { root, input, layers: layerButtons, notes, titles, maps, summary, outputs, concat, wOCaption, out, dims };
  }
}

customElements.get('attn-multi-head') ?? customElements.define('attn-multi-head', MultiHead);
