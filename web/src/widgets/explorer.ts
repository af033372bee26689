// <attn-explorer>: the trained coreference model's attention on a sentence the reader types. One
// word's attention over the sentence as bars, one head as a heatmap or as lines between two columns
// of words (the head view), every layer and head as thumbnails (the model view), and what the model
// reads "it" as. Words outside the vocabulary and text outside the model's language are named;
// the attention is shown regardless. Once the reader has trained a coreference model on the
// training slide, the explorer offers it beside the shipped one.
// Settings: sentence, token (the query word; −1 = "it"), layer, head, view (heatmap | head | model).
import type { RemoteEngine } from '../runtime/engine';
import {
  queryRow, readIt, readingNotes, readSentence, readText, runModel, weightsName, type ItReading, type SentenceReading,
} from '../runtime/coreference-reading';
import type { OpenedModel } from '../runtime/opened-models';
import type { ExplorerView } from '../runtime/registry';
import { trainedModel, trainedModels } from '../runtime/trained-models';
import { formatNumber } from '../math/format';
import { row, type MatrixData } from '../math/matrix';
import { topIndices } from '../math/ranking';
import { shortLabel } from '../math/text';
import { button, choiceButtons, h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { HeadView } from '../primitives/head-view';
import { Heatmap } from '../primitives/heatmap';

const styles = `
.toolbar { margin-bottom: 6px; }
.toolbar input[type="text"] { width: 31em; }
.reading { font-size: 15px; }
.reading strong { color: var(--accent); }
.notes:empty { display: none; }
.notes { margin: 0 0 6px; font-size: 14px; color: var(--bad); overflow-wrap: anywhere; }
.words-row { display: flex; gap: 10px; align-items: baseline; margin: 0 0 8px; font-size: 14px; }
.words-row > span { color: var(--muted); white-space: nowrap; }
.words { display: flex; flex-wrap: wrap; gap: 4px; max-height: 58px; overflow-y: auto; }
.words button { padding: 2px 8px; max-width: 12em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.words button.unknown { border-style: dashed; border-color: var(--bad); }
.main { display: flex; flex-wrap: wrap; gap: 28px; align-items: flex-start; }
.main.wide .picture { flex-basis: 100%; }
.main.wide .distribution { display: none; }
.picture { flex: 0 1 560px; min-width: 0; }
@media (min-width: 800px) { .picture { min-height: 380px; } }
.thumbs { display: grid; gap: 6px 12px; justify-content: start; }
.thumbs figure { margin: 0; }
.thumbs .readout { display: none; }
.thumbs button { width: 100%; margin-top: 2px; font-size: 14px; padding: 2px 4px; }
.thumbs .current .heatmap canvas { outline: 2px solid var(--accent); outline-offset: 1px; }
.thumbs.grid { gap: 3px; align-items: center; max-height: 400px; overflow-y: auto; }
.thumbs.grid .number { font-size: 14px; color: var(--muted); text-align: center; padding: 0 4px; }
.thumbs.grid canvas { cursor: pointer; display: block; }
.thumbs.grid figure { line-height: 0; }
.distribution h3 { margin: 0 0 6px; font-size: 15px; font-weight: 600; overflow-wrap: anywhere; }
.distribution ol { list-style: none; margin: 0; padding: 0; font-size: 14px; max-height: 300px; overflow-y: auto; }
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
  shipped: 'the row of “it” in layer 1, head 3 puts almost all its weight on the referent; “soft ⇄ hungry” moves it from the mat to the cat, and the rows before “it” hardly change.',
  trained: 'the model trained on the training slide: how far its row of “it” has come towards the referent, against the shipped model’s.',
  opened: ({ name, summary: { config } }: OpenedModel) => `${name}: ${config.n_layers} layers × ${config.n_heads} heads. `
    + 'Look for heads that attend to the previous token, to the first token, or (on repeated text) to the token after the last occurrence of the current one.',
};
/** the english model on a sentence written twice, one piece short of its end, and its induction
 * head (docs/models.md): the last piece looks at the piece that followed it the first time */
const ENGLISH_START = { sentence: 'The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the', layer: 1, head: 1 };
const LABEL_CHARS = 12;
/** the model view's thumbnails: `named` or fewer at their widest, each named below; more in a
 * grid that fits a row and a column of the slide, never below the smallest */
const THUMB = { widest: 122, smallest: 20, row: 1100, column: 320, named: 16 };

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

export default class Explorer extends EngineElement {
  private shown?: Shown;
  private readonly map = new Heatmap({
    xLabel: 'key word', yLabel: 'query word', tint: 'weights', width: 310, height: 310,
    onClick: (cell) => this.chooseQuery(cell.row),
  });
  private readonly headView = new HeadView((query, commit) => (commit ? this.chooseQuery(query) : this.paint(query < 0 ? undefined : query)));
  private thumbs: { figure: HTMLElement; map: Heatmap }[][] = [];
  // a new sentence starts from "it"
  private readonly sentence = this.bound.text('sentence', { commit: 'change', also: () => ({ token: -1 }) });
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
  // a shipped model chosen from the list opens where it shows what it learnt
  private readonly modelList = this.bound.model('coreference', ['english', 'sort'], 'coreference', (name) => {
    if (name === 'english') return { ...ENGLISH_START, token: -1 };
    return name === '' ? { ...this.defaults('sentence', 'layer', 'head'), token: -1 } : {};
  });
  private readonly view = this.bound.choices<ExplorerView>('view', { text: (v) => VIEW_NAMES[v] });
  // drop-downs: a model opened here may have 12 layers of 12 heads
  private readonly layer = this.bound.numbered('layer', { select: true });
  private readonly head = this.bound.numbered('head', { select: true });
  private readonly notes = h('p', { className: 'notes', attrs: { role: 'status' } });
  private readonly words = h('div', { className: 'words', attrs: { role: 'group', 'aria-label': 'query word' } });
  private readonly panels: Record<ExplorerView, HTMLElement> = {
    heatmap: h('div', {}, this.map.element), head: h('div', {}, this.headView.element), model: h('div', 'thumbs'),
  };
  private readonly main = h('div', 'main');
  private readonly distributionTitle = h('h3');
  private readonly distribution = h('ol');

  constructor() {
    super(styles, HINTS.shipped, { models: ['coreference'] });
    this.listen(trainedModels, 'change', (e) => {
      const { task, show } = (e as CustomEvent<{ task: string; show: boolean }>).detail;
      if (task !== 'coreference') return;
      if (show) this.useTrained = true;
      this.update();
    });
  }

  protected override layout(): HTMLElement[] {
    const help = 'Hover a word to preview where it looks; click it (or a row of the picture) to keep it.';
    this.main.append(h('div', 'picture', ...Object.values(this.panels)),
      h('div', 'distribution', this.distributionTitle, this.distribution, h('p', { className: 'muted', textContent: help })));
    return [
      h('div', 'toolbar', this.sentence.element, this.swap, this.reading),
      h('div', 'toolbar', this.modelList.element, this.model.element, this.view.element, this.layer.element, this.head.element),
      this.notes,
      h('div', { className: 'words-row', data: { control: 'token' } }, h('span', { textContent: 'query word' }), this.words),
      this.main,
    ];
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const text = this.value<string>('sentence');
    const { opened } = await this.modelInUse('coreference');
    const trained = opened ? undefined : trainedModel('coreference');
    const shipped = opened ? await readText(opened.model, text) : await readSentence(engine, text);
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
    this.setHint(opened ? HINTS.opened(opened) : reading === shipped ? HINTS.shipped : HINTS.trained);
    this.swap.hidden = opened !== undefined;
    this.swap.disabled = !/\b(soft|hungry)\b/i.test(text);
    this.notes.textContent = readingNotes(reading).join(' ');
    // a model trained here may have another number of layers or heads
    const layer = this.layer.upTo(layers);
    const head = this.head.upTo(heads);
    const viewName = this.value<ExplorerView>('view');
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
    // a model of many heads needs the slide for its thumbnails: its bars are in the other views
    this.main.classList.toggle('wide', viewName === 'model' && layers * heads > THUMB.named);
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
    // (a grid of many small thumbnails has no room to outline a row)
    if (viewName === 'model' && !this.panels.model.classList.contains('grid')) for (const line of this.thumbs) for (const { map } of line) map.setHighlight({ row: query });

    const values = row(weights, query);
    const top = topIndices(values, 1)[0];
    this.distributionTitle.textContent = `“${labels[query]}” looks at (layer ${layer}, head ${head}):`;
    this.distribution.replaceChildren(...values.map((w, j) => h('li', { className: j === top ? 'top' : '', data: { key: String(j) } },
      h('span', { className: 'word', textContent: labels[j], title: shown.reading.labels[j] }),
      h('span', 'track', h('span', { className: 'fill', attrs: { style: `display: block; width: ${(100 * Math.min(1, Math.max(0, w))).toFixed(1)}%` } })),
      h('output', { textContent: formatNumber(w, 4) }))));
    for (const button of this.words.querySelectorAll<HTMLButtonElement>('button')) {
      const chosen = Number(button.dataset.position) === shown.query;
      button.setAttribute('aria-pressed', String(chosen));
      // the chosen word in view of its scrolled row of words (the page itself does not move)
      if (chosen && preview === undefined) this.words.scrollTop = button.offsetTop - this.words.offsetTop - 2;
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

  /** one thumbnail per layer and head, clicking one opens it as the heatmap: a few named below
   * each, or (a model of many) a grid under head numbers beside layer numbers that fits the slide */
  private makeThumbnails(layers: number, heads: number): void {
    const few = layers * heads <= THUMB.named;
    const side = few ? THUMB.widest
      : Math.max(THUMB.smallest, Math.min(THUMB.widest, Math.floor(Math.min(THUMB.row / heads, THUMB.column / layers)) - 4));
    this.panels.model.classList.toggle('grid', !few);
    this.panels.model.style.gridTemplateColumns = few ? `repeat(${heads}, ${side}px)` : `auto repeat(${heads}, ${side}px)`;
    this.thumbs = Array.from({ length: layers }, (_, layer) => Array.from({ length: heads }, (_, head) => {
      const open = () => this.change({ layer, head, view: 'heatmap' });
      const map = new Heatmap({ xLabel: 'key word', yLabel: 'query word', tint: 'weights', width: side, height: side,
        legend: false, axes: false, onClick: open });
      const name = `layer ${layer} · head ${head}`;
      map.element.title = name;
      return { figure: h('figure', {}, map.element, few && button(name, open)), map };
    }));
    if (few) {
      this.panels.model.replaceChildren(...this.thumbs.flat().map((t) => t.figure));
      return;
    }
    const number = (text: string, title: string) => h('span', { className: 'number', textContent: text, title });
    this.panels.model.replaceChildren(
      number('', ''), ...Array.from({ length: heads }, (_, k) => number(String(k), `head ${k}`)),
      ...this.thumbs.flatMap((line, l) => [number(String(l), `layer ${l}`), ...line.map((t) => t.figure)]));
  }
}
