// <attn-families>: encoder-only, decoder-only and encoder-decoder side by side: who looks at whom
// in each (read from the masked scores the engine traced in a shipped model of each family), what
// each is trained to predict and what it is used for; then the shipped encoder-decoder model,
// trained by the engine to reverse letters, reads a string the reader types and its decoder's
// cross-attention shows the alignment: output position i reads source position k − 1 − i.
// Settings: source (letters a–z), layer and head of the cross-attention drawn.
import { pageModel, type RemoteEngine, type RemoteModel } from '../runtime/engine';
import { LETTERS, SEMINAR_SENTENCE } from '../runtime/registry';
import type { MatrixData } from '../engine/index';
import { formatNumber } from '../math/format';
import { at, row } from '../math/matrix';
import { argmax } from '../math/ranking';
import { foreground, sharpCanvas, type SharpCanvas } from '../primitives/canvas';
import { h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { Heatmap } from '../primitives/heatmap';
import { ScreenReaderTable } from '../primitives/screen-reader-table';

const styles = `
.families { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 10px; margin-bottom: 8px; }
.family { border: 1px solid var(--border); border-radius: 6px; padding: 5px 8px; background: var(--panel); font-size: 12.5px; line-height: 1.35; }
.family h4 { margin: 0 0 4px; font-size: 14px; }
.family p { margin: 2px 0; }
.family .patterns { display: flex; gap: 8px; align-items: flex-end; margin: 4px 0; }
.family figure { margin: 0; text-align: center; }
.family figcaption { font-size: 11px; color: var(--muted); }
.toolbar { margin: 4px 0 6px; }
.toolbar input[type="text"] { width: 8em; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
.result { font-size: 15px; margin: 0 0 4px; }
.cross { display: flex; gap: 6px 18px; align-items: flex-start; flex-wrap: wrap; }
.cross .explain { max-width: 230px; font-size: 13px; }
.result code { font-size: 16px; }
.verdict { font-weight: 600; }
.verdict.same { color: var(--good); }
.verdict.moved { color: var(--bad); }
`;

const PATTERN_CELL = 8;

/** each family, and the masks drawn for it */
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

/** which cells a masked score matrix lets through (finite) */
function drawPattern(picture: SharpCanvas, masked: MatrixData): void {
  const canvas = picture.canvas;
  picture.draw(masked.cols * PATTERN_CELL + 1, masked.rows * PATTERN_CELL + 1, (g) => {
    g.fillStyle = foreground(canvas);
    for (let i = 0; i < masked.rows; i++)
      for (let j = 0; j < masked.cols; j++) {
        g.globalAlpha = Number.isFinite(at(masked, i, j)) ? 0.75 : 0.08;
        g.fillRect(j * PATTERN_CELL + 1, i * PATTERN_CELL + 1, PATTERN_CELL - 1, PATTERN_CELL - 1);
      }
    g.globalAlpha = 1;
  });
}

export default class Families extends EngineElement {
  private readonly source = this.bound.text('source');
  // numbered from 1, as the alignment's sentence says them
  private readonly layer = this.bound.numbered('layer', { from: 1 });
  private readonly head = this.bound.numbered('head', { from: 1 });
  /** each family's masks, in the order of FAMILIES */
  private readonly patterns = FAMILIES.map((family) =>
    family.patterns.map((caption) => ({ caption, picture: sharpCanvas(`${family.title}: ${caption} (filled: may look)`) })));
  private patternsDrawn = false;
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
    this.alignment.textContent = `In decoder layer ${layer + 1}, head ${head + 1}, ${aligned} of ${output.length} output letters look hardest at `
      + 'the source letter they copy (the anti-diagonal).';
    this.table.fill({
      caption: `cross-attention weights of decoder layer ${layer + 1}, head ${head + 1}: rows write, columns are read`,
      head: ['writes \\ reads', ...letters],
      rows: rowLabels.map((label, i) => [label, ...row(weights, i)] as [string, ...number[]]),
      format: (v) => formatNumber(v, 3),
    });
  }

  /** each family's mask, as the engine traced it: the coreference model's (encoder), the sorting
   * model's (decoder) and the reversing model's decoder self- and cross-attention */
  private async drawPatterns(reverse: RemoteModel): Promise<void> {
    const [coreference, sort] = await Promise.all([pageModel('coreference'), pageModel('sort')]);
    const sentence = (await coreference.tokenize(SEMINAR_SENTENCE)).ids.slice(0, 8);
    const letters = (await sort.tokenize('patterns')).ids;
    const source = (await reverse.tokenize('letters')).ids;
    const { bos } = await reverse.specialTokens();
    const masked = (prefix: string) => `${prefix}layer0.attn.head0.masked`;
    const cross = 'decoder.layer0.cross.head0.masked';
    const [encoder, decoder, seq2seq] = await Promise.all([
      coreference.forward({ tokens: sentence, trace: [masked('')] }),
      sort.forward({ tokens: letters, trace: [masked('')] }),
      reverse.forward({ source, tokens: [bos, ...source.slice(0, 5)], trace: [masked('decoder.'), cross] }),
    ]);
    const traced = [[encoder.trace![masked('')]], [decoder.trace![masked('')]], [seq2seq.trace![masked('decoder.')], seq2seq.trace![cross]]];
    this.patterns.forEach((family, k) => family.forEach(({ picture }, m) => drawPattern(picture, traced[k][m])));
  }

  protected override layout(): HTMLElement {
    const families = FAMILIES.map((family, k) => h('section', 'family',
      h('h4', { textContent: family.title }),
      h('p', { className: 'muted', textContent: family.examples }),
      h('div', 'patterns', ...this.patterns[k].map(({ caption, picture }) => h('figure', {}, picture.canvas, h('figcaption', { textContent: caption })))),
      h('p', {}, h('b', { textContent: 'Trained to:' }), ` ${family.objective}`),
      h('p', {}, h('b', { textContent: 'Used for:' }), ` ${family.use}`)));
    return h('div', {},
      h('div', 'families', ...families),
      h('div', 'toolbar', this.source.element, this.layer.element, this.head.element),
      h('div', 'cross', this.map.element, h('div', 'explain', this.result, this.alignment)),
      this.table.element);
  }
}
