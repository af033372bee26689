// Tokens as readable labels. A byte-level BPE tokenizer (GPT-2, SmolLM2) names each token by its
// bytes written in GPT-2's byte alphabet ("Ġthe" is " the", "Ċ" a newline), and a character of
// several UTF-8 bytes may be split over tokens; the engine's word and character vocabularies name
// tokens by their text. Labels show either as text, with white space made visible, a character
// split over tokens named once (on its first token) and bytes that are not UTF-8 as <0xE2>.
// DOM-free.
//
// Markers: "␣" a space, "⏎" a newline, "⇥" a tab, "\u{D}" any other control or invisible format
// character, "◌" before a combining mark that starts a label, "…" a token that continues a
// character begun in an earlier token ("…²/₃" when it holds nothing else: part 2 of 3), "<0xE2>" a
// byte that is not part of a UTF-8 character, "∅" an empty piece.

/** GPT-2's byte alphabet (bytes_to_unicode): byte b as a printable character. The printable bytes
 * ("!"–"~", "¡"–"¬", "®"–"ÿ") stand for themselves, the other 68 for U+0100 onwards in byte order
 * (space is "Ġ", newline "Ċ", tab "ĉ"). */
export const BYTE_CHARS: readonly string[] = (() => {
  const chars: string[] = [];
  for (let b = 0, next = 0x100; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || b >= 0xae;
    chars.push(String.fromCodePoint(printable ? b : next++));
  }
  return chars;
})();

const BYTE_OF: ReadonlyMap<string, number> = new Map(BYTE_CHARS.map((c, b) => [c, b]));

/** the byte a character of GPT-2's byte alphabet stands for (undefined: not in the alphabet) */
export function byteOf(char: string): number | undefined {
  return BYTE_OF.get(char);
}

/** bytes written in GPT-2's byte alphabet ([0x20, 0x74] → "Ġt") */
export function bytesToPiece(bytes: ArrayLike<number>): string {
  return Array.from(bytes, (b) => BYTE_CHARS[b & 0xff]).join('');
}

/** the bytes a piece in GPT-2's byte alphabet stands for; undefined when a character is outside it
 * (an added token such as "<｜begin▁of▁sentence｜>", which stands for its own text) */
export function pieceToBytes(piece: string): Uint8Array | undefined {
  const chars = [...piece];
  const bytes = new Uint8Array(chars.length);
  for (const [i, c] of chars.entries()) {
    const b = BYTE_OF.get(c);
    if (b === undefined) return undefined;
    bytes[i] = b;
  }
  return bytes;
}

/** Whether a tokenizer's special tokens (the engine's model.specialTokens()) are a byte-level BPE
 * tokenizer's (named by their content) rather than a word or character vocabulary's ({ pad, unk, … }). */
export function isByteLevel(specialTokens: object): boolean {
  return !['pad', 'unk', 'bos', 'eos'].every((name) => typeof (specialTokens as Record<string, unknown>)[name] === 'number');
}

/** The id of a shipped model's [BOS] or [EOS]: named `bos` / `eos` by a word or character
 * vocabulary, and by its content, "[BOS]" / "[EOS]", by a byte-level one (the english model's). */
export function shippedSpecialToken(specialTokens: object, name: 'bos' | 'eos'): number | undefined {
  const tokens = specialTokens as Record<string, number | undefined>;
  return tokens[name] ?? tokens[`[${name.toUpperCase()}]`];
}

export interface TokenLabel {
  /** the token's position in the sequence */
  index: number;
  /** its id, when the ids were given */
  id?: number;
  /** the vocabulary's piece, as given */
  piece: string;
  /** the bytes the token stands for (byte-level BPE: the piece read in the byte alphabet;
   * otherwise, and for an added token outside the alphabet, the piece's UTF-8) */
  bytes: Uint8Array;
  /** the label: the characters that begin in this token, white space and control characters made
   * visible, after "…" when the token continues a character begun before it */
  text: string;
  /** the characters that begin in this token, as text (bytes that are not UTF-8 as "<0xE2>") */
  chars: string;
  /** The tokens whose bytes share characters (a character split over tokens) form a group: the
   * index of its first token, this token's part (from 1) and the number of parts. A token whose
   * characters are all its own is a group of one: group = index, part = parts = 1. */
  group: number;
  part: number;
  parts: number;
  /** the text of the whole group (for a group of one, `chars`) */
  groupText: string;
  /** the token holds bytes that form no UTF-8 character (a character cut off at either end) */
  invalid: boolean;
  /** a byte-level piece outside the byte alphabet (an added token), shown as it is */
  verbatim: boolean;
}

const CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|(?! )\p{Zs}/u;
const COMBINING = /^\p{M}/u;
const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';
const SUBSCRIPT = '₀₁₂₃₄₅₆₇₈₉';
const digits = (n: number, set: string) => String(n).replace(/\d/g, (d) => set[Number(d)]);

/** "…²/₃": part 2 of 3 of a character begun in an earlier token */
export function continuationMarker(part: number, parts: number): string {
  return `…${digits(part, SUPERSCRIPT)}/${digits(parts, SUBSCRIPT)}`;
}

/** Text with its white space and invisible characters shown: "␣" a space, "⏎" a newline, "⇥" a
 * tab, "\u{D}" any other control, format or separator character (zero-width joiner, no-break
 * space, direction marks), and "◌" before a combining mark that would otherwise start the text. */
export function visibleText(text: string): string {
  let out = '';
  for (const c of text) {
    if (c === ' ') out += '␣';
    else if (c === '\n') out += '⏎';
    else if (c === '\t') out += '⇥';
    else if (CONTROL.test(c)) out += `\\u{${c.codePointAt(0)!.toString(16).toUpperCase()}}`;
    else out += c;
  }
  return COMBINING.test(out) ? `◌${out}` : out;
}

const hex = (b: number) => b.toString(16).toUpperCase().padStart(2, '0');
/** "<0xE2>": a byte that is no part of a UTF-8 character */
export const byteMarker = (b: number) => `<0x${hex(b)}>`;

/** one character of decoded bytes: [start, end) in the sequence's bytes, its text (undefined:
 * a byte that is not UTF-8) */
interface Unit { start: number; end: number; text?: string }

/** the length of the UTF-8 character at bytes[i], or 0 when none starts there (strict: no
 * overlong forms, no surrogates, nothing past U+10FFFF, no character cut off before `end`) */
function utf8Length(bytes: Uint8Array, i: number, end: number): number {
  const b = bytes[i];
  if (b < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < end && bytes[i + k] >= lo && bytes[i + k] <= hi;
  if (b >= 0xc2 && b <= 0xdf) return cont(1) ? 2 : 0;
  if (b >= 0xe0 && b <= 0xef) {
    const [lo, hi] = b === 0xe0 ? [0xa0, 0xbf] : b === 0xed ? [0x80, 0x9f] : [0x80, 0xbf];
    return cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (b >= 0xf0 && b <= 0xf4) {
    const [lo, hi] = b === 0xf0 ? [0x90, 0xbf] : b === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf];
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

function decodeUnits(bytes: Uint8Array, start: number, end: number): Unit[] {
  const units: Unit[] = [];
  const decoder = new TextDecoder();
  for (let i = start; i < end;) {
    const n = utf8Length(bytes, i, end);
    if (n === 0) units.push({ start: i, end: i + 1 });
    else units.push({ start: i, end: i + n, text: decoder.decode(bytes.subarray(i, i + n)) });
    i += n || 1;
  }
  return units;
}

const utf8 = new TextEncoder();

/** The bytes a token stands for: byte-level, its piece read in the byte alphabet (a piece outside
 * it, an added token, stands for its own UTF-8); otherwise the piece's UTF-8. */
export function tokenBytes(piece: string, byteLevel: boolean): Uint8Array {
  return (byteLevel ? pieceToBytes(piece) : undefined) ?? utf8.encode(piece);
}

/** One readable label per token (see TokenLabel). `byteLevel`: the pieces are a byte-level BPE
 * tokenizer's, in GPT-2's byte alphabet (see isByteLevel); otherwise they are text and only white
 * space is made visible. `ids`, when given, are kept on the labels for their titles. */
export function tokenLabels(pieces: readonly string[], options: { byteLevel: boolean; ids?: ArrayLike<number> }): TokenLabel[] {
  const { byteLevel, ids } = options;
  const verbatim = pieces.map((p) => byteLevel && pieceToBytes(p) === undefined);
  const tokenBytesList = pieces.map((p) => tokenBytes(p, byteLevel));
  // every token's bytes in one sequence, and which token each byte belongs to
  const offsets = [0];
  for (const b of tokenBytesList) offsets.push(offsets[offsets.length - 1] + b.length);
  const all = new Uint8Array(offsets[offsets.length - 1]);
  tokenBytesList.forEach((b, t) => all.set(b, offsets[t]));
  const owner = new Int32Array(all.length);
  tokenBytesList.forEach((b, t) => owner.fill(t, offsets[t], offsets[t] + b.length));

  // characters, decoded over runs of byte-level tokens (a plain-text or added token is whole)
  const units: Unit[] = [];
  for (let t = 0; t < pieces.length;) {
    let u = t + 1;
    if (byteLevel && !verbatim[t]) while (u < pieces.length && !verbatim[u]) u++;
    units.push(...decodeUnits(all, offsets[t], offsets[u]));
    t = u;
  }

  // groups: tokens joined by a character whose bytes cross from one into the next
  const groupOf = pieces.map((_, t) => t);
  const chars = pieces.map(() => '');
  const startsMid = pieces.map(() => false);
  const invalid = pieces.map(() => false);
  for (const unit of units) {
    const first = owner[unit.start];
    const last = owner[unit.end - 1];
    for (let t = first + 1; t <= last; t++) {
      groupOf[t] = groupOf[first];
      startsMid[t] = true;
    }
    chars[first] += unit.text ?? byteMarker(all[unit.start]);
    if (unit.text === undefined) invalid[first] = true;
  }
  // a later token joined to an earlier group joins its group's start
  for (let t = 0; t < pieces.length; t++) groupOf[t] = groupOf[groupOf[t]];
  const sizes = new Map<number, number>();
  for (const g of groupOf) sizes.set(g, (sizes.get(g) ?? 0) + 1);

  return pieces.map((piece, t) => {
    const group = groupOf[t];
    const parts = sizes.get(group)!;
    const part = t - group + 1;
    const shown = visibleChars(chars[t]);
    const text = !startsMid[t] ? shown : shown ? `…${shown}` : continuationMarker(part, parts);
    let groupText = chars[t];
    if (parts > 1) groupText = chars.slice(group, group + parts).join('');
    return {
      index: t, ...(ids ? { id: ids[t] } : {}), piece, bytes: tokenBytesList[t], text: text || '∅', chars: chars[t],
      group, part, parts, groupText, invalid: invalid[t], verbatim: verbatim[t],
    };
  });
}

/** visibleText, leaving byte markers (<0xE2>) as they are */
function visibleChars(chars: string): string {
  return chars.split(/(<0x[0-9A-F]{2}>)/).map((s, i) => (i % 2 ? s : visibleText(s))).join('');
}

/** names the invisible characters a text holds, for a title: "space, newline" */
function whiteSpaceNames(text: string): string {
  const names: string[] = [];
  const add = (n: string) => { if (!names.includes(n)) names.push(n); };
  for (const c of text) {
    if (c === ' ') add('space');
    else if (c === '\n') add('newline');
    else if (c === '\t') add('tab');
    else if (c === '\r') add('carriage return');
    else if (CONTROL.test(c)) add(`U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
  }
  return names.join(', ');
}

/** A longer description of a token for a tooltip: its text in quotes (white space named), its id,
 * and for a character split over tokens which part of it this token holds:
 * "“ the” (space; token 262)", "“😀” bytes F0 9F 98 (part 1 of 2 of “😀” = F0 9F 98 80; token 47249)",
 * "bytes E2 80: not a whole UTF-8 character (token 447)". */
export function labelTitle(label: TokenLabel): string {
  const bytes = Array.from(label.bytes, hex).join(' ');
  const inQuotes = (s: string) => `“${s.replace(/[\n\t\r]/g, (c) => ({ '\n': '⏎', '\t': '⇥', '\r': '␍' })[c]!)}”`;
  const about: string[] = [];
  let head: string;
  if (label.parts > 1) {
    const groupBytes = utf8.encode(label.groupText.replace(/<0x[0-9A-F]{2}>/g, ''));
    head = label.part === 1 ? `${inQuotes(label.chars)} begins here` : 'continues';
    head += `: bytes ${bytes}`;
    about.push(`part ${label.part} of ${label.parts} of ${inQuotes(label.groupText)}${groupBytes.length ? ` = ${Array.from(groupBytes, hex).join(' ')}` : ''}`);
  } else if (label.invalid) {
    head = label.chars.replace(/<0x[0-9A-F]{2}>/g, '') ? inQuotes(label.chars) : `bytes ${bytes}`;
  } else {
    head = inQuotes(label.chars);
  }
  const spaces = whiteSpaceNames(label.chars);
  if (spaces) about.push(spaces);
  if (label.invalid) about.push('bytes that are not a whole UTF-8 character');
  if (label.verbatim) about.push('added token');
  if (label.id !== undefined) about.push(`token ${label.id}`);
  return about.length ? `${head} (${about.join('; ')})` : head;
}
