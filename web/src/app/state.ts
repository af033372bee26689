// The page's one typed state, saved to and restored from the URL hash, so that any view can be
// shared or embedded as a link. DOM-free; decoding never throws and clamps whatever it is given.

export interface AppState {
  attention: {
    causal: boolean;
    scaled: boolean;
    /** which query row is highlighted */
    query: number;
  };
  positional: {
    kind: PositionalKind;
    n: number;
    d: number;
    base: number;
    /** ALiBi head whose bias is shown */
    head: number;
  };
  coreference: {
    /** a sentence of the trained model's language */
    sentence: string;
    /** the word whose attention is shown; −1 means "it" */
    token: number;
  };
}

export const SEMINAR_SENTENCE = 'the cat sat on the mat because it was soft';

export const POSITIONAL_KINDS = ['sinusoidal', 'learned', 'rope', 'alibi'] as const;
export type PositionalKind = (typeof POSITIONAL_KINDS)[number];

export const LIMITS = {
  query: { min: 0, max: 2 },
  n: { min: 2, max: 128 },
  d: { min: 2, max: 128 },
  base: { min: 10, max: 100000 },
  head: { min: 0, max: 7 },
  token: { min: -1, max: 15 },
  sentenceLength: 200,
} as const;

export function defaultState(): AppState {
  return {
    attention: { causal: false, scaled: true, query: 0 },
    positional: { kind: 'sinusoidal', n: 32, d: 32, base: 10000, head: 0 },
    coreference: { sentence: SEMINAR_SENTENCE, token: -1 },
  };
}

function clampInt(text: string | null, fallback: number, { min, max }: { min: number; max: number }) {
  const value = text === null ? NaN : Number(text);
  if (!Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.round(value)));
}

function flag(text: string | null, fallback: boolean): boolean {
  if (text === '1' || text === 'true') return true;
  if (text === '0' || text === 'false') return false;
  return fallback;
}

/** "#causal=1&scaled=0&q=2&pe=rope&n=32&d=32&base=10000&head=3" → state (unknown keys ignored, values clamped) */
export function decodeState(hash: string): AppState {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const s = defaultState();
  return {
    attention: {
      causal: flag(params.get('causal'), s.attention.causal),
      scaled: flag(params.get('scaled'), s.attention.scaled),
      query: clampInt(params.get('q'), s.attention.query, LIMITS.query),
    },
    positional: {
      kind: POSITIONAL_KINDS.find((k) => k === params.get('pe')) ?? s.positional.kind,
      n: clampInt(params.get('n'), s.positional.n, LIMITS.n),
      d: 2 * Math.round(clampInt(params.get('d'), s.positional.d, LIMITS.d) / 2),
      base: clampInt(params.get('base'), s.positional.base, LIMITS.base),
      head: clampInt(params.get('head'), s.positional.head, LIMITS.head),
    },
    coreference: {
      sentence: (params.get('it') ?? s.coreference.sentence).slice(0, LIMITS.sentenceLength),
      token: clampInt(params.get('tok'), s.coreference.token, LIMITS.token),
    },
  };
}

/** state → "#…", listing only what differs from the defaults */
export function encodeState(state: AppState): string {
  const s = defaultState();
  const params = new URLSearchParams();
  if (state.attention.causal !== s.attention.causal) params.set('causal', state.attention.causal ? '1' : '0');
  if (state.attention.scaled !== s.attention.scaled) params.set('scaled', state.attention.scaled ? '1' : '0');
  if (state.attention.query !== s.attention.query) params.set('q', String(state.attention.query));
  if (state.positional.kind !== s.positional.kind) params.set('pe', state.positional.kind);
  if (state.positional.n !== s.positional.n) params.set('n', String(state.positional.n));
  if (state.positional.d !== s.positional.d) params.set('d', String(state.positional.d));
  if (state.positional.base !== s.positional.base) params.set('base', String(state.positional.base));
  if (state.positional.head !== s.positional.head) params.set('head', String(state.positional.head));
  if (state.coreference.sentence !== s.coreference.sentence) params.set('it', state.coreference.sentence);
  if (state.coreference.token !== s.coreference.token) params.set('tok', String(state.coreference.token));
  const text = params.toString();
  return text ? `#${text}` : '';
}
