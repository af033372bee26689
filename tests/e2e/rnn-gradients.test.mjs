// <attn-rnn-gradients> on its slide: the engine's gradients through a tanh RNN fade with the
// distance from the last position, through one attention layer they do not; T sequential steps
// against 1.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { canvasColours, fitsSlide, plotSeries } from './widget-checks.mjs';

const { server, browser } = await setUp();

const RNN = 'RNN: ‖∂L/∂xₜ‖';
const ATTENTION = 'attention: ‖∂L/∂xₜ‖';
const JACOBIAN = 'RNN: ‖∂hₜ/∂h₁‖';

describe('RNN gradients against attention', () => {
  it('shows the RNN gradient fading over T steps while attention reaches every position in one', async () => {
    const { page, problems, requests, close } = await openPage(browser, `${server.url}#sequential-bottleneck`);
    const widget = page.locator('attn-rnn-gradients');
    await page.locator('attn-rnn-gradients[data-ready]').waitFor({ timeout: 60000 });
    const [plot] = await canvasColours(widget);
    assert.ok(plot > 20, `the plot shows ${plot} colours`);
    assert.ok(await fitsSlide(widget), 'the widget fits its slide');

    await widget.getByRole('slider', { name: 'sequence length T' }).fill('128');
    await page.waitForFunction(() => location.hash.includes('rnn-t=128'));
    await widget.locator('.steps .rnn strong', { hasText: /^128$/ }).waitFor();
    assert.equal(await widget.locator('.steps .attention strong').textContent(), '1');
    await page.locator('attn-rnn-gradients[data-ready]').waitFor();
    const series = await plotSeries(widget.locator('figure.plot'));
    for (const name of [RNN, ATTENTION, JACOBIAN]) assert.equal(series[name]?.length, 128, `${name}: one value per position`);
    const rnn = series[RNN].map(([, y]) => y);
    const attention = series[ATTENTION].map(([, y]) => y);
    // orders of magnitude: the first input's gradient against the last one's
    assert.ok(rnn[0] < 1e-3 * rnn[127], `RNN: ‖∂L/∂x₁‖ = ${rnn[0]}, ‖∂L/∂x_T‖ = ${rnn[127]}`);
    // x_T is also the query, so it gets more than x₁; what holds for every seed is no decay to zero
    assert.ok(attention[0] > 1e-3 * attention[127], `attention: ‖∂L/∂x₁‖ = ${attention[0]}, ‖∂L/∂x_T‖ = ${attention[127]}`);
    assert.ok(attention[0] > 1e3 * rnn[0], 'attention delivers far more gradient to x₁ than the RNN');
    const jacobian = series[JACOBIAN].map(([, y]) => y);
    assert.ok(jacobian[127] < jacobian[0], '‖∂h_T/∂h₁‖ has shrunk along the recurrence');

    assert.deepEqual(problems, []);
    assert.deepEqual(requests.filter((url) => !url.startsWith(server.url)), []);
    await close();
  });

  it('takes length and recurrent scale from a shared link', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#sequential-bottleneck&rnn-t=16&rnn-w=0.5`);
    const widget = page.locator('attn-rnn-gradients');
    await widget.locator('.steps .rnn strong', { hasText: /^16$/ }).waitFor({ timeout: 60000 });
    assert.equal(await widget.getByRole('slider', { name: 'recurrent scale' }).inputValue(), '0.5');
    assert.deepEqual(problems, []);
    await close();
  });
});
