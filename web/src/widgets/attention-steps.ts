// <attn-attention-steps>: a worked example of one attention head, computed by the engine and shown
// one stage at a time (project → scores → scale → mask → softmax → mix). The example is the slide
// deck's, the write-up's, or matrices the reader types in. Hovering a cell lights up what it was
// computed from; a check mode grades a reader's hand calculation of a stage; where a document
// prints other numbers than the engine computes, the stage says so.
// Attributes: example, matrices (the reader's own), causal, scaled, query, step (0–5), check.
import type { RemoteEngine } from '../app/engine';
import { DECK_EXAMPLE, WRITEUP_EXAMPLE, type PrintedMatrices, type WorkedExample } from '../app/seminar';
import type { WorkedExampleName } from '../app/state';
import type { AttentionResult } from '../engine/index';
import { formatNumber } from '../math/format';
import { at, type MatrixData } from '../math/matrix';
import {
  CHECK_TOLERANCE, CUSTOM_LIMITS, decodeCustom, encodeCustom, ENTRY_LIMIT, float32Text, grade, parseInputEntry, provenance,
  resizeCustom, slips, type CustomExample, type MatrixName, type Source,
} from '../math/worked-example';
import { EngineElement } from '../primitives/engine-element';
import { equation, loadTypesetting } from '../primitives/equation';
import { matrixTable, matrixTableStyles } from '../primitives/matrix-table';

const TAG = 'attn-attention-steps';

interface Stage {
  name: string;
  title: string;
  /** matrices the stage starts from (besides the inputs row) */
  operands: MatrixName[];
  /** what it computes */
  results: MatrixName[];
  /** whether the stage's numbers depend on the mask and scaling switches */
  switched: boolean;
}

const STAGES: readonly Stage[] = [
  { name: 'project', title: 'Project every token', operands: [], results: ['q', 'k', 'v'], switched: false },
  { name: 'scores', title: 'Compare every query with every key', operands: ['q', 'k'], results: ['scores'], switched: false },
  { name: 'scale', title: 'Scale', operands: ['scores'], results: ['scaled'], switched: true },
  { name: 'mask', title: 'Mask', operands: ['scaled'], results: ['masked'], switched: true },
  { name: 'softmax', title: 'Softmax each row: the attention weights', operands: ['masked'], results: ['weights'], switched: true },
  { name: 'mix', title: 'Mix the values', operands: ['weights', 'v'], results: ['output'], switched: true },
];

/** captions of the matrices */
const LABELS: Record<MatrixName, string> = {
  x: 'X', wQ: 'W_Q', wK: 'W_K', wV: 'W_V', q: 'Q = X·W_Q', k: 'K = X·W_K', v: 'V = X·W_V', scores: 'QKᵀ',
  scaled: 'QKᵀ/√d_k', masked: 'QKᵀ/√d_k + M', weights: 'A = softmax', output: 'output = A·V',
};
/** short names, for the provenance line */
const SHORT: Record<MatrixName, string> = {
  x: 'X', wQ: 'W_Q', wK: 'W_K', wV: 'W_V', q: 'Q', k: 'K', v: 'V', scores: 'QKᵀ', scaled: 'QKᵀ/√d_k',
  masked: 'the masked scores', weights: 'A', output: 'output',
};
/** matrices whose columns are tokens (keys); the others' columns are dimensions */
const KEY_COLUMNS = new Set<MatrixName>(['scores', 'scaled', 'masked', 'weights']);
/** weight matrices: their rows are input dimensions, not tokens */
const WEIGHTS = new Set<MatrixName>(['wQ', 'wK', 'wV']);

const EXAMPLE_NAMES: Record<WorkedExampleName, string> = { deck: 'Slide deck', writeup: 'Write-up §7', custom: 'Your own' };

const styles = `${matrixTableStyles}
.bar { display: flex; flex-wrap: wrap; gap: 6px 14px; align-items: center; margin: 0 0 6px; }
.bar button { padding: 2px 9px; font-size: 14px; }
.group { display: inline-flex; gap: 4px; flex-wrap: wrap; align-items: center; }
.sizes { display: inline-flex; gap: 8px; font-size: 14px; }
.sizes label { display: inline-flex; gap: 4px; align-items: center; }
.sizes select { padding: 1px 2px; }
/* KaTeX's struts reach a hair beyond the formula */
.formula { margin-left: auto; padding-right: 4px; font-size: 16px; }
.problem { margin: 0 0 4px; font-size: 14px; }
.problem:empty { display: none; }
.inputs { display: flex; flex-wrap: wrap; gap: 6px 18px; align-items: flex-start; }
.area { display: flex; flex-wrap: wrap; gap: 10px 18px; align-items: flex-start; margin-top: 8px; }
.area .arrow { align-self: center; font-size: 20px; color: var(--muted); }
.title { display: flex; gap: 14px; align-items: baseline; margin: 0 0 2px; }
.title h4 { margin: 0; font-size: 14px; font-weight: 600; white-space: nowrap; }
.title .line { font-size: 13px; margin: 0; }
.tables { display: flex; flex-wrap: wrap; gap: 6px 18px; align-items: flex-start; }
.side { flex: 1 1 200px; min-width: 0; font-size: 13px; display: flex; flex-direction: column; gap: 6px; padding-top: 20px; }
.side p { margin: 0; }
.note { border-left: 3px solid var(--accent); padding: 2px 8px; }
.note table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
.note td, .note th { padding: 0 6px 0 0; text-align: left; font-weight: normal; white-space: nowrap; }
.note th { color: var(--muted); }
table.matrix { border-spacing: 2px; }
table.matrix td { padding: 1px 5px; font-size: 13px; line-height: 1.25; min-width: 3.2em; }
table.matrix th { font-size: 12px; line-height: 1.25; }
figure.matrix figcaption { font-size: 12px; margin-bottom: 1px; }
.roomy table.matrix td { padding: 3px 8px; font-size: 16px; min-width: 3.6em; }
.roomy table.matrix.plain td { min-width: 1.8em; }
.roomy table.matrix th { font-size: 14px; }
.roomy figure.matrix figcaption, .roomy .side, .roomy .title .line { font-size: 14px; }
.roomy .title h4 { font-size: 16px; }
table.matrix td.source { outline: 2px solid var(--accent); outline-offset: -1px; }
table.matrix td.hovered { outline: 2px solid var(--fg); outline-offset: -1px; }
table.matrix td:has(input) { padding: 0; min-width: 0; }
table.matrix input { width: 3.4em; box-sizing: border-box; padding: 1px 3px; font-size: 13px; line-height: 1.2; text-align: right; }
.roomy table.matrix input { font-size: 16px; padding: 3px 5px; }
table.matrix.answers input { width: 4.4em; }
table.matrix input[aria-invalid="true"] { border-color: var(--bad); border-width: 2px; }
table.matrix td.source input { border-color: var(--accent); }
table.matrix td.right { background: color-mix(in srgb, var(--good) 22%, transparent); }
table.matrix td.wrong { background: color-mix(in srgb, var(--bad) 22%, transparent); }
.mark { display: block; font-size: 11px; line-height: 1.2; text-align: left; padding: 1px 3px; white-space: nowrap; }
.roomy .mark { font-size: 13px; }
.check-bar { display: flex; gap: 10px; align-items: center; margin-top: 4px; }
`;

/** the example being shown: the inputs of one head and, for a document's example, what it prints */
interface Example {
  tokens: readonly string[];
  x: MatrixData;
  wQ: MatrixData;
  wK: MatrixData;
  wV: MatrixData;
  printed?: PrintedMatrices;
  source?: string;
}

/** the engine's tensors by name, and the inputs */
type Tensors = Record<MatrixName, MatrixData>;

/** an editable grid of number inputs shaped like a matrix */
interface Grid {
  figure: HTMLElement;
  inputs: HTMLInputElement[][];
}

export class AttentionSteps extends EngineElement {
  static readonly observedAttributes = EngineElement.attributesOf(TAG);
  private view?: ReturnType<AttentionSteps['build']>;
  /** the reader's own example as last committed */
  private custom?: CustomExample;
  private editors?: { key: string; grids: Record<'x' | 'wQ' | 'wK' | 'wV', Grid> };
  private answers?: { key: string; grids: Partial<Record<MatrixName, Grid>>; checked: boolean };
  private computed?: { key: string; result: AttentionResult };
  /** tables on view now, by the matrix they show */
  private shown = new Map<MatrixName, HTMLElement>();
  private tensors?: Tensors;
  private tokens: readonly string[] = [];

  constructor() {
    super(styles, 'hover a result cell to light up the rows and columns it was computed from.');
  }

  stepForward(): boolean {
    const step = this.value<number>('step');
    if (step >= STAGES.length - 1) return false;
    this.change({ step: step + 1 });
    return true;
  }

  stepBack(): boolean {
    const step = this.value<number>('step');
    if (step <= 0) return false;
    this.change({ step: step - 1 });
    return true;
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    await loadTypesetting();
    const name = this.value<WorkedExampleName>('example');
    const causal = this.value<boolean>('causal');
    const scaled = this.value<boolean>('scaled');
    const step = this.value<number>('step');
    const checking = this.value<boolean>('check');
    const view = (this.view ??= this.build());
    if (!view.root.isConnected) this.body.replaceChildren(view.root);

    const example = this.example(name);
    this.tokens = example.tokens;
    for (const [key, button] of view.exampleButtons) button.setAttribute('aria-pressed', String(key === name));
    view.toggles.causal.setAttribute('aria-pressed', String(causal));
    view.toggles.scaled.setAttribute('aria-pressed', String(scaled));
    view.toggles.check.setAttribute('aria-pressed', String(checking));
    view.stageButtons.forEach((b, i) => b.setAttribute('aria-pressed', String(i === step)));
    view.sizes.root.hidden = name !== 'custom';
    if (this.custom && name === 'custom') {
      for (const key of ['n', 'd', 'dK', 'dV'] as const) view.sizes.selects[key].value = String(this.custom[key]);
    }
    // small examples get larger type: the slide has room, and the back row has to read it
    view.root.classList.toggle('roomy', example.x.rows <= 4 && example.x.cols <= 4 && example.wQ.cols <= 3 && example.wV.cols <= 3);
    this.showInputs(view.inputs, name, example);

    const dK = example.wQ.cols;
    const input = {
      x: example.x.data, n: example.x.rows, d: example.x.cols, wQ: example.wQ.data, wK: example.wK.data,
      wV: example.wV.data, dK, dV: example.wV.cols, mask: causal ? 'causal' : 'none', scaled,
    } as const;
    const key = JSON.stringify({ ...input, x: [...input.x], wQ: [...input.wQ], wK: [...input.wK], wV: [...input.wV] });
    if (this.computed?.key !== key) this.computed = { key, result: await engine.attention({ ...input, trace: true }) };
    const result = this.computed.result;
    const head = result.heads[0];
    const tensor = (m: MatrixData | undefined, what: string) => {
      if (!m) throw new Error(`the engine returned no ${what}`);
      return m;
    };
    this.tensors = {
      x: example.x, wQ: example.wQ, wK: example.wK, wV: example.wV,
      q: tensor(head.q, 'Q'), k: tensor(head.k, 'K'), v: tensor(head.v, 'V'), scores: tensor(head.scores, 'scores'),
      scaled: tensor(head.scaled, 'scaled scores'), masked: tensor(head.masked, 'masked scores'),
      weights: tensor(head.weights, 'weights'), output: tensor(head.output, 'output'),
    };
    view.formula.replaceChildren(this.formula(step, dK, result.scale, causal, scaled));
    this.showStage(view, STAGES[step], { name, causal, scaled, checking, example, resultKey: key });
  }

  /** the example named by the settings (the reader's own: as committed, else the deck's to start from) */
  private example(name: WorkedExampleName): Example {
    if (name === 'deck') return DECK_EXAMPLE;
    if (name === 'writeup') return WRITEUP_EXAMPLE;
    this.custom = decodeCustom(this.value<string>('matrices')) ?? this.custom ?? customFrom(DECK_EXAMPLE);
    const { n, x, wQ, wK, wV } = this.custom;
    return { tokens: Array.from({ length: n }, (_, i) => `t${i + 1}`), x, wQ, wK, wV };
  }

  private formula(step: number, dK: number, scale: number, causal: boolean, scaled: boolean): HTMLElement {
    const tex = [
      'Q = XW^Q,\\; K = XW^K,\\; V = XW^V',
      'S = QK^\\top,\\quad S_{ij} = q_i \\cdot k_j',
      scaled ? `S/\\sqrt{d_k} = S \\cdot ${formatNumber(scale, 4)}\\quad (d_k = ${dK})` : 'S \\cdot 1 \\quad\\text{(scaling off)}',
      causal ? 'S/\\sqrt{d_k} + M,\\quad M_{ij} = -\\infty \\text{ for } j > i' : 'S/\\sqrt{d_k} + M,\\quad M = 0 \\text{ (no mask)}',
      'A_{ij} = \\exp(e_{ij}) / \\textstyle\\sum_k \\exp(e_{ik})',
      '\\text{out}_i = \\textstyle\\sum_j A_{ij}\\, v_j = (AV)_i',
    ][step];
    return equation(tex);
  }

  /** X and the weights: printed for a document's example, editable for the reader's own */
  private showInputs(holder: HTMLElement, name: WorkedExampleName, example: Example): void {
    const names = ['x', 'wQ', 'wK', 'wV'] as const;
    if (name !== 'custom') {
      this.editors = undefined;
      const tables = names.map((m) => {
        const table = matrixTable(example[m], {
          label: m === 'x' ? 'X (one row per token)' : LABELS[m], tint: 'plain', decimals: decimalsOf(example[m]),
          rowLabels: m === 'x' ? example.tokens : undefined,
        });
        table.dataset.matrix = m;
        return table;
      });
      holder.replaceChildren(...tables);
      return;
    }
    const custom = this.custom as CustomExample;
    const key = `${custom.n}×${custom.d}×${custom.dK}×${custom.dV}`;
    if (this.editors?.key !== key) {
      const grids = Object.fromEntries(names.map((m) => [m, this.editableGrid(m, custom[m], example.tokens)])) as Record<typeof names[number], Grid>;
      this.editors = { key, grids };
      holder.replaceChildren(...names.map((m) => grids[m].figure));
      this.view?.problem.replaceChildren();
    }
    // settings from the URL or history: show them, but never overwrite what the reader is typing
    for (const m of names) {
      const { inputs } = this.editors.grids[m];
      inputs.forEach((row, i) => row.forEach((input, j) => {
        const parsed = parseInputEntry(input.value);
        if (input.matches(':focus') || (parsed.ok && Math.fround(parsed.value) === at(custom[m], i, j))) return;
        input.value = float32Text(at(custom[m], i, j));
        input.removeAttribute('aria-invalid');
      }));
    }
  }

  private editableGrid(m: 'x' | 'wQ' | 'wK' | 'wV', matrix: MatrixData, tokens: readonly string[]): Grid {
    const rowName = (i: number) => (m === 'x' ? tokens[i] : `${i + 1}`);
    const grid = inputGrid(matrix.rows, matrix.cols, {
      label: `${m === 'x' ? 'X' : LABELS[m]}  (${matrix.rows}×${matrix.cols})`,
      rowLabels: m === 'x' ? tokens : undefined,
      ariaLabel: (i, j) => `${SHORT[m]} row ${rowName(i)} column ${j + 1}`,
    });
    grid.figure.dataset.matrix = m;
    grid.inputs.forEach((row, i) => row.forEach((input, j) => {
      input.value = float32Text(at(matrix, i, j));
      input.addEventListener('input', () => this.edited());
    }));
    return grid;
  }

  /** The reader typed into an input: commit the matrices if every entry reads, else say which does not. */
  private edited(): void {
    if (!this.editors || !this.custom) return;
    const problems: string[] = [];
    const next: CustomExample = { ...this.custom };
    for (const m of ['x', 'wQ', 'wK', 'wV'] as const) {
      const { inputs } = this.editors.grids[m];
      const data = new Float32Array(next[m].rows * next[m].cols);
      inputs.forEach((row, i) => row.forEach((input, j) => {
        const parsed = parseInputEntry(input.value);
        input.setAttribute('aria-invalid', String(!parsed.ok));
        if (parsed.ok) data[i * next[m].cols + j] = parsed.value;
        else problems.push(`${input.getAttribute('aria-label')}: “${clip(input.value)}” ${parsed.problem}`);
      }));
      next[m] = { rows: next[m].rows, cols: next[m].cols, data };
    }
    const problem = this.view?.problem;
    if (problems.length) {
      problem?.replaceChildren(Object.assign(document.createElement('span'), {
        className: 'error',
        textContent: `${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}. ` +
          `Type a number between −${ENTRY_LIMIT} and ${ENTRY_LIMIT}, such as 0.5 or −2; the results below are for the last valid entries.`,
      }));
      return;
    }
    problem?.replaceChildren();
    this.custom = next;
    this.change({ matrices: encodeCustom(next) });
  }

  private showStage(view: ReturnType<AttentionSteps['build']>, stage: Stage,
    settings: { name: WorkedExampleName; causal: boolean; scaled: boolean; checking: boolean; example: Example; resultKey: string }): void {
    const tensors = this.tensors as Tensors;
    const { example, checking } = settings;
    const step = STAGES.indexOf(stage);
    view.heading.textContent = `${step + 1}. ${this.stageTitle(stage, settings)}`;
    view.area.dataset.stage = stage.name;
    this.shown = new Map([...view.inputs.querySelectorAll<HTMLElement>('[data-matrix]')]
      .map((f) => [f.dataset.matrix as MatrixName, f]));
    const table = (m: MatrixName) => {
      const figure = matrixTable(tensors[m], {
        label: LABELS[m], rowLabels: example.tokens, colLabels: KEY_COLUMNS.has(m) ? example.tokens : undefined,
        tint: m === 'weights' ? 'weights' : 'signed', decimals: this.decimals(m),
        ...(m === 'weights' ? { highlightRow: this.query(), onRowClick: (row: number) => this.change({ query: row }) } : {}),
      });
      figure.dataset.matrix = m;
      this.shown.set(m, figure);
      return figure;
    };
    const operands = stage.operands.map(table);
    const arrow = Object.assign(document.createElement('span'), { className: 'arrow', textContent: '→' });
    arrow.setAttribute('aria-hidden', 'true');
    const results = checking ? this.answerGrids(stage, settings) : stage.results.map(table);
    view.tables.replaceChildren(...operands, ...(operands.length ? [arrow] : []), ...results);

    const side: HTMLElement[] = [];
    if (checking) side.push(view.checkBar);
    // in check mode the note would give the answer away
    const note = checking ? undefined : this.slipNote(stage, settings);
    if (note) side.push(note);
    if (!checking && (stage.name === 'softmax' || stage.name === 'mix')) side.push(this.summary());
    view.side.replaceChildren(...side);
    view.provenance.textContent = '\u00a0';
  }

  /** weights and outputs to 4 decimals, 3 when eight tokens' rows must fit side by side */
  private decimals(m: MatrixName): number {
    if (m !== 'weights' && m !== 'output') return 2;
    return this.tokens.length > 5 ? 3 : 4;
  }

  private stageTitle(stage: Stage, { causal, scaled }: { causal: boolean; scaled: boolean }): string {
    if (stage.name === 'scale') return scaled ? 'Scale the scores by 1/√d_k' : 'Scaling switched off (factor 1)';
    if (stage.name === 'mask') return causal ? 'Hide the future: −∞ above the diagonal' : 'No mask: every key stays visible';
    return stage.title;
  }

  private query(): number {
    return Math.min(this.tokens.length - 1, this.value<number>('query'));
  }

  /** "Token A puts 4.5% on A, …" for the selected query row */
  private summary(): HTMLElement {
    const weights = (this.tensors as Tensors).weights;
    const query = this.query();
    const p = document.createElement('p');
    p.dataset.testid = 'summary';
    const parts = this.tokens.map((name, j) => `${formatNumber(100 * at(weights, query, j), 1)}% on ${name}`);
    p.textContent = `Token ${this.tokens[query]} puts ${parts.join(', ')} (click a row of A for another token).`;
    return p;
  }

  /** where the document prints other numbers than the engine computes for this stage */
  private slipNote(stage: Stage, { example, causal, scaled }: { example: Example; causal: boolean; scaled: boolean }): HTMLElement | undefined {
    const printed = example.printed;
    if (!printed) return undefined;
    // the documents work through the scaled, unmasked case only
    if (stage.switched && (causal || !scaled)) return undefined;
    const rows = stage.results.flatMap((m) => {
      const text = printed[m as keyof PrintedMatrices];
      return text ? slips((this.tensors as Tensors)[m], text).map((slip) => ({ m, slip })) : [];
    });
    if (!rows.length) return undefined;
    const note = document.createElement('div');
    note.className = 'note';
    note.dataset.testid = 'slips';
    const intro = document.createElement('p');
    intro.textContent = `Here ${example.source} prints numbers the engine does not get:`;
    const table = document.createElement('table');
    for (const { m, slip } of rows) {
      const tr = table.insertRow();
      tr.append(Object.assign(document.createElement('th'), { textContent: `${SHORT[m]}, row ${example.tokens[slip.row]}` }));
      tr.insertCell().textContent = `printed (${slip.printed.join(', ')})`;
      tr.insertCell().textContent = `engine (${slip.engine.map((v) => formatNumber(v, 4)).join(', ')})`;
    }
    note.append(intro, table);
    return note;
  }

  /** empty grids for the stage's results, kept while the reader types; graded on "Check" */
  private answerGrids(stage: Stage, settings: { name: WorkedExampleName; resultKey: string }): HTMLElement[] {
    const { resultKey } = settings;
    const tensors = this.tensors as Tensors;
    const key = `${stage.name}|${settings.name}|${stage.results.map((m) => `${tensors[m].rows}×${tensors[m].cols}`).join()}`;
    if (this.answers?.key !== key) {
      const grids: Partial<Record<MatrixName, Grid>> = {};
      for (const m of stage.results) {
        const grid = inputGrid(tensors[m].rows, tensors[m].cols, {
          label: `your ${SHORT[m]}  (${tensors[m].rows}×${tensors[m].cols})`,
          rowLabels: this.tokens, colLabels: KEY_COLUMNS.has(m) ? this.tokens : undefined,
          ariaLabel: (i, j) => `your ${SHORT[m]} row ${this.tokens[i]} column ${KEY_COLUMNS.has(m) ? this.tokens[j] : j + 1}`,
        });
        grid.figure.dataset.matrix = m;
        grid.figure.querySelector('table')?.classList.add('answers');
        grids[m] = grid;
      }
      this.answers = { key, grids, checked: false };
      if (this.view) this.view.verdict.textContent = '';
    }
    // other numbers (a switch changed): earlier marks no longer hold
    if (this.answers.checked && this.view?.checkBar.dataset.result !== resultKey) this.clearMarks();
    const grids = Object.entries(this.answers.grids) as [MatrixName, Grid][];
    for (const [m, grid] of grids) this.shown.set(m, grid.figure);
    return grids.map(([, grid]) => grid.figure);
  }

  private clearMarks(): void {
    if (!this.answers || !this.view) return;
    for (const grid of Object.values(this.answers.grids)) {
      for (const input of grid.inputs.flat()) {
        const td = input.parentElement as HTMLElement;
        td.classList.remove('right', 'wrong');
        td.querySelector('.mark')?.remove();
      }
    }
    this.answers.checked = false;
    this.view.verdict.textContent = '';
  }

  /** grades every typed entry against the engine's numbers and marks each cell */
  private check(): void {
    if (!this.answers || !this.tensors || !this.view || !this.computed) return;
    this.clearMarks();
    const count = { right: 0, wrong: 0, empty: 0 };
    for (const [m, grid] of Object.entries(this.answers.grids) as [MatrixName, Grid][]) {
      const truth = this.tensors[m];
      grid.inputs.forEach((row, i) => row.forEach((input, j) => {
        const engineValue = at(truth, i, j);
        const result = grade(input.value, engineValue);
        const td = input.parentElement as HTMLElement;
        if (result.kind === 'empty') {
          count.empty++;
          return;
        }
        const mark = document.createElement('span');
        mark.className = 'mark';
        if (result.kind === 'right') {
          count.right++;
          td.classList.add('right');
          mark.textContent = '✓ right';
        } else {
          count.wrong++;
          td.classList.add('wrong');
          const difference = result.kind === 'wrong' ? ` (Δ ${signed(result.difference)})` : ` (${result.problem})`;
          mark.textContent = `✗ ${formatNumber(engineValue, 4)}${difference}`;
          mark.title = `the engine’s value is ${formatNumber(engineValue, 4)}`;
        }
        td.append(mark);
      }));
    }
    this.answers.checked = true;
    this.view.checkBar.dataset.result = this.computed.key;
    this.view.verdict.textContent = `${count.right} right, ${count.wrong} wrong${count.empty ? `, ${count.empty} left empty` : ''}.`;
  }

  /** lights up what the hovered cell was computed from, and says so */
  private hover(target: EventTarget | null): void {
    for (const figure of this.shown.values()) {
      for (const td of figure.querySelectorAll('td.source, td.hovered')) td.classList.remove('source', 'hovered');
    }
    const view = this.view;
    const td = (target as Element | null)?.closest?.('td');
    const figure = td?.closest<HTMLElement>('[data-matrix]');
    if (!view || !td || !figure) {
      if (view) view.provenance.textContent = '\u00a0';
      return;
    }
    const matrix = figure.dataset.matrix as MatrixName;
    const i = Number((td.parentElement as HTMLElement).dataset.row);
    const j = Number(td.dataset.col);
    td.classList.add('hovered');
    const sources = provenance(matrix, i, j);
    for (const source of sources) {
      const shown = this.shown.get(source.matrix);
      if (!shown) continue;
      for (const cell of shown.querySelectorAll<HTMLElement>('td[data-col]')) {
        const row = Number((cell.parentElement as HTMLElement).dataset.row);
        const col = Number(cell.dataset.col);
        if ((source.row === undefined || source.row === row) && (source.col === undefined || source.col === col)) {
          cell.classList.add('source');
        }
      }
    }
    const entry = `${SHORT[matrix]}[${this.axisName(matrix, 'row', i)}, ${this.axisName(matrix, 'col', j)}]`;
    view.provenance.textContent = sources.length
      ? `${entry} ← ${sources.map((s) => this.describe(s)).join(' and ')}`
      : `${entry}: an input`;
  }

  private axisName(matrix: MatrixName, axis: 'row' | 'col', index: number): string {
    const tokens = axis === 'row' ? !WEIGHTS.has(matrix) : KEY_COLUMNS.has(matrix);
    return tokens ? `“${this.tokens[index]}”` : String(index + 1);
  }

  private describe(source: Source): string {
    const name = SHORT[source.matrix];
    if (source.row !== undefined && source.col !== undefined) {
      return `entry [${this.axisName(source.matrix, 'row', source.row)}, ${this.axisName(source.matrix, 'col', source.col)}] of ${name}`;
    }
    if (source.row !== undefined) return `row ${this.axisName(source.matrix, 'row', source.row)} of ${name}`;
    if (source.col !== undefined) {
      // a column of V holds one value dimension of every token
      const whole = source.matrix === 'v' ? ' (every token’s value)' : '';
      return `column ${this.axisName(source.matrix, 'col', source.col)} of ${name}${whole}`;
    }
    return name;
  }

  private build() {
    const root = document.createElement('div');
    const button = (text: string, onClick: () => void, label?: string) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = text;
      if (label) b.setAttribute('aria-label', label);
      b.addEventListener('click', onClick);
      return b;
    };
    const group = (label: string, ...children: HTMLElement[]) => {
      const g = document.createElement('span');
      g.className = 'group';
      g.setAttribute('role', 'group');
      g.setAttribute('aria-label', label);
      g.append(...children);
      return g;
    };

    const exampleButtons = new Map<WorkedExampleName, HTMLButtonElement>();
    for (const [key, text] of Object.entries(EXAMPLE_NAMES) as [WorkedExampleName, string][]) {
      exampleButtons.set(key, button(text, () => this.chooseExample(key)));
    }
    const sizes = this.sizeControls();
    const toggle = (text: string, attribute: string) => button(text, () => this.change({ [attribute]: !this.value<boolean>(attribute) }));
    const toggles = {
      causal: toggle('causal mask', 'causal'),
      scaled: toggle('scale by 1/√d_k', 'scaled'),
      check: toggle('check my hand calculation', 'check'),
    };
    const bar1 = document.createElement('div');
    bar1.className = 'bar';
    toggles.causal.dataset.control = 'causal';
    toggles.scaled.dataset.control = 'scaled';
    toggles.check.dataset.control = 'check';
    sizes.root.dataset.control = 'matrices';
    const examples = group('example', ...exampleButtons.values());
    examples.dataset.control = 'example';
    bar1.append(examples, sizes.root, group('switches', toggles.causal, toggles.scaled), toggles.check);

    const stageButtons = STAGES.map((stage, i) => {
      const name = stage.name[0].toUpperCase() + stage.name.slice(1);
      return button(`${i + 1} ${name}`, () => this.change({ step: i }));
    });
    const formula = document.createElement('span');
    formula.className = 'formula';
    const bar2 = document.createElement('div');
    bar2.className = 'bar';
    const stages = group('stage shown', ...stageButtons);
    stages.dataset.control = 'step';
    bar2.append(stages, formula);

    const problem = document.createElement('p');
    problem.className = 'problem';
    problem.setAttribute('role', 'alert');
    const inputs = document.createElement('div');
    inputs.className = 'inputs';
    const heading = document.createElement('h4');
    heading.setAttribute('aria-live', 'polite');
    const provenance = document.createElement('p');
    provenance.className = 'line muted';
    provenance.dataset.testid = 'provenance';
    provenance.textContent = '\u00a0';
    const title = document.createElement('div');
    title.className = 'title';
    title.append(heading, provenance);
    const tables = document.createElement('div');
    tables.className = 'tables';
    const main = document.createElement('div');
    main.append(title, tables);
    const side = document.createElement('div');
    side.className = 'side';
    const area = document.createElement('section');
    area.className = 'area';
    area.append(main, side);

    const verdict = document.createElement('span');
    verdict.setAttribute('role', 'status');
    verdict.dataset.testid = 'verdict';
    const checkBar = document.createElement('div');
    checkBar.dataset.control = 'check';
    const rule = document.createElement('p');
    rule.className = 'muted';
    rule.textContent = `Work out this stage by hand and type it in. An entry counts as right within ±${CHECK_TOLERANCE} ` +
      'of the engine’s value (the same number rounded to two decimals); a wrong one shows ✗, the engine’s value and ' +
      'your difference Δ. Type −∞ as -inf.';
    const row = document.createElement('div');
    row.className = 'check-bar';
    row.append(button('Check', () => this.check()), button('Clear', () => this.clearAnswers()), verdict);
    checkBar.append(rule, row);

    root.append(bar1, bar2, problem, inputs, area);
    root.addEventListener('pointerover', (e) => this.hover(e.target));
    root.addEventListener('pointerleave', () => this.hover(null));
    root.addEventListener('focusin', (e) => this.hover(e.target));
    return { root, exampleButtons, sizes, toggles, stageButtons, formula, problem, inputs, heading, tables, side, area,
      provenance, checkBar, verdict };
  }

  private clearAnswers(): void {
    this.clearMarks();
    for (const grid of Object.values(this.answers?.grids ?? {})) for (const input of grid.inputs.flat()) input.value = '';
  }

  /** "Your own" starts from the example on view, so there is something to edit */
  private chooseExample(name: WorkedExampleName): void {
    if (name === 'custom' && !decodeCustom(this.value<string>('matrices'))) {
      const current = this.value<WorkedExampleName>('example');
      const start = customFrom(current === 'writeup' ? WRITEUP_EXAMPLE : DECK_EXAMPLE);
      this.custom = start;
      this.change({ example: name, matrices: encodeCustom(start) });
      return;
    }
    this.change({ example: name });
  }

  private sizeControls() {
    const root = document.createElement('span');
    root.className = 'sizes';
    const selects = {} as Record<'n' | 'd' | 'dK' | 'dV', HTMLSelectElement>;
    const names = { n: 'n', d: 'd', dK: 'd_k', dV: 'd_v' };
    for (const key of ['n', 'd', 'dK', 'dV'] as const) {
      const label = document.createElement('label');
      const select = document.createElement('select');
      for (let v = 1; v <= CUSTOM_LIMITS[key]; v++) select.append(new Option(String(v), String(v)));
      select.addEventListener('change', () => {
        const base = this.custom ?? customFrom(DECK_EXAMPLE);
        const next = resizeCustom(base, { n: base.n, d: base.d, dK: base.dK, dV: base.dV, [key]: Number(select.value) });
        this.custom = next;
        this.change({ matrices: encodeCustom(next) });
      });
      label.append(names[key], select);
      root.append(label);
      selects[key] = select;
    }
    return { root, selects };
  }
}

/** a document's example as the reader's own starting point */
function customFrom(example: WorkedExample): CustomExample {
  const { x, wQ, wK, wV } = example;
  return { n: x.rows, d: x.cols, dK: wQ.cols, dV: wV.cols, x, wQ, wK, wV };
}

/** a figure with a table of text inputs, shaped and styled like matrixTable's */
function inputGrid(rows: number, cols: number, options: {
  label: string; rowLabels?: readonly string[]; colLabels?: readonly string[]; ariaLabel: (i: number, j: number) => string;
}): Grid {
  const figure = document.createElement('figure');
  figure.className = 'matrix';
  const caption = document.createElement('figcaption');
  caption.textContent = options.label;
  const table = document.createElement('table');
  table.className = 'matrix';
  if (options.colLabels) {
    const head = table.insertRow();
    head.append(document.createElement('th'), ...options.colLabels.map((l) => Object.assign(document.createElement('th'), { textContent: l })));
  }
  const inputs: HTMLInputElement[][] = [];
  for (let i = 0; i < rows; i++) {
    const tr = table.insertRow();
    tr.dataset.row = String(i);
    if (options.rowLabels) tr.append(Object.assign(document.createElement('th'), { textContent: options.rowLabels[i] ?? '' }));
    const row: HTMLInputElement[] = [];
    for (let j = 0; j < cols; j++) {
      const td = tr.insertCell();
      td.dataset.col = String(j);
      const input = document.createElement('input');
      input.type = 'text';
      input.inputMode = 'decimal';
      input.autocomplete = 'off';
      input.spellcheck = false;
      input.setAttribute('aria-label', options.ariaLabel(i, j));
      td.append(input);
      row.push(input);
    }
    inputs.push(row);
  }
  figure.append(caption, table);
  return { figure, inputs };
}

/** decimals that print every entry of a small input matrix exactly (up to 3) */
function decimalsOf(m: MatrixData): number {
  let decimals = 0;
  for (const v of m.data) {
    while (decimals < 3 && Math.abs(Number(v.toFixed(decimals)) - v) > 1e-6) decimals++;
  }
  return decimals;
}

function signed(x: number): string {
  return x > 0 ? `+${formatNumber(x, 4)}` : formatNumber(x, 4);
}

function clip(text: string): string {
  return text.length > 24 ? `${text.slice(0, 24)}…` : text;
}

customElements.get(TAG) ?? customElements.define(TAG, AttentionSteps);
