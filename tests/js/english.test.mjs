// The shipped english model (byte-level BPE pieces of Debian's fortunes, learnt by the engine)
// through the package, on both WebAssembly builds: it loads from its three files, its tokenizer
// reads text into the learnt pieces and back (any text, [BOS] kept whole), and it continues a
// prompt token for token as the native engine does (attnlab-generate).
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadAttnlab } from '../../build/package/index.js';

const FOLDER = new URL('../../web/public/models/english/', import.meta.url);
const generateCommand = fileURLToPath(new URL('../../build/native/attnlab-generate', import.meta.url));
const shippedFiles = () => ({
  weights: new Uint8Array(readFileSync(new URL('model.safetensors', FOLDER))),
  config: readFileSync(new URL('config.json', FOLDER), 'utf8'),
  vocab: readFileSync(new URL('vocab.json', FOLDER), 'utf8'),
});
const PROMPT = '[BOS]Love is';

/** what attnlab-generate prints: the prompt, then its greedy continuation */
function nativeContinuation(maxNew) {
  const run = spawnSync(generateCommand, [fileURLToPath(FOLDER), '--prompt', PROMPT, '--max-new', String(maxNew), '--temperature', '0'],
    { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

for (const threads of [1, 2]) {
  describe(`the english model, ${threads === 1 ? 'single-thread' : 'threaded'} build`, () => {
    let engine, model;
    before(async () => {
      engine = await loadAttnlab({ threads });
      model = engine.loadModel(shippedFiles());
    });

    it('is a decoder over 2048 byte-level pieces, its special tokens first', () => {
      assert.equal(model.config.vocab_size, 2048);
      assert.equal(model.config.architecture, 'decoder_only');
      assert.deepEqual(model.specialTokens(), { '[PAD]': 0, '[UNK]': 1, '[BOS]': 2, '[EOS]': 3, '[MASK]': 4, '[SEP]': 5 });
    });

    it('reads text into its learnt pieces and back', () => {
      const text = 'The cat sat on the mat because it was soft.';
      const { ids, pieces } = model.tokenize(`[BOS]${text}`);
      assert.equal(ids[0], 2);
      assert.equal(pieces[0], '[BOS]');
      assert.ok(pieces.includes('Ġthe'), `${pieces}`);
      assert.ok(ids.length < text.length / 2, `${ids.length} pieces for ${text.length} characters`);
      assert.equal(model.decode([...ids.slice(1)]), text);
      for (const hostile of ['naïve café 🙂\n\t', 'x'.repeat(300), '[EOS][BOS] ', '']) {
        assert.equal(model.decode([...model.tokenize(hostile).ids]), hostile);
      }
      // each id's piece, as tokenize gives it; an id outside the vocabulary refused by name
      assert.deepEqual(model.pieces(ids), pieces);
      assert.deepEqual(model.pieces([]), []);
      assert.throws(() => model.pieces([model.config.vocab_size]), /ids.*outside 0…/);
      assert.throws(() => model.pieces([NaN]), /ids/);
    });

    it('continues a prompt greedily, token for token as the native engine does', () => {
      const { ids } = model.tokenize(PROMPT);
      const out = model.generate({ tokens: ids, maxNew: 24, temperature: 0 });
      assert.equal(out.length, ids.length + 24);
      assert.equal(nativeContinuation(24), `${PROMPT}${model.decode([...out.slice(ids.length)])}\n`);
    });
  });
}
