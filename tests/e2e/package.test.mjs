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

it('forwards only the engine\'s public API through the worker, and loads one engine per worker', { timeout: 120000 }, async () => {
  const { page, problems, close } = await openPage(browser, `${server.url}examples/js/index.html`);
  const refusals = await page.evaluate(async () => {
    const { createEngineWorker } = await import('/build/package/worker-client.js');
    const engine = await createEngineWorker({ threads: 1 });
    const model = await engine.createModel({ config: { vocab_size: 8, n_ctx: 4, d_model: 8, n_heads: 2, d_ff: 8, n_layers: 1 } });
    const said = (call) => call().then(() => 'answered', (error) => error.message);
    const refused = {
      // loading is a message of its own, not a member: a second engine would keep its threads and memory
      load: await said(() => engine['@load']({})),
      // the objects' own fields: their private state
      raw: await said(() => engine.raw()), threadsUsed: await said(() => engine.threadsUsed()),
      live: await said(() => model.live()), handle: await said(() => model.handle()), kind: await said(() => model.kind()),
      constructor: await said(() => model.constructor()),
      prototype: await said(() => engine.__proto__()),
    };
    // the public API still answers, getters included
    const config = await model.config();
    await model.dispose();
    engine.terminate();
    // a worker given a second time (whose engine has loaded) is not loaded again
    const worker = new Worker('/build/package/worker.js', { type: 'module' });
    await createEngineWorker({ worker, threads: 1 });
    const again = await said(() => createEngineWorker({ worker, threads: 1 }));
    worker.terminate();
    return { refused, dModel: config.d_model, again };
  });
  assert.equal(refusals.dModel, 8);
  assert.equal(refusals.again, 'attnlab: the worker has loaded its engine already');
  assert.match(refusals.refused.load, /^attnlab: the engine has no member "@load"$/);
  for (const [member, message] of Object.entries(refusals.refused).filter(([m]) => m !== 'load')) {
    assert.match(message, new RegExp(`^attnlab: (the engine|this object) has no member "${member === 'prototype' ? '__proto__' : member}"$`), member);
  }
  assert.deepEqual(problems, []);
  await close();
});
