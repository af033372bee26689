// <attn-programmed> on its slide: the letters typed go through the compiled program's forward pass in
// the page's engine, whose answer equals Node's engine and a plain JavaScript reference; each head's
// heatmap holds the numbers of Node's trace (its characters' rows), which are the program's select
// matrix; a text too long or a foreign character is refused with the engine's reason, and the
// widget answers again once the text is fixed. Screenshots of the slide (two sizes, both themes,
// and a phone) are written for a person to look at.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, SCREENSHOTS, setUp } from './browser.mjs';
import { assertClose } from '../js/helpers.mjs';
import { canvasColours, eventually, fitsSlide, screenshotPage, slideReady } from './widget-checks.mjs';

const { server, browser, engine } = await setUp({ engine: true });

const REFERENCE = {
  reverse: (text) => [...text].reverse(),
  histogram: (text) => [...text].map((c) => String([...text].filter((d) => d === c).length)),
  sort: (text) => [...text].sort(),
};

/** the program's answer and each head's attention (the characters' rows), by the package's engine in Node */
function inNode(program, text) {
  const model = engine.programmedModel({ program });
  const { heads, vocabulary } = engine.describeProgram({ program });
  const input = engine.programInput({ program, text });
  const names = heads.map((h) => `layer${h.layer}.attn.head${h.head}.weights`);
  const { logits, trace } = model.forward({ tokens: input.tokens, trace: names });
  const answer = [];
  for (let r = 1; r < logits.rows; r++) {
    const row = [...logits.data.subarray(r * logits.cols, (r + 1) * logits.cols)];
    answer.push(vocabulary[row.indexOf(Math.max(...row))]);
  }
  model.dispose();
  return { answer, input, heads: names.map((name) => trace[name].data.slice(trace[name].cols)) };
}

/** the answer row of the widget */
const shownAnswer = (widget) => widget.locator('.answer tr.out td').allTextContents();
/** each head's heatmap numbers (its screen-reader table, without headers), row by row */
const shownHeads = (widget) => widget.locator('.heads .head').evaluateAll((heads) => heads.map((f) =>
  [...f.querySelector('table').rows].slice(1).flatMap((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.textContent)))));

async function expectProgram(widget, program, text) {
  const node = inNode(program, text);
  assert.deepEqual(node.answer, REFERENCE[program](text), `Node's engine: ${program} of "${text}"`);
  assert.deepEqual(await eventually(() => shownAnswer(widget), (a) => a?.join('') === node.answer.join('')), node.answer);
  const heads = await eventually(() => shownHeads(widget), (h) => h?.length === node.heads.length && h.every((m, i) => m.length === node.heads[i].length));
  for (const [i, shown] of heads.entries()) {
    assertClose(shown, node.heads[i], 5e-5, `${program} "${text}" head ${i}: the page's numbers against Node's trace`);
    assertClose(node.heads[i], node.input.patterns[i].data, 1e-6, `${program} "${text}" head ${i}: Node's trace against the select matrix`);
  }
}

describe('a Transformer programmed by hand', () => {
  it('answers as Node\'s engine and the reference, draws the trace, and refuses bad text readably', { timeout: 120000 }, async () => {
    const { page, problems, requests, close } = await openPage(browser, `${server.url}#universality`);
    await slideReady(page);
    const widget = page.locator('attn-programmed');
    assert.ok(await fitsSlide(widget), 'the widget fits its slide');
    await expectProgram(widget, 'sort', 'banana');
    assert.deepEqual(await widget.locator('.program li code').allTextContents(), engine.describeProgram({ program: 'sort' }).lines);
    assert.match(await widget.locator('.program li').nth(1).textContent(), /layer 0 head 1, layer 0 FFN/);
    const colours = await canvasColours(widget);
    assert.equal(colours.length, 3, 'one heatmap per head of sort');
    assert.ok(colours.every((c) => c > 2), `the heatmaps are drawn: ${colours}`);

    // hovering a head marks the line it implements
    await widget.locator('.heads .head').nth(2).hover();
    await widget.locator('.program li.active', { hasText: 'sorted = Aggregate' }).waitFor();

    await widget.getByRole('button', { name: 'reverse' }).click();
    const field = widget.getByRole('textbox', { name: 'letters' });
    await field.fill('stressed');
    await expectProgram(widget, 'reverse', 'stressed');
    await page.waitForFunction(() => location.hash.includes('pg=reverse') && location.hash.includes('pg-text=stressed'));

    await widget.getByRole('button', { name: 'histogram' }).click();
    await field.fill('mississipi');
    await expectProgram(widget, 'histogram', 'mississipi');

    // bad text: the engine's reason in the widget, the picture hidden; fixed text answers again
    await field.fill('abcdefghijklm');
    await widget.locator('.error', { hasText: 'histogram reads at most 10 letters, got 13' }).waitFor();
    assert.equal(await widget.locator('.answer').isVisible(), false);
    await field.fill('Abba');
    await widget.locator('.error', { hasText: 'letters a–z only; "A" (character 1) is not one of them' }).waitFor();
    await field.fill('abba');
    await expectProgram(widget, 'histogram', 'abba');
    assert.equal(await widget.locator('.error').count(), 0);

    assert.deepEqual(problems, []);
    assert.deepEqual(requests.filter((u) => !u.startsWith(server.url) && !u.startsWith('data:') && !u.startsWith('blob:')), []);
    await close();
  });

  it('screenshots the slide at two sizes in both themes, and on a phone', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#universality`);
    await slideReady(page);
    assert.equal((await screenshotPage(page, 'universality')).length, 4);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('attn-programmed').scrollIntoViewIfNeeded();
    await slideReady(page);
    await page.locator('attn-programmed').screenshot({ path: `${SCREENSHOTS}universality-390-light.png` });
    assert.deepEqual(problems, []);
    await close();
  });
});
