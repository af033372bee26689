// The worked example's bookkeeping, DOM-free: its stages and what they are called, reading numbers
// a reader typed, the reader's own matrices as URL text, which cells a result came from (and how to
// say so), where a document's printed numbers and the engine's disagree, and grading a hand
// calculation. No attention math: the engine computes that.
import { formatNumber, formatSigned } from './format';
import { at, type MatrixData } from './matrix';
import type { WorkedExample } from './seminar';

/** Largest |entry| a reader may type into the inputs (keeps every stage's numbers printable). */
export const ENTRY_LIMIT = 1000;
/** Limits of the reader's own example. */
export const CUSTOM_LIMITS = { n: 8, d: 8, dK: 4, dV: 4 } as const;
/** A hand-calculated entry is right within this distance of the engine's value (2 decimals). */
export const CHECK_TOLERANCE = 0.005;

export type Parsed = { ok: true; value: number } | { ok: false; problem: string };

const MINUS = /[\u2212\u2013]/g;

/** A typed number: "−1.5", "2e-3", " 4 "; "-inf"/"−∞" only where `infinite` allows it. */
export function parseEntry(text: string, { infinite = false } = {}): Parsed {
  const cleaned = text.trim().replace(MINUS, '-').replace(',', '.');
  if (cleaned === '') return { ok: false, problem: 'is empty' };
  if (infinite && /^-(inf|infinity|∞)$/i.test(cleaned)) return { ok: true, value: -Infinity };
  // Number() would read "0x10" and "" too; only plain decimals are numbers here
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(cleaned)) return { ok: false, problem: 'is not a number' };
  const value = Number(cleaned);
  if (!Number.isFinite(value)) return { ok: false, problem: 'is not a finite number' };
  return { ok: true, value };
}

/** An input entry: a finite number within ±ENTRY_LIMIT. */
export function parseInputEntry(text: string): Parsed {
  const parsed = parseEntry(text);
  if (parsed.ok && Math.abs(parsed.value) > ENTRY_LIMIT) {
    return { ok: false, problem: `is outside ±${ENTRY_LIMIT}` };
  }
  return parsed;
}

/** The reader's own example: n tokens of width d, one head with d_k and d_v. */
export interface CustomExample {
  n: number;
  d: number;
  dK: number;
  dV: number;
  x: MatrixData;
  wQ: MatrixData;
  wK: MatrixData;
  wV: MatrixData;
}

const SEPARATOR = '_';

/** a float32 entry as the shortest text that reads back as it (0.1, not 0.10000000149) */
export function float32Text(value: number): string {
  return String(Number(value.toPrecision(7)));
}

/** the decimals (up to 3) that print every entry of a small input matrix exactly: 0.5 → 1, 0.25 → 2 */
export function exactDecimals(m: MatrixData): number {
  let decimals = 0;
  for (const v of m.data) {
    while (decimals < 3 && Math.abs(Number(v.toFixed(decimals)) - v) > 1e-6) decimals++;
  }
  return decimals;
}

/** "n_d_dK_dV_x…_wQ…_wK…_wV…": every number in one flat list, URL-safe without escaping. */
export function encodeCustom(example: CustomExample): string {
  const { n, d, dK, dV, x, wQ, wK, wV } = example;
  return [n, d, dK, dV, ...x.data, ...wQ.data, ...wK.data, ...wV.data].map(float32Text).join(SEPARATOR);
}

/** the text of encodeCustom back, or undefined if it is not a valid example within the limits */
export function decodeCustom(text: string): CustomExample | undefined {
  const parts = text.split(SEPARATOR);
  if (parts.length < 4) return undefined;
  const numbers: number[] = [];
  for (const part of parts) {
    const parsed = parseInputEntry(part);
    if (!parsed.ok) return undefined;
    numbers.push(parsed.value);
  }
  const [n, d, dK, dV] = numbers;
  const sizes = [[n, CUSTOM_LIMITS.n], [d, CUSTOM_LIMITS.d], [dK, CUSTOM_LIMITS.dK], [dV, CUSTOM_LIMITS.dV]];
  if (sizes.some(([size, max]) => !Number.isInteger(size) || size < 1 || size > max)) return undefined;
  if (numbers.length !== 4 + n * d + d * dK * 2 + d * dV) return undefined;
  let offset = 4;
  const take = (rows: number, cols: number): MatrixData => {
    const data = Float32Array.from(numbers.slice(offset, offset + rows * cols));
    offset += rows * cols;
    return { rows, cols, data };
  };
  return { n, d, dK, dV, x: take(n, d), wQ: take(d, dK), wK: take(d, dK), wV: take(d, dV) };
}

/** the matrix cut or padded with zeros to rows × cols (entries that stay keep their place) */
export function resized(m: MatrixData, rows: number, cols: number): MatrixData {
  const data = new Float32Array(rows * cols);
  for (let i = 0; i < Math.min(rows, m.rows); i++) {
    for (let j = 0; j < Math.min(cols, m.cols); j++) data[i * cols + j] = at(m, i, j);
  }
  return { rows, cols, data };
}

/** the example at new sizes, keeping every entry that still fits */
export function resizeCustom(example: CustomExample, sizes: Pick<CustomExample, 'n' | 'd' | 'dK' | 'dV'>): CustomExample {
  const { n, d, dK, dV } = sizes;
  return {
    n, d, dK, dV,
    x: resized(example.x, n, d), wQ: resized(example.wQ, d, dK), wK: resized(example.wK, d, dK), wV: resized(example.wV, d, dV),
  };
}

/** Names of the matrices on the worked-example slide. */
export type MatrixName = 'x' | 'wQ' | 'wK' | 'wV' | 'q' | 'k' | 'v' | 'scores' | 'scaled' | 'masked' | 'weights' | 'output';

/** captions of the matrices */
export const CAPTIONS: Record<MatrixName, string> = {
  x: 'X', wQ: 'W_Q', wK: 'W_K', wV: 'W_V', q: 'Q = X·W_Q', k: 'K = X·W_K', v: 'V = X·W_V', scores: 'QKᵀ',
  scaled: 'QKᵀ/√d_k', masked: 'QKᵀ/√d_k + M', weights: 'A = softmax', output: 'output = A·V',
};
/** short names, as a sentence says them */
export const SHORT_NAMES: Record<MatrixName, string> = {
  x: 'X', wQ: 'W_Q', wK: 'W_K', wV: 'W_V', q: 'Q', k: 'K', v: 'V', scores: 'QKᵀ', scaled: 'QKᵀ/√d_k',
  masked: 'the masked scores', weights: 'A', output: 'output',
};
/** matrices whose columns are tokens (keys); the others' columns are dimensions */
export const KEY_COLUMNS = new Set<MatrixName>(['scores', 'scaled', 'masked', 'weights']);
/** weight matrices: their rows are input dimensions, not tokens */
const WEIGHTS = new Set<MatrixName>(['wQ', 'wK', 'wV']);

/** One stage of the head, shown on its own. */
export interface Stage {
  name: string;
  title: string;
  /** matrices the stage starts from (besides the inputs) */
  operands: MatrixName[];
  /** what it computes */
  results: MatrixName[];
  /** whether the stage's numbers depend on the mask and scaling switches */
  switched: boolean;
}

export const STAGES: readonly Stage[] = [
  { name: 'project', title: 'Project every token', operands: [], results: ['q', 'k', 'v'], switched: false },
  { name: 'scores', title: 'Compare every query with every key', operands: ['q', 'k'], results: ['scores'], switched: false },
  { name: 'scale', title: 'Scale', operands: ['scores'], results: ['scaled'], switched: true },
  { name: 'mask', title: 'Mask', operands: ['scaled'], results: ['masked'], switched: true },
  { name: 'softmax', title: 'Softmax each row: the attention weights', operands: ['masked'], results: ['weights'], switched: true },
  { name: 'mix', title: 'Mix the values', operands: ['weights', 'v'], results: ['output'], switched: true },
];

/** the stage's title as the switches have it */
export function stageTitle(stage: Stage, { causal, scaled }: { causal: boolean; scaled: boolean }): string {
  if (stage.name === 'scale') return scaled ? 'Scale the scores by 1/√d_k' : 'Scaling switched off (factor 1)';
  if (stage.name === 'mask') return causal ? 'Hide the future: −∞ above the diagonal' : 'No mask: every key stays visible';
  return stage.title;
}

/** the formula of stage `step` as TeX, with this example's d_k and scale */
export function stageTex(step: number, { dK, scale, causal, scaled }: { dK: number; scale: number; causal: boolean; scaled: boolean }): string {
  return [
    'Q = XW^Q,\\; K = XW^K,\\; V = XW^V',
    'S = QK^\\top,\\quad S_{ij} = q_i \\cdot k_j',
    scaled ? `S/\\sqrt{d_k} = S \\cdot ${formatNumber(scale, 4)}\\quad (d_k = ${dK})` : 'S \\cdot 1 \\quad\\text{(scaling off)}',
    causal ? 'S/\\sqrt{d_k} + M,\\quad M_{ij} = -\\infty \\text{ for } j > i' : 'S/\\sqrt{d_k} + M,\\quad M = 0 \\text{ (no mask)}',
    'A_{ij} = \\exp(e_{ij}) / \\textstyle\\sum_k \\exp(e_{ik})',
    '\\text{out}_i = \\textstyle\\sum_j A_{ij}\\, v_j = (AV)_i',
  ][step]!;
}

/** a document's example as the reader's own starting point */
export function customFrom({ x, wQ, wK, wV }: Pick<WorkedExample, 'x' | 'wQ' | 'wK' | 'wV'>): CustomExample {
  return { n: x.rows, d: x.cols, dK: wQ.cols, dV: wV.cols, x, wQ, wK, wV };
}

/** A part of a matrix a result was computed from. */
export interface Source {
  matrix: MatrixName;
  row?: number;
  col?: number;
}

/** What entry (i, j) of a stage's result is computed from. */
export function provenance(matrix: MatrixName, i: number, j: number): Source[] {
  switch (matrix) {
    case 'q': return [{ matrix: 'x', row: i }, { matrix: 'wQ', col: j }];
    case 'k': return [{ matrix: 'x', row: i }, { matrix: 'wK', col: j }];
    case 'v': return [{ matrix: 'x', row: i }, { matrix: 'wV', col: j }];
    case 'scores': return [{ matrix: 'q', row: i }, { matrix: 'k', row: j }];
    case 'scaled': return [{ matrix: 'scores', row: i, col: j }];
    case 'masked': return [{ matrix: 'scaled', row: i, col: j }];
    // softmax normalises over the whole row
    case 'weights': return [{ matrix: 'masked', row: i }];
    case 'output': return [{ matrix: 'weights', row: i }, { matrix: 'v', col: j }];
    default: return [];
  }
}

/** row or column `index` of `matrix` as a sentence names it: a token in quotes, else a number from 1 */
function axisName(matrix: MatrixName, axis: 'row' | 'col', index: number, tokens: readonly string[]): string {
  const named = axis === 'row' ? !WEIGHTS.has(matrix) : KEY_COLUMNS.has(matrix);
  return named ? `“${tokens[index]}”` : String(index + 1);
}

function describe(source: Source, tokens: readonly string[]): string {
  const name = SHORT_NAMES[source.matrix];
  const row = source.row === undefined ? undefined : axisName(source.matrix, 'row', source.row, tokens);
  const col = source.col === undefined ? undefined : axisName(source.matrix, 'col', source.col, tokens);
  if (row && col) return `entry [${row}, ${col}] of ${name}`;
  if (row) return `row ${row} of ${name}`;
  // a column of V holds one value dimension of every token
  if (col) return `column ${col} of ${name}${source.matrix === 'v' ? ' (every token’s value)' : ''}`;
  return name;
}

/** "QKᵀ[“A”, “B”] ← row “A” of Q and row “B” of K": what entry (i, j) was computed from, in words */
export function provenanceText(matrix: MatrixName, i: number, j: number, tokens: readonly string[]): string {
  const entry = `${SHORT_NAMES[matrix]}[${axisName(matrix, 'row', i, tokens)}, ${axisName(matrix, 'col', j, tokens)}]`;
  const sources = provenance(matrix, i, j);
  return sources.length ? `${entry} ← ${sources.map((s) => describe(s, tokens)).join(' and ')}` : `${entry}: an input`;
}

/** A row a document prints differently from what the engine computes. */
export interface Slip {
  row: number;
  printed: readonly string[];
  engine: number[];
}

/** Printed text with k decimals stands for values less than half a unit of its last digit away;
 * a value half-way between (0.45 printed as 0.5) counts as a slip, float32 noise aside. */
function consistent(printed: string, value: number): boolean {
  const decimals = printed.split('.')[1]?.length ?? 0;
  return Math.abs(Number(printed) - value) < 0.5 * 10 ** -decimals - 1e-6;
}

/** the rows where the printed numbers are not the engine's, rounded as printed */
export function slips(engine: MatrixData, printed: readonly (readonly string[])[]): Slip[] {
  const found: Slip[] = [];
  printed.forEach((cells, i) => {
    const values = cells.map((_, j) => at(engine, i, j));
    if (cells.some((text, j) => !consistent(text, values[j]))) found.push({ row: i, printed: cells, engine: values });
  });
  return found;
}

export type Grade =
  | { kind: 'empty' }
  | { kind: 'unreadable'; problem: string }
  | { kind: 'right'; typed: number }
  | { kind: 'wrong'; typed: number; difference: number };

/** a hand-calculated entry against the engine's value (masked entries are −∞) */
export function grade(text: string, engine: number): Grade {
  if (text.trim() === '') return { kind: 'empty' };
  const parsed = parseEntry(text, { infinite: true });
  if (!parsed.ok) return { kind: 'unreadable', problem: parsed.problem };
  const typed = parsed.value;
  if (!Number.isFinite(engine) || !Number.isFinite(typed)) {
    return typed === engine ? { kind: 'right', typed } : { kind: 'wrong', typed, difference: typed - engine };
  }
  const difference = typed - engine;
  return Math.abs(difference) <= CHECK_TOLERANCE + 1e-9 ? { kind: 'right', typed } : { kind: 'wrong', typed, difference };
}

/** what a graded entry is marked with: "✓ right", or ✗ with the engine's value and the difference
 * (or what is wrong with the text); nothing for an entry left empty */
export function gradeMark(grade: Grade, engine: number): string | undefined {
  if (grade.kind === 'empty') return undefined;
  if (grade.kind === 'right') return '✓ right';
  return `✗ ${formatNumber(engine, 4)} (${grade.kind === 'wrong' ? `Δ ${formatSigned(grade.difference, 4)}` : grade.problem})`;
}

/** "2 right, 2 wrong, 5 left empty." (an unreadable entry is wrong) */
export function gradeSummary(grades: readonly Grade[]): string {
  const count = (...kinds: Grade['kind'][]) => grades.filter((g) => kinds.includes(g.kind)).length;
  const empty = count('empty');
  return `${count('right')} right, ${count('wrong', 'unreadable')} wrong${empty ? `, ${empty} left empty` : ''}.`;
}
