// Which entries of a row of numbers matter most: the argmax, the k largest, and one entry's share
// of a softmax over logits (for a label such as "p = 0.998"). DOM-free.

/** index of the largest finite entry (the first on ties; −1 when there is none) */
export function argmax(values: ArrayLike<number>): number {
  let best = -1;
  for (let i = 0; i < values.length; i++) {
    if (Number.isFinite(values[i]) && (best < 0 || values[i] > values[best])) best = i;
  }
  return best;
}

/** indices of the k largest finite entries, largest first (earlier index first on ties) */
export function topIndices(values: ArrayLike<number>, k: number): number[] {
  const indices: number[] = [];
  for (let i = 0; i < values.length; i++) if (Number.isFinite(values[i])) indices.push(i);
  return indices.sort((a, b) => values[b] - values[a] || a - b).slice(0, Math.max(0, k));
}

/** exp(z_index) / Σ exp(z_j) over finite logits, computed stably; NaN for a non-finite entry */
export function probabilityOf(logits: ArrayLike<number>, index: number): number {
  const top = logits[argmax(logits)];
  if (!Number.isFinite(logits[index])) return NaN;
  let sum = 0;
  for (let j = 0; j < logits.length; j++) if (Number.isFinite(logits[j])) sum += Math.exp(logits[j] - top);
  return Math.exp(logits[index] - top) / sum;
}
