// <attn-generation>: the shipped character-level language model continues the reader's text. The
// next-token distribution as bars (temperature, top-k and top-p applied by the engine, beside the
// plain softmax), a greedy and a seeded sampled continuation grown token by token, and where a
// chosen generated token looked: its attention weights (one layer and head) over the text before it.
// Settings: text, temperature, topK (0: all), topP, seed, step (tokens generated), token (the
// generated token whose attention is shown; −1: the last), layer, head.
import { pageModel, type RemoteEngine, type RemoteModel } from '../app/engine';
import { css, textOn } from '../math/colormap';
import { formatNumber } from '../math/format';
import { CANVAS_FONT, foreground, sharpCanvas, themeColours } from '../primitives/canvas';
import { EngineElement } from '../primitives/engine-element';
import { SERIES_COLOURS } from '../primitives/plot';
import { ScreenReaderTable } from '../primitives/screen-reader-table';
import { slider } from '../primitives/slider';
import { numberedSelect, stepper } from '../primitives/stepper';

const styles = `
.controls { display: flex; flex-wrap: wrap; gap: 4px 16px; align-items: center; margin: 0 0 6px; font-size: 14px; }
.controls input[type="text"] { width: 14em; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
.controls input[type="range"] { width: 90px; }
.controls input[type="number"] { width: 4.5em; }
.line { margin: 0 0 6px; font-size: 14px; }
.line h4 { margin: 0 0 2px; font-size: 13px; font-weight: 600; }
.text { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 15px; line-height: 1.6; white-space: pre-wrap; word-break: break-all; }
.text span { border-radius: 2px; }
.text .prompt { color: var(--muted); }
.text button { font: inherit; padding: 0; margin: 0; border: 0; background: none; color: inherit; cursor: pointer; border-bottom: 2px solid var(--accent); }
.text button.chosen { outline: 2px solid var(--accent); }
.caption { font-size: 12px; color: var(--muted); margin: 2px 0 0; max-width: 560px; }
`;

const MODEL = 'fortunes';
/** the vocabulary's first ids (see Tokenizer) */
const SPECIALS = ['[PAD]', '[UNK]', '[BOS]', '[EOS]', '[MASK]', '[SEP]'];
/** the most likely tokens drawn as bars */
const BARS = 14;
const CHART = { width: 540, height: 130 };

/** a character as it can be read on a bar's label */
function visible(piece: string): string {
  return piece === ' ' ? '␣' : piece === '\n' ? '⏎' : piece;
}

interface Sampling { temperature: number; topK?: number; topP?: number; seed: number }

/** the character of every id of a character-level model (the six special tokens by name), in one call */
async function characters(model: RemoteModel, size: number): Promise<string[]> {
  const ids = Array.from({ length: size - SPECIALS.length }, (_, i) => SPECIALS.length + i);
  const text = await model.decode(ids);
  const pieces = Array.from(text);
  if (pieces.length !== ids.length) throw new Error('the language model is not character-level');
  return [...SPECIALS, ...pieces];
}

export class Generation extends EngineElement {
  static readonly observedAttributes = EngineElement.attributesOf('attn-generation');
  private readonly chart = sharpCanvas('next-token probabilities');
  private vocabulary?: Promise<string[]>;
  private view?: ReturnType<Generation['build']>;

  constructor() {
    super(styles, 'raise the temperature or loosen top-k / top-p and watch the sampled text drift from the greedy one.');
  }

  protected async render(_engine: RemoteEngine): Promise<void> {
    const model = await pageModel(MODEL);
    const config = await model.config();
    const text = this.value<string>('text');
    const prompt = (await model.tokenize(`[BOS]${text}`)).ids;
    const { eos } = await model.specialTokens();  // a fortune ends here: both continuations stop after it
    const room = config.n_ctx - prompt.length;
    if (room < 1) throw new Error(`The text is longer than the model's context of ${config.n_ctx} characters.`);
    const steps = Math.min(this.value<number>('step'), room);
    const topK = this.value<number>('topK');
    const sampling: Sampling = {
      temperature: this.value<number>('temperature'),
      ...(topK > 0 ? { topK: Math.min(topK, config.vocab_size) } : {}),
      topP: this.value<number>('topP'),
      seed: this.value<number>('seed'),
    };
    const layer = Math.min(this.value<number>('layer'), config.n_layers - 1);
    const head = Math.min(this.value<number>('head'), config.n_heads - 1);
    const view = (this.view ??= this.build());
    if (!view.root.isConnected) this.body.replaceChildren(view.root);
    this.syncControls(text, steps, room, config.vocab_size, layer, head, config.n_layers, config.n_heads);

    // both continuations, step by step through the KV cache
    const greedy = await model.generate({ tokens: prompt, maxNew: steps, temperature: 0, stop: eos });
    const sampled = [...prompt];
    await model.startGeneration(prompt);
    while (sampled.length < prompt.length + steps && sampled[sampled.length - 1] !== eos) sampled.push((await model.generateStep(sampling)).token);
    const generated = sampled.length - prompt.length;  // fewer than asked when [EOS] came first
    const chosen = generated === 0 ? -1 : Math.min(this.value<number>('token') < 0 ? generated - 1 : this.value<number>('token'), generated - 1);

    // the distribution the last sampled token came from (or the first one will come from)
    const before = sampled.slice(0, prompt.length + Math.max(0, generated - 1));
    const [shaped, plain, vocab] = await Promise.all([
      model.nextTokenProbabilities({ tokens: before, ...sampling }),
      model.nextTokenProbabilities({ tokens: before, temperature: 1 }),
      (this.vocabulary ??= characters(model, config.vocab_size)),
    ]);
    const drawn = generated > 0 ? sampled[sampled.length - 1] : -1;
    this.drawBars(plain, shaped, vocab, drawn);

    const attention = chosen >= 0 ? await this.attentionOf(model, sampled, prompt.length + chosen, layer, head) : undefined;
    this.writeLine(view.greedy, Array.from(greedy), prompt.length, vocab, -1);
    this.writeLine(view.sampled, sampled, prompt.length, vocab, chosen, attention);
    view.greedyTitle.textContent = `greedy (T = 0): always the most likely next character`;
    view.sampledTitle.textContent = `sampled (T = ${formatNumber(sampling.temperature, 2)}, top-k ${topK > 0 ? sampling.topK : 'off'}, `
      + `top-p ${formatNumber(sampling.topP!, 2)}, seed ${sampling.seed})`
      + (chosen >= 0 ? `: generated character ${chosen + 1} and where it looked (layer ${layer + 1}, head ${head + 1})` : '');
    const kept = Array.from(shaped).filter((p) => p > 0).length;
    view.barsCaption.textContent = `${generated > 0 ? 'The distribution the last sampled character was drawn from' : 'The distribution of the first character to come'}: `
      + `${kept} of ${config.vocab_size} characters can still be drawn. Grey: softmax at T = 1; blue: after temperature, top-k and top-p.`;
  }

  /** the attention weights of position `position` (one head of one layer) over the positions before it */
  private async attentionOf(model: RemoteModel, tokens: number[], position: number, layer: number, head: number): Promise<Float32Array> {
    const name = `layer${layer}.attn.head${head}.weights`;
    const { trace } = await model.forward({ tokens: tokens.slice(0, position + 1), trace: [name] });
    const weights = trace![name];
    return weights.data.slice(position * weights.cols, (position + 1) * weights.cols);
  }

  /** the text as characters; the generated ones are buttons, the chosen one outlined; with
   * attention, every character before the chosen one is tinted by the weight it received */
  private writeLine(line: HTMLElement, tokens: number[], promptLength: number, vocab: string[], chosen: number, attention?: Float32Array): void {
    const scale = attention ? Math.max(...attention) || 1 : 1;
    line.replaceChildren(...tokens.slice(1).map((id, k) => {
      const i = k + 1;  // position in the model's sequence ([BOS] is position 0)
      const generated = i - promptLength;
      const piece = vocab[id] ?? '?';
      let element: HTMLElement;
      if (generated >= 0 && line === this.view!.sampled) {
        const button = document.createElement('button');
        button.type = 'button';
        button.dataset.control = 'token';
        button.setAttribute('aria-label', `generated character ${generated + 1}: ${visible(piece)}`);
        button.addEventListener('click', () => this.change({ token: generated }));
        if (generated === chosen) button.classList.add('chosen');
        element = button;
      } else {
        element = document.createElement('span');
        if (generated < 0) element.className = 'prompt';
      }
      element.textContent = piece;
      if (attention && i < attention.length) {
        // the weight on the theme's ramp: nothing at zero, the strongest colour at the largest weight
        const colour = themeColours(this).sequential(attention[i] / scale);
        element.style.background = css(colour);
        element.style.color = textOn(colour);
        element.title = `weight ${formatNumber(attention[i], 3)}`;
      }
      return element;
    }));
  }

  private drawBars(plain: Float32Array, shaped: Float32Array, vocab: string[], drawn: number): void {
    const order = Array.from(plain.keys()).sort((a, b) => plain[b] - plain[a] || a - b).slice(0, BARS);
    const top = Math.max(...order.map((i) => Math.max(plain[i], shaped[i]))) || 1;
    const canvas = this.chart.canvas;
    const { width, height } = CHART;
    this.chart.draw(width, height, (g) => {
      const fg = foreground(canvas);
      const slot = (width - 40) / BARS;
      const base = height - 34;
      g.font = CANVAS_FONT;
      g.textAlign = 'center';
      order.forEach((id, k) => {
        const x = 40 + k * slot;
        const bar = (p: number) => (p / top) * (base - 14);
        g.fillStyle = fg;
        g.globalAlpha = 0.18;
        g.fillRect(x + 2, base - bar(plain[id]), slot - 4, bar(plain[id]));
        g.globalAlpha = 1;
        g.fillStyle = SERIES_COLOURS.blue;
        g.fillRect(x + slot * 0.25, base - bar(shaped[id]), slot * 0.5, bar(shaped[id]));
        g.fillStyle = fg;
        g.fillText(visible(vocab[id] ?? '?'), x + slot / 2, base + 14);
        g.font = '10px system-ui, "DejaVu Sans", sans-serif';
        g.fillText(formatNumber(shaped[id], 2), x + slot / 2, base + 27);
        g.font = CANVAS_FONT;
        if (id === drawn) {
          g.strokeStyle = SERIES_COLOURS.orange;
          g.lineWidth = 2;
          g.strokeRect(x + 1, 2, slot - 2, base + 18);
        }
      });
      g.textAlign = 'right';
      g.fillText('p', 30, 14);
    });
    this.view!.table.fill({
      caption: 'the most likely next characters: probability at T = 1, and after temperature, top-k and top-p',
      head: ['character', 'softmax', 'sampled from'],
      rows: order.map((id) => [visible(vocab[id] ?? '?'), plain[id], shaped[id]] as [string, number, number]),
      format: (v) => formatNumber(v, 4),
    });
  }

  private syncControls(text: string, steps: number, room: number, vocab: number, layer: number, head: number, layers: number, heads: number): void {
    const view = this.view!;
    if (this.root.activeElement !== view.text) view.text.value = text;
    view.temperature.set(this.value<number>('temperature'));
    view.topK.set(this.value<number>('topK'));
    view.topKInput.max = String(vocab);
    view.topP.set(this.value<number>('topP'));
    if (this.root.activeElement !== view.seed) view.seed.value = String(this.value<number>('seed'));
    view.step.set(steps, room);
    view.layer.set(layers, layer);
    view.head.set(heads, head);
  }

  private build() {
    const root = document.createElement('div');
    const controls = document.createElement('div');
    controls.className = 'controls';
    const textLabel = document.createElement('label');
    textLabel.textContent = 'text ';
    const text = document.createElement('input');
    text.type = 'text';
    text.maxLength = 60;
    text.spellcheck = false;
    text.setAttribute('aria-label', 'text to continue');
    text.addEventListener('input', () => this.change({ text: text.value, token: -1 }));
    textLabel.append(text);
    const temperature = slider({ label: 'temperature', min: 0, max: 2, step: 0.05, value: 1, format: (v) => (v === 0 ? '0 (greedy)' : formatNumber(v, 2)),
      onInput: (v) => this.change({ temperature: v }) });
    const topK = slider({ label: 'top-k', min: 0, max: 128, step: 1, value: 0, format: (v) => (v === 0 ? 'off' : String(v)),
      onInput: (v) => this.change({ topK: v }) });
    const topP = slider({ label: 'top-p', min: 0.05, max: 1, step: 0.05, value: 1, format: (v) => formatNumber(v, 2),
      onInput: (v) => this.change({ topP: v }) });
    const seedLabel = document.createElement('label');
    seedLabel.textContent = 'seed ';
    const seed = document.createElement('input');
    seed.type = 'number';
    seed.min = '0';
    seed.setAttribute('aria-label', 'seed');
    seed.addEventListener('change', () => this.change({ seed: Number(seed.value) }));
    seedLabel.append(seed);
    controls.append(textLabel, temperature.element, topK.element, topP.element, seedLabel);

    const stepping = document.createElement('div');
    stepping.className = 'controls';
    const step = stepper({ label: 'characters generated', next: 'next character ▶', max: 120, onStep: (v) => this.change({ step: v, token: -1 }) });
    const layer = numberedSelect('layer', 'layer', (v) => this.change({ layer: v }));
    const head = numberedSelect('head', 'head', (v) => this.change({ head: v }));
    stepping.append(...step.elements, layer.element, head.element);
    textLabel.dataset.control = 'text';
    temperature.element.dataset.control = 'temperature';
    topK.element.dataset.control = 'topK';
    topP.element.dataset.control = 'topP';
    seedLabel.dataset.control = 'seed';

    const line = (className: string) => {
      const div = document.createElement('div');
      div.className = 'line';
      const title = document.createElement('h4');
      const body = document.createElement('div');
      body.className = `text ${className}`;
      div.append(title, body);
      return { div, title, body };
    };
    const greedy = line('greedy');
    const sampled = line('sampled');
    const barsCaption = document.createElement('p');
    barsCaption.className = 'caption';
    const table = new ScreenReaderTable();
    root.append(controls, stepping, greedy.div, sampled.div, this.chart.canvas, barsCaption, table.element);
    return {
      root, text, temperature, topK, topKInput: topK.element.querySelector('input')!, topP, seed, step, layer, head,
      greedy: greedy.body, greedyTitle: greedy.title, sampled: sampled.body, sampledTitle: sampled.title, barsCaption, table,
    };
  }
}

customElements.get('attn-generation') ?? customElements.define('attn-generation', Generation);
