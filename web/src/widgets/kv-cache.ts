// <attn-kv-cache>: decoding with a KV cache, one token at a time, on the shipped language model or
// a model the reader opened.
// Each step projects only the new token (its key and value rows are the newest of the cache), the
// new token's query attends over every cached row, the cache's bytes grow by one row per layer, and
// the result equals running the whole sequence again (both computed by the engine, compared here).
// Settings: model, text (the prompt), step (tokens generated greedily), layer and head drawn.
import { alone, promptIn, type RemoteEngine } from '../runtime/engine';
import { formatBytes, formatCount, formatSignificant } from '../math/format';
import { kvHeadOf } from '../math/gqa';
import { largestDifference, submatrix } from '../math/matrix';
import { shortLabel } from '../math/text';
import { visibleText as visible } from '../math/token-pieces';
import { h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { Heatmap } from '../primitives/heatmap';
import { ScreenReaderTable } from '../primitives/screen-reader-table';

const styles = `
.toolbar input[type="text"] { width: 12em; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
.toolbar input[type="range"] { width: 90px; }
.tokens { display: flex; flex-wrap: wrap; gap: 3px; margin: 0 0 8px; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 14px; }
.tokens span { padding: 1px 4px; border-radius: 3px; border: 1px solid var(--border); white-space: pre; }
.tokens .prompt { color: var(--muted); }
.tokens .generated { background: var(--panel); }
.tokens .newest { border: 2px solid var(--accent); font-weight: 700; }
.caches { display: flex; flex-wrap: wrap; gap: 4px 18px; align-items: flex-start; }
.caches h4 { margin: 0 0 2px; font-size: 14px; font-weight: 600; }
.facts { margin: 0 0 6px; font-size: 14px; font-variant-numeric: tabular-nums; line-height: 1.45; }
.facts .same { color: var(--good); font-weight: 600; }
.facts .moved { color: var(--bad); font-weight: 600; }
`;

const MODEL = 'english';
/** at most this many cache rows are drawn (the newest ones) */
const ROWS_DRAWN = 40;
const CACHE = { width: 150, height: 150 };

export default class KvCache extends EngineElement {
  // a new prompt starts the generation again
  private readonly modelList = this.bound.model(MODEL);
  private readonly text = this.bound.text('text', { also: () => ({ step: 0 }) });
  private readonly step = this.bound.stepper('step', 'next token ▶');
  private readonly layer = this.bound.numbered('layer', { select: true });
  private readonly head = this.bound.numbered('head', { select: true });
  private readonly tokens = h('div', { className: 'tokens', attrs: { 'aria-label': 'the sequence so far' } });
  private readonly facts = h('p', 'facts');
  private readonly keys = new Heatmap({ xLabel: 'd_k', yLabel: 'position', tint: 'signed', ...CACHE, legend: false });
  private readonly values = new Heatmap({ xLabel: 'd_v', yLabel: 'position', tint: 'signed', ...CACHE });
  private readonly attention = new Heatmap({ xLabel: 'query', yLabel: 'position', tint: 'weights', width: 22, height: CACHE.height });
  private readonly table = new ScreenReaderTable();

  constructor() {
    super(styles, 'press “next token”: one new row of K and V per step, and the result equals recomputing everything.', { models: [MODEL] });
  }

  protected async render(_engine: RemoteEngine): Promise<void> {
    const { model, opened } = await this.modelInUse(MODEL);
    const { config, prompt, room } = await promptIn(model, this.value<string>('text'), 'prompt', 'tokens', { bos: !opened });
    // the shipped model's prompt starts with [BOS]; a model opened here reads the text alone
    const bos = opened ? -1 : 0;
    const steps = this.step.upTo(room);
    const layer = this.layer.upTo(config.n_layers);
    const head = this.head.upTo(config.n_heads);

    // replay the generation: the prompt through the cache, then `steps` greedy tokens; the last
    // call also hands back its logits and what it computed (only the newest position's rows)
    const names = [`layer${layer}.attn.q`, `layer${layer}.attn.head${head}.weights`];
    const last = { logits: true, trace: names };
    const tokens = [...prompt];
    const [state, cache] = await alone(model, async () => {
      let state = await model.startGeneration(prompt, steps === 0 ? last : {});
      for (let s = 1; s <= steps; s++) tokens.push((state = await model.generateStep({ temperature: 0, ...(s === steps ? last : {}) })).token);
      return [state, await model.kvCache(layer)] as const;
    });
    const [full, pieces] = await Promise.all([
      model.forward({ tokens, trace: [`layer${layer}.attn.k`] }),
      Promise.all(tokens.map((t) => model.decode([t]))),
    ]);

    // the tokens, the newest outlined
    this.tokens.replaceChildren(...pieces.map((piece, i) => h('span', {
      textContent: i === bos ? '[BOS]' : visible(piece),
      className: `${i < prompt.length ? 'prompt' : 'generated'}${i === tokens.length - 1 ? ' newest' : ''}`,
    })));

    // the chosen head's group of K and V, the newest row outlined
    const dK = config.d_model / config.n_heads;
    const groups = config.n_kv_heads || config.n_heads;
    const group = kvHeadOf(head, config.n_heads, groups);
    const shown = Math.min(ROWS_DRAWN, cache.keys.rows);
    const labels = pieces.slice(-shown).map((p, i) => (tokens.length - shown + i === bos ? '[BOS]' : shortLabel(visible(p), 6)));
    for (const [map, matrix] of [[this.keys, cache.keys], [this.values, cache.values]] as const) {
      map.configure({ rowLabels: labels });
      // the group's columns of the newest rows
      map.draw(submatrix(matrix, { rows: [matrix.rows - shown, matrix.rows], cols: [group * dK, (group + 1) * dK] }));
      map.setHighlight({ row: shown - 1 });
    }
    // the newest query's weights over the cache, as a column beside the cache's rows
    const weights = state.trace![`layer${layer}.attn.head${head}.weights`];
    this.attention.configure({ rowLabels: labels, colLabels: ['new'] });
    this.attention.draw({ rows: shown, cols: 1, data: weights.data.slice(weights.data.length - shown) });

    // what the cache holds and that it changes nothing
    const lastFull = full.logits.data.slice((tokens.length - 1) * config.vocab_size);
    const logitsGap = largestDifference(state.logits!.data, lastFull);
    const keysGap = largestDifference(cache.keys.data, full.trace![`layer${layer}.attn.k`].data);
    // the queries the last call computed: one per new token (its keys and values are the cache's newest rows)
    const newRow = state.trace![`layer${layer}.attn.q`];
    const verdict = (gap: number) => `<span class="${gap < 1e-4 ? 'same' : 'moved'}">max |Δ| = ${gap === 0 ? '0' : formatSignificant(gap, 2)}</span>`;
    this.facts.innerHTML =
      `This step projected ${newRow.rows} row${newRow.rows === 1 ? '' : 's'} (x·W<sub>Q</sub>, x·W<sub>K</sub>, x·W<sub>V</sub>); its query read all ${state.length} cached positions. `
      + `Cache: 2 · L · n · d<sub>kv</sub> · 4 B = 2 · ${config.n_layers} · ${state.length} · ${groups * dK} · 4 = `
      + `<b>${formatCount(state.cacheBytes)} B</b> (${formatBytes(state.cacheBytes)}), one row more per token.<br>`
      + `Last position's logits, cached vs recomputed from scratch: ${verdict(logitsGap)}; `
      + `layer ${layer}'s keys: ${verdict(keysGap)}.`;
    this.table.fill({
      caption: 'the cache after each token, and the check against a full recompute', head: ['quantity', 'value'],
      rows: [['tokens in the cache', state.length], ['cache bytes', state.cacheBytes], ['max |Δ| of the last logits', logitsGap],
        ['max |Δ| of the keys', keysGap], ['rows projected this step', newRow.rows]],
      format: (v) => (Number.isInteger(v) ? String(v) : formatSignificant(v, 3)),
    });
  }

  protected override layout(): HTMLElement {
    const figure = (title: string, map: Heatmap) => h('div', {}, h('h4', { textContent: title }), map.element);
    return h('div', {},
      h('div', 'toolbar', this.modelList.element),
      h('div', 'toolbar', this.text.element, ...this.step.elements, this.layer.element, this.head.element),
      this.tokens, this.facts,
      h('div', 'caches', figure('K cache (newest row outlined)', this.keys), figure('V cache', this.values), figure('its attention', this.attention)),
      this.table.element);
  }
}
