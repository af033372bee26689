// Every JavaScript example in docs/api.md runs as written (browser-only ones, marked ```js browser,
// need a page: tests/e2e/package.test.mjs runs the worker through examples/js/index.html).
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const doc = readFileSync(`${root}docs/api.md`, 'utf8');
const blocks = [...doc.matchAll(/^```js\n([\s\S]*?)^```/gm)].map((m) => m[1]);
const PRELUDE = "import { loadAttnlab } from 'attnlab';\nconst engine = await loadAttnlab();\n";

it('docs/api.md has examples for every entry point', () => {
  const code = blocks.join('\n');
  for (const entry of ['loadAttnlab', 'setThreads', 'attentionSteps', 'attention(', 'positionalTable', 'positionSimilarity',
    'sinusoidalShiftMatrix', 'sinusoidalShift(', 'attentionBudget', 'randomNormal', 'norms(', 'ropeApply', 'ropeRotation', 'alibiSlopes', 'alibiBias', 'createModel', 'loadModel', 'tokenize',
    'forward', 'nextTokenProbabilities', 'startGeneration', 'generateStep', 'decode', 'pieces(', 'save', 'benchmark', 'memoryInUse', 'createTrainer', 'coreferenceSentence',
    'rnnGradientFlow', 'dotProductStatistics', 'softmaxRow', 'softmaxForms', 'causal:', 'depthGradients', 'activationCurve', 'feedForwardParameters',
    'patchEmbedding', 'kvCache', 'generate(', 'topP', 'specialTokens', 'parameter(']) {
    assert.ok(code.includes(entry), `an example uses ${entry}`);
  }
});

blocks.forEach((block, i) => {
  it(`docs/api.md example ${i + 1} runs`, () => {
    // inside the repository, so that `import 'attnlab'` resolves to this package
    mkdirSync(`${root}build/api-doc-examples`, { recursive: true });
    const file = `${root}build/api-doc-examples/example-${i + 1}.mjs`;
    writeFileSync(file, block.includes('loadAttnlab') ? block : PRELUDE + block);
    execFileSync('node', [file], { encoding: 'utf8', timeout: 60000 });
  });
});
