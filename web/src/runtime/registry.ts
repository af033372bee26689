// Every widget of the deck, once: its tag, the module that draws it (each in its own chunk of code)
// and its settings, the fields of the page state (state.ts reads them from here for the URL and the
// attributes). loadWidget() loads a widget's code and defines its element; defineWidgets() does so
// when an element comes near the screen, and for the rest one at a time while the page is idle: the
// page shows its first slide without evaluating code for the other slides, and no single task
// evaluates all of it.
import { HEAD_PATTERNS } from '../math/head-patterns';
import { whenIdle } from '../primitives/idle';
import type { FieldRow } from './state';

export const SEMINAR_SENTENCE = 'the cat sat on the mat because it was soft';
export const WORKED_EXAMPLES = ['deck', 'writeup', 'custom'] as const;
export type WorkedExampleName = (typeof WORKED_EXAMPLES)[number];
export const POSITIONAL_KINDS = ['sinusoidal', 'learned', 'rope', 'alibi'] as const;
export type PositionalKind = (typeof POSITIONAL_KINDS)[number];

export const EXPLORER_VIEWS = ['heatmap', 'head', 'model'] as const;
export type ExplorerView = (typeof EXPLORER_VIEWS)[number];
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
export const NORM_PLACEMENTS = ['none', 'pre', 'post'] as const;
export const ACTIVATIONS = ['relu', 'gelu', 'gelu_tanh', 'swiglu'] as const;
/** the built-in pictures of the vision slide, and the patch sizes that cut its 32×32 image evenly */
export const PATCH_PICTURES = ['checkerboard', 'stripes', 'ring', 'letter', 'drawn'] as const;
export const PATCH_SIZES = ['2', '4', '8'] as const;
/** key/value heads of the 8-query-head picture: MHA, two GQA groupings, MQA */
export const PICTURE_KV_HEADS = ['8', '4', '2', '1'] as const;
export const PRECISIONS = ['fp32', 'fp16', 'int8'] as const;
export const PERMUTATION_POSITIONS = ['none', 'sinusoidal'] as const;
/** the RASP programs the engine compiles into weights by hand */
export const RASP_PROGRAMS = ['reverse', 'histogram', 'sort'] as const;

/** the letters the shipped sorting model reads */
export const LETTERS = [...'abcdefghijklmnopqrstuvwxyz'];

/** The model a model widget shows: "" its shipped model, or the name of a model the reader opened
 * (kept in this browser). One row shared by every model widget, so one key in a link (&model=gpt2)
 * sets them all, and choosing a model in one widget of the deck shows it in every other. */
export const MODEL_FIELD = { key: 'model', attribute: 'model', type: 'text', maxLength: 60, default: '' } as const satisfies FieldRow;
/** the most layers and heads a model widget offers (a loaded model narrows them to its own) */
const MAX_LAYER = 47;
const MAX_HEAD = 63;

export interface WidgetEntry {
  tag: string;
  /** the module whose default export is the element's class */
  load: () => Promise<{ default: CustomElementConstructor }>;
  /** its settings: page state, in the URL and in attributes */
  fields: readonly FieldRow[];
  /** attributes that are no page state */
  attributes?: readonly string[];
}

export const WIDGETS: readonly WidgetEntry[] = [
  { tag: 'attn-attention-steps', load: () => import('../widgets/attention-steps'), fields: [
    { key: 'causal', attribute: 'causal', type: 'bool', default: false },
    { key: 'scaled', attribute: 'scaled', type: 'bool', default: true },
    { key: 'q', attribute: 'query', type: 'int', min: 0, max: 7, default: 0 },
    { key: 'stage', attribute: 'step', label: 'stage shown', type: 'int', min: 1, max: 6, default: 1 },
    { key: 'ex', attribute: 'example', type: 'enum', values: WORKED_EXAMPLES, default: 'deck' },
    // the reader's own matrices (math/worked-example.ts encodeCustom); empty: start from the deck's
    { key: 'mx', attribute: 'matrices', type: 'text', maxLength: 2400, default: '' },
    { key: 'check', attribute: 'check', type: 'bool', default: false },
  ] },
  { tag: 'attn-four-steps', load: () => import('../widgets/four-steps'), fields: [
    MODEL_FIELD,
    { key: 'sa', attribute: 'sentence', type: 'text', maxLength: 600, default: SEMINAR_SENTENCE },
    // the shipped coreference model's layer 1, head 3, the head that looks from "it" at its referent
    // (it has 2 layers of 4 heads)
    { key: 'sa-layer', attribute: 'layer', type: 'int', min: 0, max: MAX_LAYER, default: 1 },
    { key: 'sa-head', attribute: 'head', type: 'int', min: 0, max: MAX_HEAD, default: 3 },
    { key: 'sa-step', attribute: 'step', type: 'int', min: 1, max: 4, default: 1 },
  ] },
  { tag: 'attn-positional-encoding', load: () => import('../widgets/positional-encoding'), fields: [
    { key: 'pe', attribute: 'kind', label: 'positional scheme', type: 'enum', values: POSITIONAL_KINDS, default: 'sinusoidal' },
    { key: 'n', attribute: 'n', label: 'positions n', type: 'int', min: 2, max: 128, default: 32 },
    { key: 'd', attribute: 'd', label: 'width d', type: 'int', min: 2, max: 128, default: 32, multipleOf: 2 },
    { key: 'base', attribute: 'base', type: 'int', min: 10, max: 100000, default: 10000 },
    { key: 'head', attribute: 'head', type: 'int', min: 0, max: 7, default: 0 },
  ] },
  { tag: 'attn-architecture', load: () => import('../widgets/architecture'), fields: [
    // an opened model is drawn in place of the family chosen
    MODEL_FIELD,
    { key: 'family', attribute: 'family', label: 'model family', type: 'enum', values: ['encoder-decoder', 'encoder', 'decoder'], default: 'encoder-decoder' },
  ] },
  { tag: 'attn-components', load: () => import('../widgets/components'), fields: [
    MODEL_FIELD,
    { key: 'cs', attribute: 'sentence', type: 'text', maxLength: 600, default: SEMINAR_SENTENCE },
    { key: 'cl', attribute: 'layer', type: 'int', min: 0, max: MAX_LAYER, default: 0 },
    // −1: the reading's own ("it", or an opened model's last token); 127: the last of an opened model's 128
    { key: 'ct', attribute: 'token', type: 'int', min: -1, max: 127, default: -1 },
  ] },
  { tag: 'attn-explorer', load: () => import('../widgets/explorer'), fields: [
    MODEL_FIELD,
    // long enough for 128 tokens of a real model's tokenizer
    { key: 'it', attribute: 'sentence', type: 'text', maxLength: 600, default: SEMINAR_SENTENCE },
    { key: 'tok', attribute: 'token', type: 'int', min: -1, max: 1023, default: -1 },
    // layer and head: the shipped coreference model's layer 1, head 3, the head that looks from
    // "it" at its referent (it has 2 layers of 4 heads)
    { key: 'xlayer', attribute: 'layer', type: 'int', min: 0, max: MAX_LAYER, default: 1 },
    { key: 'xhead', attribute: 'head', type: 'int', min: 0, max: MAX_HEAD, default: 3 },
    { key: 'xview', attribute: 'view', type: 'enum', values: EXPLORER_VIEWS, default: 'heatmap' },
  ] },
  { tag: 'attn-multi-head', load: () => import('../widgets/multi-head'), fields: [
    MODEL_FIELD,
    { key: 'mh', attribute: 'sentence', type: 'text', maxLength: 600, default: SEMINAR_SENTENCE },
    { key: 'mhlayer', attribute: 'layer', type: 'int', min: 0, max: MAX_LAYER, default: 0 },
    { key: 'mhtok', attribute: 'token', type: 'int', min: -1, max: 127, default: -1 },
  ] },
  { tag: 'attn-rnn-gradients', load: () => import('../widgets/rnn-gradients'), fields: [
    { key: 'rnn-t', attribute: 'length', label: 'sequence length T', type: 'int', min: 4, max: 256, default: 64 },
    // W_hh = scale·(random orthogonal): below 1 gradients vanish, above 1 the tanh saturates
    { key: 'rnn-w', attribute: 'scale', label: 'recurrent scale', type: 'number', min: 0.5, max: 1.5, default: 1 },
  ] },
  { tag: 'attn-scaling', load: () => import('../widgets/scaling'), fields: [
    { key: 'dk', attribute: 'dk', label: 'key width dₖ', type: 'int', min: 1, max: 512, default: 64 },
    { key: 'temp', attribute: 'temperature', type: 'number', min: 0.25, max: 4, default: 1 },
  ] },
  { tag: 'attn-causal-mask', load: () => import('../widgets/causal-mask'), fields: [
    // the shipped sorting model reads at most n_ctx = 19 tokens
    { key: 'cm', attribute: 'text', label: 'letters', type: 'text', maxLength: 18, default: 'sortme' },
    { key: 'cm-mask', attribute: 'mask', type: 'bool', default: true },
    { key: 'cm-pos', attribute: 'position', label: 'change position', type: 'int', min: 0, max: 17, default: 3 },
    { key: 'cm-letter', attribute: 'letter', label: 'to letter', type: 'enum', values: LETTERS, default: 'a' },
  ] },
  { tag: 'attn-permutation', load: () => import('../widgets/permutation'), fields: [
    // the shuffle's seed (0: the sentence's own order) and whether the tokens carry positions
    { key: 'pm', attribute: 'sentence', type: 'text', maxLength: 200, default: SEMINAR_SENTENCE },
    { key: 'pm-shuffle', attribute: 'shuffle', type: 'int', min: 0, max: 999, default: 1 },
    { key: 'pm-pe', attribute: 'positions', type: 'enum', values: PERMUTATION_POSITIONS, default: 'none' },
  ] },
  { tag: 'attn-norms', load: () => import('../widgets/norms'), fields: [
    // the vector normalised (numbers separated by spaces) and LayerNorm's scale and shift
    { key: 'nv', attribute: 'vector', label: 'vector x', type: 'text', maxLength: 200, default: '2 -1 0.5 3 -2 1 0 4' },
    { key: 'ng', attribute: 'gamma', label: 'γ', type: 'number', min: 0, max: 4, default: 1 },
    { key: 'nb', attribute: 'beta', label: 'β', type: 'number', min: -2, max: 2, default: 0 },
  ] },
  { tag: 'attn-depth-gradients', load: () => import('../widgets/depth-gradients'), fields: [
    // the depth of the seeded stack and where its norms sit (both residual settings are drawn); it
    // opens without norms, where the claim "residuals keep the gradient alive" holds
    { key: 'dg-l', attribute: 'layers', label: 'layers L', type: 'int', min: 2, max: 48, default: 12 },
    { key: 'dg-norm', attribute: 'norm', label: 'norms', type: 'enum', values: NORM_PLACEMENTS, default: 'none' },
  ] },
  { tag: 'attn-ffn', load: () => import('../widgets/ffn'), fields: [
    // the non-linearity highlighted, and the token and layer of the trained model whose FFN is shown
    { key: 'ff-act', attribute: 'activation', label: 'non-linearity', type: 'enum', values: ACTIVATIONS, default: 'gelu' },
    { key: 'ff-tok', attribute: 'token', type: 'int', min: 0, max: 15, default: 7 },
    { key: 'ff-l', attribute: 'layer', type: 'int', min: 0, max: 1, default: 0 },
  ] },
  { tag: 'attn-families', load: () => import('../widgets/families'), fields: [
    // an opened model stands for the decoder-only family
    MODEL_FIELD,
    // the letters the encoder-decoder reverses, and the decoder layer and head whose cross-attention is drawn
    { key: 'ed', attribute: 'source', label: 'letters to reverse', type: 'text', maxLength: 8, default: 'stressed' },
    { key: 'ed-l', attribute: 'layer', label: 'decoder layer', type: 'int', min: 0, max: 7, default: 1 },
    { key: 'ed-h', attribute: 'head', type: 'int', min: 0, max: 7, default: 0 },
  ] },
  { tag: 'attn-generation', load: () => import('../widgets/generation'), fields: [
    // the language model's text, its sampling (temperature, top-k with 0 = off, top-p, seed), the
    // tokens generated, the generated token whose attention is shown (−1: the last), the head
    MODEL_FIELD,
    { key: 'gen', attribute: 'text', label: 'text to continue', type: 'text', maxLength: 200, default: 'A friend is' },
    { key: 'gen-t', attribute: 'temperature', type: 'number', min: 0, max: 2, default: 0.8 },
    { key: 'gen-k', attribute: 'topK', label: 'top-k', type: 'int', min: 0, max: 1000, default: 0 },
    { key: 'gen-p', attribute: 'topP', label: 'top-p', type: 'number', min: 0.05, max: 1, default: 0.95 },
    { key: 'gen-seed', attribute: 'seed', type: 'int', min: 0, max: 99999, default: 1 },
    { key: 'gen-n', attribute: 'step', label: 'tokens generated', type: 'int', min: 0, max: 127, default: 20 },
    { key: 'gen-tok', attribute: 'token', type: 'int', min: -1, max: 127, default: -1 },
    { key: 'gen-l', attribute: 'layer', type: 'int', min: 0, max: MAX_LAYER, default: 0 },
    { key: 'gen-h', attribute: 'head', type: 'int', min: 0, max: MAX_HEAD, default: 0 },
  ] },
  { tag: 'attn-kv-cache', load: () => import('../widgets/kv-cache'), fields: [
    // the prompt of the language model, the tokens generated after it, and the layer and head drawn
    MODEL_FIELD,
    { key: 'kc', attribute: 'text', label: 'prompt', type: 'text', maxLength: 200, default: 'The cat' },
    { key: 'kc-step', attribute: 'step', label: 'tokens generated', type: 'int', min: 0, max: 127, default: 6 },
    { key: 'kc-l', attribute: 'layer', type: 'int', min: 0, max: MAX_LAYER, default: 0 },
    { key: 'kc-h', attribute: 'head', type: 'int', min: 0, max: MAX_HEAD, default: 0 },
  ] },
  { tag: 'attn-patches', load: () => import('../widgets/patches'), fields: [
    // the picture (built-in, or drawn: 32×32 bits in base64url), the patch size and the query patch
    { key: 'vp', attribute: 'picture', type: 'enum', values: PATCH_PICTURES, default: 'ring' },
    { key: 'vp-px', attribute: 'pixels', type: 'text', maxLength: 172, default: '' },
    { key: 'vp-p', attribute: 'patch', label: 'patch size P', type: 'enum', values: PATCH_SIZES, default: '4' },
    { key: 'vp-q', attribute: 'query', type: 'int', min: 0, max: 255, default: 27 },
  ] },
  { tag: 'attn-complexity', load: () => import('../widgets/complexity'), fields: [
    // the width the n sweep runs at, and its longest n
    { key: 'cx-d', attribute: 'd', label: 'width d', type: 'enum', values: COMPLEXITY_WIDTHS, default: '64' },
    { key: 'cx-n', attribute: 'maxN', label: 'longest n', type: 'enum', values: COMPLEXITY_LENGTHS, default: '2048' },
  ] },
  { tag: 'attn-flash', load: () => import('../widgets/flash'), fields: [
    // the animated small case (n queries and keys, tile rows × columns, tiles done) and the measured n
    { key: 'fl-n', attribute: 'n', type: 'int', min: 2, max: 24, default: 12 },
    { key: 'fl-br', attribute: 'blockRows', label: 'tile rows B_r', type: 'enum', values: FLASH_TILES, default: '4' },
    { key: 'fl-bc', attribute: 'blockCols', label: 'tile columns B_c', type: 'enum', values: FLASH_TILES, default: '4' },
    { key: 'fl-step', attribute: 'step', label: 'tiles done', type: 'int', min: 0, max: 144, default: 0 },
    { key: 'fl-max', attribute: 'maxN', label: 'longest n', type: 'enum', values: FLASH_LENGTHS, default: '16384' },
  ] },
  { tag: 'attn-training', load: () => import('../widgets/training'), fields: [
    // what the page trains: task, model size, seed
    { key: 'tr-task', attribute: 'task', type: 'enum', values: TRAINING_TASKS, default: 'copy' },
    { key: 'tr-size', attribute: 'size', type: 'enum', values: TRAINING_SIZES, default: 'demo' },
    { key: 'tr-seed', attribute: 'seed', type: 'int', min: 0, max: 99999, default: 7 },
  ] },
  { tag: 'attn-scaling-laws', load: () => import('../widgets/scaling-laws'), fields: [
    // which law is drawn large
    { key: 'sl-law', attribute: 'law', label: 'the law drawn', type: 'enum', values: SCALING_LAWS_SHOWN, default: 'N' },
  ] },
  { tag: 'attn-kv-heads', load: () => import('../widgets/kv-heads'), fields: [
    // the picture's key/value heads, and a model the reader sizes: layers, width, query heads, the
    // GQA groups, the context length and the precision of the cache
    { key: 'kv', attribute: 'picture', label: 'key/value heads', type: 'enum', values: PICTURE_KV_HEADS, default: '2' },
    { key: 'kv-l', attribute: 'layers', type: 'int', min: 1, max: 128, default: 32 },
    { key: 'kv-d', attribute: 'd', type: 'int', min: 64, max: 16384, default: 4096, multipleOf: 64 },
    { key: 'kv-h', attribute: 'heads', type: 'int', min: 1, max: 128, default: 32 },
    { key: 'kv-g', attribute: 'groups', type: 'int', min: 1, max: 128, default: 8 },
    { key: 'kv-n', attribute: 'context', label: 'context n', type: 'int', min: 1, max: 1048576, default: 4096 },
    { key: 'kv-b', attribute: 'precision', type: 'enum', values: PRECISIONS, default: 'fp16' },
  ] },
  { tag: 'attn-sinusoidal-shift', load: () => import('../widgets/sinusoidal-shift'), fields: [
    // a position, the shift k and the width of the sinusoidal table
    { key: 'sh-pos', attribute: 'position', label: 'position pos', type: 'int', min: 0, max: 200, default: 3 },
    { key: 'sh-k', attribute: 'k', label: 'shift k', type: 'int', min: 0, max: 100, default: 5 },
    { key: 'sh-d', attribute: 'd', label: 'width d', type: 'int', min: 2, max: 64, default: 16, multipleOf: 2 },
  ] },
  { tag: 'attn-rope', load: () => import('../widgets/rope'), fields: [
    // the query's position m, the key's position n, and which 2-D pair of dimensions is drawn
    { key: 'rope-m', attribute: 'query', label: 'query position m', type: 'int', min: 0, max: 31, default: 2 },
    { key: 'rope-n', attribute: 'key', label: 'key position n', type: 'int', min: 0, max: 31, default: 5 },
    { key: 'rope-pair', attribute: 'pair', label: 'pair i', type: 'int', min: 0, max: 3, default: 0 },
  ] },
  { tag: 'attn-head-finder', load: () => import('../widgets/head-finder'), fields: [
    // the model, the text its heads are scored on ("": the repeated random tokens, of this seed), the pattern drawn
    MODEL_FIELD,
    { key: 'hf', attribute: 'text', label: 'text', type: 'text', maxLength: 600, default: '' },
    { key: 'hf-pattern', attribute: 'pattern', type: 'enum', values: HEAD_PATTERNS, default: 'induction' },
    { key: 'hf-seed', attribute: 'seed', type: 'int', min: 0, max: 99999, default: 1 },
  ] },
  { tag: 'attn-in-context', load: () => import('../widgets/in-context'), fields: [
    // a fresh random sequence, then part of it again; at most the induction model's context less [BOS]
    { key: 'icl', attribute: 'letters', label: 'letters', type: 'text', maxLength: 40, default: 'kQzTwmRbXePzTwmRb' },
    { key: 'icl-seed', attribute: 'seed', label: 'seed', type: 'int', min: 0, max: 99999, default: 7 },
  ] },
  { tag: 'attn-programmed', load: () => import('../widgets/programmed'), fields: [
    // the program compiled, and the letters it reads (longer than the programs' 10: the engine says why it refuses them)
    { key: 'pg', attribute: 'program', type: 'enum', values: RASP_PROGRAMS, default: 'sort' },
    { key: 'pg-text', attribute: 'text', label: 'letters', type: 'text', maxLength: 40, default: 'banana' },
  ] },
  { tag: 'attn-overflow', load: () => import('../widgets/overflow'), fields: [
    // the row of logits and the factor on all of them: it opens at 9, where the default row's largest
    // is 90, past float32's 88.72, so the naive form has already failed (8.8 is one step back)
    { key: 'ov', attribute: 'logits', label: 'logits z', type: 'text', maxLength: 200, default: '10 9.5 8 4' },
    { key: 'ov-s', attribute: 'scale', label: 'scale s', type: 'number', min: 0, max: 10, default: 9 },
  ] },
  { tag: 'attn-attention-map', load: () => import('../widgets/attention-map'), attributes: ['sentence', 'layer', 'head', 'compact'], fields: [] },
];

export const WIDGET_TAGS = WIDGETS.map((widget) => widget.tag);

/** the attributes an element observes: its settings, its own, and the ones every widget takes
 * (`controls`, `height`); lower-cased, as HTML reports them ("topK" → "topk") */
export function observedAttributes(widget: WidgetEntry): string[] {
  return [...widget.fields.map((f) => f.attribute), ...(widget.attributes ?? []), 'controls', 'height'].map((name) => name.toLowerCase());
}

const loading = new Map<string, Promise<unknown>>();

/** loads (once) the code of `tag` and defines its element (an unknown tag: nothing); a load that
 * failed (the network, a page updated meanwhile) is tried again at the next call */
export function loadWidget(tag: string): Promise<unknown> {
  const widget = WIDGETS.find((w) => w.tag === tag);
  if (!widget) return Promise.resolve();
  let promise = loading.get(tag);
  if (!promise) {
    const attributes = observedAttributes(widget);
    promise = widget.load().then(({ default: Widget }) => {
      if (customElements.get(tag)) return;
      customElements.define(tag, class extends Widget {
        static readonly observedAttributes = attributes;
      });
    }, (error: unknown) => {
      loading.delete(tag);
      throw error;
    });
    loading.set(tag, promise);
  }
  return promise;
}

/** an element whose code could not be loaded says so in its own box, and how to recover */
function showLoadFailure(element: Element, error: unknown): void {
  const note = document.createElement('p');
  note.setAttribute('role', 'alert');
  note.textContent = `This widget could not be loaded (${error instanceof Error ? error.message : String(error)}). Reload the page to try again.`;
  element.replaceChildren(note);
}

/** defines the widgets found under `root`: the ones near the screen first, then the others when idle */
export function defineWidgets(root: ParentNode = document): void {
  const elements = WIDGET_TAGS.flatMap((tag) => [...root.querySelectorAll(tag)]);
  const near = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      near.unobserve(entry.target);
      loadWidget(entry.target.localName).catch((error: unknown) => showLoadFailure(entry.target, error));
    }
  }, { rootMargin: '200px' });
  for (const element of elements) near.observe(element);
  const rest = [...new Set(elements.map((e) => e.localName))];
  const next = () => {
    const tag = rest.shift();
    // a widget that fails to load is reported where it is shown; the others still load
    if (tag) void loadWidget(tag).catch(() => undefined).then(() => whenIdle(next));
  };
  whenIdle(next);
}
