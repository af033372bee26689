// The page's one state: the slide shown and every widget's settings, saved to and restored from
// the URL hash so that any view can be shared as a link. One table of fields (FIELDS) drives
// decoding, encoding and the widgets' attributes alike; nothing lists the fields again. DOM-free;
// decoding never throws and clamps whatever it is given.

interface FieldBase {
  /** key in the URL hash, unique over the page */
  key: string;
  /** the custom element and attribute this field sets */
  element: string;
  attribute: string;
  /** what its control is called on the page (default: the attribute's name) */
  label?: string;
}
export interface IntField extends FieldBase { type: 'int'; min: number; max: number; default: number; multipleOf?: number }
export interface NumberField extends FieldBase { type: 'number'; min: number; max: number; default: number }
export interface BoolField extends FieldBase { type: 'bool'; default: boolean }
export interface EnumField extends FieldBase { type: 'enum'; values: readonly string[]; default: string }
export interface TextField extends FieldBase { type: 'text'; maxLength: number; default: string }
export type Field = IntField | NumberField | BoolField | EnumField | TextField;
export type Value = number | boolean | string;

export const SEMINAR_SENTENCE = 'the cat sat on the mat because it was soft';
export const WORKED_EXAMPLES = ['deck', 'writeup', 'custom'] as const;
export type WorkedExampleName = (typeof WORKED_EXAMPLES)[number];
export const POSITIONAL_KINDS = ['sinusoidal', 'learned', 'rope', 'alibi'] as const;
export type PositionalKind = (typeof POSITIONAL_KINDS)[number];

const STEPS = 'attn-attention-steps';
const FOUR_STEPS = 'attn-four-steps';
const POSITIONAL = 'attn-positional-encoding';
const EXPLORER = 'attn-explorer';
const MULTI_HEAD = 'attn-multi-head';
export const EXPLORER_VIEWS = ['heatmap', 'head', 'model'] as const;
export type ExplorerView = (typeof EXPLORER_VIEWS)[number];
const ARCHITECTURE = 'attn-architecture';
const COMPONENTS = 'attn-components';
const RNN_GRADIENTS = 'attn-rnn-gradients';
const SCALING = 'attn-scaling';
const CAUSAL_MASK = 'attn-causal-mask';
const PERMUTATION = 'attn-permutation';
const ROPE = 'attn-rope';
const SHIFT = 'attn-sinusoidal-shift';
const KV_HEADS = 'attn-kv-heads';
const NORMS = 'attn-norms';
const DEPTH_GRADIENTS = 'attn-depth-gradients';
const FFN = 'attn-ffn';
const PATCHES = 'attn-patches';
const KV_CACHE = 'attn-kv-cache';
const GENERATION = 'attn-generation';
const FAMILIES = 'attn-families';
const COMPLEXITY = 'attn-complexity';
const FLASH = 'attn-flash';
const TRAINING = 'attn-training';
const SCALING_LAWS = 'attn-scaling-laws';
/** widths the complexity slide sweeps n at, and the longest n it goes to */
export const COMPLEXITY_WIDTHS = ['32', '64', '128'] as const;
export const COMPLEXITY_LENGTHS = ['1024', '2048', '4096'] as const;
/** flash attention's tile sides in the animation, and the longest n of its measurement */
export const FLASH_TILES = ['2', '3', '4', '6', '8'] as const;
export const FLASH_LENGTHS = ['4096', '8192', '16384', '32768'] as const;
/** the tasks the page trains, and the model sizes it offers (demo: the shipped models' shape) */
export const TRAINING_TASKS = ['copy', 'reverse', 'sort', 'coreference'] as const;
export const TRAINING_SIZES = ['small', 'demo', 'large'] as const;
/** the three laws of Kaplan et al. (2020): loss against parameters, data, compute */
export const SCALING_LAWS_SHOWN = ['N', 'D', 'C'] as const;
/** where each block's norm sits: before its sub-layers (pre-LN), after the residual sum (post-LN), or none */
export const NORM_PLACEMENTS = ['pre', 'post', 'none'] as const;
export const ACTIVATIONS = ['relu', 'gelu', 'gelu_tanh', 'swiglu'] as const;
/** the built-in pictures of the vision slide, and the patch sizes that cut its 32×32 image evenly */
export const PATCH_PICTURES = ['checkerboard', 'stripes', 'ring', 'letter', 'drawn'] as const;
export const PATCH_SIZES = ['2', '4', '8'] as const;
/** key/value heads of the 8-query-head picture: MHA, two GQA groupings, MQA */
export const PICTURE_KV_HEADS = ['8', '4', '2', '1'] as const;
export const PRECISIONS = ['fp32', 'fp16', 'int8'] as const;
export const PERMUTATION_POSITIONS = ['none', 'sinusoidal'] as const;
/** the letters the shipped sorting model reads */
export const LETTERS = [...'abcdefghijklmnopqrstuvwxyz'];

/** Every setting a reader can change, with its type, limits and default. */
export const FIELDS: readonly Field[] = [
  { key: 'causal', element: STEPS, attribute: 'causal', type: 'bool', default: false },
  { key: 'scaled', element: STEPS, attribute: 'scaled', type: 'bool', default: true },
  { key: 'q', element: STEPS, attribute: 'query', type: 'int', min: 0, max: 7, default: 0 },
  { key: 'stage', element: STEPS, attribute: 'step', label: 'stage shown', type: 'int', min: 0, max: 5, default: 0 },
  { key: 'ex', element: STEPS, attribute: 'example', type: 'enum', values: WORKED_EXAMPLES, default: 'deck' },
  // the reader's own matrices (math/worked-example.ts encodeCustom); empty: start from the deck's
  { key: 'mx', element: STEPS, attribute: 'matrices', type: 'text', maxLength: 2400, default: '' },
  { key: 'check', element: STEPS, attribute: 'check', type: 'bool', default: false },

  { key: 'sa-layer', element: FOUR_STEPS, attribute: 'layer', type: 'int', min: 0, max: 1, default: 1 },
  { key: 'sa-head', element: FOUR_STEPS, attribute: 'head', type: 'int', min: 0, max: 3, default: 0 },
  { key: 'sa-step', element: FOUR_STEPS, attribute: 'step', type: 'int', min: 1, max: 4, default: 1 },

  { key: 'pe', element: POSITIONAL, attribute: 'kind', label: 'positional scheme', type: 'enum', values: POSITIONAL_KINDS, default: 'sinusoidal' },
  { key: 'n', element: POSITIONAL, attribute: 'n', label: 'positions n', type: 'int', min: 2, max: 128, default: 32 },
  { key: 'd', element: POSITIONAL, attribute: 'd', label: 'width d', type: 'int', min: 2, max: 128, default: 32, multipleOf: 2 },
  { key: 'base', element: POSITIONAL, attribute: 'base', type: 'int', min: 10, max: 100000, default: 10000 },
  { key: 'head', element: POSITIONAL, attribute: 'head', type: 'int', min: 0, max: 7, default: 0 },

  { key: 'family', element: ARCHITECTURE, attribute: 'family', label: 'model family', type: 'enum', values: ['encoder-decoder', 'encoder', 'decoder'], default: 'encoder-decoder' },

  { key: 'cl', element: COMPONENTS, attribute: 'layer', type: 'int', min: 0, max: 1, default: 0 },
  { key: 'ct', element: COMPONENTS, attribute: 'token', type: 'int', min: 0, max: 63, default: 7 },

  { key: 'it', element: EXPLORER, attribute: 'sentence', type: 'text', maxLength: 200, default: SEMINAR_SENTENCE },
  { key: 'tok', element: EXPLORER, attribute: 'token', type: 'int', min: -1, max: 63, default: -1 },
  // layer and head of the shipped coreference model (2 layers, 4 heads)
  { key: 'xlayer', element: EXPLORER, attribute: 'layer', type: 'int', min: 0, max: 1, default: 1 },
  { key: 'xhead', element: EXPLORER, attribute: 'head', type: 'int', min: 0, max: 3, default: 0 },
  { key: 'xview', element: EXPLORER, attribute: 'view', type: 'enum', values: EXPLORER_VIEWS, default: 'heatmap' },

  { key: 'mh', element: MULTI_HEAD, attribute: 'sentence', type: 'text', maxLength: 200, default: SEMINAR_SENTENCE },
  { key: 'mhlayer', element: MULTI_HEAD, attribute: 'layer', type: 'int', min: 0, max: 1, default: 0 },
  { key: 'mhtok', element: MULTI_HEAD, attribute: 'token', type: 'int', min: -1, max: 63, default: -1 },

  { key: 'rnn-t', element: RNN_GRADIENTS, attribute: 'length', label: 'sequence length T', type: 'int', min: 4, max: 256, default: 64 },
  // W_hh = scale·(random orthogonal): below 1 gradients vanish, above 1 the tanh saturates
  { key: 'rnn-w', element: RNN_GRADIENTS, attribute: 'scale', label: 'recurrent scale', type: 'number', min: 0.5, max: 1.5, default: 1 },

  { key: 'dk', element: SCALING, attribute: 'dk', label: 'key width dₖ', type: 'int', min: 1, max: 512, default: 64 },
  { key: 'temp', element: SCALING, attribute: 'temperature', type: 'number', min: 0.25, max: 4, default: 1 },

  // the shipped sorting model reads at most n_ctx = 19 tokens
  { key: 'cm', element: CAUSAL_MASK, attribute: 'text', label: 'letters', type: 'text', maxLength: 18, default: 'sortme' },
  { key: 'cm-mask', element: CAUSAL_MASK, attribute: 'mask', type: 'bool', default: true },
  { key: 'cm-pos', element: CAUSAL_MASK, attribute: 'position', label: 'change position', type: 'int', min: 0, max: 17, default: 3 },
  { key: 'cm-letter', element: CAUSAL_MASK, attribute: 'letter', label: 'to letter', type: 'enum', values: LETTERS, default: 'a' },

  // the shuffle's seed (0: the sentence's own order) and whether the tokens carry positions
  { key: 'pm', element: PERMUTATION, attribute: 'sentence', type: 'text', maxLength: 200, default: SEMINAR_SENTENCE },
  { key: 'pm-shuffle', element: PERMUTATION, attribute: 'shuffle', type: 'int', min: 0, max: 999, default: 1 },
  { key: 'pm-pe', element: PERMUTATION, attribute: 'positions', type: 'enum', values: PERMUTATION_POSITIONS, default: 'none' },

  // the vector normalised (numbers separated by spaces) and LayerNorm's scale and shift
  { key: 'nv', element: NORMS, attribute: 'vector', label: 'vector x', type: 'text', maxLength: 200, default: '2 -1 0.5 3 -2 1 0 4' },
  { key: 'ng', element: NORMS, attribute: 'gamma', label: 'γ', type: 'number', min: 0, max: 4, default: 1 },
  { key: 'nb', element: NORMS, attribute: 'beta', label: 'β', type: 'number', min: -2, max: 2, default: 0 },

  // the depth of the seeded stack and where its norms sit (both residual settings are drawn)
  { key: 'dg-l', element: DEPTH_GRADIENTS, attribute: 'layers', type: 'int', min: 2, max: 48, default: 12 },
  { key: 'dg-norm', element: DEPTH_GRADIENTS, attribute: 'norm', type: 'enum', values: NORM_PLACEMENTS, default: 'pre' },

  // the non-linearity highlighted, and the token and layer of the trained model whose FFN is shown
  { key: 'ff-act', element: FFN, attribute: 'activation', type: 'enum', values: ACTIVATIONS, default: 'gelu' },
  { key: 'ff-tok', element: FFN, attribute: 'token', type: 'int', min: 0, max: 15, default: 7 },
  { key: 'ff-l', element: FFN, attribute: 'layer', type: 'int', min: 0, max: 1, default: 0 },

  // the letters the encoder-decoder reverses, and the decoder layer and head whose cross-attention is drawn
  { key: 'ed', element: FAMILIES, attribute: 'source', label: 'letters to reverse', type: 'text', maxLength: 8, default: 'stressed' },
  { key: 'ed-l', element: FAMILIES, attribute: 'layer', label: 'decoder layer', type: 'int', min: 0, max: 7, default: 1 },
  { key: 'ed-h', element: FAMILIES, attribute: 'head', type: 'int', min: 0, max: 7, default: 0 },

  // the language model's text, its sampling (temperature, top-k with 0 = off, top-p, seed), the
  // characters generated, the generated character whose attention is shown (−1: the last), the head
  { key: 'gen', element: GENERATION, attribute: 'text', label: 'text to continue', type: 'text', maxLength: 60, default: 'The ' },
  { key: 'gen-t', element: GENERATION, attribute: 'temperature', type: 'number', min: 0, max: 2, default: 0.8 },
  { key: 'gen-k', element: GENERATION, attribute: 'topK', label: 'top-k', type: 'int', min: 0, max: 128, default: 0 },
  { key: 'gen-p', element: GENERATION, attribute: 'topP', label: 'top-p', type: 'number', min: 0.05, max: 1, default: 0.95 },
  { key: 'gen-seed', element: GENERATION, attribute: 'seed', type: 'int', min: 0, max: 99999, default: 1 },
  { key: 'gen-n', element: GENERATION, attribute: 'step', label: 'characters generated', type: 'int', min: 0, max: 127, default: 40 },
  { key: 'gen-tok', element: GENERATION, attribute: 'token', type: 'int', min: -1, max: 127, default: -1 },
  { key: 'gen-l', element: GENERATION, attribute: 'layer', type: 'int', min: 0, max: 7, default: 0 },
  { key: 'gen-h', element: GENERATION, attribute: 'head', type: 'int', min: 0, max: 7, default: 0 },

  // the prompt of the language model, the tokens generated after it, and the layer and head drawn
  { key: 'kc', element: KV_CACHE, attribute: 'text', label: 'prompt', type: 'text', maxLength: 40, default: 'The cat ' },
  { key: 'kc-step', element: KV_CACHE, attribute: 'step', label: 'tokens generated', type: 'int', min: 0, max: 127, default: 6 },
  { key: 'kc-l', element: KV_CACHE, attribute: 'layer', type: 'int', min: 0, max: 7, default: 0 },
  { key: 'kc-h', element: KV_CACHE, attribute: 'head', type: 'int', min: 0, max: 7, default: 0 },

  // the picture (built-in, or drawn: 32×32 bits in base64url), the patch size and the query patch
  { key: 'vp', element: PATCHES, attribute: 'picture', type: 'enum', values: PATCH_PICTURES, default: 'ring' },
  { key: 'vp-px', element: PATCHES, attribute: 'pixels', type: 'text', maxLength: 172, default: '' },
  { key: 'vp-p', element: PATCHES, attribute: 'patch', label: 'patch size P', type: 'enum', values: PATCH_SIZES, default: '4' },
  { key: 'vp-q', element: PATCHES, attribute: 'query', type: 'int', min: 0, max: 255, default: 27 },

  // the width the n sweep runs at, and its longest n
  { key: 'cx-d', element: COMPLEXITY, attribute: 'd', type: 'enum', values: COMPLEXITY_WIDTHS, default: '64' },
  { key: 'cx-n', element: COMPLEXITY, attribute: 'maxN', type: 'enum', values: COMPLEXITY_LENGTHS, default: '2048' },

  // the animated small case (n queries and keys, tile rows × columns, tiles done) and the measured n
  { key: 'fl-n', element: FLASH, attribute: 'n', type: 'int', min: 2, max: 24, default: 12 },
  { key: 'fl-br', element: FLASH, attribute: 'blockRows', type: 'enum', values: FLASH_TILES, default: '4' },
  { key: 'fl-bc', element: FLASH, attribute: 'blockCols', type: 'enum', values: FLASH_TILES, default: '4' },
  { key: 'fl-step', element: FLASH, attribute: 'step', type: 'int', min: 0, max: 144, default: 0 },
  { key: 'fl-max', element: FLASH, attribute: 'maxN', type: 'enum', values: FLASH_LENGTHS, default: '16384' },

  // what the page trains: task, model size, seed
  { key: 'tr-task', element: TRAINING, attribute: 'task', type: 'enum', values: TRAINING_TASKS, default: 'copy' },
  { key: 'tr-size', element: TRAINING, attribute: 'size', type: 'enum', values: TRAINING_SIZES, default: 'demo' },
  { key: 'tr-seed', element: TRAINING, attribute: 'seed', type: 'int', min: 0, max: 99999, default: 7 },

  // which law is drawn large
  { key: 'sl-law', element: SCALING_LAWS, attribute: 'law', type: 'enum', values: SCALING_LAWS_SHOWN, default: 'N' },

  // the picture's key/value heads, and a model the reader sizes: layers, width, query heads, the
  // GQA groups, the context length and the precision of the cache
  { key: 'kv', element: KV_HEADS, attribute: 'picture', label: 'key/value heads', type: 'enum', values: PICTURE_KV_HEADS, default: '2' },
  { key: 'kv-l', element: KV_HEADS, attribute: 'layers', type: 'int', min: 1, max: 128, default: 32 },
  { key: 'kv-d', element: KV_HEADS, attribute: 'd', type: 'int', min: 64, max: 16384, default: 4096, multipleOf: 64 },
  { key: 'kv-h', element: KV_HEADS, attribute: 'heads', type: 'int', min: 1, max: 128, default: 32 },
  { key: 'kv-g', element: KV_HEADS, attribute: 'groups', type: 'int', min: 1, max: 128, default: 8 },
  { key: 'kv-n', element: KV_HEADS, attribute: 'context', label: 'context n', type: 'int', min: 1, max: 1048576, default: 4096 },
  { key: 'kv-b', element: KV_HEADS, attribute: 'precision', type: 'enum', values: PRECISIONS, default: 'fp16' },

  // a position, the shift k and the width of the sinusoidal table
  { key: 'sh-pos', element: SHIFT, attribute: 'position', label: 'position pos', type: 'int', min: 0, max: 200, default: 3 },
  { key: 'sh-k', element: SHIFT, attribute: 'k', label: 'shift k', type: 'int', min: 0, max: 100, default: 5 },
  { key: 'sh-d', element: SHIFT, attribute: 'd', label: 'width d', type: 'int', min: 2, max: 64, default: 16, multipleOf: 2 },

  // the query's position m, the key's position n, and which 2-D pair of dimensions is drawn
  { key: 'rope-m', element: ROPE, attribute: 'query', label: 'query position m', type: 'int', min: 0, max: 31, default: 2 },
  { key: 'rope-n', element: ROPE, attribute: 'key', label: 'key position n', type: 'int', min: 0, max: 31, default: 5 },
  { key: 'rope-pair', element: ROPE, attribute: 'pair', label: 'pair i', type: 'int', min: 0, max: 3, default: 0 },
];

export function fieldsOf(element: string): Field[] {
  return FIELDS.filter((f) => f.element === element);
}

export function fieldFor(element: string, attribute: string): Field | undefined {
  return FIELDS.find((f) => f.element === element && f.attribute === attribute);
}

/** a numeric setting's range and step, for its slider */
export function limitsOf(element: string, attribute: string): { min: number; max: number; step: number } {
  const field = fieldFor(element, attribute);
  if (!field || (field.type !== 'int' && field.type !== 'number')) throw new Error(`${element} has no numeric setting "${attribute}"`);
  return { min: field.min, max: field.max, step: field.type === 'int' ? field.multipleOf ?? 1 : (field.max - field.min) / 100 };
}

/** text (from a URL or an attribute; null = absent) → the field's value, clamped; the default
 * when absent or unreadable. A boolean attribute that is present but empty means true. */
export function parseValue(field: Field, text: string | null): Value {
  if (text === null) return field.default;
  switch (field.type) {
    case 'bool':
      if (text === '' || text === '1' || text === 'true') return true;
      if (text === '0' || text === 'false') return false;
      return field.default;
    case 'enum':
      return field.values.includes(text) ? text : field.default;
    case 'text':
      return [...text].slice(0, field.maxLength).join('');
    case 'int':
    case 'number': {
      const value = text.trim() === '' ? NaN : Number(text);
      if (!Number.isFinite(value)) return field.default;
      const clamped = Math.min(field.max, Math.max(field.min, value));
      if (field.type === 'number') return clamped;
      const unit = field.multipleOf ?? 1;
      return Math.min(field.max, Math.max(field.min, unit * Math.round(clamped / unit)));
    }
  }
}

/** the field's value as text for a URL or an attribute */
export function formatValue(field: Field, value: Value): string {
  if (field.type === 'bool') return value ? '1' : '0';
  return String(value);
}

export interface PageState {
  /** id of the slide shown ('' = the first) */
  slide: string;
  /** settings that differ from their defaults, by URL key */
  values: Map<string, Value>;
}

/** "#worked-example&causal=1&q=2" → state (unknown keys ignored, values clamped) */
export function decodeHash(hash: string): PageState {
  const text = hash.replace(/^#/, '');
  const [first = '', ...rest] = text.split('&');
  const slide = first.includes('=') ? '' : safeDecode(first);
  const params = new URLSearchParams((first.includes('=') ? [first, ...rest] : rest).join('&'));
  const values = new Map<string, Value>();
  for (const field of FIELDS) {
    if (!params.has(field.key)) continue;
    const value = parseValue(field, params.get(field.key));
    if (value !== field.default) values.set(field.key, value);
  }
  return { slide, values };
}

/** state → "#slide&key=value…", listing only settings that differ from their defaults */
export function encodeHash(state: PageState): string {
  const params = new URLSearchParams();
  for (const field of FIELDS) {
    const value = state.values.get(field.key);
    if (value !== undefined && value !== field.default) params.set(field.key, formatValue(field, value));
  }
  const query = params.toString();
  const slide = encodeURIComponent(state.slide);
  return `#${slide}${query ? `&${query}` : ''}`;
}

/** the state with one setting changed (a default value is dropped from the state) */
export function withValue(state: PageState, field: Field, value: Value): PageState {
  const values = new Map(state.values);
  if (value === field.default) values.delete(field.key);
  else values.set(field.key, value);
  return { ...state, values };
}

/** the attributes a widget should carry for this state: [name, text or null to remove] */
export function attributesFor(element: string, state: PageState): [string, string | null][] {
  return fieldsOf(element).map((field) => {
    const value = state.values.get(field.key);
    return [field.attribute, value === undefined ? null : formatValue(field, value)];
  });
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return '';
  }
}
