// <attn-coreference>: where a trained model's "it" looks. The shipped coreference model (trained by
// attnlab-train, see README) reads a sentence of its toy language; the table shows the attention of
// the chosen word over the sentence in every head of every layer, and the word the model reads "it"
// as. "Train live" trains a fresh model in the page, one optimiser step at a time, and redraws the
// table as attention finds the referent.
// Attributes: sentence (text), token (position of the query word; −1 = "it"), models (base URL of
// the model folders; default "models/" beside the page).
import { LIMITS, SEMINAR_SENTENCE } from '../app/state';
import type { CoreferenceSentence, Engine, Model, Trainer } from '../engine/index';
import { formatNumber } from '../math/format';
import type { MatrixData } from '../math/matrix';
import { EngineElement } from '../primitives/engine-element';
import { matrixTable, matrixTableStyles } from '../primitives/matrix-table';

const styles = `${matrixTableStyles}
.sentence { display: flex; gap: 8px; align-items: center; margin: 6px 0; flex-wrap: wrap; }
.sentence input { flex: 1 1 28em; max-width: 40em; padding: 4px 8px; border: 1px solid var(--attn-border); border-radius: 6px; background: transparent; color: inherit; }
.words { display: flex; flex-wrap: wrap; gap: 4px; margin: 8px 0; }
.words button.referent { border-color: #2e7d32; }
.answer { font-size: 16px; margin: 6px 0 10px; }
.answer strong { color: var(--attn-accent); }
.training { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; margin-top: 10px; }
.training output { font-variant-numeric: tabular-nums; min-width: 22em; }
`;

const STEPS_PER_FRAME = 4;
const LIVE_STEPS = 600;

interface View {
  root: HTMLElement;
  input: HTMLInputElement;
  words: HTMLElement;
  answer: HTMLElement;
  table: HTMLElement;
  message: HTMLElement;
  trainButton: HTMLButtonElement;
  shippedButton: HTMLButtonElement;
  progress: HTMLOutputElement;
}

async function fetchModel(engine: Engine, base: URL): Promise<Model> {
  const get = async (name: string) => {
    const response = await fetch(new URL(name, base));
    if (!response.ok) throw new Error(`${new URL(name, base).href}: HTTP ${response.status}`);
    return response;
  };
  const [weights, config, vocab] = await Promise.all([
    get('model.safetensors').then(async (r) => new Uint8Array(await r.arrayBuffer())),
    get('config.json').then((r) => r.text()),
    get('vocab.json').then((r) => r.text()),
  ]);
  return engine.loadModel({ weights, config, vocab });
}

export class Coreference extends EngineElement {
  static readonly observedAttributes = ['sentence', 'token', 'models'];
  private view?: View;
  private shipped?: Model;
  private loading?: Promise<void>;
  private loadError?: string;
  private trainer?: Trainer;
  private live?: Model;
  private engineRef?: Engine;

  constructor() {
    super(styles);
  }

  disconnectedCallback(): void {
    this.stopTraining();
  }

  protected render(engine: Engine): Node {
    this.engineRef = engine;
    const view = (this.view ??= this.build());
    if (this.loadError) throw new Error(`The trained model could not be loaded: ${this.loadError}`);
    if (!this.shipped) {
      const base = new URL(this.getAttribute('models') ?? 'models/', document.baseURI);
      this.loading ??= fetchModel(engine, new URL('coreference/', base.href.endsWith('/') ? base : `${base.href}/`))
        .then((model) => { this.shipped = model; })
        .catch((error: unknown) => { this.loadError = error instanceof Error ? error.message : String(error); })
        .finally(() => this.update());
      view.message.textContent = 'Loading the trained model…';
      return view.root;
    }
    const text = (this.getAttribute('sentence') ?? SEMINAR_SENTENCE).slice(0, LIMITS.sentenceLength);
    if (view.input.value !== text && this.root.activeElement !== view.input) view.input.value = text;
    let sentence: CoreferenceSentence;
    try {
      sentence = engine.coreferenceSentence(text);
    } catch (error) {
      view.message.textContent = (error instanceof Error ? error.message : String(error)).replace(/^attnlab: coreference: /, '');
      view.words.replaceChildren();
      view.table.replaceChildren();
      view.answer.textContent = '';
      return view.root;
    }
    view.message.textContent = '';
    this.draw(view, sentence, this.live ?? this.shipped);
    return view.root;
  }

  private draw(view: View, sentence: CoreferenceSentence, model: Model): void {
    const requested = this.intAttribute('token', -1, LIMITS.token.min, LIMITS.token.max);
    const query = requested >= 0 && requested < sentence.tokens.length ? requested : sentence.pronoun;
    const pieces = Array.from(sentence.tokens, (id) => model.decode([id]));
    const config = model.config;
    const names: string[] = [];
    for (let layer = 0; layer < config.n_layers; layer++)
      for (let head = 0; head < config.n_heads; head++) names.push(`layer${layer}.attn.head${head}.weights`);
    const { logits, trace = {} } = model.forward({ tokens: sentence.tokens, trace: names });

    view.words.replaceChildren(...pieces.map((piece, i) => {
      const button = document.createElement('button');
      button.textContent = piece;
      button.setAttribute('aria-pressed', String(i === query));
      if (i === sentence.referent) button.classList.add('referent');
      button.title = i === sentence.referent ? 'the word "it" refers to' : `show where "${piece}" looks`;
      button.addEventListener('click', () => this.choose({ token: i === sentence.pronoun ? -1 : i }));
      return button;
    }));

    // the model's reading of "it": the most likely word at its position
    const row = Array.from(logits.data.subarray(sentence.pronoun * logits.cols, (sentence.pronoun + 1) * logits.cols));
    const best = row.indexOf(Math.max(...row));
    const max = row[best];
    const probability = 1 / row.reduce((sum, z) => sum + Math.exp(z - max), 0);
    const word = model.decode([best]);
    const right = best === sentence.tokens[sentence.referent];
    view.answer.replaceChildren(`${this.live ? 'The model being trained' : 'The trained model'} reads “it” as `,
      Object.assign(document.createElement('strong'), { textContent: word }),
      ` (p = ${formatNumber(probability, 3)}) — ${right ? 'right' : `the referent is “${pieces[sentence.referent]}”`}.`);

    const rows: number[] = [];
    for (const name of names) {
      const w = trace[name] as MatrixData;
      rows.push(...Array.from(w.data.subarray(query * w.cols, (query + 1) * w.cols)));
    }
    const weights: MatrixData = { rows: names.length, cols: pieces.length, data: new Float32Array(rows) };
    const rowLabels = names.map((n) => n.replace(/^layer(\d+)\.attn\.head(\d+)\.weights$/, 'layer $1 · head $2'));
    view.table.replaceChildren(matrixTable(weights, {
      label: `attention of “${pieces[query]}” over the sentence, every head`,
      tint: 'weights', decimals: 2, rowLabels, colLabels: pieces,
    }));
  }

  private choose(detail: { sentence?: string; token?: number }): void {
    if (detail.sentence !== undefined) this.setAttribute('sentence', detail.sentence);
    if (detail.token !== undefined) this.setAttribute('token', String(detail.token));
    this.announce(detail);
  }

  private startTraining(): void {
    const engine = this.engineRef;
    if (!engine || !this.view) return;
    this.stopTraining();
    const trainer = engine.createTrainer({ task: 'coreference', steps: LIVE_STEPS, seed: Math.floor(Math.random() * 1e9) });
    this.trainer = trainer;
    this.view.trainButton.textContent = 'Stop';
    this.view.shippedButton.disabled = false;
    const frame = () => {
      if (this.trainer !== trainer || !this.view) return;
      let report;
      try {
        for (let i = 0; i < STEPS_PER_FRAME && trainer.stepsDone < trainer.totalSteps; i++) report = trainer.step();
      } catch (error) {
        this.view.progress.textContent = error instanceof Error ? error.message : String(error);
        this.stopTraining();
        return;
      }
      if (report) {
        this.view.progress.textContent = `step ${report.step}/${trainer.totalSteps} · loss ${formatNumber(report.loss, 3)} · ` +
          `accuracy ${Math.round(100 * report.accuracy)} %`;
      }
      this.live?.dispose();
      this.live = trainer.model();
      this.update();
      if (trainer.stepsDone < trainer.totalSteps) requestAnimationFrame(frame);
      else this.stopTraining(true);
    };
    requestAnimationFrame(frame);
  }

  private stopTraining(keepModel = false): void {
    this.trainer?.dispose();
    this.trainer = undefined;
    if (!keepModel) {
      this.live?.dispose();
      this.live = undefined;
    }
    if (this.view) {
      this.view.trainButton.textContent = 'Train a new model live';
      this.view.shippedButton.disabled = !this.live;
    }
    this.update();
  }

  private build(): View {
    const root = document.createElement('div');
    const form = document.createElement('div');
    form.className = 'sentence';
    const input = document.createElement('input');
    input.type = 'text';
    input.maxLength = LIMITS.sentenceLength;
    input.setAttribute('aria-label', 'sentence');
    input.addEventListener('change', () => this.choose({ sentence: input.value, token: -1 }));
    const swap = document.createElement('button');
    swap.textContent = 'soft ⇄ hungry';
    swap.title = 'change the adjective: the referent changes with it';
    swap.addEventListener('click', () => {
      const text = input.value;
      const next = /\bsoft\b/.test(text) ? text.replace(/\bsoft\b/, 'hungry') : text.replace(/\bhungry\b/, 'soft');
      this.choose({ sentence: next === text ? SEMINAR_SENTENCE : next, token: -1 });
    });
    form.append(input, swap);
    const message = document.createElement('p');
    message.className = 'error';
    message.setAttribute('role', 'status');
    const words = document.createElement('div');
    words.className = 'words';
    const answer = document.createElement('p');
    answer.className = 'answer';
    const table = document.createElement('div');
    const training = document.createElement('div');
    training.className = 'training';
    const trainButton = document.createElement('button');
    trainButton.textContent = 'Train a new model live';
    trainButton.addEventListener('click', () => (this.trainer ? this.stopTraining(true) : this.startTraining()));
    const shippedButton = document.createElement('button');
    shippedButton.textContent = 'Back to the shipped model';
    shippedButton.disabled = true;
    shippedButton.addEventListener('click', () => this.stopTraining());
    const progress = document.createElement('output');
    progress.className = 'muted';
    training.append(trainButton, shippedButton, progress);
    root.append(form, message, words, answer, table, training);
    return { root, input, words, answer, table, message, trainButton, shippedButton, progress };
  }
}

customElements.define('attn-coreference', Coreference);
