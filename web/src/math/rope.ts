// The RoPE slide's setup and the geometry of its picture, DOM-free: the inputs of one head whose
// positions differ only by their rotation, and where a rotated 2-D pair points. The rotation and
// the scores are the engine's.
import { at, type MatrixData } from './matrix';

/** positions and width of the demonstration: four 2-D pairs */
export const ROPE_DEMO = { n: 32, d: 8 } as const;
/** the token vector, the same at every position: pairs of different lengths and angles */
const V = [1, 0.5, 0.8, -0.3, 0.6, 0.9, -0.7, 0.4];
/** W_K as a signed permutation, k_j = sign_j · v_from(j): another vector than q, with the slow pairs
 * (2, 3) at right angles to q's so that the scores change sign along the fast pairs' stripes */
const KEY_FROM = [3, 2, 0, 1, 5, 4, 7, 6];
const KEY_SIGN = [-1, 1, 1, 1, -1, 1, 1, -1];

/** the engine's inputs: x = v at all positions, [W_Q | W_K | W_V] = [I | signed permutation | I], W_O = I */
export function ropeDemoInputs() {
  const { n, d } = ROPE_DEMO;
  const x = new Float32Array(n * d);
  for (let p = 0; p < n; p++) x.set(V, p * d);
  const cAttnWeight = new Float32Array(d * 3 * d);
  const cProjWeight = new Float32Array(d * d);
  for (let i = 0; i < d; i++) {
    cAttnWeight[i * 3 * d + i] = 1;
    cAttnWeight[i * 3 * d + 2 * d + i] = 1;
    cAttnWeight[KEY_FROM[i]! * 3 * d + d + i] = KEY_SIGN[i]!;
    cProjWeight[i * d + i] = 1;
  }
  return { x, n, d, heads: 1, rope: true, scaled: false, cAttnWeight, cAttnBias: new Float32Array(3 * d), cProjWeight,
    cProjBias: new Float32Array(d) };
}

/** an angle in (−π, π] */
export const wrapAngle = (a: number) => Math.atan2(Math.sin(a), Math.cos(a));
export const degrees = (a: number) => (a * 180) / Math.PI;

/** pair `pair` (dimensions 2·pair and 2·pair + 1) of row `position`, as a point of its plane */
export function pairPoint(m: MatrixData, position: number, pair: number): [number, number] {
  return [at(m, position, 2 * pair), at(m, position, 2 * pair + 1)];
}

/** the direction a pair points in, in radians */
function direction(m: MatrixData, position: number, pair: number): number {
  const [x, y] = pairPoint(m, position, pair);
  return Math.atan2(y, x);
}

/** where the query's pair points at m, the turn from it to the key's pair at n, and the turn of
 * the query's pair from one position to the next, in radians */
export function pairAngles(q: MatrixData, k: MatrixData, pair: number, m: number, n: number): { from: number; between: number; perPosition: number } {
  const from = direction(q, m, pair);
  return { from, between: wrapAngle(direction(k, n, pair) - from), perPosition: wrapAngle(direction(q, 1, pair) - direction(q, 0, pair)) };
}

/** the longest pair of the first row of the given matrices (rotations keep lengths: one scale fits every position) */
export function longestPair(...matrices: MatrixData[]): number {
  let longest = 0;
  for (const m of matrices) for (let i = 0; i < m.cols; i += 2) longest = Math.max(longest, Math.hypot(at(m, 0, i), at(m, 0, i + 1)));
  return longest;
}
