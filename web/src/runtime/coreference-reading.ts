// The shipped coreference model reading a sentence a reader typed: its tokens and their labels,
// the words outside its vocabulary, whether the text is a sentence of the model's toy language
// (only then does its reading of "it" mean anything), and one forward pass with the attention
// weights asked for. Shared by the attention widgets; every number comes from the engine.
import type { CoreferenceSentence, MatrixData, ModelConfig } from '../engine/index';
import { argmax } from '../math/ranking';
import { isByteLevel, tokenLabels } from '../math/token-pieces';
import { pageModel, type RemoteEngine, type RemoteModel } from './engine';

/** the id the tokenizer gives a word outside the vocabulary ([UNK]) */
const UNKNOWN_ID = 1;
const PRONOUN = 'it';
/** unknown words named at most (the rest are counted) */
const NAMED_WORDS = 10;

export interface SentenceReading {
  model: RemoteModel;
  config: Required<ModelConfig>;
  /** the ids the model reads (at most n_ctx) */
  tokens: Int32Array;
  /** one label per token: the word as typed (lowercased by the tokenizer) */
  labels: string[];
  /** positions whose word is outside the vocabulary (read as [UNK]) */
  unknownAt: Set<number>;
  /** those words, each once, in order (of the tokens read) */
  unknownWords: string[];
  /** tokens beyond `limit` that were left out */
  dropped: number;
  /** the most tokens read: the model's context, or fewer for a large model */
  limit: number;
  /** the parse when the text is a sentence of the language */
  sentence?: CoreferenceSentence;
  /** the text is not a sentence of the language (the parser's message would only repeat it) */
  notInLanguage: boolean;
  /** position of "it" (−1: the text has none) */
  pronoun: number;
  /** the query row shown unless the reader picks one: "it", else the first token (a model the
   * reader opened: the last, which sees the whole text) */
  defaultQuery: number;
}

export interface ItReading {
  /** the word the model reads "it" as, and its probability */
  word: string;
  probability: number;
  /** whether it is the referent the language's grammar gives */
  right: boolean;
}

export const weightsName = (layer: number, head: number) => `layer${layer}.attn.head${head}.weights`;

/** Tokenizes `text` for the shipped coreference model and parses it as a sentence of its language. */
export async function readSentence(engine: RemoteEngine, text: string): Promise<SentenceReading> {
  const model = await pageModel('coreference');
  const [config, tokenized, sentence] = await Promise.all([
    model.config(),
    model.tokenize(text),
    engine.coreferenceSentence(text).catch(() => undefined),
  ]);
  if (sentence) {
    // the parser drops the punctuation the vocabulary lacks and keeps every word, so the words are
    // the pieces the tokenizer knows (no further round trip to the engine, which serves every widget)
    const labels = tokenized.pieces.filter((_, i) => tokenized.ids[i] !== UNKNOWN_ID);
    if (labels.length !== sentence.tokens.length) throw new Error('The parse and the tokenizer disagree on this sentence.');
    return { model, config, tokens: sentence.tokens, labels, unknownAt: new Set(), unknownWords: [], dropped: 0, limit: config.n_ctx,
      sentence, notInLanguage: false, pronoun: sentence.pronoun, defaultQuery: sentence.pronoun };
  }
  const kept = Math.min(tokenized.ids.length, config.n_ctx);
  const tokens = tokenized.ids.slice(0, kept);
  const labels = tokenized.pieces.slice(0, kept);
  const unknownAt = new Set<number>();
  tokens.forEach((id, i) => id === UNKNOWN_ID && unknownAt.add(i));
  const unknownWords = [...new Set(labels.filter((_, i) => unknownAt.has(i)))];
  const pronoun = labels.indexOf(PRONOUN);
  return { model, config, tokens, labels, unknownAt, unknownWords, dropped: tokenized.ids.length - kept, limit: config.n_ctx,
    notInLanguage: true, pronoun, defaultQuery: Math.max(0, pronoun) };
}

/** the most tokens of a model the reader opened that the attention widgets read: 128 rows of
 * every head stay readable, and a forward of a 124M-parameter model stays near a second */
export const OPENED_MODEL_TOKENS = 128;

/** Tokenizes `text` with a model the reader opened (its own tokenizer; no language to parse): the
 * labels are its pieces made readable (GPT-2's "Ġthe" as "␣the", a character split over tokens
 * named on its first). */
export async function readText(model: RemoteModel, text: string): Promise<SentenceReading> {
  const [config, tokenized, special] = await Promise.all([model.config(), model.tokenize(text), model.specialTokens()]);
  const limit = Math.min(config.n_ctx, OPENED_MODEL_TOKENS);
  const kept = Math.min(tokenized.ids.length, limit);
  const labels = tokenLabels(tokenized.pieces.slice(0, kept), { byteLevel: isByteLevel(special) }).map((label) => label.text);
  return { model, config, tokens: tokenized.ids.slice(0, kept), labels, unknownAt: new Set(), unknownWords: [],
    dropped: tokenized.ids.length - kept, limit, notInLanguage: false, pronoun: -1, defaultQuery: kept - 1 };
}

/** One forward pass: the logits and the named intermediates (e.g. weightsName(1, 0)). */
export async function runModel(reading: SentenceReading, trace: string[]): Promise<{ logits: MatrixData; trace: Record<string, MatrixData> }> {
  const result = await reading.model.forward({ tokens: reading.tokens, trace });
  return { logits: result.logits, trace: result.trace ?? {} };
}

/** The model's reading of "it": the most likely word at its position, with the probability the
 * engine's softmax gives it (only for a sentence of the language). */
export async function readIt(engine: RemoteEngine, reading: SentenceReading, logits: MatrixData): Promise<ItReading | undefined> {
  const { sentence } = reading;
  if (!sentence) return undefined;
  const row = logits.data.slice(sentence.pronoun * logits.cols, (sentence.pronoun + 1) * logits.cols);
  const best = argmax(row);
  const [word, { weights }] = await Promise.all([reading.model.decode([best]), engine.softmaxRow({ scores: row })]);
  return { word, probability: weights[best], right: best === sentence.tokens[sentence.referent] };
}

/** the query row a token setting means: −1 (or a position past the end) is the reading's default */
export function queryRow(reading: SentenceReading, token: number): number {
  if (token >= 0 && token < reading.tokens.length) return token;
  return reading.defaultQuery;
}

/** what to tell the reader about the text (nothing for a sentence of the language) */
export function readingNotes(reading: SentenceReading): string[] {
  const notes: string[] = [];
  if (reading.unknownWords.length) {
    const named = reading.unknownWords.slice(0, NAMED_WORDS).map((w) => `“${w}”`);
    const more = reading.unknownWords.length - named.length;
    const names = more > 0 ? `${named.join(', ')} and ${more} more` : named.join(', ');
    notes.push(`Outside the model's vocabulary (read as [UNK]): ${names}.`);
  }
  if (reading.dropped) notes.push(`The model reads ${reading.limit} tokens at most here; the last ${reading.dropped} are left out.`);
  if (reading.notInLanguage && reading.tokens.length) {
    notes.push('Not a sentence of the model\'s toy language, so its reading of “it” means nothing here; ' +
      'the attention shown is still what it computes.');
  }
  return notes;
}
