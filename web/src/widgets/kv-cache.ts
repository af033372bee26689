// <attn-kv-cache>: decoding with a KV cache, one token at a time, on the shipped language model.
// Each step projects only the new token (its key and value rows are the newest of the cache), the
// new token's query attends over every cached row, the cache's bytes grow by one row per layer, and
// the result equals running the whole sequence again (both computed by the engine, compared here).
// Settings: text (the prompt), step (tokens generated greedily), layer and head drawn.
import { pageModel, type RemoteEngine } from '../app/engine';
import type { MatrixData } from '../engine/index';
import { formatBytes, formatCount, formatSignificant } from '../math/format';
import { at, largestDifference } from '../math/matrix';
import { shortLabel } from '../math/text';
import { EngineElement } from '../primitives/engine-element';
import { Heatmap } from '../primitives/heatmap';
import { ScreenReaderTable } from '../primitives/screen-reader-table';
import { numberedSelect, stepper } from '../primitives/stepper';

const styles = `
.controls { display: flex; flex-wrap: wrap; gap: 6px 16px; align-items: center; margin: 0 0 6px; font-size: 14px; }
.controls input[type="text"] { width: 12em; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
.controls input[type="range"] { width: 90px; }
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

const MODEL = 'fortunes';
/** at most this many cache rows are drawn (the newest ones) */
const ROWS_DRAWN = 40;
const CACHE = { width: 150, height: 150 };

/** a token as a short, visible label ("␣" for a space, "⏎" for a newline) */
function visible(piece: string): string {
  return piece.replaceAll(' ', '␣').replaceAll('\n', '⏎');
}

/** the columns of one head's group in a cache matrix (length × g·d_k) → (length × d_k), its last `rows` rows */
function headColumns(m: MatrixData, group: number, dK: number, rows: number): MatrixData {
  const first = Math.max(0, m.rows - rows);
  const data = new Float32Array((m.rows - first) * dK);
  for (let i = first; i < m.rows; i++)
    for (let j = 0; j < dK; j++) data[(i - first) * dK + j] = at(m, i, group * dK + j);
  return { rows: m.rows - first, cols: dK, data };
}

export class KvCache extends EngineElement {
  static readonly observedAttributes = EngineElement.attributesOf('attn-kv-cache');
  private view?: ReturnType<KvCache['build']>;

  constructor() {
    super(styles, 'press “next token”: one new row of K and V per step, and the result equals recomputing everything.');
  }

  protected async render(_engine: RemoteEngine): Promise<void> {
    const model = await pageModel(MODEL);
    const config = await model.config();
    const text = this.value<string>('text');
    const prompt = (await model.tokenize(`[BOS]${text}`)).ids;
    const room = config.n_ctx - prompt.length;
    if (room < 1) throw new Error(`The prompt is longer than the model's context of ${config.n_ctx} tokens.`);
    const steps = Math.min(this.value<number>('step'), room);
    const layer = Math.min(this.value<number>('layer'), config.n_layers - 1);
    const head = Math.min(this.value<number>('head'), config.n_heads - 1);
    const view = (this.view ??= this.build());
    if (!view.root.isConnected) this.body.replaceChildren(view.root);
    this.syncControls(text, steps, room, layer, head, config.n_layers, config.n_heads);

    // replay the generation: the prompt through the cache, then `steps` greedy tokens; the last
    // call also hands back its logits and what it computed (only the newest position's rows)
    const names = [`layer${layer}.attn.q`, `layer${layer}.attn.head${head}.weights`];
    let state = await model.startGeneration(prompt, steps === 0 ? { logits: true, trace: names } : {});
    const tokens = [...prompt];
    for (let s = 1; s <= steps; s++) {
      const step = await model.generateStep({ temperature: 0, ...(s === steps ? { logits: true, trace: names } : {}) });
      tokens.push(step.token);
      state = step;
    }
    const [cache, full, pieces] = await Promise.all([
      model.kvCache(layer),
      model.forward({ tokens, trace: [`layer${layer}.attn.k`] }),
      Promise.all(tokens.map((t) => model.decode([t]))),
    ]);

    // the tokens, the newest outlined
    view.tokens.replaceChildren(...pieces.map((piece, i) => {
      const span = document.createElement('span');
      span.textContent = i === 0 ? '[BOS]' : visible(piece);
      span.className = i < prompt.length ? 'prompt' : 'generated';
      if (i === tokens.length - 1) span.classList.add('newest');
      return span;
    }));

    // the chosen head's group of K and V, the newest row outlined
    const dK = config.d_model / config.n_heads;
    const groups = config.n_kv_heads || config.n_heads;
    const group = Math.floor((head * groups) / config.n_heads);
    const shown = Math.min(ROWS_DRAWN, cache.keys.rows);
    const labels = pieces.slice(-shown).map((p, i) => (tokens.length - shown + i === 0 ? '[BOS]' : shortLabel(visible(p), 6)));
    for (const [map, matrix] of [[view.keys, cache.keys], [view.values, cache.values]] as const) {
      map.configure({ rowLabels: labels });
      map.draw(headColumns(matrix, group, dK, shown));
      map.setHighlight({ row: shown - 1 });
    }
    // the newest query's weights over the cache, as a column beside the cache's rows
    const weights = state.trace![`layer${layer}.attn.head${head}.weights`];
    const newest = weights.data.slice(weights.data.length - shown);
    view.attention.configure({ rowLabels: labels, colLabels: ['new'] });
    view.attention.draw({ rows: shown, cols: 1, data: newest });

    // what the cache holds and that it changes nothing
    const vocab = config.vocab_size;
    const lastFull = full.logits.data.slice((tokens.length - 1) * vocab);
    const logitsGap = largestDifference(state.logits!.data, lastFull);
    const keysGap = largestDifference(cache.keys.data, full.trace![`layer${layer}.attn.k`].data);
    // the queries the last call computed: one per new token (its keys and values are the cache's newest rows)
    const newRow = state.trace![`layer${layer}.attn.q`];
    const verdict = (gap: number) => `<span class="${gap < 1e-4 ? 'same' : 'moved'}">max |Δ| = ${gap === 0 ? '0' : formatSignificant(gap, 2)}</span>`;
    view.facts.innerHTML =
      `This step projected ${newRow.rows} row${newRow.rows === 1 ? '' : 's'} (x·W<sub>Q</sub>, x·W<sub>K</sub>, x·W<sub>V</sub>); its query read all ${state.length} cached positions. `
      + `Cache: 2 · L · n · d<sub>kv</sub> · 4 B = 2 · ${config.n_layers} · ${state.length} · ${groups * dK} · 4 = `
      + `<b>${formatCount(state.cacheBytes)} B</b> (${formatBytes(state.cacheBytes)}), one row more per token.<br>`
      + `Last position's logits, cached vs recomputed from scratch: ${verdict(logitsGap)}; `
      + `layer ${layer + 1}'s keys: ${verdict(keysGap)}.`;
    view.table.fill({
      caption: 'the cache after each token, and the check against a full recompute',
      head: ['quantity', 'value'],
      rows: [['tokens in the cache', state.length], ['cache bytes', state.cacheBytes], ['max |Δ| of the last logits', logitsGap],
        ['max |Δ| of the keys', keysGap], ['rows projected this step', newRow.rows]],
      format: (v) => (Number.isInteger(v) ? String(v) : formatSignificant(v, 3)),
    });
  }

  private syncControls(text: string, steps: number, room: number, layer: number, head: number, layers: number, heads: number): void {
    const view = this.view!;
    if (this.root.activeElement !== view.text) view.text.value = text;
    view.step.set(steps, room);
    view.layer.set(layers, layer);
    view.head.set(heads, head);
  }

  private build() {
    const root = document.createElement('div');
    const controls = document.createElement('div');
    controls.className = 'controls';
    const textLabel = document.createElement('label');
    textLabel.textContent = 'prompt ';
    const text = document.createElement('input');
    text.type = 'text';
    text.maxLength = 40;
    text.spellcheck = false;
    text.setAttribute('aria-label', 'prompt');
    text.addEventListener('input', () => this.change({ text: text.value, step: 0 }));
    textLabel.append(text);
    const step = stepper({ label: 'tokens generated', next: 'next token ▶', max: 32, onStep: (v) => this.change({ step: v }) });
    const layer = numberedSelect('layer', 'layer', (v) => this.change({ layer: v }));
    const head = numberedSelect('head', 'head', (v) => this.change({ head: v }));
    textLabel.dataset.control = 'text';
    controls.append(textLabel, ...step.elements, layer.element, head.element);

    const tokens = document.createElement('div');
    tokens.className = 'tokens';
    tokens.setAttribute('aria-label', 'the sequence so far');
    const caches = document.createElement('div');
    caches.className = 'caches';
    const figure = (title: string, map: Heatmap) => {
      const div = document.createElement('div');
      const h = document.createElement('h4');
      h.textContent = title;
      div.append(h, map.element);
      return div;
    };
    const keys = new Heatmap({ xLabel: 'd_k', yLabel: 'position', tint: 'signed', ...CACHE, legend: false });
    const values = new Heatmap({ xLabel: 'd_v', yLabel: 'position', tint: 'signed', ...CACHE });
    const attention = new Heatmap({ xLabel: 'query', yLabel: 'position', tint: 'weights', width: 22, height: CACHE.height });
    const facts = document.createElement('p');
    facts.className = 'facts';
    const table = new ScreenReaderTable();
    caches.append(figure('K cache (newest row outlined)', keys), figure('V cache', values), figure('its attention', attention));
    root.append(controls, tokens, facts, caches, table.element);
    return { root, text, step, layer, head, tokens, keys, values, attention, facts, table };
  }
}

customElements.get('attn-kv-cache') ?? customElements.define('attn-kv-cache', KvCache);
