// <attn-families>: encoder-only, decoder-only and encoder-decoder side by side: who looks at whom
// in each (read from the masked scores the engine traced in a shipped model of each family), what
// each is trained to predict and what it is used for; then the shipped encoder-decoder model,
// trained by the engine to reverse letters, reads a string the reader types and its decoder's
// cross-attention shows the alignment: output position i reads source position k − 1 − i.
// Settings: source (letters a–z), layer and head of the cross-attention drawn.
import { pageModel, type RemoteEngine, type RemoteModel } from '../app/engine';
import { LETTERS, SEMINAR_SENTENCE } from '../app/state';
import type { MatrixData } from '../engine/index';
import { formatNumber } from '../math/format';
import { at, row } from '../math/matrix';
import { argmax } from '../math/ranking';
import { foreground, sharpCanvas, type SharpCanvas } from '../primitives/canvas';
import { EngineElement } from '../primitives/engine-element';
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
.controls { display: flex; flex-wrap: wrap; gap: 6px 16px; align-items: center; margin: 4px 0 6px; font-size: 14px; }
.controls input[type="text"] { width: 8em; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
.result { font-size: 15px; margin: 0 0 4px; }
.cross { display: flex; gap: 6px 18px; align-items: flex-start; flex-wrap: wrap; }
.cross .explain { max-width: 230px; font-size: 13px; }
.result code { font-size: 16px; }
.verdict { font-weight: 600; }
.verdict.same { color: var(--good); }
.verdict.moved { color: var(--bad); }
`;

/** the longest string the reverse task trains on (see LetterSequenceTask) */
const MAX_LETTERS = 8;
const PATTERN_CELL = 8;

interface Family {
  title: string;
  examples: string;
  objective: string;
  use: string;
}

const FAMILIES: Family[] = [
  { title: 'Encoder-only', examples: 'BERT, RoBERTa; here: the coreference model',
    objective: 'Masked language modelling: hide some tokens, predict them from both sides.',
    use: 'Understanding a whole text: classification, tagging, retrieval, "which noun is it?"' },
  { title: 'Decoder-only', examples: 'GPT, LLaMA; here: the sorting and the language models',
    objective: 'Next-token prediction: predict token t + 1 from tokens 1 … t.',
    use: 'Generating text: chat, code, completion; anything posed as a continuation.' },
  { title: 'Encoder-decoder', examples: 'the original Transformer, T5, BART; here: the reversing model',
    objective: 'Predict the target\'s next token from the whole source and the target so far.',
    use: 'Turning one sequence into another: translation, summarisation, speech to text.' },
];

/** which cells a masked score matrix lets through (finite) */
function drawPattern(picture: SharpCanvas, masked: MatrixData): void {
  const canvas = picture.canvas;
  picture.draw(masked.cols * PATTERN_CELL + 1, masked.rows * PATTERN_CELL + 1, (g) => {
    const fg = foreground(canvas);
    for (let i = 0; i < masked.rows; i++)
      for (let j = 0; j < masked.cols; j++) {
        g.fillStyle = fg;
        g.globalAlpha = Number.isFinite(at(masked, i, j)) ? 0.75 : 0.08;
        g.fillRect(j * PATTERN_CELL + 1, i * PATTERN_CELL + 1, PATTERN_CELL - 1, PATTERN_CELL - 1);
      }
    g.globalAlpha = 1;
  });
}

export class Families extends EngineElement {
  static readonly observedAttributes = EngineElement.attributesOf('attn-families');
  private view?: ReturnType<Families['build']>;
  private patternsDrawn = false;

  constructor() {
    super(styles, 'type letters: the decoder writes them backwards, and its cross-attention runs along the anti-diagonal.');
  }

  protected async render(_engine: RemoteEngine): Promise<void> {
    const view = (this.view ??= this.build());
    if (!view.root.isConnected) this.body.replaceChildren(view.root);
    const reverse = await pageModel('reverse-seq2seq');
    if (!this.patternsDrawn) {
      await this.drawPatterns(reverse);
      this.patternsDrawn = true;
    }

    const typed = this.value<string>('source');
    const letters = [...typed.toLowerCase()].filter((c) => LETTERS.includes(c)).slice(0, MAX_LETTERS);
    if (this.root.activeElement !== view.text) view.text.value = typed;
    if (letters.length < 2) throw new Error('Type two to eight letters a–z.');
    const config = await reverse.config();
    const { bos, eos } = await reverse.specialTokens();
    const layer = Math.min(this.value<number>('layer'), config.n_decoder_layers - 1);
    const head = Math.min(this.value<number>('head'), config.n_heads - 1);
    view.layer.replaceChildren(...Array.from({ length: config.n_decoder_layers }, (_, l) => new Option(`decoder layer ${l + 1}`, String(l))));
    view.layer.value = String(layer);
    view.head.replaceChildren(...Array.from({ length: config.n_heads }, (_, h) => new Option(`head ${h + 1}`, String(h))));
    view.head.value = String(head);

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
    view.map.configure({ rowLabels, colLabels: letters });
    view.map.draw(weights);
    const expected = letters.slice().reverse().join('');
    const aligned = output.map((_, i) => argmax(row(weights, i)) === letters.length - 1 - i);
    view.result.innerHTML = '';
    const line = document.createElement('span');
    line.textContent = `${letters.join('')} → `;
    const code = document.createElement('code');
    code.textContent = outputText || '(nothing)';
    const verdict = document.createElement('span');
    const right = outputText === expected;
    verdict.className = `verdict ${right ? 'same' : 'moved'}`;
    verdict.textContent = right ? '  reversed correctly' : `  (the reverse is ${expected})`;
    view.result.append(line, code, verdict);
    const count = aligned.filter(Boolean).length;
    view.alignment.textContent = `In decoder layer ${layer + 1}, head ${head + 1}, ${count} of ${output.length} output letters look hardest at `
      + 'the source letter they copy (the anti-diagonal).';
    view.table.fill({
      caption: `cross-attention weights of decoder layer ${layer + 1}, head ${head + 1}: rows write, columns are read`,
      head: ['writes \\ reads', ...letters],
      rows: rowLabels.map((label, i) => [label, ...row(weights, i)] as [string, ...number[]]),
      format: (v) => formatNumber(v, 3),
    });
  }

  /** each family's mask, as the engine traced it: the coreference model's (encoder), the sorting
   * model's (decoder) and the reversing model's decoder self- and cross-attention */
  private async drawPatterns(reverse: RemoteModel): Promise<void> {
    const view = this.view!;
    const [coreference, sort] = await Promise.all([pageModel('coreference'), pageModel('sort')]);
    const sentence = (await coreference.tokenize(SEMINAR_SENTENCE)).ids.slice(0, 8);
    const letters = (await sort.tokenize('patterns')).ids;
    const source = (await reverse.tokenize('letters')).ids;
    const { bos } = await reverse.specialTokens();
    const masked = (prefix: string) => `${prefix}layer0.attn.head0.masked`;
    const [encoder, decoder, seq2seq] = await Promise.all([
      coreference.forward({ tokens: sentence, trace: [masked('')] }),
      sort.forward({ tokens: letters, trace: [masked('')] }),
      reverse.forward({ source, tokens: [bos, ...source.slice(0, 5)], trace: [masked('decoder.'), 'decoder.layer0.cross.head0.masked'] }),
    ]);
    drawPattern(view.patterns[0][0], encoder.trace![masked('')]);
    drawPattern(view.patterns[1][0], decoder.trace![masked('')]);
    drawPattern(view.patterns[2][0], seq2seq.trace![masked('decoder.')]);
    drawPattern(view.patterns[2][1], seq2seq.trace!['decoder.layer0.cross.head0.masked']);
  }

  private build() {
    const root = document.createElement('div');
    const families = document.createElement('div');
    families.className = 'families';
    const captions = [['self-attention: all see all'], ['self-attention: causal'], ['decoder self: causal', 'cross: all of the source']];
    const patterns = FAMILIES.map((family, k) => {
      const box = document.createElement('section');
      box.className = 'family';
      const h = document.createElement('h4');
      h.textContent = family.title;
      const examples = document.createElement('p');
      examples.className = 'muted';
      examples.textContent = family.examples;
      const pictures = document.createElement('div');
      pictures.className = 'patterns';
      const canvases = captions[k].map((caption) => {
        const picture = sharpCanvas(`${family.title}: ${caption} (filled: may look)`);
        const figure = document.createElement('figure');
        const figcaption = document.createElement('figcaption');
        figcaption.textContent = caption;
        figure.append(picture.canvas, figcaption);
        pictures.append(figure);
        return picture;
      });
      const objective = document.createElement('p');
      objective.innerHTML = `<b>Trained to:</b> ${family.objective}`;
      const use = document.createElement('p');
      use.innerHTML = `<b>Used for:</b> ${family.use}`;
      box.append(h, examples, pictures, objective, use);
      families.append(box);
      return canvases;
    });

    const controls = document.createElement('div');
    controls.className = 'controls';
    const label = document.createElement('label');
    label.textContent = 'letters to reverse ';
    const text = document.createElement('input');
    text.type = 'text';
    text.maxLength = MAX_LETTERS;
    text.spellcheck = false;
    text.setAttribute('aria-label', 'letters to reverse');
    text.addEventListener('input', () => this.change({ source: text.value }));
    label.append(text);
    const layer = document.createElement('select');
    layer.setAttribute('aria-label', 'decoder layer');
    layer.addEventListener('change', () => this.change({ layer: Number(layer.value) }));
    const head = document.createElement('select');
    head.setAttribute('aria-label', 'head');
    head.addEventListener('change', () => this.change({ head: Number(head.value) }));
    label.dataset.control = 'source';
    layer.dataset.control = 'layer';
    head.dataset.control = 'head';
    controls.append(label, layer, head);
    const result = document.createElement('p');
    result.className = 'result';
    const map = new Heatmap({ xLabel: 'source letter (encoder)', yLabel: 'decoder writes', tint: 'weights', width: 180, height: 126 });
    const alignment = document.createElement('p');
    alignment.className = 'muted';
    const table = new ScreenReaderTable();
    const cross = document.createElement('div');
    cross.className = 'cross';
    const explain = document.createElement('div');
    explain.className = 'explain';
    explain.append(result, alignment);
    cross.append(map.element, explain);
    root.append(families, controls, cross, table.element);
    return { root, patterns, text, layer, head, result, map, alignment, table };
  }
}

customElements.get('attn-families') ?? customElements.define('attn-families', Families);
