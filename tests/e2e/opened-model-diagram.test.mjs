// The architecture diagram and the families slide on a model the reader opened: a 12-layer GPT-2
// checkpoint (F32) and a Llama one (BF16, grouped key/value heads), made on the spot and opened
// through the dialog. The diagram's labels say what the package's engine in Node reads from the
// same files (norm, positions, heads over K/V heads, FFN, head, vocabulary, context), its shapes are
// those of Node's forward pass over the same sentence, and it is shown with 14 px text; the families' decoder-only column names the model
// and draws its causal mask as Node traces it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { openPage, setUp } from './browser.mjs';
import { byteLevelTokenizer, randomGpt2Checkpoint, randomLlamaCheckpoint } from '../bench/random-checkpoint.mjs';
import { checkpoint, linkedModel, openFiles } from './opened-checkpoints.mjs';
import { eventually, screenshotPage, slideReady } from './widget-checks.mjs';

const { server, browser, engine } = await setUp({ engine: true });
/** what the diagram's forward pass reads (the seminar sentence) */
const SENTENCE = 'the cat sat on the mat because it was soft';

const { json: tokenizer, size: vocab_size } = byteLevelTokenizer();
const gpt2 = checkpoint(engine, 'gpt2', randomGpt2Checkpoint({ vocab_size, n_positions: 128, n_embd: 32, n_head: 4, n_layer: 12 }, 5), tokenizer);
const llama = checkpoint(engine, 'llama', randomLlamaCheckpoint({ vocab_size, num_attention_heads: 4, num_key_value_heads: 2, num_hidden_layers: 2 }, 9), tokenizer);

/** the diagram as drawn: titles, sizes, repeat counts, box labels, shapes on the arrows and at the
 * seams of a norm and its sub-layer, notes beside the boxes, and its smallest text as shown (px) */
const diagram = (widget) => widget.locator('svg').evaluate((svg) => {
  const texts = (selector) => [...svg.querySelectorAll(selector)].map((t) => t.textContent);
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  return {
    titles: texts('tspan.title'), sizes: texts('tspan.sizes'), repeats: texts('text.repeat'), shapes: texts('text.shape'),
    smallest: Math.min(...[...svg.querySelectorAll('text, tspan')].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale)),
    labels: [...svg.querySelectorAll('a.box')].map((a) => a.querySelector('text').textContent),
    notes: [...svg.querySelectorAll('g.notes')].map((g) => [...g.querySelectorAll('text')].map((t) => t.textContent)),
  };
});

/** Node's forward pass over the sentence: its trace's shapes by name ("10×32") */
function nodeShapes(model) {
  const { trace } = model.forward({ tokens: model.tokenize(SENTENCE).ids, trace: true });
  return (name) => `${trace[name].rows}×${trace[name].cols}`;
}

/** Node's causal mask for the first eight tokens of the sentence: may position i look at j */
function nodeMask(model) {
  const name = 'layer0.attn.head0.masked';
  const masked = model.forward({ tokens: model.tokenize(SENTENCE).ids.slice(0, 8), trace: [name] }).trace[name];
  return Array.from({ length: masked.rows }, (_, i) => Array.from({ length: masked.cols }, (_, j) => Number.isFinite(masked.data[i * masked.cols + j])));
}

/** the decoder-only column's mask as drawn: a cell is open (it may look) where its colour stands out
 * from the page's, which the closed cells are painted in (see drawPattern) */
const drawnMask = (column) => column.locator('canvas').evaluate((canvas) => {
  const cell = 8;
  const scale = canvas.width / parseFloat(canvas.style.width);
  const cells = Math.round((parseFloat(canvas.style.width) - 1) / cell);
  const probe = document.createElement('canvas').getContext('2d');
  probe.fillStyle = getComputedStyle(canvas).getPropertyValue('--bg').trim();
  probe.fillRect(0, 0, 1, 1);
  const page = probe.getImageData(0, 0, 1, 1).data;
  const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
  const open = (i, j) => {
    const at = (Math.floor((i * cell + 4.5) * scale) * canvas.width + Math.floor((j * cell + 4.5) * scale)) * 4;
    return [0, 1, 2].some((c) => Math.abs(data[at + c] - page[c]) > 24);
  };
  return Array.from({ length: cells }, (_, i) => Array.from({ length: cells }, (_, j) => open(i, j)));
});

/** goes to another slide of the deck, keeping the model in the link */
async function goTo(page, slide) {
  await page.evaluate((id) => { location.hash = location.hash.replace(/^#[a-z-]+/, `#${id}`); }, slide);
  await page.locator(`section#${slide}.active`).waitFor();
  await slideReady(page);
}

describe('a model opened in the deck, in the architecture and the families', () => {
  it('draws a GPT-2 checkpoint\'s own diagram with Node\'s shapes, and names it in the decoder-only column', async () => {
    const config = gpt2.model.config;
    assert.equal(config.positional, 'learned');
    assert.equal(config.norm, 'layer_norm');
    assert.equal(config.activation, 'gelu_tanh');
    assert.ok(config.pre_norm && config.tie_embeddings);
    const { page, problems, close } = await openPage(browser, `${server.url}#architecture`);
    await slideReady(page);
    await openFiles(page, gpt2.paths, () => page.locator('#open-model').click());
    const name = await linkedModel(page);
    assert.equal(name, 'gpt2-12x32');
    const widget = page.locator('attn-architecture');
    await widget.locator('svg tspan.title', { hasText: name }).waitFor();
    await slideReady(page);

    const shape = nodeShapes(gpt2.model);
    const drawn = await diagram(widget);
    assert.deepEqual(drawn.titles, [`${name}: decoder only`]);
    assert.deepEqual(drawn.sizes, [`vocabulary ${config.vocab_size} · context ${config.n_ctx}`]);
    assert.deepEqual(drawn.repeats, [`${config.n_layers}×`]);
    // at its own size on the 1280×720 slide: its text is the deck's 14 px
    assert.ok(drawn.smallest >= 14, `text shown at ${drawn.smallest} px`);
    assert.deepEqual(drawn.labels, ['Token embedding E[token]', '+ learned positions', 'LayerNorm', 'Masked self-attention + residual',
      'LayerNorm', 'FFN + residual', 'Final LayerNorm', 'Linear · Eᵀ (tied)', 'Softmax → next-token probabilities']);
    assert.deepEqual(drawn.shapes, ['embed.tokens', 'layer0.in', 'layer0.ln_1', 'layer0.residual_1', 'layer0.ln_2',
      `layer${config.n_layers - 1}.out`, 'ln_f', 'logits'].map(shape));
    assert.deepEqual(drawn.notes, [
      [`${config.n_heads} heads`, `d_k = ${config.d_model / config.n_heads} · Q, K, V ${shape('layer0.attn.q')}`],
      ['GELU (tanh)', `hidden ${shape('layer0.mlp.hidden')}`],
    ]);
    await screenshotPage(page, 'architecture-opened-gpt2');
    // the opened model takes the place of the family buttons, and says so
    assert.ok(await widget.getByRole('button', { name: 'Decoder only (GPT)' }).isHidden());
    assert.match(await widget.locator('.about').textContent(), new RegExp(`^${name} \\(GPT-2, ${config.n_layers} layers\\), opened here in place of the families`));

    // the Share menu saves this diagram, named by the model
    await widget.locator('.share summary').click();
    const [file] = await Promise.all([page.waitForEvent('download'), widget.getByRole('button', { name: 'Download SVG' }).click()]);
    assert.equal(file.suggestedFilename(), `attnlab-architecture_model-${name}.svg`);
    const svg = readFileSync(await file.path(), 'utf8');
    for (const text of [`${name}: decoder only`, 'GELU (tanh)', `vocabulary ${config.vocab_size}`]) assert.ok(svg.includes(text), text);

    await goTo(page, 'families');
    const column = page.locator('attn-families section.family').filter({ hasText: 'Decoder-only' });
    await column.locator('p', { hasText: `here: ${name} (GPT-2, ${config.n_layers} layers), and the sorting model` }).waitFor();
    await column.getByText(`one of ${config.vocab_size}`).waitFor();
    assert.equal(await column.locator('select').inputValue(), name);
    const mask = nodeMask(gpt2.model);
    assert.ok(mask.every((row, i) => row.every((may, j) => may === (j <= i))), 'Node traces a causal mask');
    assert.deepEqual(await drawnMask(column), mask);
    assert.match(await column.locator('canvas').getAttribute('aria-label'), new RegExp(`Decoder-only \\(${name}\\)`));
    // the other two columns keep their shipped models
    assert.ok(await page.locator('attn-families section.family').filter({ hasText: 'Encoder-only' }).getByText('here: the coreference model').isVisible());
    assert.deepEqual(problems, []);
    await close();
  });

  it('draws a Llama checkpoint (BF16, grouped K/V heads) opened from the diagram\'s own list, and gives the families back', async () => {
    const config = llama.model.config;
    assert.equal(config.positional, 'rope');
    assert.equal(config.norm, 'rms_norm');
    assert.equal(config.activation, 'swiglu');
    assert.ok(config.pre_norm && !config.tie_embeddings);
    assert.ok(config.n_kv_heads > 0 && config.n_kv_heads < config.n_heads);
    const { page, problems, close } = await openPage(browser, `${server.url}#architecture`);
    await slideReady(page);
    const list = page.locator('attn-architecture [data-control="model"] select');
    await openFiles(page, llama.paths, () => list.selectOption({ label: 'Open a model…' }));
    const name = await linkedModel(page);
    const widget = page.locator('attn-architecture');
    await widget.locator('svg tspan.title', { hasText: name }).waitFor();
    await slideReady(page);

    const shape = nodeShapes(llama.model);
    const drawn = await diagram(widget);
    assert.deepEqual(drawn.titles, [`${name}: decoder only`]);
    assert.deepEqual(drawn.sizes, [`vocabulary ${config.vocab_size} · context ${config.n_ctx}`]);
    assert.deepEqual(drawn.repeats, [`${config.n_layers}×`]);
    assert.ok(drawn.smallest >= 14, `text shown at ${drawn.smallest} px`);
    // no positions added at the bottom: RoPE turns Q and K inside attention
    assert.deepEqual(drawn.labels, ['Token embedding E[token]', 'RMSNorm', 'Masked self-attention + residual', 'RMSNorm', 'FFN + residual',
      'Final RMSNorm', 'Linear LM head (untied)', 'Softmax → next-token probabilities']);
    assert.deepEqual(drawn.shapes, ['layer0.in', 'layer0.ln_1', 'layer0.residual_1', 'layer0.ln_2',
      `layer${config.n_layers - 1}.out`, 'ln_f', 'logits'].map(shape));
    assert.notEqual(shape('layer0.attn.k'), shape('layer0.attn.q'), 'K is narrower than Q');
    assert.deepEqual(drawn.notes, [
      [`${config.n_heads} query heads over ${config.n_kv_heads} K/V heads`,
        `d_k = ${config.d_model / config.n_heads} · Q ${shape('layer0.attn.q')} · K, V ${shape('layer0.attn.k')}`, 'RoPE rotates Q and K'],
      ['SwiGLU: SiLU(gate) ⊙ up', `gate, up ${shape('layer0.mlp.gate')}`],
    ]);
    await screenshotPage(page, 'architecture-opened-llama');

    await goTo(page, 'families');
    const column = page.locator('attn-families section.family').filter({ hasText: 'Decoder-only' });
    await column.locator('p', { hasText: `here: ${name} (Llama family, ${config.n_layers} layers)` }).waitFor();
    assert.deepEqual(await drawnMask(column), nodeMask(llama.model));

    // the shipped entry of the list brings the shipped models back, in both widgets
    await column.locator('select').selectOption({ label: 'sort (shipped)' });
    await column.locator('p', { hasText: 'here: the sorting and the language models' }).waitFor();
    await goTo(page, 'architecture');
    await eventually(() => diagram(widget), (d) => d?.titles.length === 2);
    assert.deepEqual((await diagram(widget)).titles, ['Encoder', 'Decoder']);
    assert.ok(await widget.getByRole('button', { name: 'Decoder only (GPT)' }).isVisible());
    assert.deepEqual(problems, []);
    await close();
  });
});
