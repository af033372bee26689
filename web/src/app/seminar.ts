// Inputs of the seminar's worked examples (facts from the slide deck); everything derived from
// them is computed by the engine.
import { fromRows } from '../math/matrix';

/** The slide deck's example: n = 3 tokens, d = 4, d_k = d_v = 2. */
export const DECK_EXAMPLE = {
  tokens: ['A', 'B', 'C'],
  x: fromRows([[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]]),
  wQ: fromRows([[1, 0], [0, 1], [1, 0], [0, 1]]),
  wK: fromRows([[0, 1], [1, 0], [0, 1], [1, 0]]),
  wV: fromRows([[1, 1], [0, 0], [1, 0], [0, 1]]),
} as const;
