// The entry points behind the seminar's experiments, on both WebAssembly builds: the RNN's
// vanishing gradient against attention's, dot-product variance, a softmax row's Jacobian, the naive
// softmax overflowing float32 beside the engine's, and the causal mask switched in a model forward.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadAttnlab } from '../../build/package/index.js';
import { assertClose, assertThrows } from './helpers.mjs';

const DECODER = { vocab_size: 12, n_ctx: 16, d_model: 16, n_heads: 4, d_ff: 32, n_layers: 2 };

for (const threads of [1, 'auto']) {
  describe(`lessons, ${threads === 1 ? 'single-thread' : 'threaded'} build`, () => {
    let engine;
    before(async () => {
      engine = await loadAttnlab({ threads });
    });

    it('switches the causal mask: without it a future token changes earlier logits', () => {
      const model = engine.createModel({ config: DECODER, seed: 4 });
      const tokens = [1, 5, 2, 7, 3, 9], changed = [1, 5, 2, 7, 3, 10];
      const earlier = (out) => out.logits.data.slice(0, 5 * out.logits.cols);
      for (const causal of [undefined, true]) {
        const options = causal === undefined ? {} : { causal };
        assert.deepEqual(earlier(model.forward({ tokens: changed, ...options })), earlier(model.forward({ tokens, ...options })),
          `causal: ${causal} keeps earlier positions bit-identical`);
      }
      const open = model.forward({ tokens, causal: false, trace: ['layer0.attn.head0.masked'] });
      const leaked = earlier(model.forward({ tokens: changed, causal: false }));
      assert.ok(earlier(open).some((v, i) => Math.abs(v - leaked[i]) > 1e-4), 'without the mask the future leaks');
      assert.ok(Number.isFinite(open.trace['layer0.attn.head0.masked'].data[5]), 'position 0 may attend to position 5');
      const encoder = engine.createModel({ config: { ...DECODER, architecture: 'encoder_only' }, seed: 4 });
      assert.deepEqual(earlier(encoder.forward({ tokens: changed, causal: true })), earlier(encoder.forward({ tokens, causal: true })));
      assertThrows(() => model.forward({ tokens, causal: 'no' }), /causal must be true or false/);
      model.dispose();
      encoder.dispose();
    });

    it('measures the variance of q·k that 1/√d_k undoes', () => {
      const s = engine.dotProductStatistics({ dK: 64, samples: 40000, seed: 1 });
      assert.ok(Math.abs(s.variance / 64 - 1) < 0.04, `variance ${s.variance} ≈ 64`);
      assert.ok(Math.abs(s.scaledVariance - 1) < 0.04, `scaled variance ${s.scaledVariance} ≈ 1`);
      assert.ok(Math.abs(s.mean) < 0.2, `mean ${s.mean} ≈ 0`);
      assert.ok(s.scores instanceof Float32Array);
      assert.equal(s.scores.length, 8);
      assert.equal(engine.dotProductStatistics({ dK: 4, keys: 3 }).scores.length, 3);
      assert.deepEqual(engine.dotProductStatistics({ dK: 16, samples: 50, seed: 2 }), engine.dotProductStatistics({ dK: 16, samples: 50, seed: 2 }));
    });

    it('takes a softmax row apart: weights, entropy and a Jacobian that matches finite differences', () => {
      const scores = [2, -1, 0.5, 0.5, 3];
      const r = engine.softmaxRow({ scores, scale: 0.5, temperature: 2 });
      const z = scores.map((s) => s / 4);
      const total = z.reduce((acc, v) => acc + Math.exp(v), 0);
      const a = z.map((v) => Math.exp(v) / total);
      assertClose(r.weights, a, 1e-6, 'weights');
      assertClose([r.entropy, r.maxWeight], [-a.reduce((acc, v) => acc + v * Math.log(v), 0), Math.max(...a)], 1e-6, 'entropy, max');
      assert.deepEqual([r.jacobian.rows, r.jacobian.cols], [5, 5]);
      const formula = a.flatMap((ai, i) => a.map((aj, j) => ai * ((i === j ? 1 : 0) - aj)));
      assertClose(r.jacobian.data, formula, 1e-6, 'J = diag(a) − aaᵀ');
      assertClose([r.jacobianNorm], [Math.hypot(...formula)], 1e-6, '‖J‖_F');
      // ∂a_i/∂z_j by central differences through the engine (z_j ± h is scores_j ± 4h)
      const h = 1e-2;
      for (let j = 0; j < 5; j++) {
        const shifted = (sign) => engine.softmaxRow({ scores: scores.map((s, k) => (k === j ? s + sign * 4 * h : s)), scale: 0.5, temperature: 2 }).weights;
        const up = shifted(1), down = shifted(-1);
        assertClose(a.map((_, i) => r.jacobian.data[i * 5 + j]), a.map((_, i) => (up[i] - down[i]) / (2 * h)), 2e-4, `column ${j}`);
      }
      const uniform = engine.softmaxRow({ scores: new Float32Array(4) });
      assertClose([uniform.entropy, uniform.maxWeight], [Math.log(4), 0.25], 1e-6, 'uniform row');
    });

    it('computes softmax naively and max-subtracted in float32: only the naive form overflows, to Infinity and NaN', () => {
      const exact = (z) => {
        const max = Math.max(...z);
        const total = z.reduce((acc, v) => acc + Math.exp(v - max), 0);
        return z.map((v) => Math.exp(v - max) / total);
      };
      const floatMax = (2 - 2 ** -23) * 2 ** 127;
      assert.equal(Math.fround(floatMax), floatMax, 'the largest float32 is a float32');
      const below = engine.softmaxForms({ scores: [10, 9.5, 8], scale: 8 });
      assert.equal(below.overflowAbove.float32, Math.log(floatMax));
      assert.equal(below.overflowAbove.float16, Math.log(65504));
      assert.deepEqual(Array.from(below.logits), [80, 76, 64]);
      assert.ok(below.naive.exps.every(Number.isFinite) && Number.isFinite(below.naive.sum), 'no overflow at 80');
      assert.equal(below.naive.shift, 0);
      assertClose(below.naive.weights, exact([80, 76, 64]), 1e-6, 'naive below the threshold');
      assertClose(below.naive.weights, below.maxSubtracted.weights, 1e-6, 'the two forms agree below it');

      const over = engine.softmaxForms({ scores: [10, 9.5, 8], scale: 9 });
      assert.deepEqual(Array.from(over.logits), [90, 85.5, 72]);
      assert.equal(over.naive.exps[0], Infinity);
      assert.ok(Number.isFinite(over.naive.exps[1]), 'exp(85.5) still fits');
      assert.equal(over.naive.sum, Infinity);
      assert.ok(Number.isNaN(over.naive.weights[0]), '∞/∞');
      assert.deepEqual(Array.from(over.naive.weights.slice(1)), [0, 0]);
      assert.equal(over.maxSubtracted.shift, 90);
      assert.equal(over.maxSubtracted.exps[0], 1);
      assertClose(over.maxSubtracted.weights, exact([90, 85.5, 72]), 1e-7, 'max-subtracted past the threshold');
      assertClose(over.maxSubtracted.weights, engine.softmaxRow({ scores: over.logits }).weights, 0, 'the softmax attention uses');

      const huge = engine.softmaxForms({ scores: [1000, 1000] });
      assert.deepEqual(Array.from(huge.maxSubtracted.weights), [0.5, 0.5]);
      assert.ok(huge.naive.weights.every(Number.isNaN));
    });

    it('shows the RNN gradient vanish over 64 steps while attention reaches every input', () => {
      const T = 64;
      const flow = engine.rnnGradientFlow({ length: T, seed: 3 });
      assert.deepEqual([flow.states.rows, flow.states.cols], [T, 16]);
      for (const name of ['jacobianNorms', 'rnnGradientNorms', 'attentionGradientNorms']) {
        assert.ok(flow[name] instanceof Float32Array, name);
        assert.equal(flow[name].length, T, name);
      }
      assertClose([flow.jacobianNorms[0]], [4], 1e-6, '‖I‖_F = √16');
      assert.deepEqual(flow.sequentialSteps, { rnn: T, attention: 1 });
      const rnnRatio = flow.rnnGradientNorms[0] / flow.rnnGradientNorms[T - 1];
      const attentionRatio = flow.attentionGradientNorms[0] / flow.attentionGradientNorms[T - 1];
      assert.ok(rnnRatio < 1e-6, `RNN: ‖∂L/∂x_1‖/‖∂L/∂x_T‖ = ${rnnRatio}`);
      assert.ok(attentionRatio > 1e-3, `attention: ‖∂L/∂x_1‖/‖∂L/∂x_T‖ = ${attentionRatio}`);
      // geometric means over the first 16 positions and the 16 before T: only the RNN's decay with distance
      const earlyOverLate = (norms) => {
        const meanLog = (from, to) => norms.slice(from, to).reduce((acc, v) => acc + Math.log(v), 0) / (to - from);
        return Math.exp(meanLog(0, 16) - meanLog(47, 63));
      };
      assert.ok(earlyOverLate(flow.rnnGradientNorms) < 1e-6, 'the RNN forgets early inputs');
      const attentionSpread = earlyOverLate(flow.attentionGradientNorms);
      assert.ok(attentionSpread > 0.1 && attentionSpread < 10, `attention reaches early inputs as well as late ones (${attentionSpread})`);
      assert.deepEqual(engine.rnnGradientFlow({ length: T, seed: 3 }), flow, 'deterministic for a seed');
      const small = engine.rnnGradientFlow({ length: 5, hidden: 3, input: 2, recurrentScale: 0.5 });
      assert.deepEqual([small.states.rows, small.states.cols, small.attentionGradientNorms.length], [5, 3, 5]);
    });

    it('refuses bad input to the experiments with a clear error and keeps working', () => {
      const badInputs = [
        [() => engine.rnnGradientFlow({ length: 1 }), /length must be between 2 and 512, got 1/],
        [() => engine.rnnGradientFlow({}), /length is required/],
        [() => engine.rnnGradientFlow({ length: 8, hidden: 257 }), /hidden must be between 1 and 256/],
        [() => engine.rnnGradientFlow({ length: 8, input: 0 }), /input must be between 1 and 256/],
        [() => engine.rnnGradientFlow({ length: 8, recurrentScale: 0 }), /recurrentScale must be a number > 0/],
        [() => engine.rnnGradientFlow({ length: 8, recurrentScale: Infinity }), /recurrentScale must be finite/],
        [() => engine.rnnGradientFlow({ length: 8, seed: -1 }), /seed must be a whole number/],
        [() => engine.dotProductStatistics({ dK: 0 }), /dK must be between 1 and 4096, got 0/],
        [() => engine.dotProductStatistics({ dK: 8, samples: 100001 }), /samples must be between 1 and 100000/],
        [() => engine.dotProductStatistics({ dK: 8, keys: 1.5 }), /keys must be a whole number/],
        [() => engine.softmaxRow({}), /scores is required/],
        [() => engine.softmaxRow({ scores: [] }), /scores must hold 1 to 1024 numbers, got 0/],
        [() => engine.softmaxRow({ scores: 3 }), /scores must be a Float32Array or an array of numbers/],
        [() => engine.softmaxRow({ scores: [1, NaN] }), /scores contains a non-finite value/],
        [() => engine.softmaxRow({ scores: [1, 2], temperature: 0 }), /temperature must be a finite number > 0/],
        [() => engine.softmaxRow({ scores: [1, 2], scale: 'big' }), /scale must be a number/],
        [() => engine.softmaxRow(null), /expected an options object/],
        [() => engine.softmaxForms({ scores: [1, Infinity] }), /scores contains a non-finite value/],
        [() => engine.softmaxForms({ scores: [] }), /scores must hold 1 to 1024 numbers, got 0/],
        [() => engine.softmaxForms({ scores: [1, 2], scale: 1e39 }), /scale must be finite/],
        [() => engine.softmaxForms({ scores: [1e30, 2], scale: 1e10 }), /scale·scores overflows float32/],
      ];
      for (const [call, pattern] of badInputs) {
        assertThrows(call, pattern);
        assertClose(engine.softmaxRow({ scores: [0, Math.log(3)] }).weights, [0.25, 0.75], 1e-6, `after ${pattern}`);
      }
    });
  });
}
