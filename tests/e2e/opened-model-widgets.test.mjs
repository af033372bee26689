// Multi-head, components and four-steps on a checkpoint the reader opened: a GPT-2 one (six heads,
// so the small pictures; 192 wide, so the components' rows; ten layers, 4.5 M parameters, more than
// a page could copy out of the engine whole just to draw W_O) and a Llama one (RMSNorm, SwiGLU,
// RoPE, grouped key/value heads), made on the spot and opened through the dialog. Each widget's
// numbers equal the package's engine in Node on the same files: a head's row of weights, W_O (every
// number, from Download CSV), the components' stages and a token's statistics, the four steps'
// softmax row.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { importMathModule } from '../js/helpers.mjs';
import { byteLevelTokenizer, randomGpt2Checkpoint, randomLlamaCheckpoint } from '../bench/random-checkpoint.mjs';
import { checkpoint, linkedModel, openFiles } from './opened-checkpoints.mjs';
import { eventually, followHash, parseCsv, save, slideReady } from './widget-checks.mjs';

const tokenPieces = await importMathModule('token-pieces');
const { server, browser, engine } = await setUp({ engine: true });

const { json: tokenizer, size: vocab_size } = byteLevelTokenizer();
const gpt2File = randomGpt2Checkpoint({ vocab_size, n_positions: 128, n_embd: 192, n_head: 6, n_layer: 10 }, 5);
assert.ok(gpt2File.parameters > 4_000_000, `${gpt2File.parameters} parameters`);
const gpt2 = checkpoint(engine, 'gpt2', gpt2File, tokenizer);
const llama = checkpoint(engine, 'llama', randomLlamaCheckpoint({ vocab_size }, 9), tokenizer);
const SENTENCE = 'the cat sat on the mat and the cat sat on a mat';
const number = (text) => Number(text.replaceAll('−', '-'));

/** the numbers of a heatmap's screen-reader table, row by row (its header row and column left out) */
const tableRows = (figure) => eventually(() => figure.locator('table tr').evaluateAll((trs) =>
  trs.slice(1).map((tr) => [...tr.children].slice(1).map((c) => c.textContent))), (rows) => rows.length > 0);

function assertClose(shown, want, what, tolerance = 1e-4) {
  assert.equal(shown.length, want.length, `${what}: ${shown.length} numbers, not ${want.length}`);
  shown.forEach((v, i) => assert.ok(Math.abs(v - want[i]) <= tolerance, `${what}[${i}] = ${v}, Node's ${want[i]}`));
}

const rowOf = (m, i) => Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols));
function statistics(values) {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length;
  return { mean, std: Math.sqrt(variance), rms: Math.sqrt(variance + mean * mean) };
}

/** what each widget shows of `model` at layer 1 for the last token, checked against Node */
async function checkWidgets(page, name, { model }, { stages, rms }) {
  const { ids } = model.tokenize(SENTENCE);
  const last = ids.length - 1;
  const config = model.config;
  const text = encodeURIComponent(SENTENCE);

  // multi-head: head 1's row of weights for the last token, its most-looked-at word, and W_O
  await followHash(page, `#multi-head&mh=${text}&mhlayer=1&model=${name}`);
  const multiHead = page.locator('attn-multi-head');
  const weights = model.forward({ tokens: ids, trace: ['layer1.attn.head1.weights'] }).trace['layer1.attn.head1.weights'];
  const shownWeights = (await tableRows(multiHead.locator('.heads .heatmap').nth(1)))[last].map(number);
  assertClose(shownWeights, rowOf(weights, last), `${name}: multi-head's weights of head 1`);
  const top = rowOf(weights, last).indexOf(Math.max(...rowOf(weights, last)));
  // the tokenizer's pieces as the page labels them ("Ġcat" is "␣cat")
  const pieces = tokenPieces.tokenLabels(model.tokenize(SENTENCE).pieces, { byteLevel: true }).map((label) => label.text);
  assert.match(await multiHead.locator('.heads h4').nth(1).textContent(), new RegExp(`“${pieces[top]}” ${Math.max(...rowOf(weights, last)).toFixed(2)}$`));
  assert.equal(await multiHead.locator('.heads .heatmap').count(), config.n_heads);
  const captions = await multiHead.locator('.flow figcaption').allTextContents();
  const headWidth = config.d_model / config.n_heads;
  assert.deepEqual(captions.slice(-3), [`Concat: ${ids.length}×${config.d_model}`, `W_O: ${config.d_model}×${config.d_model}`,
    `MultiHead(X): ${ids.length}×${config.d_model}`]);
  if (config.n_heads <= 4) assert.equal(captions[0], `head 0: ${ids.length}×${headWidth}`);
  // W_O's every number, as Download CSV writes them, is the tensor Node's engine reads by name
  const csv = parseCsv((await save(page, multiHead, 'Download CSV')).bytes.toString('utf8'));
  const wO = model.parameter('h.1.attn.c_proj.weight');
  const shownWO = csv.find((table) => table.caption === `W_O: ${wO.rows}×${wO.cols}`);
  assert.ok(shownWO, `${name}: W_O's table among ${csv.map((table) => table.caption).join(', ')}`);
  assert.deepEqual(shownWO.rows.map(([, ...cells]) => cells.map(Number)), Array.from({ length: wO.rows }, (_, i) => rowOf(wO, i)),
    `${name}: multi-head's W_O`);
  await multiHead.locator('.share summary').click();  // closed again
  assert.match(await multiHead.locator('.dims').textContent(), new RegExp(`n = ${ids.length} tokens, d_model = ${config.d_model}, h = ${config.n_heads}`));

  // components: the stages the model has, and the last token's statistics
  await followHash(page, `#components&cs=${text}&cl=1&model=${name}`);
  const components = page.locator('attn-components');
  const titles = await components.locator('.grid h4').allTextContents();
  assert.deepEqual(titles.map((t) => t.replace(/\s+\d+×\d+$/, '')), stages);
  const names = ['layer1.in', 'layer1.ln_1', 'layer1.out'];
  const { trace } = model.forward({ tokens: ids, trace: names });
  const stats = await components.locator('.stats').textContent();
  assert.ok(stats.startsWith(`“${pieces[last]}”`), stats);
  const shownStats = [...stats.matchAll(/(rms|mean|std) (−?[\d.]+)/g)].map((m) => [m[1], number(m[2])]);
  const want = names.flatMap((n, k) => {
    const s = statistics(rowOf(trace[n], last));
    return [...(rms && k === 1 ? [['rms', s.rms]] : []), ['mean', s.mean], ['std', s.std]];
  });
  assert.deepEqual(shownStats.map(([kind]) => kind), want.map(([kind]) => kind));
  assertClose(shownStats.map(([, v]) => v), want.map(([, v]) => v), `${name}: components' statistics`, 0.0005 + 1e-9);

  // four steps: head 1's softmax row of the last token, from the engine's attention steps
  await followHash(page, `#self-attention&sa=${text}&sa-layer=1&sa-head=1&sa-step=3&model=${name}`);
  const steps = page.locator('attn-four-steps');
  const stepper = model.attentionSteps({ tokens: ids, layer: 1 });
  const alpha = stepper.runAll().heads[1].weights;
  stepper.dispose();
  const shownAlpha = (await tableRows(steps.locator('.step[data-panel="alpha"]')))[last].map(number);
  assertClose(shownAlpha, rowOf(alpha, last), `${name}: four steps' softmax row`);
  // a causal model's scores are drawn with its mask
  assert.ok((await steps.locator('.step[data-panel="e"] h4').textContent()).endsWith(`masked (${ids.length}×${ids.length})`));
  assert.match(await steps.locator('[data-testid="instance"]').textContent(), new RegExp(`^The row of “${pieces[last]}” puts`));
}

describe('multi-head, components and four-steps on an opened checkpoint', () => {
  it('show a GPT-2 checkpoint and a Llama one as Node computes them', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#multi-head`);
    await slideReady(page);
    await openFiles(page, gpt2.paths);
    const gpt2Name = await linkedModel(page);
    await checkWidgets(page, gpt2Name, gpt2, {
      stages: ['E[token]', '+ learned position p', 'x (layer input)', 'LayerNorm(x)', 'Attention(LN(x))', 'x + Attention: residual',
        'FFN hidden, GELU(·W₁ + b₁), tanh', '+ FFN(·): layer output'],
      rms: false,
    });
    // 192 dimensions: each stage is the chosen token's row, the token picked from the list
    const components = page.locator('attn-components');
    await followHash(page, `#components&cs=${encodeURIComponent(SENTENCE)}&cl=1&model=${gpt2Name}`);
    assert.equal(await components.locator('.grid.rows').count(), 1);
    await components.getByRole('button', { name: 'token 1: ␣cat' }).click();
    await page.waitForFunction(() => location.hash.includes('ct=1'));
    await components.locator('.stats', { hasText: '“␣cat”' }).waitFor();

    await openFiles(page, llama.paths);
    const llamaName = await linkedModel(page);
    await checkWidgets(page, llamaName, llama, {
      stages: ['E[token]', 'x (layer input)', 'RMSNorm(x)', 'Attention(RMSNorm(x)), RoPE on q, k', 'x + Attention: residual',
        'SwiGLU gate, ·W_gate', 'SwiGLU hidden, SiLU(gate) ⊙ ·W_up', '+ FFN(·): layer output'],
      rms: true,
    });
    const steps = page.locator('attn-four-steps');
    await followHash(page, `#self-attention&sa=${encodeURIComponent(SENTENCE)}&sa-layer=1&sa-head=3&sa-step=1&model=${llamaName}`);
    assert.match(await steps.locator('.explain').textContent(), /key\/value head 1, which heads 2–3 share\. Q and K are then turned by RoPE/);
    assert.deepEqual(problems, []);
    await close();
  });
});
