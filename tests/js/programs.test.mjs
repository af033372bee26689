// Models programmed by hand (RASP programs compiled into weights) through the package, on both
// WebAssembly builds: the ordinary model calls give each program's answer, equal to a plain
// JavaScript reference, and each head attends as its select; bad input is refused by name.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadAttnlab } from '../../build/package/index.js';
import { assertClose, assertThrows } from './helpers.mjs';

const PROGRAMS = ['reverse', 'histogram', 'sort'];

/** each program's answer by plain JavaScript, one label a character */
const REFERENCE = {
  reverse: (text) => [...text].reverse(),
  histogram: (text) => [...text].map((c) => String([...text].filter((d) => d === c).length)),
  // a stable sort: equal letters keep their order (and are the same letter anyway)
  sort: (text) => [...text].sort(),
};

/** seeded texts of 1 … 10 letters a–z (a small linear congruential generator) */
function randomTexts(count, seed) {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + Math.floor(next() * 10) }, () => String.fromCharCode(97 + Math.floor(next() * 26))).join(''));
}

/** the argmax of each character's row of logits (row 0 is [BOS]), as vocabulary labels */
function decoded(logits, vocabulary) {
  const out = [];
  for (let r = 1; r < logits.rows; r++) {
    const row = logits.data.subarray(r * logits.cols, (r + 1) * logits.cols);
    out.push(vocabulary[row.indexOf(Math.max(...row))]);
  }
  return out;
}

/** the rows of the characters (all but [BOS]'s) of a square attention matrix */
const characterRows = ({ rows, cols, data }) => ({ rows: rows - 1, cols, data: data.slice(cols) });

for (const threads of [1, 'auto']) {
  describe(`programmed models, ${threads === 1 ? 'single-thread' : 'threaded'} build`, () => {
    let engine;
    before(async () => {
      engine = await loadAttnlab({ threads });
    });

    for (const program of PROGRAMS) {
      it(`${program}: the forward pass answers as the reference on 300 texts, each head attending as its select`, () => {
        const model = engine.programmedModel({ program });
        const { heads, vocabulary } = engine.describeProgram({ program });
        const names = heads.map((h) => `layer${h.layer}.attn.head${h.head}.weights`);
        for (const text of [...randomTexts(300, 7), 'aaaaaaaaaa', 'jihgfedcba', 'z']) {
          const input = engine.programInput({ program, text });
          const { logits, trace } = model.forward({ tokens: input.tokens, trace: names });
          assert.deepEqual(decoded(logits, vocabulary), REFERENCE[program](text), `${program} of "${text}"`);
          assert.deepEqual(input.output, REFERENCE[program](text), `${program} of "${text}" on plain values`);
          for (const [i, name] of names.entries()) {
            const attention = characterRows(trace[name]);
            assert.equal(input.patterns[i].rows, text.length);
            assert.equal(input.patterns[i].cols, text.length + 1);
            assertClose(attention.data, input.patterns[i].data, 1e-6, `${program} "${text}" ${name}`);
          }
        }
        model.dispose();
      });
    }

    it('is an ordinary model: its config, vocabulary and layout agree', () => {
      const model = engine.programmedModel({ program: 'sort' });
      const config = model.config;
      const described = engine.describeProgram({ program: 'sort' });
      assert.equal(config.architecture, 'encoder_only');
      assert.equal(config.norm, 'none');
      assert.equal(config.positional, 'learned');
      assert.equal(config.activation, 'relu');
      assert.equal(config.tie_embeddings, false);
      assert.equal(config.n_layers, 3);
      assert.equal(config.n_heads, 2);
      assert.equal(config.vocab_size, described.vocabulary.length);
      assert.equal(described.lines.length, 4);
      assert.deepEqual(described.heads.map((h) => [h.layer, h.head, h.line, h.kind]),
        [[0, 0, 0, 'selectorWidth'], [0, 1, 1, 'selectorWidth'], [2, 0, 3, 'aggregate']]);
      assert.deepEqual(described.feedForward.map((f) => [f.layer, f.target]), [[0, 'smaller'], [0, 'ties'], [1, 'position']]);
      const last = described.layout.at(-1);
      assert.equal(last.offset + last.width, config.d_model, 'the subspaces fill the residual stream');
      assert.deepEqual(described.layout.slice(0, 3).map((s) => [s.name, s.width]), [['bos', 1], ['tokens', 26], ['indices', 10]]);
      // the tokenizer reads the text as programInput does, and decodes the answer
      const input = engine.programInput({ program: 'sort', text: 'banana' });
      assert.deepEqual(model.tokenize('[BOS]banana').ids, input.tokens);
      assert.deepEqual(input.labels, ['BOS', ...'banana']);
      assert.equal(model.decode(input.output.map((label) => described.vocabulary.indexOf(label))), 'aaabnn');
      assert.deepEqual(engine.describeProgram({ program: 'histogram' }).vocabulary.slice(-2), ['9', '10']);
      model.dispose();
    });

    it('refuses an unknown program, a long text and a foreign character by name, and keeps working', () => {
      assertThrows(() => engine.programmedModel({ program: 'copy' }), /^attnlab: rasp: no program named "copy" \(there are reverse, histogram and sort\)/);
      assertThrows(() => engine.describeProgram({}), /^attnlab: program is required/);
      assertThrows(() => engine.programInput({ program: 'reverse', text: 'abcdefghijk' }), /^attnlab: rasp: reverse reads at most 10 letters, got 11/);
      assertThrows(() => engine.programInput({ program: 'sort', text: 'ab1' }), /^attnlab: rasp: sort reads the letters a–z only; "1" \(character 3\) is not one of them/);
      assertThrows(() => engine.programInput({ program: 'sort', text: 'Ä' }), /"Ä" \(character 1\)/);
      assertThrows(() => engine.programInput({ program: 'sort' }), /^attnlab: text is required/);
      const input = engine.programInput({ program: 'reverse', text: 'ok' });
      assert.deepEqual(input.output, ['k', 'o']);
      assert.deepEqual(engine.programInput({ program: 'reverse', text: '' }).output, []);
    });
  });
}
