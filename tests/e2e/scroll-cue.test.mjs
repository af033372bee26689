// On a phone a widget wider than the screen scrolls sideways inside its own box; a line at its top
// says so while there is more to its right, and goes once the reader has scrolled to the end. On a
// desktop the line never shows.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, setUp } from './browser.mjs';
import { slideReady } from './widget-checks.mjs';

const { server, browser } = await setUp();

const cueShown = (widget) => widget.evaluate((element) => {
  const cue = element.shadowRoot.querySelector('.scroll-cue');
  return cue.checkVisibility() && cue.getBoundingClientRect().height > 0;
});

describe('the cue to scroll a wide widget sideways', () => {
  it('shows on a phone while the widget has more to its right, and never on a desktop', async () => {
    const phone = await openPage(browser, `${server.url}#sequential-bottleneck`, { viewport: { width: 390, height: 844 } });
    await slideReady(phone.page);
    const widget = phone.page.locator('#sequential-bottleneck attn-rnn-gradients');
    const { scrollWidth, clientWidth } = await widget.evaluate((e) => ({ scrollWidth: e.scrollWidth, clientWidth: e.clientWidth }));
    assert.ok(scrollWidth > clientWidth, `the widget is ${scrollWidth} px wide in a ${clientWidth} px box`);
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
