import { getEncoding } from 'js-tiktoken';
import gpt2 from 'js-tiktoken/ranks/gpt2';
import { describe, expect, it } from 'vitest';
import {
  BYTE_CHARS, byteOf, bytesToPiece, continuationMarker, isByteLevel, labelTitle, pieceToBytes, tokenLabels, visibleText,
} from '../../web/src/math/token-pieces';

// GPT-2's tokens as js-tiktoken ranks them: each rank's bytes, and their piece in the byte alphabet
const byRank: Uint8Array[] = [];
for (const line of gpt2.bpe_ranks.split('\n').filter(Boolean)) {
  const [, first, ...tokens] = line.split(' ');
  tokens.forEach((token, i) => { byRank[Number(first) + i] = Uint8Array.from(atob(token), (c) => c.charCodeAt(0)); });
}
const specialById = new Map(Object.entries(gpt2.special_tokens).map(([content, id]) => [id, content]));
const encoding = getEncoding('gpt2');
/** GPT-2's ids and pieces for a text, as the engine's model.tokenize gives them */
function gpt2Tokenize(text: string): { ids: number[]; pieces: string[] } {
  const ids = encoding.encode(text, 'all');
  return { ids, pieces: ids.map((id) => specialById.get(id) ?? bytesToPiece(byRank[id])) };
}

const TEXTS = [
  'The animal didn’t cross the street because it was too tired.',
  'Hello world\n\tcafé naïve résumé — “quoted”  two  spaces\n\nnew paragraph',
  '你好，世界。这是一个测试：注意力机制。',
  'カタカナとひらがな、漢字。',
  '😀👍🏽👨‍👩‍👧 ok 🇩🇪 e\u0301 ﬁ',
  'Ελληνικά και русский язык, עברית, العربية',
  'def f(x):\n\treturn x ** 2  # comment\n<|endoftext|>',
];

const concat = (parts: Uint8Array[]) => {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let k = 0;
  for (const p of parts) {
    all.set(p, k);
    k += p.length;
  }
  return all;
};

/** The groups the text's characters make: each character whose bytes lie in more than one token
 * joins those tokens; returns for every token its group's [first, last] token. */
function expectedGroups(text: string, tokenBytes: Uint8Array[]): [number, number][] {
  const owner: number[] = [];
  tokenBytes.forEach((b, t) => b.forEach(() => owner.push(t)));
  const groups = tokenBytes.map((_, t): [number, number] => [t, t]);
  let at = 0;
  for (const char of text) {
    const n = new TextEncoder().encode(char).length;
    const first = owner[at];
    const last = owner[at + n - 1];
    at += n;
    if (first === last) continue;
    const lo = groups[first][0];
    const hi = Math.max(groups[first][1], last);
    for (let t = lo; t <= hi; t++) groups[t] = [lo, hi];
  }
  return groups;
}

describe('the byte alphabet', () => {
  it('is a bijection of the 256 bytes onto single characters', () => {
    expect(BYTE_CHARS).toHaveLength(256);
    expect(new Set(BYTE_CHARS).size).toBe(256);
    for (let b = 0; b < 256; b++) {
      expect([...BYTE_CHARS[b]]).toHaveLength(1);
      expect(byteOf(BYTE_CHARS[b])).toBe(b);
    }
    expect(byteOf(' ')).toBeUndefined();
    expect(byteOf('\n')).toBeUndefined();
  });
  it('keeps the printable bytes and puts the other 68 at U+0100 onwards, in byte order', () => {
    expect(BYTE_CHARS[0x20]).toBe('Ġ');
    expect(BYTE_CHARS[0x0a]).toBe('Ċ');
    expect(BYTE_CHARS[0x09]).toBe('ĉ');
    expect(BYTE_CHARS[0x00]).toBe('Ā');
    expect(BYTE_CHARS[0xad]).toBe('Ń');
    expect(BYTE_CHARS[0x41]).toBe('A');
    expect(BYTE_CHARS[0xe9]).toBe('é');
    const moved = BYTE_CHARS.map((c, b) => [c.codePointAt(0)!, b]).filter(([c, b]) => c !== b);
    expect(moved).toHaveLength(68);
    expect(moved.map(([c]) => c)).toEqual(Array.from({ length: 68 }, (_, k) => 0x100 + k));
  });
  it('reads and writes pieces', () => {
    expect(pieceToBytes('Ġthe')).toEqual(new Uint8Array([0x20, 0x74, 0x68, 0x65]));
    expect(bytesToPiece([0x20, 0x74, 0x68, 0x65])).toBe('Ġthe');
    expect(pieceToBytes('a b')).toBeUndefined();
  });
  it('matches js-tiktoken: a token’s piece read back gives its bytes', () => {
    for (const id of [0, 198, 220, 262, 628, 5145, 10263, 50255]) {
      expect(pieceToBytes(bytesToPiece(byRank[id]))).toEqual(byRank[id]);
    }
    expect(bytesToPiece(byRank[262])).toBe('Ġthe');
    expect(bytesToPiece(byRank[198])).toBe('Ċ');
  });
});

describe('tokenLabels on GPT-2’s tokens', () => {
  for (const text of TEXTS) {
    describe(JSON.stringify(text.slice(0, 24)), () => {
      const { ids, pieces } = gpt2Tokenize(text);
      const labels = tokenLabels(pieces, { byteLevel: true, ids });
      it('gives back the text: the labels’ bytes joined, and their characters', () => {
        expect(labels).toHaveLength(pieces.length);
        expect(new TextDecoder('utf-8', { fatal: true }).decode(concat(labels.map((l) => l.bytes)))).toBe(text);
        expect(labels.map((l) => l.chars).join('')).toBe(text);
        expect(labels.every((l) => !l.invalid)).toBe(true);
      });
      it('groups exactly the tokens that share a character', () => {
        const groups = expectedGroups(text, labels.map((l) => l.bytes));
        labels.forEach((label, t) => {
          const [first, last] = groups[t];
          expect({ t, group: label.group, part: label.part, parts: label.parts })
            .toEqual({ t, group: first, part: t - first + 1, parts: last - first + 1 });
          if (label.parts > 1) {
            expect(label.groupText).toBe(labels.slice(first, last + 1).map((l) => l.chars).join(''));
            expect(label.text.startsWith('…')).toBe(label.part > 1);
          }
          if (label.part > 1 && !label.chars) expect(label.text).toBe(continuationMarker(label.part, label.parts));
        });
      });
      it('fits every label in 12 characters where the piece fits, with nothing invisible in it', () => {
        for (const label of labels) {
          if ([...label.piece].length <= 12) expect([...label.text].length, label.piece).toBeLessThanOrEqual(12);
          expect(label.text).not.toMatch(/[\s\p{Cc}\p{Cf}]/u);
          expect(label.text.length).toBeGreaterThan(0);
        }
      });
    });
  }

  it('shows spaces, newlines and tabs with markers', () => {
    const { pieces } = gpt2Tokenize('Hello world\n\tx  y\n\n');
    expect(tokenLabels(pieces, { byteLevel: true }).map((l) => l.text)).toEqual(['Hello', '␣world', '⏎', '⇥', 'x', '␣', '␣y', '⏎⏎']);
  });

  it('names a character split over tokens on its first token and marks the rest', () => {
    const { pieces } = gpt2Tokenize('😀');
    expect(pieces.length).toBeGreaterThan(1);
    const labels = tokenLabels(pieces, { byteLevel: true });
    expect(labels[0].text).toBe('😀');
    expect(labels.slice(1).map((l) => l.text)).toEqual(labels.slice(1).map((_, k) => continuationMarker(k + 2, pieces.length)));
    expect(continuationMarker(2, 3)).toBe('…²/₃');
    expect(continuationMarker(12, 13)).toBe('…¹²/₁₃');
    expect(labels.every((l) => l.group === 0 && l.parts === pieces.length && l.groupText === '😀')).toBe(true);
  });

  it('shows the bytes of a character cut off at either end as <0x…>', () => {
    const { pieces } = gpt2Tokenize('ok 😀');
    const cut = tokenLabels(pieces.slice(0, -1), { byteLevel: true });
    const last = cut[cut.length - 1];
    expect(last.invalid).toBe(true);
    expect(last.text).toMatch(/^(␣)?(<0x[0-9A-F]{2}>)+$/);
    expect(last.text).toContain('<0xF0>');
    expect(last.parts).toBe(1);
    const begun = tokenLabels(pieces.slice(-1), { byteLevel: true });
    expect(begun[0].invalid).toBe(true);
    expect(begun[0].text).toBe(Array.from(begun[0].bytes, (b) => `<0x${b.toString(16).toUpperCase()}>`).join(''));
  });

  it('keeps an added token outside the byte alphabet as its own text', () => {
    const labels = tokenLabels(['<｜begin▁of▁sentence｜>', 'Hi', 'Ġthere'], { byteLevel: true });
    expect(labels.map((l) => l.text)).toEqual(['<｜begin▁of▁sentence｜>', 'Hi', '␣there']);
    expect(labels[0].verbatim).toBe(true);
    expect(new TextDecoder().decode(labels[0].bytes)).toBe('<｜begin▁of▁sentence｜>');
  });

  it('writes a title with the text, its white space, the id and the part of a character', () => {
    const { ids, pieces } = gpt2Tokenize(' the\n😀');
    const labels = tokenLabels(pieces, { byteLevel: true, ids });
    expect(labelTitle(labels[0])).toBe('“ the” (space; token 262)');
    expect(labelTitle(labels[1])).toBe('“⏎” (newline; token 198)');
    expect(labelTitle(labels[2])).toMatch(/^“😀” begins here: bytes F0 9F 98 \(part 1 of 2 of “😀” = F0 9F 98 80; token \d+\)$/);
    expect(labelTitle(labels[3])).toMatch(/^continues: bytes 80 \(part 2 of 2 of “😀” = F0 9F 98 80; token \d+\)$/);
    const cut = tokenLabels(pieces.slice(0, 3), { byteLevel: true });
    expect(labelTitle(cut[2])).toBe('bytes F0 9F 98 (bytes that are not a whole UTF-8 character)');
  });
});

describe('tokenLabels on plain-text vocabularies', () => {
  it('keeps pieces as they are, with white space made visible', () => {
    const labels = tokenLabels(['[BOS]', 'the', 'cat', ' ', 'é', '\n', '\t', '\r', '\u200d', '😀'], { byteLevel: false });
    expect(labels.map((l) => l.text)).toEqual(['[BOS]', 'the', 'cat', '␣', 'é', '⏎', '⇥', '\\u{D}', '\\u{200D}', '😀']);
    expect(labels.every((l, t) => l.group === t && l.parts === 1 && !l.invalid)).toBe(true);
    expect(new TextDecoder().decode(labels[4].bytes)).toBe('é');
  });
  it('does not read a plain-text piece in the byte alphabet', () => {
    expect(tokenLabels(['Ġ', 'Ċ'], { byteLevel: false }).map((l) => l.text)).toEqual(['Ġ', 'Ċ']);
  });
});

describe('visibleText', () => {
  it('marks white space and invisible characters, and a leading combining mark', () => {
    expect(visibleText(' a\tb\nc')).toBe('␣a⇥b⏎c');
    expect(visibleText('\u00a0\u202e\u0000')).toBe('\\u{A0}\\u{202E}\\u{0}');
    expect(visibleText('\u0301')).toBe('◌\u0301');
    expect(visibleText('e\u0301')).toBe('e\u0301');
  });
});

describe('isByteLevel', () => {
  it('tells a byte-level tokenizer’s special tokens from a vocabulary’s', () => {
    expect(isByteLevel({ '<|endoftext|>': 50256 })).toBe(true);
    expect(isByteLevel({})).toBe(true);
    expect(isByteLevel({ pad: 0, unk: 1, bos: 2, eos: 3, mask: 4, sep: 5 })).toBe(false);
  });
});
