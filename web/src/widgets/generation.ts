// <attn-generation>: a language model continues the reader's text: the shipped english one (byte-level
// BPE pieces of Debian's fortunes), the shipped fortunes one (the same text character by character),
// or a model the reader opened (GPT-2, SmolLM2). The next-token distribution as bars (temperature,
// top-k and top-p applied by the engine, beside the plain softmax), a greedy and a seeded sampled
// continuation streamed token by token from the worker (ms per token shown; Stop ends them), and
// where a chosen generated token looked: its attention weights (one layer and head) over the text
// before it. Settings: model, text, temperature, topK (0: all), topP, seed, step (tokens generated),
// token (the generated token whose attention is shown; −1: the last), layer, head.
import { alone, promptIn, type RemoteEngine, type RemoteModel } from '../runtime/engine';
import { css, textOn } from '../math/colormap';
import { formatDuration, formatNumber, formatSignificant } from '../math/format';
import { shortLabel } from '../math/text';
import { isByteLevel, shippedSpecialToken, visibleText as visible } from '../math/token-pieces';
import { median } from '../math/ranking';
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
.line h4 { margin: 0 0 2px; font-size: 14px; font-weight: 600; }
.text { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 15px; line-height: 1.6; white-space: pre-wrap; word-break: break-all; }
.text span { border-radius: 2px; }
.text .prompt { color: var(--muted); }
.text button { font: inherit; padding: 0; margin: 0; border: 0; background: none; color: inherit; cursor: pointer; border-bottom: 2px solid var(--accent); }
.text button.chosen { outline: 2px solid var(--accent); }
.caption { font-size: 14px; color: var(--muted); margin: 2px 0 0; max-width: 560px; }
.pace { font-size: 14px; color: var(--muted); }
`;

const MODEL = 'english';
/** the most likely tokens drawn as bars (a word piece's label needs the room of ten) */
const BARS = 10;
const CHART = { width: 540, height: 130 };
/** a bar's least width (its label, 6 characters, fits), and the fewest bars a narrow box shows */
const MIN_SLOT = 50;
const MIN_BARS = 5;


/** a continuation as it streams: its tokens after the prompt, each one's text, and each step's time */
interface Stream { tokens: number[]; texts: string[]; ms: number[]; stopped: boolean }

export default class Generation extends EngineElement {
  // a new text, or another count of characters, shows the last character's attention again
  private readonly text = this.bound.text('text', { also: () => ({ token: -1 }) });
  private readonly temperature = this.bound.slider('temperature', { step: 0.05, format: (v) => (v === 0 ? '0 (greedy)' : formatNumber(v, 2)) });
  private readonly topK = this.bound.slider('topK', { format: (v) => (v === 0 ? 'off' : String(v)) });
  private readonly topP = this.bound.slider('topP', { step: 0.05, format: (v) => formatNumber(v, 2) });
  private readonly seed = this.bound.number('seed');
  private readonly step = this.bound.stepper('step', 'next token ▶', () => ({ token: -1 }));
  // numbered from 1, as the sampled line's title says them
  private readonly layer = this.bound.numbered('layer');
  private readonly head = this.bound.numbered('head');
  private readonly greedy = h('div', 'text greedy');
  private readonly sampled = h('div', 'text sampled');
  private readonly sampledTitle = h('h4');
  private readonly greedyTitle = h('h4', { textContent: 'greedy (T = 0): always the most likely next character' });
  private readonly chart = sharpCanvas('next-token probabilities');
  private readonly barsCaption = h('p', 'caption');
  private readonly table = new ScreenReaderTable();
  private readonly modelList = this.bound.model(MODEL, ['fortunes']);
  private readonly pace = h('span', { className: 'pace', attrs: { 'aria-live': 'off' } });
  private readonly stop = button('Stop', () => { this.stopAsked = true; }, { hidden: true, data: { control: 'step' } });
  private stopAsked = false;
  /** the shipped model's prompt starts with [BOS], which the lines leave out */
  private startsWithBos = true;
  /** each token's piece, as the model's tokenizer writes it alone, asked for once */
  private readonly pieces = new Map<RemoteModel, Map<number, Promise<string>>>();

  constructor() {
    super(styles, 'raise the temperature or loosen top-k / top-p and watch the sampled text drift from the greedy one.', { models: [MODEL] });
  }

  protected async render(_engine: RemoteEngine): Promise<void> {
    const { model, opened } = await this.modelInUse(MODEL);
    const special = await model.specialTokens();
    // the shipped models (english, or fortunes character by character) read the text after [BOS]
    const shipped = !opened || opened.summary.family === 'attnlab';
    const unit = shipped && !isByteLevel(special) ? 'characters' : 'tokens';
    const { config, prompt, room } = await promptIn(model, this.value<string>('text'), 'text', unit, { bos: shipped });
    this.startsWithBos = shipped;
    // a fortune ends at [EOS] (a byte-level vocabulary names it by its content); a model the reader
    // opened at any of its special tokens: both continuations stop after it
    const stops = new Set(shipped ? [shippedSpecialToken(special, 'eos')!] : Object.values(special));
    const steps = this.step.upTo(room);
    const [temperature, topK, topP, seed] = ['temperature', 'topK', 'topP', 'seed'].map((setting) => this.value<number>(setting));
    const sampling = { temperature, topP, seed, ...(topK > 0 ? { topK: Math.min(topK, config.vocab_size) } : {}) };
    const layer = this.layer.upTo(config.n_layers);
    const head = this.head.upTo(config.n_heads);
    this.topK.set(topK, config.vocab_size);

    // both continuations, streamed step by step through the KV cache
    const promptPieces = await Promise.all(prompt.map((id) => this.piece(model, id)));
    this.stopAsked = false;
    this.stop.hidden = false;
    this.greedyTitle.textContent = `greedy (T = 0): always the most likely next ${unit.slice(0, -1)}`;
    this.sampledTitle.textContent = 'sampled';
    const greedyStream = await this.stream(model, prompt, steps, { temperature: 0 }, stops, this.greedy, promptPieces, unit);
    const sampledStream = await this.stream(model, prompt, steps, sampling, stops, this.sampled, promptPieces, unit);
    this.stop.hidden = true;
    const sampled = [...prompt, ...sampledStream.tokens];
    const generated = sampledStream.tokens.length;  // fewer than asked when [EOS] came first, or Stop
    const chosen = generated === 0 ? -1 : Math.min(this.value<number>('token') < 0 ? generated - 1 : this.value<number>('token'), generated - 1);

    // the distribution the last sampled token came from (or the first one will come from)
    const before = sampled.slice(0, prompt.length + Math.max(0, generated - 1));
    const [shaped, plain] = await Promise.all([
      model.nextTokenProbabilities({ tokens: before, ...sampling }),
      model.nextTokenProbabilities({ tokens: before, temperature: 1 }),
    ]);
    const order = topIndices(plain, BARS);
    const labels = new Map(await Promise.all(order.map(async (id) => [id, await this.piece(model, id)] as const)));
    this.drawBars(plain, shaped, order, labels, generated > 0 ? sampled[sampled.length - 1] : -1, unit);

    // where the chosen character looked: its row of one head's weights, over the characters before it
    const name = `layer${layer}.attn.head${head}.weights`;
    const position = prompt.length + chosen;
    const attention = chosen < 0 ? undefined
      : row((await model.forward({ tokens: sampled.slice(0, position + 1), trace: [name] })).trace![name], position);
    this.writeLine(this.greedy, promptPieces, greedyStream.texts);
    this.writeLine(this.sampled, promptPieces, sampledStream.texts, { chosen, attention, unit });
    const one = unit.slice(0, -1);
    this.sampledTitle.textContent = `sampled (T = ${formatNumber(temperature, 2)}, top-k ${sampling.topK ?? 'off'}, `
      + `top-p ${formatNumber(topP, 2)}, seed ${seed})`
      + (chosen >= 0 ? `: generated ${one} ${chosen + 1} and where it looked (layer ${layer}, head ${head})` : '');
    this.showPace([greedyStream, sampledStream], steps, unit);
    const kept = shaped.filter((p) => p > 0).length;
    this.barsCaption.textContent = `${generated > 0 ? `The distribution the last sampled ${one} was drawn from` : `The distribution of the first ${one} to come`}: `
      + `${kept} of ${config.vocab_size} ${unit} can still be drawn. Grey: softmax at T = 1; blue: after temperature, top-k and top-p.`;
  }

  /** Grows one continuation a token at a time through the model's KV cache, writing each token into
   * `line` as it comes; ends at `steps` tokens, after a stop token, on Stop, or when the settings change. */
  private stream(model: RemoteModel, prompt: number[], steps: number, sampling: Record<string, number>, stops: Set<number>,
    line: HTMLElement, promptPieces: string[], unit: string): Promise<Stream> {
    return alone(model, async () => {
      const stream: Stream = { tokens: [], texts: [], ms: [], stopped: false };
      this.writeLine(line, promptPieces, []);
      await model.startGeneration(prompt);
      while (stream.tokens.length < steps && !stops.has(stream.tokens[stream.tokens.length - 1])) {
        if (this.stopAsked || this.superseded) {
          stream.stopped = true;
          break;
        }
        const start = performance.now();
        const step = await model.generateStep(sampling);
        stream.ms.push(performance.now() - start);
        stream.tokens.push(step.token);
        stream.texts.push(step.text ?? await this.piece(model, step.token));
        line.append(h('span', { textContent: stream.texts[stream.texts.length - 1] }));
        this.showPace([stream], steps, unit);
      }
      return stream;
    });
  }

  /** ms per token of the continuations so far (the median step, worker round trip included) */
  private showPace(streams: Stream[], steps: number, unit: string): void {
    const ms = streams.flatMap((s) => s.ms);
    const stopped = streams.some((s) => s.stopped);
    this.pace.textContent = ms.length === 0 ? '' : `${formatDuration(median(ms))} per ${unit.slice(0, -1)} (median of ${ms.length} steps)`
      + (stopped ? `: stopped before ${steps} ${unit}` : '');
  }

  /** one token's piece as the tokenizer writes it alone (a character, a word piece, or "[EOS]") */
  private piece(model: RemoteModel, id: number): Promise<string> {
    let known = this.pieces.get(model);
    if (!known) this.pieces.set(model, (known = new Map()));
    let piece = known.get(id);
    if (!piece) known.set(id, (piece = model.decode([id])));
    return piece;
  }

  /** the prompt's pieces and the generated texts; with `pick`, the generated ones are buttons, the
   * chosen one outlined, and every token before it is tinted by the attention weight it received */
  private writeLine(line: HTMLElement, promptPieces: string[], texts: string[], pick?: { chosen: number; attention?: number[]; unit: string }): void {
    const attention = pick?.attention;
    const scale = attention ? Math.max(...attention) || 1 : 1;
    const tinted: [HTMLElement, number][] = [];
    // [BOS], where the model's prompt starts with it, is not written
    const pieces = [...promptPieces, ...texts];
    const first = this.startsWithBos ? 1 : 0;
    line.replaceChildren(...pieces.slice(first).flatMap((piece, k) => {
      const i = k + first;  // position in the model's sequence
      const generated = i - promptPieces.length;
      // a button keeps its text on one line: a newline in a generated piece is shown, then made
      const element = pick && generated >= 0
        ? button(piece.replaceAll('\n', '⏎'), () => this.change({ token: generated }), {
          className: generated === pick.chosen ? 'chosen' : '', data: { control: 'token' },
          attrs: { 'aria-label': `generated ${pick.unit.slice(0, -1)} ${generated + 1}: ${visible(piece)}` },
        })
        : h('span', { className: generated < 0 ? 'prompt' : '', textContent: piece });
      if (attention && i < attention.length) {
        tinted.push([element, attention[i] / scale]);
        element.title = `weight ${formatNumber(attention[i], 3)}`;
      }
      return element.localName === 'button' && piece.includes('\n') ? [element, h('br')] : [element];
    }));
    // the weight on the theme's ramp (nothing at zero, the strongest colour at the largest weight), again when the theme changes
    colourWithTheme(line, () => {
      const { sequential } = themeColours(this);
      for (const [element, weight] of tinted) Object.assign(element.style, { background: css(sequential(weight)), color: textOn(sequential(weight)) });
    });
  }

  private drawBars(plain: Float32Array, shaped: Float32Array, order: number[], labels: Map<number, string>, drawn: number, unit: string): void {
    const top = Math.max(...order.map((i) => Math.max(plain[i], shaped[i]))) || 1;
    const { width, height } = CHART;
    this.chart.draw(width, height, (g, shownWidth) => {
      const fg = foreground(this.chart.canvas);
      // a narrow box shows the most likely that fit with their labels
      const shown = Math.min(BARS, Math.max(MIN_BARS, Math.floor((shownWidth - 40) / MIN_SLOT)));
      const slot = (shownWidth - 40) / shown;
      const base = height - 34;
      g.font = CANVAS_FONT;
      g.textAlign = 'center';
      const bars = order.slice(0, shown);
      // the token drawn is always among them (in the last place when it is further down)
      if (!bars.includes(drawn) && order.includes(drawn)) bars[shown - 1] = drawn;
      bars.forEach((id, k) => {
        const x = 40 + k * slot;
        const bar = (p: number) => (p / top) * (base - 14);
        g.fillStyle = fg;
        g.globalAlpha = 0.18;
        g.fillRect(x + 2, base - bar(plain[id]), slot - 4, bar(plain[id]));
        g.globalAlpha = 1;
        g.fillStyle = SERIES_COLOURS.blue;
        g.fillRect(x + slot * 0.25, base - bar(shaped[id]), slot * 0.5, bar(shaped[id]));
        g.fillStyle = fg;
        g.fillText(shortLabel(visible(labels.get(id) ?? '?'), 6), x + slot / 2, base + 14);
        g.font = CANVAS_FONT;
        g.fillText(shaped[id] > 0 && shaped[id] < 0.005 ? formatSignificant(shaped[id], 1) : formatNumber(shaped[id], 2), x + slot / 2, base + 27);
        g.font = CANVAS_FONT;
        if (id === drawn) {
          g.strokeStyle = SERIES_COLOURS.orange;
          g.lineWidth = 2;
          // around the bar and both its lines of text, clear of the label's letters
          g.strokeRect(x + 1, 2, slot - 2, height - 3);
        }
      });
      g.textAlign = 'right';
      g.fillText('p', 30, 14);
    }, { min: 40 + MIN_BARS * MIN_SLOT });
    this.table.fill({
      caption: `the most likely next ${unit}: probability at T = 1, and after temperature, top-k and top-p`,
      head: [unit.slice(0, -1), 'softmax', 'sampled from'],
      rows: order.map((id) => [visible(labels.get(id) ?? '?'), plain[id], shaped[id]] as [string, number, number]),
      format: (v) => formatNumber(v, 4),
    });
  }

  protected override layout(): HTMLElement {
    return h('div', {},
      h('div', 'toolbar', this.modelList.element),
      h('div', 'toolbar', this.text.element, this.temperature.element, this.topK.element, this.topP.element, this.seed.element,
        this.layer.element, this.head.element),
      h('div', 'toolbar', ...this.step.elements, this.stop, this.pace),
      h('div', 'line', this.greedyTitle, this.greedy),
      h('div', 'line', this.sampledTitle, this.sampled),
      this.chart.canvas, this.barsCaption, this.table.element);
  }
}
