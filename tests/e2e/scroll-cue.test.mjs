// On a phone a widget's plot is laid out again at the screen's width, its text the same size; in a
// box narrower than the plot's least layout the widget scrolls sideways inside its own box, and a
// line at its top says so while there is more to its right, gone once the reader has scrolled to
// the end. On a desktop the line never shows.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { slideReady } from './widget-checks.mjs';

const { server, browser } = await setUp();

const cueShown = (widget) => widget.evaluate((element) => {
  const cue = element.shadowRoot.querySelector('.scroll-cue');
  return cue.checkVisibility() && cue.getBoundingClientRect().height > 0;
});

describe('a widget on a phone', () => {
  it('lays its plot out at the screen\'s width; narrower than that can go, it scrolls with a cue while there is more to its right; never a cue on a desktop', async () => {
    const phone = await openPage(browser, `${server.url}#sequential-bottleneck`, { viewport: { width: 390, height: 844 } });
    await slideReady(phone.page);
    const widget = phone.page.locator('#sequential-bottleneck attn-rnn-gradients');
    const sizes = () => widget.evaluate((e) => {
      const canvas = e.shadowRoot.querySelector('figure.plot canvas');
      return { scrollWidth: e.scrollWidth, clientWidth: e.clientWidth, canvas: canvas.getBoundingClientRect().width, pixels: canvas.width / devicePixelRatio };
    });
    // the plot (700 px wide on a desktop) drawn at the phone's width, at one canvas pixel a CSS pixel
    const fitted = await sizes();
    assert.ok(fitted.scrollWidth <= fitted.clientWidth && fitted.canvas <= fitted.clientWidth && fitted.canvas < 700, JSON.stringify(fitted));
    assert.equal(fitted.pixels, fitted.canvas);
    assert.equal(await cueShown(widget), false);
    // a box narrower than the plot's least layout (240 px)
    await widget.evaluate((e) => { e.style.width = '200px'; });
    await phone.page.waitForFunction((e) => !e.shadowRoot.querySelector('.scroll-cue').hidden, await widget.elementHandle());
    const { scrollWidth, clientWidth } = await sizes();
    assert.ok(scrollWidth > clientWidth, `the widget is ${scrollWidth} px wide in a ${clientWidth} px box`);
    // the plot drawn again for its narrower box, at its least width
    await phone.page.waitForFunction((e) => e.shadowRoot.querySelector('figure.plot canvas').width / devicePixelRatio === 240, await widget.elementHandle());
    assert.equal(await cueShown(widget), true);
    await widget.evaluate((e) => { e.scrollLeft = e.scrollWidth; });
    await phone.page.waitForFunction((e) => e.shadowRoot.querySelector('.scroll-cue').hidden, await widget.elementHandle());
    await widget.evaluate((e) => { e.scrollLeft = 0; });
    await phone.page.waitForFunction((e) => !e.shadowRoot.querySelector('.scroll-cue').hidden, await widget.elementHandle());
    assert.deepEqual(phone.problems, []);
    await phone.close();

    const desktop = await openPage(browser, `${server.url}#sequential-bottleneck`);
    await slideReady(desktop.page);
    assert.equal(await cueShown(desktop.page.locator('#sequential-bottleneck attn-rnn-gradients')), false);
    assert.deepEqual(desktop.problems, []);
    await desktop.close();
  });
});
