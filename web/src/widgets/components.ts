// <attn-components>: a sentence's vectors after each component of one layer, in the trained
// coreference model or a model the reader opened, read from the engine's trace of a forward pass:
// token embedding, + positions (where the model adds them), the norm, attention, the residual sum,
// the feed-forward network's hidden layer (and SwiGLU's gate), and the layer's output. The stages are
// the ones the engine traces for the model, titled from its config (LayerNorm or RMSNorm, GELU or
// SwiGLU, learned positions or RoPE). A narrow model's stages are heatmaps, whose hovered row
// follows a token through every picture; a wide one's (768 dimensions) are the chosen token's rows.
// Settings: model, sentence, layer, token (the row whose statistics are shown; −1: the reading's own).
import type { RemoteEngine, RemoteModel } from '../runtime/engine';
import { queryRow, readingNotes, readSentence, readText } from '../runtime/coreference-reading';
import type { MatrixData, ModelConfig } from '../engine/index';
import { formatNumber } from '../math/format';
import { maxAbsFinite, rowStatistics, wrappedRow } from '../math/matrix';
import { button, h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { colourKey, Heatmap } from '../primitives/heatmap';

const styles = `
.toolbar { margin-bottom: 4px; }
.toolbar input[type="text"] { width: 20em; }
.notes:empty { display: none; }
.notes { margin: 0 0 4px; font-size: 14px; color: var(--bad); }
.grid { display: grid; grid-template-columns: repeat(4, auto); gap: 2px 14px; justify-content: start; }
.grid .heading { display: flex; gap: 8px; align-items: baseline; }
.grid h4 { margin: 0; font-size: 14px; font-weight: 600; white-space: nowrap; }
.grid .range { font-size: 14px; color: var(--muted); font-variant-numeric: tabular-nums; }
.grid .readout { display: none; }
/* a wide model: one line a stage, its title beside the token's row */
.grid.rows { grid-template-columns: minmax(0, 22em) auto; gap: 3px 12px; align-items: center; }
.grid.rows .heading { flex-wrap: wrap; gap: 0 8px; }
.grid.rows h4 { white-space: normal; }
.axis { grid-column: 2; font-size: 12px; color: var(--muted); display: flex; justify-content: space-between; }
.grid:not(.rows) .axis { display: none; }
/* a phone: one picture a row (two side by side drew one's row labels over the other's picture) */
@media (max-width: 799px) {
  .grid { grid-template-columns: minmax(0, 1fr); } .grid h4 { white-space: normal; }
  .grid.rows { grid-template-columns: minmax(0, 1fr); } .axis { grid-column: 1; }
}
.words { display: flex; flex-wrap: wrap; gap: 4px; max-height: 3.9em; overflow-y: auto; margin: 4px 0; font-size: 14px; }
.words:empty { display: none; }
.words button { padding: 1px 6px; max-width: 10em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.footer { display: flex; flex-wrap: wrap; gap: 4px 24px; align-items: baseline; margin: 4px 0 0; }
.stats { font-size: 14px; margin: 0; font-variant-numeric: tabular-nums; }
`;

type Config = Required<ModelConfig>;
const NORM: Record<Config['norm'], string> = { layer_norm: 'LayerNorm', rms_norm: 'RMSNorm', none: 'no norm' };
const ACTIVATION: Record<Config['activation'], string> = {
  relu: 'FFN hidden, ReLU(·W₁ + b₁)', gelu: 'FFN hidden, GELU(·W₁ + b₁)', gelu_tanh: 'FFN hidden, GELU(·W₁ + b₁), tanh',
  swiglu: 'SwiGLU hidden, SiLU(gate) ⊙ ·W_up',
};
/** the stages drawn, by their trace name after "layer{L}." (or the embedding's own), titled from the
 * model's config; the engine's trace says which a model has and in what order */
const TITLES: Record<string, (c: Config) => string> = {
  'embed.tokens': () => 'E[token]',
  'embed.positions': (c) => `+ ${c.positional} position p`,
  in: () => 'x (layer input)',
  ln_1: (c) => `${NORM[c.norm]}(x)`,
  'attn.out': (c) => (c.norm === 'layer_norm' ? 'Attention(LN(x))' : `Attention(${NORM[c.norm]}(x))`) + (c.positional === 'rope' ? ', RoPE on q, k' : ''),
  residual_1: () => 'x + Attention: residual',
  'mlp.gate': () => 'SwiGLU gate, ·W_gate',
  'mlp.act': (c) => ACTIVATION[c.activation],
  out: () => '+ FFN(·): layer output',
};
/** the stages that are vectors of the residual stream (or added to it): drawn on one shared scale,
 * so that their sizes compare; the norm's output and the FFN's hidden layer live on scales of their own */
const STREAM_STAGES = new Set(['embed.tokens', 'embed.positions', 'in', 'attn.out', 'residual_1', 'out']);
const roleOf = (name: string) => name.replace(/^layer\d+\./, '');

/** a heatmap in the grid has this many CSS px across: a model whose vectors are wider gets one row a stage */
const GRID_WIDTH = 190;
/** a wide model's line of d_model entries (at least a pixel each for 768), and its height */
const ROW_WIDTH = 800;
const ROW_HEIGHT = 11;

interface Stage { name: string; title: string }

export default class Components extends EngineElement {
  private readonly modelList = this.bound.model('coreference');
  private readonly sentence = this.bound.text('sentence', { commit: 'change', also: () => ({ token: -1 }) });
  private readonly layer = this.bound.numbered('layer', { select: true });
  private readonly note = h('span', 'muted');
  private readonly notes = h('p', { className: 'notes', attrs: { role: 'status' } });
  private readonly grid = h('div', 'grid');
  private readonly axis = h('div', 'axis');
  private readonly words = h('div', { className: 'words', data: { control: 'token' } });
  private readonly stats = h('p', 'stats');
  /** the one range of the residual stream's pictures, beside the colour key */
  private readonly sharedRange = h('span');
  private pictures: { title: HTMLElement; range: HTMLElement; map: Heatmap }[] = [];
  /** the trace names of the last model asked (one token's forward lists them) */
  private traced?: { model: RemoteModel; names: Promise<string[]> };

  constructor() {
    super(styles, 'LayerNorm gives every row mean 0 and spread 1 (before γ, β), and the residual keeps the input visible in the output.',
      { models: ['coreference'] });
  }

  protected override layout(): HTMLElement[] {
    // the colour key shares the statistics' line, so that the slide keeps the grid's height
    const key = h('span', 'muted', colourKey('signed', '−r', '+r'), this.sharedRange);
    return [h('div', 'toolbar', this.modelList.element, this.sentence.element, this.layer.element, this.note),
      this.notes, this.words, this.grid, h('div', 'footer', this.stats, key)];
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const { opened } = await this.modelInUse('coreference');
    const text = this.value<string>('sentence');
    const reading = opened ? await readText(opened.model, text) : await readSentence(engine, text);
    const { config, model, labels } = reading;
    if (!reading.tokens.length) throw new Error('Type a sentence: it has no words.');
    const layer = this.layer.upTo(config.n_layers);
    const token = queryRow(reading, this.value<number>('token'));
    const stages = await this.stagesOf(model, config, layer);
    const wide = config.d_model > GRID_WIDTH;
    if (this.pictures.length !== stages.length || this.grid.classList.contains('rows') !== wide) this.makePictures(stages.length, wide);

    const { trace = {} } = await model.forward({ tokens: reading.tokens, trace: stages.map((s) => s.name) });
    // a wide model: the token's own row, in lines of d_model entries (the FFN's hidden layer takes several)
    const shown = stages.map(({ name }) => (wide ? wrappedRow(trace[name] as MatrixData, token, config.d_model) : trace[name] as MatrixData));
    const inStream = stages.map(({ name }) => STREAM_STAGES.has(roleOf(name)));
    const shared = Math.max(0, ...shown.filter((_, k) => inStream[k]).map((m) => maxAbsFinite(m))) || 1;
    stages.forEach(({ name, title }, k) => {
      const { title: heading, range, map } = this.pictures[k];
      const m = trace[name] as MatrixData;
      map.configure({ ...(wide ? { width: ROW_WIDTH, height: ROW_HEIGHT * shown[k].rows } : { rowLabels: labels }), range: inStream[k] ? shared : undefined });
      map.draw(shown[k]);
      heading.textContent = `${title}  ${m.rows}×${m.cols}`;
      // the stream's shared r is said once, by the colour key; a picture on its own scale says its own
      range.textContent = inStream[k] ? '' : `±${formatNumber(map.range, 2)}`;
      if (!wide) map.setHighlight({ row: token });
    });
    this.axis.replaceChildren(h('span', { textContent: `“${labels[token]}”: dimension 0` }),
      h('span', { textContent: `${config.d_model - 1}; a wider stage goes on in the lines below` }));
    this.showWords(wide ? labels : [], token);
    this.sharedRange.textContent = ` (r = ${formatNumber(shared, 2)}, or the r beside a title)`;

    const byRole = (role: string) => stages.find((s) => s.name === `layer${layer}.${role}`)!.name;
    const show = (name: string, label: string, rms = false) => {
      const { mean, std, rms: root } = rowStatistics(trace[name] as MatrixData, token);
      return `${label}: ${rms ? `rms ${formatNumber(root, 3)}, ` : ''}mean ${formatNumber(mean, 3)}, std ${formatNumber(std, 3)}`;
    };
    const normed = config.norm === 'rms_norm' ? show(byRole('ln_1'), 'RMSNorm(x) (with γ)', true) : show(byRole('ln_1'), 'LN(x) (with γ, β)');
    this.stats.textContent = `“${labels[token]}” — ${show(byRole('in'), 'x')} · ${normed} · ${show(byRole('out'), 'output')}`;
    this.notes.textContent = readingNotes(reading).join(' ');
    const rows = wide ? 'each stage: the chosen token\'s row' : 'rows: tokens, columns: dimensions; hover a row';
    const positions = config.positional === 'rope' ? '; no position embedding: RoPE turns q and k inside attention' : '';
    this.note.textContent = rows + positions;
    this.setHint(config.norm === 'rms_norm'
      ? 'RMSNorm gives every row root mean square 1 (before γ), without centring it, and the residual keeps the input visible in the output.'
      : 'LayerNorm gives every row mean 0 and spread 1 (before γ, β), and the residual keeps the input visible in the output.');
  }

  /** the stages of `layer` the engine traces for this model, in its order, with their titles */
  private async stagesOf(model: RemoteModel, config: Config, layer: number): Promise<Stage[]> {
    if (this.traced?.model !== model) {
      this.traced = { model, names: model.forward({ tokens: [0], trace: true }).then(({ trace = {} }) => Object.keys(trace)) };
    }
    const prefix = `layer${layer}.`;
    return (await this.traced.names).flatMap((name) => {
      const title = TITLES[name.startsWith(prefix) ? name.slice(prefix.length) : name.startsWith('embed.') ? name : ''];
      return title ? [{ name, title: title(config) }] : [];
    });
  }

  /** a heatmap per stage: the whole n×d matrix, or (wide) one row of it */
  private makePictures(count: number, wide: boolean): void {
    this.pictures = Array.from({ length: count }, () => ({
      title: h('h4'), range: h('span', 'range'),
      map: new Heatmap({
        xLabel: 'dimension', yLabel: wide ? 'line' : 'token', tint: 'signed', width: GRID_WIDTH, height: 150, legend: false, axes: !wide,
        onHover: (c) => { if (!wide && c && c.row !== this.value<number>('token')) this.change({ token: c.row }); },
      }),
    }));
    this.grid.classList.toggle('rows', wide);
    const cells = this.pictures.map(({ title, range, map }) => [h('div', 'heading', title, range), map.element]);
    // the grid's cells: a stage's heading above its picture, or (wide) beside it
    this.grid.replaceChildren(...(wide ? cells.flat() : cells.map((parts) => h('div', {}, ...parts))), this.axis);
  }

  /** a wide model's tokens, to choose the row shown (a narrow model's heatmaps are hovered instead) */
  private showWords(labels: string[], token: number): void {
    this.words.replaceChildren(...labels.map((label, i) => button(label, () => this.change({ token: i }), {
      attrs: { 'aria-pressed': String(i === token), 'aria-label': `token ${i}: ${label}` },
    })));
  }
}
