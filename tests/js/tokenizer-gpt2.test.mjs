// GPT-2's tokenizer in the engine, on both WebAssembly builds: a model created with the package's
// gpt2-tokenizer.json (derived from js-tiktoken's ranks) encodes more than 10,000 strings exactly
// as js-tiktoken's gpt2 encoding does, and decodes each back to itself. The strings: the
// repository's own texts, Debian's fortunes when installed, and seeded random ones.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tiktoken } from 'js-tiktoken/lite';
import gpt2Ranks from 'js-tiktoken/ranks/gpt2';
import { gpt2Tokenizer, loadAttnlab } from '../../build/package/index.js';
import { assertThrows } from './helpers.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const CONFIG = { vocab_size: 50257, n_ctx: 8, d_model: 8, n_heads: 1, n_layers: 1, d_ff: 8 };
const FORTUNES = '/usr/share/games/fortunes';

// a text cut into paragraphs and lines, each kept once
function pieces(text) {
  return [...new Set([...text.split(/\n\s*\n/), ...text.split('\n')])].filter((s) => s.length > 0);
}

// the repository's Markdown and its fortunes corpus
function repositoryTexts() {
  const files = [join(root, 'README.md'), ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(root, 'docs', f))];
  const corpus = join(root, 'src/train/corpus/fortunes-min');
  files.push(...readdirSync(corpus).map((f) => join(corpus, f)));
  return files.flatMap((file) => pieces(readFileSync(file, 'utf8')));
}

// Debian's fortunes (the fortune text files, not their .dat indexes), or none
function debianFortunes() {
  if (!existsSync(FORTUNES)) return [];
  return readdirSync(FORTUNES).map((f) => join(FORTUNES, f))
    .filter((file) => !/\.(dat|u8)$/.test(file) && statSync(file).isFile())
    .flatMap((file) => readFileSync(file, 'utf8').split('\n%\n'));
}

// mulberry32: the same strings for the same seed
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// seeded strings of the parts the split pattern tells apart: letters of many scripts, digits,
// contractions (also upper-case), punctuation, white space of every kind, combining marks, emoji
// with skin tones and ZWJ sequences
function randomStrings(count, seed) {
  const next = random(seed);
  const pick = (list) => list[Math.floor(next() * list.length)];
  const int = (low, high) => low + Math.floor(next() * (high - low + 1));
  const range = (first, last, n) => Array.from({ length: n }, () => String.fromCodePoint(int(first, last))).join('');
  const parts = [
    () => range(0x61, 0x7a, int(1, 9)),
    () => range(0x41, 0x5a, int(1, 4)) + range(0x61, 0x7a, int(0, 6)),
    () => pick(["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'T", "'RE", "'VE", "'M", "'LL", "'D", "'", "''", "’s"]),
    () => pick([' ', ' ', ' ', '  ', '   ', '\t', '\n', '\n\n', ' \n', '\r\n', '\t\t ', '\u00a0', '\u3000', '\u2003', '\u0085', '\ufeff', '\u200b']),
    () => range(0x30, 0x39, int(1, 7)),
    () => pick(['٣٤', '１２', '²', 'Ⅻ', '½', '߁']),
    () => Array.from({ length: int(1, 4) }, () => pick([...'.,;:!?-—()[]{}"/\\@#$%^&*_+=<>|~`…«»'])).join(''),
    () => range(0x5d0, 0x5ea, int(1, 6)) + (next() < 0.3 ? range(0x5b0, 0x5bc, 1) : ''),
    () => range(0x627, 0x64a, int(1, 7)),
    () => range(0x4e00, 0x9fff, int(1, 5)),
    () => range(0x3041, 0x3096, int(1, 4)) + range(0xac00, 0xd7a3, int(0, 3)),
    () => range(0x61, 0x7a, 1) + range(0x300, 0x36f, int(1, 3)),
    () => range(0x430, 0x44f, int(1, 7)) + range(0x3b1, 0x3c9, int(0, 4)),
    () => range(0x915, 0x939, 1) + pick(['ि', 'ी', 'ु', '्', 'ं']) + range(0x915, 0x939, 1),
    () => pick(['é', 'ñ', 'ü', 'ß', 'Æ', 'ø', 'ł', 'ğ', '𐌰', '𝐀', 'ﬁ']),
    () => range(0x1f600, 0x1f64f, 1) + (next() < 0.4 ? range(0x1f3fb, 0x1f3ff, 1) : ''),
    () => pick(['👨\u200d👩\u200d👧\u200d👦', '👩🏽\u200d💻', '🏳️\u200d🌈', '🇩🇪', '1️⃣', '❤️', '👍🏿', '🧑\u200d🤝\u200d🧑']),
  ];
  return Array.from({ length: count }, () => Array.from({ length: int(1, 12) }, () => pick(parts)()).join(''));
}

const tiktoken = new Tiktoken(gpt2Ranks);
const strings = [...repositoryTexts(), ...debianFortunes(), ...randomStrings(8000, 2024)];

for (const threads of [1, 'auto']) {
  describe(`GPT-2's tokenizer, ${threads === 1 ? 'single-thread' : 'threaded'} build`, () => {
    let engine;
    let tokenizer;
    let model;
    before(async () => {
      engine = await loadAttnlab({ threads });
      tokenizer = await gpt2Tokenizer();
      model = engine.createModel({ config: CONFIG, tokenizer });
    });

    it('encodes as js-tiktoken does and decodes back, on more than 10,000 strings', (t) => {
      if (!existsSync(FORTUNES)) t.diagnostic(`${FORTUNES} is absent: Debian's fortunes left out`);
      assert.ok(strings.length > 10000, `${strings.length} strings`);
      for (const text of strings) {
        const ids = [...model.tokenize(text).ids];
        // the engine, as Hugging Face's tokenizers, always keeps added tokens whole (docs/api.md
        // names <|endoftext|>); js-tiktoken does when allowed to
        assert.deepEqual(ids, tiktoken.encode(text, 'all'), `ids of ${JSON.stringify(text)}`);
        // a leading U+FEFF is lost on the way out: Emscripten's UTF8ToString decodes strings of 16
        // bytes and more with a TextDecoder, which drops a byte-order mark (the engine's own
        // decode keeps it, as the Catch2 tests show)
        assert.equal(model.decode(ids).replace(/^\uFEFF/, ''), text.replace(/^\uFEFF/, ''));
      }
      t.diagnostic(`${strings.length} strings`);
    });

    it('keeps <|endoftext|> whole and names it as the special token', () => {
      assert.deepEqual(model.specialTokens(), { '<|endoftext|>': 50256 });
      const text = 'The end.<|endoftext|>A new start <|endoftext|>';
      assert.deepEqual([...model.tokenize(text).ids], tiktoken.encode(text, 'all'));
      assert.deepEqual(model.tokenize(' the').pieces, ['Ġthe']);
    });

    it('saves the tokenizer with the model and loads it again', () => {
      const saved = model.save();
      const again = engine.loadModel(saved);
      assert.deepEqual([...again.tokenize('Hello world').ids], [15496, 995]);
      assert.deepEqual(again.specialTokens(), { '<|endoftext|>': 50256 });
      again.dispose();
    });

    it('refuses a tokenizer with a vocabulary, a bad tokenizer.json, or one larger than vocab_size', () => {
      assertThrows(() => engine.createModel({ config: CONFIG, tokenizer, vocab: '{}' }), /vocab .* or tokenizer .*, not both/);
      assertThrows(() => engine.createModel({ config: CONFIG, tokenizer: '{"model":' }), /tokenizer\.json is not valid JSON/);
      assertThrows(() => engine.createModel({ config: { ...CONFIG, vocab_size: 50000 }, tokenizer }),
        /more than 50000 tokens but the config says vocab_size = 50000/);
      assert.deepEqual([...model.tokenize('still usable').ids], tiktoken.encode('still usable'));
    });
  });
}
