// <attn-explorer>: the trained coreference model's attention on a sentence the reader types. One
// word's attention over the sentence as bars, one head as a heatmap or as lines between two columns
// of words (the head view), every layer and head as thumbnails (the model view), and what the model
// reads "it" as. Words outside the vocabulary and text outside the model's language are named;
// the attention is shown regardless. Once the reader has trained a coreference model on the
// training slide, the explorer offers it beside the shipped one.
// Settings: sentence, token (the query word; −1 = "it"), layer, head, view (heatmap | head | model).
import type { RemoteEngine } from '../runtime/engine';
import {
  queryRow, readIt, readingNotes, readSentence, runModel, weightsName, type ItReading, type SentenceReading,
} from '../runtime/coreference-reading';
import type { ExplorerView } from '../runtime/registry';
import { trainedModel, trainedModels } from '../runtime/trained-models';
import { formatNumber } from '../math/format';
import { at, row, type MatrixData } from '../math/matrix';
import { topIndices } from '../math/ranking';
import { shortLabel, wellFormed } from '../math/text';
import { foreground, sharpCanvas } from '../primitives/canvas';
import { button, choiceButtons, h, numbered } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { Heatmap } from '../primitives/heatmap';

const styles = `
.toolbar { margin-bottom: 6px; }
.toolbar input[type="text"] { width: 31em; }
.reading { font-size: 15px; }
.reading strong { color: var(--accent); }
.notes:empty { display: none; }
.notes { margin: 0 0 6px; font-size: 13px; color: var(--bad); overflow-wrap: anywhere; }
.words-row { display: flex; gap: 10px; align-items: baseline; margin: 0 0 8px; font-size: 14px; }
.words-row > span { color: var(--muted); white-space: nowrap; }
.words { display: flex; flex-wrap: wrap; gap: 4px; }
.words button { padding: 2px 8px; max-width: 12em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.words button.unknown { border-style: dashed; border-color: var(--bad); }
.main { display: flex; flex-wrap: wrap; gap: 28px; align-items: flex-start; }
.picture { flex: 0 1 560px; min-width: 0; min-height: 380px; }
.thumbs { display: grid; gap: 6px 12px; justify-content: start; }
.thumbs figure { margin: 0; }
.thumbs .readout { display: none; }
.thumbs button { width: 100%; margin-top: 2px; font-size: 13px; padding: 2px 4px; }
.thumbs .current .heatmap canvas { outline: 2px solid var(--accent); outline-offset: 1px; }
.distribution h3 { margin: 0 0 6px; font-size: 15px; font-weight: 600; overflow-wrap: anywhere; }
.distribution ol { list-style: none; margin: 0; padding: 0; font-size: 14px; }
.distribution li { display: grid; grid-template-columns: 8.5em 1fr 4.2em; gap: 8px; align-items: center; height: 21px; }
.distribution .word { text-align: right; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.distribution .track { height: 12px; background: color-mix(in srgb, var(--border) 45%, transparent); border-radius: 3px; }
.distribution .fill { height: 100%; background: var(--accent); border-radius: 3px; }
.distribution li.top .word { font-weight: 700; }
.distribution output { text-align: right; }
.distribution .muted { margin-top: 6px; }
`;

const VIEW_NAMES: Record<ExplorerView, string> = { heatmap: 'Heatmap', head: 'Head view', model: 'Model view' };
const HINTS = {
  shipped: 'the row of “it” in layer 1: every head puts almost all its weight on the referent, and “soft ⇄ hungry” moves it from the mat to the cat.',
  trained: 'the model trained on the training slide: how far its row of “it” has come towards the referent, against the shipped model’s.',
};
const LABEL_CHARS = 12;
/** above this many words the head view draws only each query's strongest lines */
const ALL_LINES_UP_TO = 8;
const LINES_PER_QUERY = 3;

/** what one render computed, kept so that hovering a word can redraw without asking the engine */
interface Shown {
  reading: SentenceReading;
  labels: string[];
  /** the attention weights of every head, [layer][head] */
  weights: MatrixData[][];
  layer: number;
  head: number;
  /** the query word chosen (the URL's) */
  query: number;
}

/** Lines from each query word (left column) to every key word (right), weight as opacity and width. */
class HeadView {
  private readonly picture = sharpCanvas('head view: lines from each query word to the key words, thicker for more attention');
  readonly element = this.picture.canvas;
  private labels: string[] = [];
  private weights?: MatrixData;
  private query = 0;
  private readonly geometry = { width: 460, top: 26, leftX: 170, rightX: 290, rowHeight: 24 };

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

export default class Explorer extends EngineElement {
  private shown?: Shown;
  private readonly map = new Heatmap({
    xLabel: 'key word', yLabel: 'query word', tint: 'weights', width: 310, height: 310,
    onClick: (cell) => this.chooseQuery(cell.row),
  });
  private readonly headView = new HeadView((query, commit) => (commit ? this.chooseQuery(query) : this.paint(query < 0 ? undefined : query)));
  private thumbs: { figure: HTMLElement; map: Heatmap }[][] = [];
  // a new sentence starts from "it"; a lone surrogate cannot go into the URL (the sentence of `also` wins)
  private readonly sentence = this.bound.text('sentence', {
    commit: 'change', also: (text) => ({ sentence: wellFormed(text), token: -1 }),
  });
  private readonly swap = button('soft ⇄ hungry', () => this.swapAdjective(), {
    title: 'swap the adjective: the referent of “it” changes with it', data: { control: 'sentence' },
  });
  private readonly reading = h('span', { className: 'reading', attrs: { 'aria-live': 'polite' } });
  /** read the sentence with the coreference model trained on this page (when there is one) */
  private useTrained = false;
  private readonly model = choiceButtons({
    name: 'model', control: 'model', choices: [{ value: false, text: 'shipped' }, { value: true, text: 'trained here' }],
    onChoose: (trained) => {
      this.useTrained = trained;
      this.update();
    },
  });
  private readonly view = this.bound.choices<ExplorerView>('view', { text: (v) => VIEW_NAMES[v] });
  private readonly layer = this.bound.choices<number>('layer');
  private readonly head = this.bound.choices<number>('head');
  private readonly notes = h('p', { className: 'notes', attrs: { role: 'status' } });
  private readonly words = h('div', { className: 'words', attrs: { role: 'group', 'aria-label': 'query word' } });
  private readonly panels: Record<ExplorerView, HTMLElement> = {
    heatmap: h('div', {}, this.map.element), head: h('div', {}, this.headView.element), model: h('div', 'thumbs'),
  };
  private readonly distributionTitle = h('h3');
  private readonly distribution = h('ol');
  private readonly onTrained = (e: Event) => {
    const { task, show } = (e as CustomEvent<{ task: string; show: boolean }>).detail;
    if (task !== 'coreference') return;
    if (show) this.useTrained = true;
    this.update();
  };

  constructor() {
    super(styles, HINTS.shipped, { models: ['coreference'] });
  }

  override connectedCallback(): void {
    super.connectedCallback();
    trainedModels.addEventListener('change', this.onTrained);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    trainedModels.removeEventListener('change', this.onTrained);
  }

  protected override layout(): HTMLElement[] {
    const help = 'Hover a word to preview where it looks; click it (or a row of the picture) to keep it.';
    return [
      h('div', 'toolbar', this.sentence.element, this.swap, this.reading),
      h('div', 'toolbar', this.model.element, this.view.element, this.layer.element, this.head.element),
      this.notes,
      h('div', { className: 'words-row', data: { control: 'token' } }, h('span', { textContent: 'query word' }), this.words),
      h('div', 'main',
        h('div', 'picture', ...Object.values(this.panels)),
        h('div', 'distribution', this.distributionTitle, this.distribution, h('p', { className: 'muted', textContent: help }))),
    ];
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const text = this.value<string>('sentence');
    const trained = trainedModel('coreference');
    const shipped = await readSentence(engine, text);
    // a model trained here has the task's vocabulary, the shipped model's: the same tokens serve it
    const reading = trained && this.useTrained ? { ...shipped, model: trained.model, config: await trained.model.config() } : shipped;
    const { n_layers: layers, n_heads: heads } = reading.config;
    const names = Array.from({ length: layers * heads }, (_, k) => weightsName(Math.floor(k / heads), k % heads));
    // every answer first, then the whole view at once: no moment shows one sentence's notes with another's reading
    const run = reading.tokens.length ? await runModel(reading, names) : undefined;
    const it = run ? await readIt(engine, reading, run.logits) : undefined;

    this.model.element.hidden = !trained;
    this.model.set(reading !== shipped);
    if (trained) this.model.element.querySelectorAll('button')[1].title = `trained on the training slide: ${trained.about}`;
    this.setHint(reading === shipped ? HINTS.shipped : HINTS.trained);
    this.sentence.set(text);
    this.swap.disabled = !/\b(soft|hungry)\b/i.test(text);
    this.notes.textContent = readingNotes(reading).join(' ');
    // a model trained here may have another number of layers or heads
    const layer = Math.min(this.value<number>('layer'), layers - 1);
    const head = Math.min(this.value<number>('head'), heads - 1);
    const viewName = this.value<ExplorerView>('view');
    this.view.set(viewName);
    this.layer.offer(numbered(layers, 'layer'));
    this.layer.set(layer);
    this.head.offer(numbered(heads, 'head'));
    this.head.set(head);
    if (!run) {
      this.shown = undefined;
      this.words.replaceChildren();
      this.reading.textContent = '';
      throw new Error('Type a sentence: it has no words.');
    }

    const weights = Array.from({ length: layers }, (_, l) => Array.from({ length: heads }, (_, k) => run.trace[weightsName(l, k)]));
    const labels = reading.labels.map((l) => shortLabel(l, LABEL_CHARS));
    const query = queryRow(reading, this.value<number>('token'));
    this.shown = { reading, labels, weights, layer, head, query };

    this.showReading(it, reading);
    this.showWords(reading, labels, query);
    for (const [name, panel] of Object.entries(this.panels)) panel.hidden = name !== viewName;
    if (viewName === 'heatmap') {
      this.map.configure({ rowLabels: labels, colLabels: labels });
      this.map.draw(weights[layer][head]);
    }
    if (viewName === 'model') {
      if (this.thumbs.length !== layers || this.thumbs[0].length !== heads) this.makeThumbnails(layers, heads);
      this.thumbs.forEach((line, l) => line.forEach(({ figure, map }, k) => {
        figure.classList.toggle('current', l === layer && k === head);
        map.configure({ rowLabels: labels, colLabels: labels });
        map.draw(weights[l][k]);
      }));
    }
    this.paint();
  }

  /** Shows one query word's attention (a preview while hovering, else the chosen one). */
  private paint(preview?: number): void {
    const shown = this.shown;
    if (!shown) return;
    const { labels, layer, head } = shown;
    const query = preview !== undefined && preview < labels.length ? preview : shown.query;
    const weights = shown.weights[layer][head];
    const viewName = this.value<ExplorerView>('view');
    if (viewName === 'heatmap') this.map.setHighlight({ row: query });
    if (viewName === 'head') this.headView.draw(weights, labels, query);
    if (viewName === 'model') for (const line of this.thumbs) for (const { map } of line) map.setHighlight({ row: query });

    const values = row(weights, query);
    const top = topIndices(values, 1)[0];
    this.distributionTitle.textContent = `“${labels[query]}” looks at (layer ${layer}, head ${head}):`;
    this.distribution.replaceChildren(...values.map((w, j) => h('li', { className: j === top ? 'top' : '', data: { key: String(j) } },
      h('span', { className: 'word', textContent: labels[j], title: shown.reading.labels[j] }),
      h('span', 'track', h('span', { className: 'fill', attrs: { style: `display: block; width: ${(100 * Math.min(1, Math.max(0, w))).toFixed(1)}%` } })),
      h('output', { textContent: formatNumber(w, 4) }))));
    for (const button of this.words.querySelectorAll('button')) {
      button.setAttribute('aria-pressed', String(Number(button.dataset.position) === shown.query));
    }
  }

  private showReading(it: ItReading | undefined, reading: SentenceReading): void {
    if (!it) {
      this.reading.textContent = reading.pronoun >= 0 ? '“it”: no reading (not a sentence of the language)' : '';
      return;
    }
    const referent = reading.labels[reading.sentence!.referent];
    this.reading.replaceChildren('The model reads “it” = ', h('strong', { textContent: it.word }),
      ` (p = ${formatNumber(it.probability, 3)}) — ${it.right ? 'right' : `wrong: the referent is “${referent}”`}`);
  }

  private showWords(reading: SentenceReading, labels: string[], query: number): void {
    this.words.replaceChildren(...labels.map((label, i) => {
      const unknown = reading.unknownAt.has(i);
      return button(label, () => this.chooseQuery(i), {
        className: unknown ? 'unknown' : '', data: { position: String(i) }, attrs: { 'aria-pressed': String(i === query) },
        title: unknown ? `“${reading.labels[i]}” is outside the vocabulary: the model reads [UNK]` : `where “${reading.labels[i]}” looks`,
        onmouseenter: () => this.paint(i), onmouseleave: () => this.paint(), onfocus: () => this.paint(i), onblur: () => this.paint(),
      });
    }));
  }

  private chooseQuery(position: number): void {
    const pronoun = this.shown?.reading.pronoun ?? -1;
    this.change({ token: position === pronoun ? -1 : position });
  }

  /** soft ⇄ hungry: the adjective decides what "it" refers to */
  private swapAdjective(): void {
    const text = this.value<string>('sentence');
    const next = /\bsoft\b/i.test(text) ? text.replace(/\bsoft\b/i, 'hungry') : text.replace(/\bhungry\b/i, 'soft');
    this.change({ sentence: next, token: -1 });
  }

  /** one thumbnail per layer and head; clicking one opens it as the heatmap */
  private makeThumbnails(layers: number, heads: number): void {
    this.panels.model.style.gridTemplateColumns = `repeat(${heads}, auto)`;
    this.thumbs = Array.from({ length: layers }, (_, layer) => Array.from({ length: heads }, (_, head) => {
      const open = () => this.change({ layer, head, view: 'heatmap' });
      const map = new Heatmap({ xLabel: 'key word', yLabel: 'query word', tint: 'weights', width: 122, height: 122,
        legend: false, axes: false, onClick: open });
      return { figure: h('figure', {}, map.element, button(`layer ${layer} · head ${head}`, open)), map };
    }));
    this.panels.model.replaceChildren(...this.thumbs.flat().map((t) => t.figure));
  }
}
