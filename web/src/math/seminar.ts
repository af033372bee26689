// Inputs of the seminar's worked examples, and the numbers the documents print for them (to show
// where the printed arithmetic and the engine's disagree); everything else is computed by the engine.
import { fromRows, type MatrixData } from '../math/matrix';

/** Matrices a document prints for one of the example's stages, as printed (rows of decimal text). */
export interface PrintedMatrices {
  q?: readonly (readonly string[])[];
  k?: readonly (readonly string[])[];
  v?: readonly (readonly string[])[];
  /** QKᵀ */
  scores?: readonly (readonly string[])[];
  /** QKᵀ/√d_k */
  scaled?: readonly (readonly string[])[];
  /** the softmax rows, A */
  weights?: readonly (readonly string[])[];
  /** A·V */
  output?: readonly (readonly string[])[];
}

export interface WorkedExample {
  /** what the document is called on the page */
  source: string;
  tokens: readonly string[];
  x: MatrixData;
  wQ: MatrixData;
  wK: MatrixData;
  wV: MatrixData;
  /** the document's numbers, for the scaled and unmasked case it works through */
  printed: PrintedMatrices;
}

/** The slide deck's example: n = 3 tokens, d = 4, d_k = d_v = 2. */
export const DECK_EXAMPLE: WorkedExample = {
  source: 'the slide deck',
  tokens: ['A', 'B', 'C'],
  x: fromRows([[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]]),
  wQ: fromRows([[1, 0], [0, 1], [1, 0], [0, 1]]),
  wK: fromRows([[0, 1], [1, 0], [0, 1], [1, 0]]),
  wV: fromRows([[1, 1], [0, 0], [1, 0], [0, 1]]),
  printed: {
    q: [['2', '0'], ['0', '2'], ['1', '1']],
    k: [['0', '2'], ['2', '0'], ['1', '1']],
    v: [['2', '1'], ['0', '1'], ['1', '1']],
    scores: [['0', '4', '2'], ['4', '0', '2'], ['2', '2', '2']],
    scaled: [['0', '2.83', '1.41'], ['2.83', '0', '1.41'], ['1.41', '1.41', '1.41']],
    weights: [['0.05', '0.78', '0.17'], ['0.78', '0.05', '0.17'], ['0.33', '0.33', '0.33']],
    output: [['0.27', '1.0'], ['1.73', '1.0'], ['1.0', '1.0']],
  },
};

/** The write-up's numerical example (§7): n = 3 tokens, d_model = 2, one head with d_k = d_v = 2. */
export const WRITEUP_EXAMPLE: WorkedExample = {
  source: 'the write-up (§7)',
  tokens: ['t1', 't2', 't3'],
  x: fromRows([[1.0, 0.5], [2.0, 1.0], [0.5, 2.0]]),
  wQ: fromRows([[0.5, 0.3], [0.2, 0.4]]),
  wK: fromRows([[0.3, 0.1], [0.4, 0.2]]),
  wV: fromRows([[0.2, 0.5], [0.3, 0.1]]),
  printed: {
    q: [['0.6', '0.5'], ['1.2', '1.0'], ['0.65', '1.1']],
    k: [['0.5', '0.2'], ['1.0', '0.4'], ['0.95', '0.5']],
    v: [['0.35', '0.55'], ['0.7', '1.1'], ['0.76', '0.45']],
    scores: [['0.40', '0.80', '0.82'], ['0.80', '1.60', '1.64'], ['0.55', '1.09', '1.07']],
    scaled: [['0.283', '0.566', '0.580'], ['0.566', '1.131', '1.160'], ['0.389', '0.771', '0.757']],
    weights: [['0.272', '0.361', '0.367'], ['0.240', '0.327', '0.433'], ['0.262', '0.368', '0.370']],
    output: [['0.597', '0.780'], ['0.630', '0.793'], ['0.600', '0.772']],
  },
};
