// Which entries of a row of numbers matter most: the argmax and the k largest. DOM-free.

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

/** the middle value (the mean of the two middle ones for an even count); NaN for none */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
