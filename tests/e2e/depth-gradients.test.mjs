// <attn-depth-gradients> on the residuals slide: the gradient over each layer's parameters of a
// seeded stack of blocks, with residual connections and without, equal to what the package computes
// in Node; it opens without norms, where without residuals it vanishes by orders of magnitude (the
// slide's claim holds), with a LayerNorm before every sub-layer it does not, and exact zeros (float32
// underflow) are named, not dropped.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { canvasColours, equalTo, eventually, fitsSlide, screenshotSlide, slideReady } from './widget-checks.mjs';

const PLACEMENTS = {
  pre: { norm: 'layer_norm', preNorm: true },
  post: { norm: 'layer_norm', preNorm: false },
  none: { norm: 'none', preNorm: true },
};

const { server, browser, engine } = await setUp({ engine: true });

/** the engine's parameter gradient norms in Node, with and without residuals */
function measured(layers, placement) {
  const options = { layers, d: 64, n: 16, seed: 3, ...PLACEMENTS[placement] };
  return [true, false].map((residual) => Array.from(engine.depthGradients({ ...options, residual }).parameterGradientNorms));
}

/** the table of gradients shown to screen readers: [with, without] per layer, once it equals the
 * engine's numbers to the four significant digits shown (0 for "0 (underflow)") */
async function checkTable(widget, layers, placement) {
  const [withSkips, withoutSkips] = measured(layers, placement);
  const want = withSkips.map((v, i) => [i + 1, v, withoutSkips[i]].map((x) => Number(x.toPrecision(4))));
  const shown = await eventually(() => widget.locator('table').filter({ hasText: 'parameter gradient norm per layer' }).evaluate((table) =>
    [...table.rows].slice(1).map((tr) => [...tr.cells].map((c) =>
      (c.textContent.includes('underflow') ? 0 : Number(c.textContent.replaceAll('−', '-')))))), equalTo(want));
  assert.deepEqual(shown, want, `${placement}, ${layers} layers`);
  return { withSkips, withoutSkips };
}

describe('residual connections and the gradient through depth', () => {
  it('opens without norms, where the claim holds: without residuals the gradient vanishes by tens of orders of magnitude', async () => {
    const { page, problems, requests, close } = await openPage(browser, `${server.url}#residuals`);
    const widget = page.locator('attn-depth-gradients');
    await slideReady(page);
    const counts = await canvasColours(widget);
    assert.equal(counts.length, 2, 'the gradient plot and the stream plot');
    for (const c of counts) assert.ok(c > 8, `a plot shows ${c} colours`);
    assert.ok(await fitsSlide(widget), 'the widget fits its slide');
    assert.equal(await widget.getByRole('button', { name: 'no norm' }).getAttribute('aria-pressed'), 'true');

    const { withSkips, withoutSkips } = await checkTable(widget, 12, 'none');
    assert.ok(withoutSkips[0] < 1e-3 * withoutSkips[11], `layer 1: ${withoutSkips[0]}, layer 12: ${withoutSkips[11]}`);
    assert.ok(withoutSkips[0] < 1e-3 * withSkips[0], 'far below the first layer with residuals');
    assert.ok(Math.max(...withSkips) < 2 * Math.min(...withSkips), 'with residuals it reaches every layer alike');
    assert.match(await widget.locator('.ratios strong').nth(1).textContent(), /^(\d\.\d × )?10⁻\S+$/);
    assert.match(await widget.locator('.summary').textContent(), /^The claim holds here/);
    assert.deepEqual(requests.filter((url) => !url.startsWith(server.url)), []);

    // deeper from the slider: the table follows, and exact zeros (underflow) are named
    await widget.getByRole('slider', { name: 'layers L' }).fill('48');
    await page.waitForFunction(() => location.hash.includes('dg-l=48'));
    await slideReady(page);
    const deep = await checkTable(widget, 48, 'none');
    const [plot] = await canvasColours(widget);
    assert.ok(plot > 8, 'the deep plot shows a picture');
    if (deep.withoutSkips.includes(0)) {
      assert.ok(await widget.locator('.legend .zero').isVisible(), 'the underflow strip is explained');
      assert.match(await widget.locator('table').filter({ hasText: 'parameter gradient norm per layer' }).textContent(), /0 \(underflow\)/);
    }
    assert.deepEqual(problems, []);
    await close();
  });

  it('one click away, pre-LN: flat with residuals, and not vanishing without, so the claim fails', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#residuals`);
    const widget = page.locator('attn-depth-gradients');
    await slideReady(page);
    await widget.getByRole('button', { name: 'pre-LN' }).click();
    await page.waitForFunction(() => location.hash.includes('dg-norm=pre'));
    await slideReady(page);
    const { withSkips, withoutSkips } = await checkTable(widget, 12, 'pre');
    assert.ok(Math.max(...withSkips) < 2 * Math.min(...withSkips), `pre-LN with residuals is flat: ${withSkips}`);
    // a LayerNorm in every sub-layer rescales what the sub-layer shrank: no vanishing at initialisation
    assert.ok(withoutSkips[0] > withoutSkips[11], 'without residuals layer 1 gets more than layer 12');
    const tiles = await widget.locator('.ratios strong').allTextContents();
    assert.deepEqual(tiles, [`×${(withSkips[0] / withSkips[11]).toPrecision(2)}`, `×${(withoutSkips[0] / withoutSkips[11]).toPrecision(2)}`]);
    assert.match(await widget.locator('.summary').textContent(), /^The claim fails here/);
    assert.ok(await widget.locator('.legend .zero').isHidden(), 'no value underflowed');

    // post-LN from the button
    await widget.getByRole('button', { name: 'post-LN' }).click();
    await page.waitForFunction(() => location.hash.includes('dg-norm=post'));
    await slideReady(page);
    await checkTable(widget, 12, 'post');
    assert.deepEqual(problems, []);
    await close();
  });

  it('takes the depth from a shared link', async () => {
    const { page, problems, close } = await openPage(browser, `${server.url}#residuals&dg-l=5&dg-norm=post`);
    const widget = page.locator('attn-depth-gradients');
    await slideReady(page);
    assert.equal(await widget.getByRole('slider', { name: 'layers L' }).inputValue(), '5');
    await checkTable(widget, 5, 'post');
    assert.deepEqual(problems, []);
    await close();
  });

  it('looks right at both sizes in both themes without norms at 48 layers', async () => {
    const { paths, problems } = await screenshotSlide(browser, `${server.url}#residuals&dg-l=48`, 'depth-gradients-none-48');
    assert.equal(paths.length, 4);
    assert.deepEqual(problems, []);
  });
});
