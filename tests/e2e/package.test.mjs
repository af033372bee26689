// The package in a page: examples/js/index.html loads the engine on the main thread and a model
// in a Web Worker, from the repository root served with cross-origin isolation.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { openPage, SCREENSHOTS, setUp } from './browser.mjs';

const { server, browser } = await setUp({ root: fileURLToPath(new URL('../../', import.meta.url)) });

it('runs the engine in a worker without blocking the page', { timeout: 120000 }, async () => {
  const { page, problems, requests, close } = await openPage(browser, `${server.url}examples/js/index.html`);
  await page.locator('#direct[data-done]').waitFor();
  assert.match(await page.locator('#direct').textContent(), /build simd-threads: first row of A = 0\.0454, 0\.7679, 0\.1867/);
  await page.locator('#worker[data-done]').waitFor({ timeout: 90000 });
  const data = await page.locator('#worker').evaluate((el) => ({ ...el.dataset }));
  assert.equal(data.build, 'simd-threads');
  assert.equal(data.rows, '384');
  // the page's 10 ms timer kept firing during the forward
  // (a blocked main thread would fire it once at most, after the call)
  assert.ok(Number(data.ticks) >= Math.max(3, Number(data.elapsed) / 50), `timer fired ${data.ticks} times in ${data.elapsed} ms`);
  await page.screenshot({ path: `${SCREENSHOTS}package-example.png` });
  assert.deepEqual(problems, []);
  assert.deepEqual(requests.filter((u) => !u.startsWith(server.url)), []);
  await close();
});
