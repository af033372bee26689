// Grouped-query attention's bookkeeping, DOM-free: which key/value head a query head reads, and
// whether a model's sizes fit together. The attention and the budgets are the engine's.

/** the key/value head that query head `head` of `heads` reads when `kvHeads` are shared in equal groups */
export function kvHeadOf(head: number, heads: number, kvHeads: number): number {
  return Math.floor((head * kvHeads) / heads);
}

/** what keeps width d, h query heads and g key/value groups from making a model, or undefined */
export function sizeProblem({ d, heads, groups }: { d: number; heads: number; groups: number }): string | undefined {
  if (heads > d || d % heads !== 0) return `h = ${heads} must divide d = ${d}.`;
  if (heads % groups !== 0) return `GQA's g = ${groups} must divide h = ${heads}.`;
  return undefined;
}

/** the fused projection [W_Q | W_K | W_V] (d × (d + 2·kvWidth), row-major) of a layer whose keys
 * and values keep the first kvWidth columns of the d × d matrices wk and wv */
export function fusedProjection(wq: Float32Array, wk: Float32Array, wv: Float32Array, d: number, kvWidth: number): Float32Array {
  const width = d + 2 * kvWidth;
  const fused = new Float32Array(d * width);
  for (let r = 0; r < d; r++) {
    fused.set(wq.subarray(r * d, (r + 1) * d), r * width);
    fused.set(wk.subarray(r * d, r * d + kvWidth), r * width + d);
    fused.set(wv.subarray(r * d, r * d + kvWidth), r * width + d + kvWidth);
  }
  return fused;
}
