// <attn-families>: encoder-only, decoder-only and encoder-decoder side by side: who looks at whom
// in each (read from the masked scores the engine traced in a shipped model of each family, or in
// the model the reader opened for the decoder-only one), what each is trained to predict and what
// it is used for; then the shipped encoder-decoder model, trained by the engine to reverse letters,
// reads a string the reader types and its decoder's cross-attention shows the alignment: output
// position i reads source position k − 1 − i.
// Settings: model (an opened model, for the decoder-only column), source (letters a–z), layer and
// head of the cross-attention drawn.
import { pageModel, type RemoteEngine, type RemoteModel } from '../runtime/engine';
import type { OpenedModel } from '../runtime/opened-models';
import { LETTERS, SEMINAR_SENTENCE } from '../runtime/registry';
import type { MatrixData } from '../engine/index';
import { openedModelTitle } from '../math/architecture';
import { css, MASK_OPEN } from '../math/colormap';
import { formatNumber } from '../math/format';
import { at, row } from '../math/matrix';
import { argmax } from '../math/ranking';
import { foreground, sharpCanvas, themeColours, type SharpCanvas } from '../primitives/canvas';
import { h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { Heatmap } from '../primitives/heatmap';
import { ScreenReaderTable } from '../primitives/screen-reader-table';

const styles = `
.families { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 10px; margin-bottom: 8px; }
/* a phone: one family under another, each as wide as the screen */
@media (max-width: 799px) { .families { grid-template-columns: minmax(0, 1fr); } }
.family { border: 1px solid var(--border); border-radius: 6px; padding: 5px 8px; background: var(--panel); font-size: 14px; line-height: 1.3; }
.family h4 { margin: 0 0 4px; font-size: 14px; }
.family p { margin: 2px 0; }
.family .patterns { display: flex; gap: 8px; align-items: flex-end; margin: 4px 0; }
.family figure { margin: 0; text-align: center; }
.family figcaption { font-size: 12px; color: var(--muted); }
/* the model list in the decoder-only column's title row (the slide has no room for a row of its
   own), in all the room the title leaves: its entries name models, so the list goes without its label */
.family .heading { display: flex; gap: 3px; align-items: center; margin: 0 0 4px; }
.family .heading h4 { margin: 0; flex: none; }
.family .heading .model-list { flex: 1 1 0; min-width: 0; justify-content: flex-end; }
.family .model-list .control { font-size: 14px; min-width: 0; }
.family .model-list .control > span { display: none; }
.family .model-list select { min-width: 0; max-width: 100%; padding: 0; }
.toolbar { margin: 4px 0 6px; }
.toolbar input[type="text"] { width: 8em; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
.result { font-size: 15px; margin: 0 0 4px; }
.cross { display: flex; gap: 6px 18px; align-items: flex-start; flex-wrap: wrap; }
.cross .explain { max-width: 230px; font-size: 14px; }
.result code { font-size: 16px; }
.verdict { font-weight: 600; }
.verdict.same { color: var(--good); }
.verdict.moved { color: var(--bad); }
`;

const PATTERN_CELL = 8;
/** the columns, in the order of FAMILIES; an opened model takes the decoder-only one */
const [ENCODER, DECODER, ENCODER_DECODER] = [0, 1, 2];

/** the decoder-only column's lines when it shows an opened model: its name, and its objective
 * over its own vocabulary (as short as the shipped lines: the slide has no room for more) */
function openedDecoder({ name, summary: { family, config } }: OpenedModel) {
  return {
    examples: `here: ${openedModelTitle(name, family, config.n_layers)}, and the sorting model`,
    objective: `Next-token prediction: predict token t + 1, one of ${config.vocab_size}, from tokens 1 … t.`,
  };
}

/** each family, and the masks drawn for it (the decoder-only one's are the shipped sorting model's) */
const FAMILIES = [
  { title: 'Encoder-only', examples: 'BERT, RoBERTa; here: the coreference model', patterns: ['self-attention: all see all'],
    objective: 'Masked language modelling: hide some tokens, predict them from both sides.',
    use: 'Understanding a whole text: classification, tagging, retrieval, "which noun is it?"' },
  { title: 'Decoder-only', examples: 'GPT, LLaMA; here: the sorting and the language models', patterns: ['self-attention: causal'],
    objective: 'Next-token prediction: predict token t + 1 from tokens 1 … t.',
    use: 'Generating text: chat, code, completion; anything posed as a continuation.' },
  { title: 'Encoder-decoder', examples: 'the original Transformer, T5, BART; here: the reversing model',
    patterns: ['decoder self: causal', 'cross: all of the source'],
    objective: 'Predict the target\'s next token from the whole source and the target so far.',
    use: 'Turning one sequence into another: translation, summarisation, speech to text.' },
];

/** the first head's masked scores in the first layer: what each position may look at */
const MASKED = 'layer0.attn.head0.masked';

/** which cells a masked score matrix lets through (finite), in the colours of every mask */
function drawPattern(picture: SharpCanvas, masked: MatrixData): void {
  const canvas = picture.canvas;
  picture.draw(masked.cols * PATTERN_CELL + 1, masked.rows * PATTERN_CELL + 1, (g) => {
    const colours = themeColours(canvas);
    for (let i = 0; i < masked.rows; i++)
      for (let j = 0; j < masked.cols; j++) {
        g.fillStyle = css(colours.sequential(Number.isFinite(at(masked, i, j)) ? MASK_OPEN : 0));
        g.fillRect(j * PATTERN_CELL + 1, i * PATTERN_CELL + 1, PATTERN_CELL - 1, PATTERN_CELL - 1);
      }
    // the closed cells are the background: a frame shows where the matrix ends
    g.strokeStyle = foreground(canvas);
    g.lineWidth = 1;
    g.strokeRect(0.5, 0.5, masked.cols * PATTERN_CELL, masked.rows * PATTERN_CELL);
  });
}

export default class Families extends EngineElement {
  private readonly modelList = this.bound.model('sort');
  private readonly source = this.bound.text('source');
  // numbered from 1, as the alignment's sentence says them
  private readonly layer = this.bound.numbered('layer');
  private readonly head = this.bound.numbered('head');
  /** each family's column, in the order of FAMILIES: the lines that name its model, and its masks */
  private readonly columns = FAMILIES.map((family) => ({
    examples: h('p', { className: 'muted', textContent: family.examples }),
    objective: h('span', { textContent: ` ${family.objective}` }),
    patterns: family.patterns.map((caption) => ({ caption, picture: sharpCanvas('') })),
  }));
  private patternsDrawn = false;
  /** the model whose mask the decoder-only column shows */
  private decoderDrawn?: RemoteModel;
  private readonly result = h('p', 'result');
  private readonly alignment = h('p', 'muted');
  private readonly map = new Heatmap({ xLabel: 'source letter (encoder)', yLabel: 'decoder writes', tint: 'weights', width: 180, height: 126 });
  private readonly table = new ScreenReaderTable();

  constructor() {
    super(styles, 'type letters: the decoder writes them backwards, and its cross-attention runs along the anti-diagonal.',
      { models: ['reverse-seq2seq', 'coreference', 'sort'] });
  }

  protected async render(_engine: RemoteEngine): Promise<void> {
    const reverse = await pageModel('reverse-seq2seq');
    if (!this.patternsDrawn) {
      await this.drawPatterns(reverse);
      this.patternsDrawn = true;
    }
    const { model: decoder, opened } = await this.modelInUse('sort');
    if (this.decoderDrawn !== decoder) {
      await this.drawDecoder(decoder, opened);
      this.decoderDrawn = decoder;
    }

    const typed = this.value<string>('source');
    // at most the field's length: the longest string the reverse task trains on
    const letters = [...typed.toLowerCase()].filter((c) => LETTERS.includes(c));
    const config = await reverse.config();
    const { bos, eos } = await reverse.specialTokens();
    const layer = this.layer.upTo(config.n_decoder_layers);
    const head = this.head.upTo(config.n_heads);
    if (letters.length < 2) throw new Error('Type two to eight letters a–z.');

    // the decoder writes greedily from [BOS] until [EOS]; then one traced pass over what it wrote
    const source = (await reverse.tokenize(letters.join(''))).ids;
    const written = await reverse.generate({ source, tokens: [bos], maxNew: letters.length + 1, temperature: 0, stop: eos });
    const name = `decoder.layer${layer}.cross.head${head}.weights`;
    // the positions that wrote something: [BOS] and the letters (the [EOS] written last reads nothing after)
    const reading = written[written.length - 1] === eos ? written.slice(0, -1) : written;
    const { trace } = await reverse.forward({ source, tokens: reading, trace: [name] });
    const output = Array.from(written.slice(1)).filter((t) => t !== eos);
    const outputText = await reverse.decode(output);
    const weights = trace![name];
    // decoder row i reads [BOS] y_1 … y_i and predicts y_{i+1}: the row's own label is what it writes
    const rowLabels = Array.from({ length: weights.rows }, (_, i) => (i < output.length ? `→ ${outputText[i] ?? '?'}` : '→ [EOS]'));
    this.map.configure({ rowLabels, colLabels: letters });
    this.map.draw(weights);
    const expected = letters.slice().reverse().join('');
    const right = outputText === expected;
    this.result.replaceChildren(`${letters.join('')} → `, h('code', { textContent: outputText || '(nothing)' }),
      h('span', { className: `verdict ${right ? 'same' : 'moved'}`, textContent: right ? '  reversed correctly' : `  (the reverse is ${expected})` }));
    const aligned = output.filter((_, i) => argmax(row(weights, i)) === letters.length - 1 - i).length;
    this.alignment.textContent = `In decoder layer ${layer}, head ${head}, ${aligned} of ${output.length} output letters look hardest at `
      + 'the source letter they copy (the anti-diagonal).';
    this.table.fill({
      caption: `cross-attention weights of decoder layer ${layer}, head ${head}: rows write, columns are read`,
      head: ['writes \\ reads', ...letters],
      rows: rowLabels.map((label, i) => [label, ...row(weights, i)] as [string, ...number[]]),
      format: (v) => formatNumber(v, 3),
    });
  }

  /** the encoder-only and encoder-decoder masks, as the engine traced them: the coreference
   * model's and the reversing model's decoder self- and cross-attention */
  private async drawPatterns(reverse: RemoteModel): Promise<void> {
    const coreference = await pageModel('coreference');
    const sentence = (await coreference.tokenize(SEMINAR_SENTENCE)).ids.slice(0, 8);
    const source = (await reverse.tokenize('letters')).ids;
    const { bos } = await reverse.specialTokens();
    const cross = 'decoder.layer0.cross.head0.masked';
    const [encoder, seq2seq] = await Promise.all([
      coreference.forward({ tokens: sentence, trace: [MASKED] }),
      reverse.forward({ source, tokens: [bos, ...source.slice(0, 5)], trace: [`decoder.${MASKED}`, cross] }),
    ]);
    this.drawColumn(ENCODER, [encoder.trace![MASKED]]);
    this.drawColumn(ENCODER_DECODER, [seq2seq.trace![`decoder.${MASKED}`], seq2seq.trace![cross]]);
  }

  /** the decoder-only column: the shipped sorting model's mask over letters, or the opened model's
   * over the seminar sentence's first tokens, with the lines that name it */
  private async drawDecoder(model: RemoteModel, opened?: OpenedModel): Promise<void> {
    const tokens = opened ? (await model.tokenize(SEMINAR_SENTENCE)).ids.slice(0, 8) : (await model.tokenize('patterns')).ids;
    const { trace } = await model.forward({ tokens, trace: [MASKED] });
    const { examples, objective } = this.columns[DECODER];
    const lines = opened ? openedDecoder(opened) : FAMILIES[DECODER];
    examples.textContent = lines.examples;
    objective.textContent = ` ${lines.objective}`;
    this.drawColumn(DECODER, [trace![MASKED]], opened?.name);
  }

  /** a column's masks, each named for assistive technology by its caption and the model it is traced from */
  private drawColumn(k: number, masks: MatrixData[], model = ''): void {
    this.columns[k].patterns.forEach(({ caption, picture }, m) => {
      picture.canvas.setAttribute('aria-label', `${FAMILIES[k].title}${model && ` (${model})`}: ${caption} (filled: may look)`);
      drawPattern(picture, masks[m]);
    });
  }

  protected override layout(): HTMLElement {
    const families = FAMILIES.map((family, k) => h('section', 'family',
      // the model list chooses the decoder-only column's model, so it sits in that column's title row
      k === DECODER ? h('div', 'heading', h('h4', { textContent: family.title }), this.modelList.element) : h('h4', { textContent: family.title }),
      this.columns[k].examples,
      h('div', 'patterns', ...this.columns[k].patterns.map(({ caption, picture }) => h('figure', {}, picture.canvas, h('figcaption', { textContent: caption })))),
      h('p', {}, h('b', { textContent: 'Trained to:' }), this.columns[k].objective),
      h('p', {}, h('b', { textContent: 'Used for:' }), ` ${family.use}`)));
    return h('div', {},
      h('div', 'families', ...families),
      h('div', 'toolbar', this.source.element, this.layer.element, this.head.element),
      h('div', 'cross', this.map.element, h('div', 'explain', this.result, this.alignment)),
      this.table.element);
  }
}
