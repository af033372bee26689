// Row-major matrices as the engine returns them, and small helpers the widgets share. DOM-free.
import type { MatrixData } from '../engine/attnlab.mjs';

export type { MatrixData };

/** A matrix from rows written out in code, e.g. a seminar example's inputs. */
export function fromRows(rows: readonly (readonly number[])[]): MatrixData {
  const cols = rows[0]?.length ?? 0;
  if (rows.some((r) => r.length !== cols)) throw new Error('fromRows: rows differ in length');
  return { rows: rows.length, cols, data: Float32Array.from(rows.flat()) };
}

/** Entry (i, j). */
export function at(m: MatrixData, i: number, j: number): number {
  return m.data[i * m.cols + j];
}

/** Row i as a plain array. */
export function row(m: MatrixData, i: number): number[] {
  return Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols));
}

/** Largest |entry| over the finite entries (0 for an empty or all-infinite matrix). */
export function maxAbsFinite(m: MatrixData): number {
  let max = 0;
  for (const v of m.data) if (Number.isFinite(v)) max = Math.max(max, Math.abs(v));
  return max;
}

/** Mean and standard deviation of row i's entries (a summary printed beside a picture). */
export function rowStatistics(m: MatrixData, i: number): { mean: number; std: number } {
  const values = row(m, i);
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length;
  return { mean, std: Math.sqrt(variance) };
}

/** the largest |a_i − b_i| over two equally long lists */
export function largestDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error('largestDifference: lists differ in length');
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
  return max;
}
