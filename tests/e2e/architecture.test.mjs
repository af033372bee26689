// <attn-architecture> on the architecture slide: the block diagram of each model family, drawn from
// a live model's config, with the shape the engine traced on every arrow; a block links to its slide.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openPage, setUp } from './browser.mjs';
import { DIST } from './server.mjs';
import { slideReady } from './widget-checks.mjs';

const config = (name) => JSON.parse(readFileSync(join(DIST, `models/${name}/config.json`), 'utf8'));
const SENTENCE_TOKENS = 10;

const { server, browser } = await setUp();

/** the diagram's stack titles, repeat counts and shape labels, and its smallest text as shown (px) */
const diagram = (widget) => widget.locator('svg').evaluate((svg) => ({
  titles: [...svg.querySelectorAll('tspan.title')].map((t) => t.textContent),
  smallest: Math.min(...[...svg.querySelectorAll('text, tspan')]
    .map((t) => parseFloat(getComputedStyle(t).fontSize) * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width)),
  repeats: [...svg.querySelectorAll('text.repeat')].map((t) => t.textContent),
  shapes: [...svg.querySelectorAll('text.shape')].map((t) => t.textContent),
  blocks: [...svg.querySelectorAll('a.box')].map((a) => [a.querySelector('text').textContent, a.getAttribute('href')]),
}));

describe('the architecture', () => {
  it('draws each family from its model, n × d on every arrow', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#architecture`);
    await slideReady(page);
    const widget = page.locator('attn-architecture');
    const coreference = config('coreference');
    const sort = config('sort');

    const original = await diagram(widget);
    assert.equal(original.titles.length, 2, 'encoder and decoder');
    assert.deepEqual(original.repeats, [`${coreference.n_layers}×`, `${coreference.n_layers}×`]);
    // the encoder reads the sentence (10 tokens), the decoder "the cat sat" (3)
    assert.ok(original.shapes.includes(`${SENTENCE_TOKENS}×${coreference.d_model}`), original.shapes.join(' '));
    assert.ok(original.shapes.includes(`3×${coreference.d_model}`), original.shapes.join(' '));
    assert.ok(original.blocks.some(([label]) => /cross/i.test(label)), 'the decoder has cross-attention');
    // at its own size on the 1280×720 slide, the encoder–decoder's eleven rows too: its text is the deck's 14 px
    assert.ok(original.smallest >= 14, `text shown at ${original.smallest} px`);

    await widget.getByRole('button', { name: 'Encoder only (BERT)' }).click();
    await page.waitForFunction(() => location.hash.includes('family=encoder') && !location.hash.includes('encoder-decoder'));
    await slideReady(page);
    const encoder = await diagram(widget);
    assert.equal(encoder.titles.length, 1);
    assert.deepEqual(encoder.repeats, [`${coreference.n_layers}×`]);
    assert.ok(encoder.smallest >= 14, `text shown at ${encoder.smallest} px`);
    for (const shape of encoder.shapes.filter((s) => !s.includes(String(coreference.vocab_size)))) {
      assert.match(shape, new RegExp(`^${SENTENCE_TOKENS}×(${coreference.d_model}|${coreference.d_ff})$`));
    }

    await widget.getByRole('button', { name: 'Decoder only (GPT)' }).click();
    await page.waitForFunction(() => location.hash.includes('family=decoder'));
    await slideReady(page);
    const decoder = await diagram(widget);
    assert.deepEqual(decoder.repeats, [`${sort.n_layers}×`]);
    assert.ok(decoder.smallest >= 14, `text shown at ${decoder.smallest} px`);
    // the letters of "attention"
    assert.ok(decoder.shapes.includes(`9×${sort.d_model}`), decoder.shapes.join(' '));
    assert.deepEqual(problems, []);
    await close();
  });

  it('goes to a block\'s slide when it is clicked', async () => {
    const { page, close } = await openPage(browser, `${server.url}#architecture&family=encoder`);
    await slideReady(page);
    const blocks = await diagram(page.locator('attn-architecture'));
    const [label, href] = blocks.blocks.find(([, link]) => link === '#multi-head');
    await page.locator('attn-architecture').locator('a.box', { hasText: label }).first().click();
    await page.locator(`section${href}.active`).waitFor();
    await close();
  });
});
