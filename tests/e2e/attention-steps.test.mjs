// <attn-attention-steps> on the worked-example slide: the deck's and the write-up's examples and the
// reader's own matrices, computed by the engine stage by stage; → steps through the stages before
// the deck moves on; hovering names where a number comes from; a reader's hand calculation is
// graded; hostile input gets a clear message; the widget fits the slide.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';

import { followHash, overflowPastSlide, screenshotPage, slideReady } from './widget-checks.mjs';


const { server, browser, engine } = await setUp({ engine: true });

const WRITEUP = {
  x: [1.0, 0.5, 2.0, 1.0, 0.5, 2.0], n: 3, d: 2, dK: 2, dV: 2,
  wQ: [0.5, 0.3, 0.2, 0.4], wK: [0.3, 0.1, 0.4, 0.2], wV: [0.2, 0.5, 0.3, 0.1],
};

const fixed = (values, decimals) => Array.from(values, (v) => v.toFixed(decimals).replace('-', '−'));

/** the printed rows of one matrix in the stage area ("weights", "q", …) */
const rows = (widget, matrix) => widget.locator(`section.area figure[data-matrix="${matrix}"] tr[data-row]`)
  .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));

async function open(hash, options) {
  const opened = await openPage(browser, `${server.url}#worked-example${hash}`, options);
  await slideReady(opened.page);
  return { ...opened, widget: opened.page.locator('attn-attention-steps') };
}

/** waits until the stage area shows `stage` */
const showing = (widget, stage) => widget.locator(`section.area[data-stage="${stage}"]`).waitFor();

describe('the worked example', () => {
  it("shows the deck's softmax row as the engine computes it, and where the deck prints other numbers", async () => {
    const { page, widget, problems, requests, close } = await open('&stage=5');
    await showing(widget, 'softmax');
    const weights = engine.attention({ ...deckInput(), mask: 'none', trace: ['weights'] }).heads[0].weights.data;
    assert.deepEqual((await rows(widget, 'weights'))[0], fixed(weights.slice(0, 3), 4));
    assert.deepEqual((await rows(widget, 'weights'))[0], ['0.0454', '0.7679', '0.1867']);
    const note = widget.locator('[data-testid="slips"]');
    // the note names the seminar document and its rounding plainly
    assert.match(await note.textContent(), /^The slide deck rounds its numbers to 2 decimals\. Rounded the same way, the engine’s are not the ones it prints here:/);
    assert.match(await note.textContent(), /A, row A\s*printed \(0\.05, 0\.78, 0\.17\)\s*engine \(0\.0454, 0\.7679, 0\.1867\)/);
    assert.match(await widget.locator('[data-testid="summary"]').textContent(), /Token A puts 4\.5% on A, 76\.8% on B, 18\.7% on C/);

    await widget.getByRole('button', { name: 'causal mask' }).click();
    await page.waitForFunction(() => location.hash.includes('causal=1'));
    await page.waitForFunction(() => document.querySelector('attn-attention-steps').shadowRoot
      .querySelector('figure[data-matrix="weights"] tr[data-row="0"] td')?.textContent === '1.0000');
    const masked = await rows(widget, 'weights');
    assert.deepEqual(masked[0], ['1.0000', '0.0000', '0.0000']);
    assert.equal(masked[1][2], '0.0000');
    assert.equal(await widget.locator('[data-testid="slips"]').count(), 0, 'the deck prints only the unmasked case');
    assert.deepEqual(problems, []);
    assert.deepEqual(requests.filter((u) => !u.startsWith(server.url) && !u.startsWith('data:')), []);
    await close();
  });

  it('keeps its settings in the URL', async () => {
    const { widget, problems, close } = await open('&causal=1&stage=4&scaled=0');
    await showing(widget, 'mask');
    assert.equal(await widget.getByRole('button', { name: 'causal mask' }).getAttribute('aria-pressed'), 'true');
    assert.equal(await widget.getByRole('button', { name: 'scale by 1/√d_k' }).getAttribute('aria-pressed'), 'false');
    const masked = await rows(widget, 'masked');
    assert.deepEqual(masked[0], ['0.00', '−∞', '−∞']);
    // unscaled: QKᵀ itself, 4 for (B, A)
    assert.deepEqual(masked[1].slice(0, 2), ['4.00', '0.00']);
    assert.deepEqual(problems, []);
    await close();
  });

  it('steps through the stages with → before the deck moves on, and back with ←', async () => {
    const { page, widget, problems, close } = await open('');
    await showing(widget, 'project');
    const counter = await page.locator('#slide-counter').textContent();
    const stages = ['scores', 'scale', 'mask', 'softmax', 'mix'];
    for (const stage of stages) {
      await page.keyboard.press('ArrowRight');
      await showing(widget, stage);
      assert.equal(await page.locator('#slide-counter').textContent(), counter, `still on the slide at ${stage}`);
    }
    await page.waitForFunction(() => location.hash.includes('stage=6'));
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((before) => document.querySelector('#slide-counter').textContent !== before, counter);
    assert.equal(await page.locator('section.slide.active').getAttribute('id') === 'worked-example', false);
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => document.querySelector('section.slide.active').id === 'worked-example');
    await page.keyboard.press('ArrowLeft');
    await showing(widget, 'softmax');
    assert.deepEqual(problems, []);
    await close();
  });

  it("shows the write-up's example as the engine computes it, with the write-up's slips", async () => {
    const { page, widget, problems, close } = await open('');
    await widget.getByRole('button', { name: 'Write-up §7' }).click();
    await page.waitForFunction(() => location.hash.includes('ex=writeup'));
    const result = engine.attention({ ...WRITEUP, trace: true }).heads[0];
    await widget.locator('section.area figure[data-matrix="q"] tr[data-row="2"]', { hasText: '0.95' }).waitFor();
    for (const m of ['q', 'k', 'v']) {
      const shown = await rows(widget, m);
      assert.deepEqual(shown, [0, 1, 2].map((i) => fixed(result[m].data.slice(2 * i, 2 * i + 2), 2)), m);
    }
    assert.deepEqual((await rows(widget, 'q'))[2], ['0.65', '0.95']);
    assert.deepEqual((await rows(widget, 'k'))[2], ['0.95', '0.45']);
    assert.deepEqual((await rows(widget, 'v'))[2], ['0.70', '0.45']);
    const note = await widget.locator('[data-testid="slips"]').textContent();
    assert.match(note, /^The write-up \(§7\) rounds its numbers to 1–2 decimals\./);
    assert.match(note, /Q, row t3\s*printed \(0\.65, 1\.1\)\s*engine \(0\.6500, 0\.9500\)/);
    assert.match(note, /K, row t3\s*printed \(0\.95, 0\.5\)\s*engine \(0\.9500, 0\.4500\)/);
    assert.match(note, /V, row t3\s*printed \(0\.76, 0\.45\)\s*engine \(0\.7000, 0\.4500\)/);

    await widget.getByRole('button', { name: '5 Softmax' }).click();
    await showing(widget, 'softmax');
    const weights = await rows(widget, 'weights');
    assert.deepEqual(weights, [0, 1, 2].map((i) => fixed(result.weights.data.slice(3 * i, 3 * i + 3), 4)));
    assert.deepEqual(problems, []);
    await close();
  });

  it("grades a hand calculation: a planted wrong entry is marked with the engine's value, right ones accepted", async () => {
    const { page, widget, problems, close } = await open('&stage=5&check=1');
    await showing(widget, 'softmax');
    assert.equal(await widget.locator('figure[data-matrix="weights"] td', { hasText: '0.7679' }).count(), 0,
      "the engine's answer stays hidden until checked");
    const cell = (i, j) => widget.getByRole('textbox', { name: `your A row ${'ABC'[i]} column ${'ABC'[j]}` });
    await cell(0, 0).fill('0.05');
    await cell(0, 1).fill('0.78');
    await cell(0, 2).fill('0.1867');
    await cell(2, 2).fill('1/3');
    await widget.getByRole('button', { name: 'Check', exact: true }).click();
    await widget.getByText('2 right, 2 wrong, 5 left empty.').waitFor();
    const marks = await widget.locator('figure[data-matrix="weights"] td').evaluateAll((tds) =>
      tds.map((td) => ({
        cls: ['right', 'wrong'].find((c) => td.classList.contains(c)) ?? '', mark: td.querySelector('.mark')?.textContent ?? '',
      })));
    assert.deepEqual(marks[0], { cls: 'right', mark: '✓ right' });
    assert.deepEqual(marks[1], { cls: 'wrong', mark: '✗ 0.7679 (Δ +0.0121)' });
    assert.deepEqual(marks[2], { cls: 'right', mark: '✓ right' });
    assert.deepEqual(marks[8], { cls: 'wrong', mark: '✗ 0.3333 (is not a number)' });
    // marks come with a symbol, not colour alone
    const [right, wrong] = await Promise.all([0, 1].map((k) => widget.locator('figure[data-matrix="weights"] td').nth(k)
      .evaluate((td) => getComputedStyle(td).backgroundColor)));
    assert.notEqual(right, wrong);

    await cell(0, 1).fill('0.768');
    await widget.getByRole('button', { name: 'Check', exact: true }).click();
    await widget.getByText('3 right, 1 wrong, 5 left empty.').waitFor();
    assert.deepEqual(problems, []);
    await close();
  });

  it('lights up the rows a hovered score comes from', async () => {
    const { widget, problems, close } = await open('&stage=2');
    await showing(widget, 'scores');
    await widget.locator('figure[data-matrix="scores"] tr[data-row="0"] td[data-col="1"]').hover();
    await widget.getByText('QKᵀ[“A”, “B”] ← row “A” of Q and row “B” of K').waitFor();
    const lit = (m) => widget.locator(`figure[data-matrix="${m}"] td.source`).evaluateAll((tds) =>
      tds.map((td) => `${td.parentElement.dataset.row},${td.dataset.col}`));
    assert.deepEqual(await lit('q'), ['0,0', '0,1']);
    assert.deepEqual(await lit('k'), ['1,0', '1,1']);
    await widget.getByRole('button', { name: '6 Mix' }).click();
    await showing(widget, 'mix');
    await widget.locator('figure[data-matrix="output"] tr[data-row="1"] td[data-col="0"]').hover();
    assert.deepEqual(await lit('weights'), ['1,0', '1,1', '1,2']);
    assert.deepEqual(await lit('v'), ['0,0', '1,0', '2,0']);
    assert.deepEqual(problems, []);
    await close();
  });

  it("recomputes the reader's own matrices as they are typed, and resizes them", async () => {
    const { page, widget, problems, close } = await open('');
    await widget.getByRole('button', { name: 'Your own' }).click();
    await page.waitForFunction(() => location.hash.includes('ex=custom') && location.hash.includes('mx=3_4_2_2_'));
    assert.deepEqual((await rows(widget, 'q'))[0], ['2.00', '0.00']);
    await widget.getByRole('textbox', { name: 'X row t1 column 1' }).fill('2.5');
    await widget.locator('figure[data-matrix="q"] tr[data-row="0"] td', { hasText: '3.50' }).waitFor();
    const expected = engine.attention({ ...deckInput(), x: [2.5, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0], trace: ['q'] }).heads[0].q.data;
    assert.deepEqual((await rows(widget, 'q'))[0], fixed(expected.slice(0, 2), 2));
    await page.waitForFunction(() => location.hash.includes('mx=3_4_2_2_2.5_'));

    await widget.getByRole('combobox', { name: 'n', exact: true }).selectOption('5');
    await widget.getByRole('combobox', { name: 'd_k', exact: true }).selectOption('3');
    // both changes drawn: a fifth row, and a third column (the first only would show n = 5, d_k = 2)
    await widget.locator('section.area figure[data-matrix="q"] tr[data-row="4"] td').nth(2).waitFor();
    assert.deepEqual((await rows(widget, 'q')).map((r) => r.length), [3, 3, 3, 3, 3]);
    assert.deepEqual((await rows(widget, 'q'))[0], ['3.50', '0.00', '0.00']);
    assert.deepEqual(problems, []);
    await close();
  });

  it('answers hostile input with a clear message and keeps the last valid results', async () => {
    const { page, widget, problems, close } = await open('&ex=custom');
    await showing(widget, 'project');
    const input = widget.getByRole('textbox', { name: 'X row t2 column 2' });
    const alert = widget.locator('.problem[role="alert"]');
    for (const [typed, problem] of [['NaN', 'is not a number'], ['1e999', 'is not a finite number'],
      ['abc', 'is not a number'], ['5000', 'is outside ±1000']]) {
      await input.fill(typed);
      await alert.getByText(`X row t2 column 2: “${typed}” ${problem}`).waitFor();
      assert.equal(await input.getAttribute('aria-invalid'), 'true');
      assert.deepEqual((await rows(widget, 'q'))[1], ['0.00', '2.00'], 'the last valid results stay');
    }
    assert.equal(await page.locator('attn-attention-steps .status .error').count(), 0, 'the widget itself did not fail');
    await input.fill('3');
    await widget.locator('figure[data-matrix="q"] tr[data-row="1"] td', { hasText: '4.00' }).waitFor();
    assert.equal(await alert.textContent(), '');
    assert.deepEqual(problems, []);
    await close();
  });

  it('fits the slide, even with the largest matrices', async () => {
    const largest = encodeLargest();
    const { page, widget, close } = await open('&stage=1');
    for (const hash of ['&stage=1', '&stage=6', `&ex=custom&mx=${largest}&stage=1`, `&ex=custom&mx=${largest}&stage=2`,
      `&ex=custom&mx=${largest}&stage=6`, '&ex=writeup&stage=6&check=1', '&ex=writeup&stage=1']) {
      await followHash(page, `#worked-example${hash}`);
      const { below, beyond } = await overflowPastSlide(widget);
      assert.ok(below <= 0, `${hash}: ${below} px below the slide`);
      assert.ok(beyond <= 0, `${hash}: ${beyond} px beyond its right edge`);
    }
    await close();
  });

  it('looks right at both sizes in both themes at softmax, on the write-up, grading and at the largest', async () => {
    const { page, problems, close } = await open('&stage=5');
    for (const [name, hash] of [
      ['worked-example-softmax', '&stage=5'],
      ['worked-example-writeup', '&ex=writeup&stage=1'],
      ['worked-example-check', '&stage=5&check=1'],
      ['worked-example-largest', `&ex=custom&mx=${encodeLargest()}&stage=6`],
    ]) {
      await followHash(page, `#worked-example${hash}`);
      assert.equal((await screenshotPage(page, name)).length, 4);
    }
    assert.deepEqual(problems, []);
    await close();
  });
});

function deckInput() {
  return {
    x: [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0], n: 3, d: 4,
    wQ: [1, 0, 0, 1, 1, 0, 0, 1], wK: [0, 1, 1, 0, 0, 1, 1, 0], wV: [1, 1, 0, 0, 1, 0, 0, 1], dK: 2, dV: 2,
  };
}

/** n = 8 tokens of width 8, d_k = d_v = 4, with entries of a few digits, as URL text */
function encodeLargest() {
  const entries = Array.from({ length: 8 * 8 + 3 * 8 * 4 }, (_, k) => ((k * 37) % 11 - 5) / 4);
  return [8, 8, 4, 4, ...entries].join('_');
}
