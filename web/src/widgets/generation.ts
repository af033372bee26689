// <attn-generation>: the shipped character-level language model continues the reader's text. The
// next-token distribution as bars (temperature, top-k and top-p applied by the engine, beside the
// plain softmax), a greedy and a seeded sampled continuation grown token by token, and where a
// chosen generated token looked: its attention weights (one layer and head) over the text before it.
// Settings: text, temperature, topK (0: all), topP, seed, step (tokens generated), token (the
// generated token whose attention is shown; −1: the last), layer, head.
import { alone, pageModel, promptIn, type RemoteEngine, type RemoteModel } from '../runtime/engine';
import { css, textOn } from '../math/colormap';
import { formatNumber } from '../math/format';
import { row } from '../math/matrix';
import { topIndices } from '../math/ranking';
import { CANVAS_FONT, colourWithTheme, foreground, sharpCanvas, themeColours } from '../primitives/canvas';
import { button, h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { SERIES_COLOURS } from '../primitives/plot';
import { ScreenReaderTable } from '../primitives/screen-reader-table';

const styles = `
.toolbar input[type="text"] { width: 14em; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
.toolbar input[type="range"] { width: 90px; }
.toolbar input[type="number"] { width: 4.5em; }
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
/** the most likely tokens drawn as bars */
const BARS = 14;
const CHART = { width: 540, height: 130 };

/** a character as it can be read on a bar's label */
const visible = (piece: string) => (piece === ' ' ? '␣' : piece === '\n' ? '⏎' : piece);

/** every id's piece as the tokenizer writes it: a character, or a special token's name ("[EOS]") */
const pieces = (model: RemoteModel, size: number) => Promise.all(Array.from({ length: size }, (_, id) => model.decode([id])));

export default class Generation extends EngineElement {
  // a new text, or another count of characters, shows the last character's attention again
  private readonly text = this.bound.text('text', { also: () => ({ token: -1 }) });
  private readonly temperature = this.bound.slider('temperature', { step: 0.05, format: (v) => (v === 0 ? '0 (greedy)' : formatNumber(v, 2)) });
  private readonly topK = this.bound.slider('topK', { format: (v) => (v === 0 ? 'off' : String(v)) });
  private readonly topP = this.bound.slider('topP', { step: 0.05, format: (v) => formatNumber(v, 2) });
  private readonly seed = this.bound.number('seed');
  private readonly step = this.bound.stepper('step', 'next character ▶', () => ({ token: -1 }));
  // numbered from 1, as the sampled line's title says them
  private readonly layer = this.bound.numbered('layer', { from: 1 });
  private readonly head = this.bound.numbered('head', { from: 1 });
  private readonly greedy = h('div', 'text greedy');
  private readonly sampled = h('div', 'text sampled');
  private readonly sampledTitle = h('h4');
  private readonly chart = sharpCanvas('next-token probabilities');
  private readonly barsCaption = h('p', 'caption');
  private readonly table = new ScreenReaderTable();
  private vocabulary?: Promise<string[]>;

  constructor() {
    super(styles, 'raise the temperature or loosen top-k / top-p and watch the sampled text drift from the greedy one.', { models: [MODEL] });
  }

  protected async render(_engine: RemoteEngine): Promise<void> {
    const model = await pageModel(MODEL);
    const { config, prompt, room } = await promptIn(model, this.value<string>('text'), 'text', 'characters');
    const { eos } = await model.specialTokens();  // a fortune ends here: both continuations stop after it
    const steps = this.step.upTo(room);
    const [temperature, topK, topP, seed] = ['temperature', 'topK', 'topP', 'seed'].map((setting) => this.value<number>(setting));
    const sampling = { temperature, topP, seed, ...(topK > 0 ? { topK: Math.min(topK, config.vocab_size) } : {}) };
    const layer = this.layer.upTo(config.n_layers);
    const head = this.head.upTo(config.n_heads);
    this.topK.set(topK, config.vocab_size);

    // both continuations, step by step through the KV cache
    const greedy = await model.generate({ tokens: prompt, maxNew: steps, temperature: 0, stop: eos });
    const sampled = [...prompt];
    await alone(model, async () => {
      await model.startGeneration(prompt);
      while (sampled.length < prompt.length + steps && sampled[sampled.length - 1] !== eos) sampled.push((await model.generateStep(sampling)).token);
    });
    const generated = sampled.length - prompt.length;  // fewer than asked when [EOS] came first
    const chosen = generated === 0 ? -1 : Math.min(this.value<number>('token') < 0 ? generated - 1 : this.value<number>('token'), generated - 1);

    // the distribution the last sampled token came from (or the first one will come from)
    const before = sampled.slice(0, prompt.length + Math.max(0, generated - 1));
    const [shaped, plain, vocab] = await Promise.all([
      model.nextTokenProbabilities({ tokens: before, ...sampling }),
      model.nextTokenProbabilities({ tokens: before, temperature: 1 }),
      (this.vocabulary ??= pieces(model, config.vocab_size)),
    ]);
    this.drawBars(plain, shaped, vocab, generated > 0 ? sampled[sampled.length - 1] : -1);

    // where the chosen character looked: its row of one head's weights, over the characters before it
    const name = `layer${layer}.attn.head${head}.weights`;
    const position = prompt.length + chosen;
    const attention = chosen < 0 ? undefined
      : row((await model.forward({ tokens: sampled.slice(0, position + 1), trace: [name] })).trace![name], position);
    this.writeLine(this.greedy, Array.from(greedy), prompt.length, vocab);
    this.writeLine(this.sampled, sampled, prompt.length, vocab, { chosen, attention });
    this.sampledTitle.textContent = `sampled (T = ${formatNumber(temperature, 2)}, top-k ${sampling.topK ?? 'off'}, `
      + `top-p ${formatNumber(topP, 2)}, seed ${seed})`
      + (chosen >= 0 ? `: generated character ${chosen + 1} and where it looked (layer ${layer + 1}, head ${head + 1})` : '');
    const kept = shaped.filter((p) => p > 0).length;
    this.barsCaption.textContent = `${generated > 0 ? 'The distribution the last sampled character was drawn from' : 'The distribution of the first character to come'}: `
      + `${kept} of ${config.vocab_size} characters can still be drawn. Grey: softmax at T = 1; blue: after temperature, top-k and top-p.`;
  }

  /** the text as characters; with `pick`, the generated ones are buttons, the chosen one outlined,
   * and every character before it is tinted by the attention weight it received */
  private writeLine(line: HTMLElement, tokens: number[], promptLength: number, vocab: string[], pick?: { chosen: number; attention?: number[] }): void {
    const attention = pick?.attention;
    const scale = attention ? Math.max(...attention) || 1 : 1;
    const tinted: [HTMLElement, number][] = [];
    line.replaceChildren(...tokens.slice(1).map((id, k) => {
      const i = k + 1;  // position in the model's sequence ([BOS] is position 0)
      const generated = i - promptLength;
      const piece = vocab[id] ?? '?';
      const element = pick && generated >= 0
        ? button(piece, () => this.change({ token: generated }), {
          className: generated === pick.chosen ? 'chosen' : '', data: { control: 'token' },
          attrs: { 'aria-label': `generated character ${generated + 1}: ${visible(piece)}` },
        })
        : h('span', { className: generated < 0 ? 'prompt' : '', textContent: piece });
      if (attention && i < attention.length) {
        tinted.push([element, attention[i] / scale]);
        element.title = `weight ${formatNumber(attention[i], 3)}`;
      }
      return element;
    }));
    // the weight on the theme's ramp (nothing at zero, the strongest colour at the largest weight), again when the theme changes
    colourWithTheme(line, () => {
      const { sequential } = themeColours(this);
      for (const [element, weight] of tinted) Object.assign(element.style, { background: css(sequential(weight)), color: textOn(sequential(weight)) });
    });
  }

  private drawBars(plain: Float32Array, shaped: Float32Array, vocab: string[], drawn: number): void {
    const order = topIndices(plain, BARS);
    const top = Math.max(...order.map((i) => Math.max(plain[i], shaped[i]))) || 1;
    const { width, height } = CHART;
    this.chart.draw(width, height, (g) => {
      const fg = foreground(this.chart.canvas);
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
    this.table.fill({
      caption: 'the most likely next characters: probability at T = 1, and after temperature, top-k and top-p',
      head: ['character', 'softmax', 'sampled from'],
      rows: order.map((id) => [visible(vocab[id] ?? '?'), plain[id], shaped[id]] as [string, number, number]),
      format: (v) => formatNumber(v, 4),
    });
  }

  protected override layout(): HTMLElement {
    return h('div', {},
      h('div', 'toolbar', this.text.element, this.temperature.element, this.topK.element, this.topP.element, this.seed.element,
        this.layer.element, this.head.element),
      h('div', 'toolbar', ...this.step.elements),
      h('div', 'line', h('h4', { textContent: 'greedy (T = 0): always the most likely next character' }), this.greedy),
      h('div', 'line', this.sampledTitle, this.sampled),
      this.chart.canvas, this.barsCaption, this.table.element);
  }
}
