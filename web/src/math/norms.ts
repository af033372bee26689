// The norms slide's bookkeeping, DOM-free: reading the vector a reader typed, and how far the
// rows of LayerNorm's Jacobian are from summing to 0. The norms themselves are the engine's.
import type { MatrixData } from './matrix';
import { parseInputEntry } from './worked-example';

/** the fewest and most numbers a reader may type */
export const VECTOR_WIDTH = { min: 2, max: 16 } as const;

/** "2 −1 0.5" → [2, −1, 0.5]; throws the reason when it is not a vector of VECTOR_WIDTH numbers */
export function readVector(text: string): number[] {
  const entries = text.trim().split(/[\s;]+/).filter(Boolean);
  if (entries.length < VECTOR_WIDTH.min || entries.length > VECTOR_WIDTH.max) {
    throw new Error(`Type ${VECTOR_WIDTH.min} to ${VECTOR_WIDTH.max} numbers separated by spaces (got ${entries.length}).`);
  }
  return entries.map((entry, i) => {
    const parsed = parseInputEntry(entry);
    if (!parsed.ok) throw new Error(`Entry ${i + 1}, “${entry}”, ${parsed.problem}.`);
    return parsed.value;
  });
}

/** max over the rows of |Σ_j m_ij| (0 for a Jacobian that ignores adding a constant) */
export function largestRowSum(m: MatrixData): number {
  let largest = 0;
  for (let i = 0; i < m.rows; i++) {
    let sum = 0;
    for (let j = 0; j < m.cols; j++) sum += m.data[i * m.cols + j]!;
    largest = Math.max(largest, Math.abs(sum));
  }
  return largest;
}
