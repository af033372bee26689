// In-context learning through the package, on both WebAssembly builds: the induction task's losses
// by part and every head's prefix-matching score as the engine measures them (checked against the
// model's own trace), the shipped induction model continuing a repeat it has never seen, and the
// weights' fingerprint, which reading a prompt leaves unchanged and one training step changes.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadAttnlab } from '../../build/package/index.js';
import { assertClose, assertThrows } from './helpers.mjs';

const SHIPPED = new URL('../../web/public/models/induction/', import.meta.url);
const shippedFiles = () => ({
  weights: new Uint8Array(readFileSync(new URL('model.safetensors', SHIPPED))),
  config: readFileSync(new URL('config.json', SHIPPED), 'utf8'),
  vocab: readFileSync(new URL('vocab.json', SHIPPED), 'utf8'),
});

for (const threads of [1, 2]) {
  describe(`in-context learning, ${threads === 1 ? 'single-thread' : 'threaded'} build`, () => {
    let engine;
    before(async () => {
      engine = await loadAttnlab({ threads });
    });

    it('measures the loss of the first copy and of the repeat apart, near ln 58 before training', () => {
      const trainer = engine.createTrainer({ task: 'induction', seed: 7 });
      try {
        const losses = trainer.heldOutLossByPart({ count: 8 });
        assert.deepEqual(Object.keys(losses), ['first', 'repeat']);
        for (const loss of Object.values(losses)) assertClose([loss], [Math.log(58)], 0.05, 'an untrained model\'s loss');
        assert.equal(trainer.totalSteps, 800);
      } finally {
        trainer.dispose();
      }
    });

    it('scores a head\'s prefix matching as its attention from each repeated letter to the one after its first copy', () => {
      const trainer = engine.createTrainer({ task: 'induction', seed: 7 });
      for (let s = 0; s < 3; s++) trainer.step();
      const model = trainer.model();
      try {
        // the first held-out example of seed 2026 is the one a count of 1 measures
        const { tokens } = trainer.example({ split: 'heldOut', seed: 2026 });
        const { layers, heads } = { layers: model.config.n_layers, heads: model.config.n_heads };
        const names = [];
        for (let l = 0; l < layers; l++) for (let k = 0; k < heads; k++) names.push(`layer${l}.attn.head${k}.weights`);
        const { trace } = model.forward({ tokens, trace: names });
        const length = (tokens.length - 1) / 2;
        const expected = names.map((name) => {
          const w = trace[name];
          let sum = 0;
          for (let j = 1; j <= length; j++) sum += w.data[(length + j) * w.cols + j + 1];
          return sum / length;
        });
        const scores = trainer.prefixMatching({ count: 1 });
        assert.deepEqual([scores.rows, scores.cols], [layers, heads]);
        assertClose(scores.data, expected, 1e-6, 'prefix-matching scores');
      } finally {
        model.dispose();
        trainer.dispose();
      }
    });

    it('refuses the measures a task does not have', () => {
      const trainer = engine.createTrainer({ task: 'copy' });
      try {
        assertThrows(() => trainer.heldOutLossByPart({}), /attnlab: trainer: the task copy has no parts/);
        assertThrows(() => trainer.prefixMatching({}), /attnlab: trainer: prefix matching is measured on the induction task, not copy/);
        assertThrows(() => trainer.prefixMatching({ count: 0 }), /count/);
        // the engine keeps working
        assert.equal(trainer.heldOutLoss({ count: 2 }) > 0, true);
      } finally {
        trainer.dispose();
      }
    });

    it('ships a model that continues a repeat it has never seen, reading it without changing a weight', () => {
      const model = engine.loadModel(shippedFiles());
      try {
        const fingerprint = model.fingerprint();
        assert.match(fingerprint, /^[0-9a-f]{16}$/);
        // k Q z T w m R b X e P, then z T w m R b again: the copy goes on with X e P z T
        const { ids } = model.tokenize('[BOS]kQzTwmRbXePzTwmRb');
        const written = model.generate({ tokens: ids, maxNew: 5, temperature: 0 });
        assert.equal(model.decode(written.slice(ids.length)), 'XePzT');
        model.forward({ tokens: ids, trace: true });
        assert.equal(model.fingerprint(), fingerprint, 'reading a prompt changes no weight');
        // the same file gives the same fingerprint; a model one training step away does not
        const again = engine.loadModel(shippedFiles());
        assert.equal(again.fingerprint(), fingerprint);
        again.dispose();
      } finally {
        model.dispose();
      }
      const trainer = engine.createTrainer({ task: 'induction', seed: 7 });
      const before = trainer.model();
      trainer.step();
      const after = trainer.model();
      assert.notEqual(after.fingerprint(), before.fingerprint());
      for (const m of [before, after, trainer]) m.dispose();
    });
  });
}
