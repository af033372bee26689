// <attn-head-finder>: every head of a model scored for the patterns interpretability names —
// previous token, induction, first-token sink, self, a local window — on a text, by default the
// standard induction probe (random tokens, repeated). A layers × heads grid of the chosen
// pattern's excess over a uniform head, the heads ranked, and any head opened in the explorer.
// Settings: model, text ("" = the repeated random tokens), pattern, seed (of the random tokens).
import type { RemoteEngine, RemoteModel } from '../runtime/engine';
import type { OpenedModel } from '../runtime/opened-models';
import type { ShippedModel } from '../runtime/shipped-models';
import { formatNumber } from '../math/format';
import {
  HEAD_PATTERN_THRESHOLD, headsAbove, rankHeads, repeatedRandomTokens, scoreHeads, type HeadPattern, type HeadScore,
} from '../math/head-patterns';
import type { MatrixData } from '../math/matrix';
import { isByteLevel, shippedSpecialToken, tokenLabels, visibleText } from '../math/token-pieces';
import { button, h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { Heatmap } from '../primitives/heatmap';
import { weightsName } from '../runtime/coreference-reading';

const styles = `
.toolbar input[type="text"] { width: 22em; }
.toolbar input[type="number"] { width: 5em; }
.main { display: flex; flex-wrap: wrap; gap: 16px 24px; align-items: flex-start; }
h4 { margin: 0 0 4px; font-size: 14px; font-weight: 600; }
.verdict { margin: 4px 0 8px; font-size: 15px; }
.verdict strong { color: var(--accent); }
ol { margin: 0; padding-left: 1.6em; font-size: 14px; font-variant-numeric: tabular-nums; }
li { margin: 2px 0; }
li button { margin-left: 6px; font-size: 14px; padding: 1px 8px; }
.probe { font-size: 14px; color: var(--muted); margin: 6px 0 0; max-width: 40em; overflow-wrap: anywhere; }
`;

const MODEL: ShippedModel = 'english';
/** what each pattern means, for the verdict */
const MEANINGS: Record<HeadPattern, string> = {
  'previous-token': 'attends to the token just before',
  induction: 'attends to the token after the current token’s earlier occurrence',
  'first-token': 'puts its weight on the first token (a sink)',
  self: 'attends to the token itself',
  local: 'attends to the few tokens just before',
};
/** the most tokens of each half of the repeated random probe */
const PROBE_HALF = 48;
/** heads listed by rank */
const LISTED = 6;

export default class HeadFinder extends EngineElement {
  private readonly modelList = this.bound.model(MODEL, ['induction', 'sort']);
  private readonly text = this.bound.text('text', { commit: 'change', placeholder: 'empty: random tokens, repeated' });
  private readonly pattern = this.bound.choices<HeadPattern>('pattern', { select: true });
  private readonly seed = this.bound.number('seed');
  private readonly verdict = h('p', { className: 'verdict', attrs: { 'aria-live': 'polite' } });
  private readonly ranked = h('ol');
  private readonly probe = h('p', 'probe');
  private readonly grid = new Heatmap({
    xLabel: 'head', yLabel: 'layer', tint: 'weights', width: 220, height: 220,
    onClick: ({ row, col }) => this.openInExplorer(row, col),
  });
  /** the text the last render read, for the explorer */
  private shown?: { text: string; modelName: string };

  constructor() {
    super(styles, 'pick induction on the repeated random tokens: an induction head looks from each token of the second half to the token after its copy in the first.');
  }

  protected override layout(): HTMLElement {
    return h('div', {},
      h('div', 'toolbar', this.modelList.element, this.pattern.element),
      h('div', 'toolbar', this.text.element, this.seed.element),
      this.verdict,
      h('div', 'main', h('div', {}, h('h4', { textContent: 'layers (rows) × heads (columns)' }), this.grid.element),
        h('div', {}, h('h4', { textContent: 'heads ranked (excess over a uniform head)' }), this.ranked)),
      this.probe);
  }

  protected async render(_engine: RemoteEngine): Promise<void> {
    const { model, opened } = await this.modelInUse(MODEL);
    const config = await model.config();
    const { tokens, text } = await this.probeTokens(model, opened);
    const names = Array.from({ length: config.n_layers * config.n_heads }, (_, k) => weightsName(Math.floor(k / config.n_heads), k % config.n_heads));
    const { trace } = await model.forward({ tokens, trace: names });
    const weights: MatrixData[][] = Array.from({ length: config.n_layers }, (_, l) =>
      Array.from({ length: config.n_heads }, (_, k) => trace![weightsName(l, k)]));
    const scores = scoreHeads(tokens, weights);
    const pattern = this.value<HeadPattern>('pattern');
    const found = headsAbove(scores, pattern);
    this.shown = { text, modelName: opened?.name ?? MODEL };

    this.grid.configure({
      rowLabels: Array.from({ length: config.n_layers }, (_, l) => String(l)),
      colLabels: Array.from({ length: config.n_heads }, (_, k) => String(k)),
    });
    const excess = scores[pattern].heads.flat().map((s) => Math.max(0, Number.isFinite(s.excess) ? s.excess : 0));
    this.grid.draw({ rows: config.n_layers, cols: config.n_heads, data: Float32Array.from(excess) });
    this.verdict.replaceChildren(found.length
      ? h('span', {}, h('strong', { textContent: `${found.length} ${pattern} head${found.length === 1 ? '' : 's'}` }),
        `: ${found.slice(0, 4).map((s) => `layer ${s.layer} head ${s.head}`).join(', ')}${found.length > 4 ? '…' : ''} — ${MEANINGS[pattern]}.`)
      : `No head reaches the threshold for ${pattern} (an excess of ${HEAD_PATTERN_THRESHOLD} over a uniform head) on the ${scores[pattern].rows} rows of this text the pattern applies to.`);
    this.ranked.replaceChildren(...rankHeads(scores, pattern).slice(0, LISTED).map((s) => this.rankedHead(s)));
    this.probe.textContent = `${tokens.length} tokens read${this.value<string>('text') ? '' : ` (random tokens, seed ${this.value<number>('seed')}, then the same again)`}: `
      + `${text.length > 160 ? `${text.slice(0, 160)}…` : text}`;
  }

  /** the text's tokens, or the repeated random tokens of the model's vocabulary (its special tokens left out) */
  private async probeTokens(model: RemoteModel, opened: OpenedModel | undefined): Promise<{ tokens: Int32Array; text: string }> {
    const [config, special] = await Promise.all([model.config(), model.specialTokens()]);
    // the shipped models read text after [BOS]; a model opened here begins with its end-of-text token where it has one
    const shipped = !opened || opened.summary.family === 'attnlab';
    const bos = shipped ? shippedSpecialToken(special, 'bos') : (special as Record<string, number>)['<|endoftext|>'];
    const limit = Math.min(config.n_ctx, 2 * PROBE_HALF + 1);
    const typed = this.value<string>('text');
    if (typed) {
      const { ids } = await model.tokenize(shipped ? `[BOS]${typed}` : typed);
      if (ids.length < 2) throw new Error('Type a longer text: a head’s pattern needs tokens to look back at.');
      return { tokens: ids.slice(0, limit), text: typed };
    }
    const tokens = repeatedRandomTokens({
      vocabSize: config.vocab_size, length: Math.floor((limit - 1) / 2), seed: this.value<number>('seed'),
      exclude: Object.values(special), ...(bos === undefined ? {} : { prefix: bos }),
    });
    const read = bos === undefined ? tokens : tokens.slice(1);
    // random pieces of a byte-level vocabulary may hold part of a character: named by their bytes
    // (<0xE2>), as the explorer names them, where decoding would write U+FFFD
    if (!isByteLevel(special)) return { tokens, text: await model.decode(read) };
    const text = tokenLabels(await model.pieces(read), { byteLevel: true }).map((label) => label.chars).join('');
    // and an invisible character by its name (a space stays a space)
    return { tokens, text: text.replace(/[^\S ]|[\p{Cc}\p{Cf}\p{Co}\p{Cn}]/gu, visibleText) };
  }

  private rankedHead(s: HeadScore): HTMLElement {
    return h('li', {},
      `layer ${s.layer} head ${s.head}: ${formatNumber(s.excess, 3)} (s = ${formatNumber(s.score, 3)}, u = ${formatNumber(s.uniform, 3)})`,
      button('open', () => this.openInExplorer(s.layer, s.head), { attrs: { 'aria-label': `open layer ${s.layer} head ${s.head} in the explorer` } }));
  }

  /** shows this head in the explorer, on the same model and text */
  private openInExplorer(layer: number, head: number): void {
    if (!this.shown) return;
    this.openWidget('attn-explorer', { model: this.shown.modelName, sentence: this.shown.text, layer, head, token: -1, view: 'heatmap' });
  }
}
