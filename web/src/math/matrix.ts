// Row-major matrices as the engine returns them, and small helpers the widgets share. DOM-free.
import type { MatrixData } from '../engine/attnlab.mjs';

export type { MatrixData };

/** A matrix from rows written out in code, e.g. a seminar example's inputs. */
export function fromRows(rows: readonly (readonly number[])[]): MatrixData {
  const cols = rows[0]?.length ?? 0;
  if (rows.some((r) => r.length !== cols)) throw new Error('fromRows: rows differ in length');
  return { rows: rows.length, cols, data: Float32Array.from(rows.flat()) };
}

/** The d × d identity, row-major (a head's W_Q = W_K = W_V = I). */
export function identity(d: number): number[] {
  return Array.from({ length: d * d }, (_, i) => (i % (d + 1) === 0 ? 1 : 0));
}

/** Entry (i, j). */
export function at(m: MatrixData, i: number, j: number): number {
  return m.data[i * m.cols + j];
}

/** Row i as a plain array. */
export function row(m: MatrixData, i: number): number[] {
  return Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols));
}

/** Rows [r0, r1) and columns [c0, c1) of m, as a matrix of their own. */
export function submatrix(m: MatrixData, { rows: [r0, r1], cols: [c0, c1] }: { rows: [number, number]; cols: [number, number] }): MatrixData {
  const cols = c1 - c0;
  const data = new Float32Array((r1 - r0) * cols);
  for (let i = r0; i < r1; i++) data.set(m.data.subarray(i * m.cols + c0, i * m.cols + c1), (i - r0) * cols);
  return { rows: r1 - r0, cols, data };
}

/** Largest |entry| over the finite entries (0 for an empty or all-infinite matrix). */
export function maxAbsFinite(m: MatrixData): number {
  let max = 0;
  for (const v of m.data) if (Number.isFinite(v)) max = Math.max(max, Math.abs(v));
  return max;
}

/** Row i of m laid out in lines of `width` entries (the last padded with NaN): a 3072-wide hidden
 * layer as four lines of 768, each entry a pixel of its own. */
export function wrappedRow(m: MatrixData, i: number, width: number): MatrixData {
  const rows = Math.ceil(m.cols / width);
  const data = new Float32Array(rows * width).fill(NaN);
  data.set(m.data.subarray(i * m.cols, (i + 1) * m.cols));
  return { rows, cols: width, data };
}

/** Mean, standard deviation and root mean square of row i's entries (a summary printed beside a
 * picture: LayerNorm makes the first two 0 and 1, RMSNorm the last 1). */
export function rowStatistics(m: MatrixData, i: number): { mean: number; std: number; rms: number } {
  const values = row(m, i);
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length;
  return { mean, std: Math.sqrt(variance), rms: Math.sqrt(variance + mean * mean) };
}

/** the largest |a_i − b_i| over two equally long lists */
export function largestDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error('largestDifference: lists differ in length');
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
  return max;
}

/** the column of each row's largest entry (the first of equals): a model's prediction at each position */
export function rowArgmax(m: MatrixData): number[] {
  return Array.from({ length: m.rows }, (_, i) => {
    let best = 0;
    for (let j = 1; j < m.cols; j++) if (m.data[i * m.cols + j] > m.data[i * m.cols + best]) best = j;
    return best;
  });
}
