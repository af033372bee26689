// <attn-attention-steps>: a worked example of one attention head, computed by the engine and shown
// one stage at a time (project → scores → scale → mask → softmax → mix). The example is the slide
// deck's, the write-up's, or matrices the reader types in. Hovering a cell lights up what it was
// computed from; a check mode grades a reader's hand calculation of a stage; where a document
// prints other numbers than the engine computes, the stage says so.
// Attributes: example, matrices (the reader's own), causal, scaled, query, step (1–6), check.
import type { RemoteEngine } from '../runtime/engine';
import { DECK_EXAMPLE, WRITEUP_EXAMPLE, type PrintedMatrices, type WorkedExample } from '../math/seminar';
import type { WorkedExampleName } from '../runtime/registry';
import type { Value } from '../runtime/state';
import type { AttentionResult, HeadResult } from '../engine/index';
import { formatNumber } from '../math/format';
import { at, type MatrixData } from '../math/matrix';
import { shortLabel } from '../math/text';
import {
  CAPTIONS, CHECK_TOLERANCE, CUSTOM_LIMITS, customFrom, decodeCustom, encodeCustom, ENTRY_LIMIT, exactDecimals, float32Text, grade,
  gradeMark, gradeSummary, KEY_COLUMNS, parseInputEntry, provenance, provenanceText, resizeCustom, SHORT_NAMES as SHORT, slips, STAGES,
  stageTex, stageTitle, type CustomExample, type Grade, type MatrixName, type Stage,
} from '../math/worked-example';
import { button, choiceSelect, h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { equation, loadTypesetting } from '../primitives/equation';
import { inputMatrix, matrixCells, matrixTable, matrixTableStyles, type InputMatrix as Grid } from '../primitives/matrix-table';

const EXAMPLE_NAMES: Record<WorkedExampleName, string> = { deck: 'Slide deck', writeup: 'Write-up §7', custom: 'Your own' };
/** the sizes of the reader's own example, and what each is called */
type Size = keyof typeof CUSTOM_LIMITS;
const SIZES = Object.keys(CUSTOM_LIMITS) as Size[];
const SIZE_NAMES: Record<Size, string> = { n: 'n', d: 'd', dK: 'd_k', dV: 'd_v' };

const styles = `${matrixTableStyles}
.toolbar { margin-bottom: 6px; }
.toolbar button { padding: 2px 9px; }
.sizes { display: inline-flex; gap: 8px; }
.sizes label { gap: 4px; }
.sizes select { padding: 1px 2px; }
/* KaTeX's struts reach a hair beyond the formula */
.formula { margin-left: auto; padding-right: 4px; font-size: 16px; }
.problem { margin: 0 0 4px; font-size: 14px; }
.problem:empty { display: none; }
.inputs { display: flex; flex-wrap: wrap; gap: 6px 18px; align-items: flex-start; }
/* eight rows of inputs and the eight of a stage's results fit the slide together */
.inputs table.matrix input { padding-top: 0; padding-bottom: 0; }
.area { display: flex; flex-wrap: wrap; gap: 10px 18px; align-items: flex-start; margin-top: 8px; }
.area .arrow { align-self: center; font-size: 20px; color: var(--muted); }
.title { display: flex; gap: 14px; align-items: baseline; margin: 0 0 2px; }
.title h4 { margin: 0; font-size: 14px; font-weight: 600; white-space: nowrap; }
.title .line { font-size: 14px; margin: 0; }
.tables { display: flex; flex-wrap: wrap; gap: 6px 18px; align-items: flex-start; }
.side { flex: 1 1 200px; min-width: 0; font-size: 14px; display: flex; flex-direction: column; gap: 6px; padding-top: 20px; }
.side p { margin: 0; }
.note { border-left: 3px solid var(--accent); padding: 2px 8px; }
.note table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
.note td, .note th { padding: 0 6px 0 0; text-align: left; font-weight: normal; white-space: nowrap; }
.note th { color: var(--muted); }
table.matrix { border-spacing: 2px; }
table.matrix td { padding: 1px 5px; font-size: 14px; line-height: 1.25; min-width: 3.2em; }
table.matrix th { font-size: 14px; line-height: 1.25; }
figure.matrix figcaption { font-size: 12px; margin-bottom: 1px; }
.roomy table.matrix td { padding: 3px 8px; font-size: 16px; min-width: 3.6em; }
.roomy table.matrix.plain td { min-width: 1.8em; }
.roomy table.matrix th { font-size: 14px; }
.roomy figure.matrix figcaption, .roomy .side, .roomy .title .line { font-size: 14px; }
.roomy .title h4 { font-size: 16px; }
table.matrix td.source { outline: 2px solid var(--accent); outline-offset: -1px; }
table.matrix td.hovered { outline: 2px solid var(--fg); outline-offset: -1px; }
.roomy table.matrix input { font-size: 16px; padding: 3px 5px; }
table.matrix.answers input { width: 4.4em; }
table.matrix td.source input { border-color: var(--accent); }
table.matrix td.right { background: color-mix(in srgb, var(--good) 22%, transparent); }
table.matrix td.wrong { background: color-mix(in srgb, var(--bad) 22%, transparent); }
.mark { display: block; font-size: 11px; line-height: 1.2; text-align: left; padding: 1px 3px; white-space: nowrap; }
.roomy .mark { font-size: 14px; }
.check-bar { display: flex; gap: 10px; align-items: center; margin-top: 4px; }
`;

/** the example being shown: the inputs of one head and, for a document's example, what it prints */
type Example = Pick<WorkedExample, 'tokens' | 'x' | 'wQ' | 'wK' | 'wV'> & Partial<Pick<WorkedExample, 'printed' | 'source'>>;

/** the engine's tensors by name, and the inputs */
type Tensors = Record<MatrixName, MatrixData>;

export default class AttentionSteps extends EngineElement {
  private readonly example = this.bound.choices<WorkedExampleName>('example', {
    text: (name) => EXAMPLE_NAMES[name], showName: false, also: (name) => this.startCustom(name),
  });
  // the sizes live in `matrices`, with the entries
  private readonly sizes = new Map(SIZES.map((size) => [size, choiceSelect<number>({
    name: SIZE_NAMES[size], control: 'matrices', onChoose: (value) => this.resize(size, value),
    choices: Array.from({ length: CUSTOM_LIMITS[size] }, (_, i) => ({ value: i + 1, text: String(i + 1) })),
  })]));
  private readonly sizesGroup = h('span', 'sizes', ...[...this.sizes.values()].map((c) => c.element));
  private readonly causal = this.bound.toggle('causal', 'causal mask');
  private readonly scaled = this.bound.toggle('scaled', 'scale by 1/√d_k');
  private readonly checking = this.bound.toggle('check', 'check my hand calculation');
  private readonly stage = this.bound.choices<number>('step', {
    showName: false, choices: STAGES.map((stage, i) => ({ value: i + 1, text: `${i + 1} ${stage.name.replace(/^./, (c) => c.toUpperCase())}` })),
  });
  private readonly formula = h('span', 'formula');
  private readonly problem = h('p', { className: 'problem', attrs: { role: 'alert' } });
  private readonly inputs = h('div', 'inputs');
  private readonly heading = h('h4', { attrs: { 'aria-live': 'polite' } });
  private readonly provenance = h('p', { className: 'line muted', textContent: '\u00a0', data: { testid: 'provenance' } });
  private readonly tables = h('div', 'tables');
  private readonly side = h('div', 'side');
  private readonly area = h('section', 'area', h('div', {}, h('div', 'title', this.heading, this.provenance), this.tables), this.side);
  private readonly verdict = h('span', { attrs: { role: 'status' }, data: { testid: 'verdict' } });
  private readonly checkBar = h('div', { data: { control: 'check' } },
    h('p', { className: 'muted', textContent: `Work out this stage by hand and type it in. An entry counts as right within ±${CHECK_TOLERANCE} ` +
      'of the engine’s value (the same number rounded to two decimals); a wrong one shows ✗, the engine’s value and ' +
      'your difference Δ. Type −∞ as -inf.' }),
    h('div', 'check-bar', button('Check', () => this.checkAnswers()), button('Clear', () => this.clearAnswers()), this.verdict));
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

  protected override readonly stepping = { attribute: 'step' };

  protected override layout(): HTMLElement {
    const switches = h('span', { className: 'group', attrs: { role: 'group', 'aria-label': 'switches' } },
      this.causal.element, this.scaled.element);
    const root = h('div', {},
      h('div', 'toolbar', this.example.element, this.sizesGroup, switches, this.checking.element),
      h('div', 'toolbar', this.stage.element, this.formula),
      this.problem, this.inputs, this.area);
    root.addEventListener('pointerover', (e) => this.hover(e.target));
    root.addEventListener('pointerleave', () => this.hover(null));
    root.addEventListener('focusin', (e) => this.hover(e.target));
    return root;
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    await loadTypesetting();
    const name = this.value<WorkedExampleName>('example');
    const causal = this.value<boolean>('causal');
    const scaled = this.value<boolean>('scaled');
    // the stages count from 1, as every stepped widget's steps do
    const step = this.value<number>('step') - 1;
    const checking = this.value<boolean>('check');

    const example = this.exampleOf(name);
    this.tokens = example.tokens;
    this.sizesGroup.hidden = name !== 'custom';
    if (this.custom && name === 'custom') for (const [size, control] of this.sizes) control.set(this.custom[size]);
    // small examples get larger type: the slide has room, and the back row has to read it
    this.body.classList.toggle('roomy', example.x.rows <= 4 && example.x.cols <= 4 && example.wQ.cols <= 3 && example.wV.cols <= 3);
    this.showInputs(name, example);

    const dK = example.wQ.cols;
    const input = {
      x: example.x.data, n: example.x.rows, d: example.x.cols, wQ: example.wQ.data, wK: example.wK.data,
      wV: example.wV.data, dK, dV: example.wV.cols, mask: causal ? 'causal' : 'none', scaled,
    } as const;
    const key = JSON.stringify({ ...input, x: [...input.x], wQ: [...input.wQ], wK: [...input.wK], wV: [...input.wV] });
    if (this.computed?.key !== key) this.computed = { key, result: await engine.attention({ ...input, trace: true }) };
    const result = this.computed.result;
    // what the stages compute, each by its own name in the engine's answer
    const computed = STAGES.flatMap((s) => s.results).map((m) => [m, result.heads[0][m as keyof HeadResult]] as const);
    const missing = computed.find(([, tensor]) => !tensor);
    if (missing) throw new Error(`the engine returned no ${SHORT[missing[0]]}`);
    this.tensors = { x: example.x, wQ: example.wQ, wK: example.wK, wV: example.wV, ...Object.fromEntries(computed) } as Tensors;
    this.formula.replaceChildren(equation(stageTex(step, { dK, scale: result.scale, causal, scaled })));
    this.showStage(STAGES[step], { name, causal, scaled, checking, example, resultKey: key });
  }

  /** the example named by the settings (the reader's own: as committed, else the deck's to start from) */
  private exampleOf(name: WorkedExampleName): Example {
    if (name === 'deck') return DECK_EXAMPLE;
    if (name === 'writeup') return WRITEUP_EXAMPLE;
    this.custom = decodeCustom(this.value<string>('matrices')) ?? this.custom ?? customFrom(DECK_EXAMPLE);
    const { n, x, wQ, wK, wV } = this.custom;
    return { tokens: Array.from({ length: n }, (_, i) => `t${i + 1}`), x, wQ, wK, wV };
  }

  /** X and the weights: printed for a document's example, editable for the reader's own */
  private showInputs(name: WorkedExampleName, example: Example): void {
    const names = ['x', 'wQ', 'wK', 'wV'] as const;
    if (name !== 'custom') {
      this.editors = undefined;
      const tables = names.map((m) => {
        const table = matrixTable(example[m], {
          label: m === 'x' ? 'X (one row per token)' : CAPTIONS[m], tint: 'plain', decimals: exactDecimals(example[m]),
          rowLabels: m === 'x' ? example.tokens : undefined,
        });
        table.dataset.matrix = m;
        return table;
      });
      this.inputs.replaceChildren(...tables);
      return;
    }
    const custom = this.custom as CustomExample;
    const key = `${custom.n}×${custom.d}×${custom.dK}×${custom.dV}`;
    if (this.editors?.key !== key) {
      const grids = Object.fromEntries(names.map((m) => [m, this.editableGrid(m, custom[m], example.tokens)])) as Record<typeof names[number], Grid>;
      this.editors = { key, grids };
      this.inputs.replaceChildren(...names.map((m) => grids[m].figure));
      this.problem.replaceChildren();
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
    const grid = inputMatrix(matrix.rows, matrix.cols, {
      label: `${m === 'x' ? 'X' : CAPTIONS[m]}  (${matrix.rows}×${matrix.cols})`, data: { matrix: m },
      rowLabels: m === 'x' ? tokens : undefined,
      ariaLabel: (i, j) => `${SHORT[m]} row ${rowName(i)} column ${j + 1}`,
    });
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
        else problems.push(`${input.getAttribute('aria-label')}: “${shortLabel(input.value, 25)}” ${parsed.problem}`);
      }));
      next[m] = { rows: next[m].rows, cols: next[m].cols, data };
    }
    if (problems.length) {
      this.problem.replaceChildren(h('span', {
        className: 'error',
        textContent: `${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}. ` +
          `Type a number between −${ENTRY_LIMIT} and ${ENTRY_LIMIT}, such as 0.5 or −2; the results below are for the last valid entries.`,
      }));
      return;
    }
    this.problem.replaceChildren();
    this.custom = next;
    this.change({ matrices: encodeCustom(next) });
  }

  private showStage(stage: Stage,
    settings: { name: WorkedExampleName; causal: boolean; scaled: boolean; checking: boolean; example: Example; resultKey: string }): void {
    const tensors = this.tensors as Tensors;
    const { example, checking } = settings;
    const step = STAGES.indexOf(stage);
    this.heading.textContent = `${step + 1}. ${stageTitle(stage, settings)}`;
    this.area.dataset.stage = stage.name;
    this.shown = new Map([...this.inputs.querySelectorAll<HTMLElement>('[data-matrix]')]
      .map((f) => [f.dataset.matrix as MatrixName, f]));
    const table = (m: MatrixName) => {
      const figure = matrixTable(tensors[m], {
        label: CAPTIONS[m], rowLabels: example.tokens, colLabels: KEY_COLUMNS.has(m) ? example.tokens : undefined,
        tint: m === 'weights' ? 'weights' : 'signed', decimals: this.decimals(m),
        ...(m === 'weights' ? { highlightRow: this.query(), onRowClick: (row: number) => this.change({ query: row }) } : {}),
      });
      figure.dataset.matrix = m;
      this.shown.set(m, figure);
      return figure;
    };
    const operands = stage.operands.map(table);
    const arrow = operands.length > 0 && h('span', { className: 'arrow', textContent: '→', attrs: { 'aria-hidden': 'true' } });
    const results = checking ? this.answerGrids(stage, settings) : stage.results.map(table);
    this.tables.replaceChildren(...operands, ...(arrow ? [arrow] : []), ...results);

    const side: HTMLElement[] = [];
    if (checking) side.push(this.checkBar);
    // in check mode the note would give the answer away
    const note = checking ? undefined : this.slipNote(stage, settings);
    if (note) side.push(note);
    if (!checking && (stage.name === 'softmax' || stage.name === 'mix')) side.push(this.summary());
    this.side.replaceChildren(...side);
    this.provenance.textContent = '\u00a0';
  }

  /** weights and outputs to 4 decimals, 3 when eight tokens' rows must fit side by side */
  private decimals(m: MatrixName): number {
    if (m !== 'weights' && m !== 'output') return 2;
    return this.tokens.length > 5 ? 3 : 4;
  }

  private query(): number {
    return Math.min(this.tokens.length - 1, this.value<number>('query'));
  }

  /** "Token A puts 4.5% on A, …" for the selected query row */
  private summary(): HTMLElement {
    const weights = (this.tensors as Tensors).weights;
    const query = this.query();
    const parts = this.tokens.map((name, j) => `${formatNumber(100 * at(weights, query, j), 1)}% on ${name}`);
    const text = `Token ${this.tokens[query]} puts ${parts.join(', ')} (click a row of A for another token).`;
    return h('p', { textContent: text, data: { testid: 'summary' } });
  }

  /** where the document prints other numbers than the engine computes for this stage */
  private slipNote(stage: Stage, { example, causal, scaled }: { example: Example; causal: boolean; scaled: boolean }): HTMLElement | undefined {
    const { printed, source } = example;
    if (!printed || !source) return undefined;
    // the documents work through the scaled, unmasked case only
    if (stage.switched && (causal || !scaled)) return undefined;
    const rows = stage.results.flatMap((m) => {
      const text = printed[m as keyof PrintedMatrices];
      return text ? slips((this.tensors as Tensors)[m], text).map((slip) => ({ m, slip })) : [];
    });
    if (!rows.length) return undefined;
    const lines = rows.map(({ m, slip }) => h('tr', {},
      h('th', { textContent: `${SHORT[m]}, row ${example.tokens[slip.row]}` }),
      h('td', { textContent: `printed (${slip.printed.join(', ')})` }),
      h('td', { textContent: `engine (${slip.engine.map((v) => formatNumber(v, 4)).join(', ')})` })));
    // the document's rounding, as its printed digits show it: "2 decimals", or "1–2 decimals"
    const places = rows.flatMap(({ slip }) => slip.printed.map((text) => text.split('.')[1]?.length ?? 0));
    const [fewest, most] = [Math.min(...places), Math.max(...places)];
    const rounding = `${fewest === most ? fewest : `${fewest}–${most}`} decimal${most === 1 ? '' : 's'}`;
    const named = source[0].toUpperCase() + source.slice(1);
    return h('div', { className: 'note', data: { testid: 'slips' } },
      h('p', { textContent: `${named} rounds its numbers to ${rounding}. Rounded the same way, the engine’s are not the ones it prints here:` }),
      h('table', {}, ...lines));
  }

  /** empty grids for the stage's results, kept while the reader types; graded on "Check" */
  private answerGrids(stage: Stage, settings: { name: WorkedExampleName; resultKey: string }): HTMLElement[] {
    const { resultKey } = settings;
    const tensors = this.tensors as Tensors;
    const key = `${stage.name}|${settings.name}|${stage.results.map((m) => `${tensors[m].rows}×${tensors[m].cols}`).join()}`;
    if (this.answers?.key !== key) {
      const grids: Partial<Record<MatrixName, Grid>> = {};
      for (const m of stage.results) {
        const grid = inputMatrix(tensors[m].rows, tensors[m].cols, {
          label: `your ${SHORT[m]}  (${tensors[m].rows}×${tensors[m].cols})`, data: { matrix: m },
          rowLabels: this.tokens, colLabels: KEY_COLUMNS.has(m) ? this.tokens : undefined,
          ariaLabel: (i, j) => `your ${SHORT[m]} row ${this.tokens[i]} column ${KEY_COLUMNS.has(m) ? this.tokens[j] : j + 1}`,
        });
        grid.figure.querySelector('table')?.classList.add('answers');
        grids[m] = grid;
      }
      this.answers = { key, grids, checked: false };
      this.verdict.textContent = '';
    }
    // other numbers (a switch changed): earlier marks no longer hold
    if (this.answers.checked && this.checkBar.dataset.result !== resultKey) this.clearMarks();
    const grids = Object.entries(this.answers.grids) as [MatrixName, Grid][];
    for (const [m, grid] of grids) this.shown.set(m, grid.figure);
    return grids.map(([, grid]) => grid.figure);
  }

  private clearMarks(): void {
    if (!this.answers) return;
    for (const grid of Object.values(this.answers.grids)) {
      for (const input of grid.inputs.flat()) {
        const td = input.parentElement as HTMLElement;
        td.classList.remove('right', 'wrong');
        td.querySelector('.mark')?.remove();
      }
    }
    this.answers.checked = false;
    this.verdict.textContent = '';
  }

  /** grades every typed entry against the engine's numbers and marks each cell */
  private checkAnswers(): void {
    if (!this.answers || !this.tensors || !this.computed) return;
    this.clearMarks();
    const grades: Grade[] = [];
    for (const [m, grid] of Object.entries(this.answers.grids) as [MatrixName, Grid][]) {
      const truth = this.tensors[m];
      grid.inputs.forEach((row, i) => row.forEach((input, j) => {
        const engine = at(truth, i, j);
        const result = grade(input.value, engine);
        const mark = gradeMark(result, engine);
        grades.push(result);
        if (!mark) return;
        const right = result.kind === 'right';
        const td = input.parentElement as HTMLElement;
        td.classList.add(right ? 'right' : 'wrong');
        td.append(h('span', { className: 'mark', textContent: mark, title: right ? '' : `the engine’s value is ${formatNumber(engine, 4)}` }));
      }));
    }
    this.answers.checked = true;
    this.checkBar.dataset.result = this.computed.key;
    this.verdict.textContent = gradeSummary(grades);
  }

  /** lights up what the hovered cell was computed from, and says so */
  private hover(target: EventTarget | null): void {
    for (const figure of this.shown.values()) {
      for (const td of figure.querySelectorAll('td.source, td.hovered')) td.classList.remove('source', 'hovered');
    }
    const td = (target as Element | null)?.closest?.('td');
    const figure = td?.closest<HTMLElement>('[data-matrix]');
    if (!td || !figure) {
      this.provenance.textContent = '\u00a0';
      return;
    }
    const matrix = figure.dataset.matrix as MatrixName;
    const i = Number((td.parentElement as HTMLElement).dataset.row);
    const j = Number(td.dataset.col);
    td.classList.add('hovered');
    for (const source of provenance(matrix, i, j)) {
      const shown = this.shown.get(source.matrix);
      if (shown) for (const cell of matrixCells(shown, source)) cell.classList.add('source');
    }
    this.provenance.textContent = provenanceText(matrix, i, j, this.tokens);
  }

  private clearAnswers(): void {
    this.clearMarks();
    for (const grid of Object.values(this.answers?.grids ?? {})) for (const input of grid.inputs.flat()) input.value = '';
  }

  /** "Your own" starts from the example on view, so there is something to edit */
  private startCustom(name: WorkedExampleName): Record<string, Value> {
    if (name !== 'custom' || decodeCustom(this.value<string>('matrices'))) return {};
    this.custom = customFrom(this.value<WorkedExampleName>('example') === 'writeup' ? WRITEUP_EXAMPLE : DECK_EXAMPLE);
    return { matrices: encodeCustom(this.custom) };
  }

  private resize(size: Size, value: number): void {
    const base = this.custom ?? customFrom(DECK_EXAMPLE);
    this.custom = resizeCustom(base, { n: base.n, d: base.d, dK: base.dK, dV: base.dV, [size]: value });
    this.change({ matrices: encodeCustom(this.custom) });
  }
}
