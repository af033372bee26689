// Debian's Chromium driven by playwright-core, kept off every network but loopback, and the set-up
// every browser test file shares: the page served, one browser, the package's engine in Node.
import { chromium } from 'playwright-core';
import { existsSync, mkdirSync } from 'node:fs';
import { after } from 'node:test';
import { pathToFileURL } from 'node:url';
import { DIST, serve } from './server.mjs';

export const SCREENSHOTS = new URL('../../build/screenshots/', import.meta.url).pathname;
const PACKAGE = new URL('../../build/package/index.js', import.meta.url);

export async function launch() {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

let nodeEngine;
/** the package's engine in Node, single thread: one for the whole test file */
export function packageEngine() {
  if (!existsSync(PACKAGE)) throw new Error('build/package is missing: bash scripts/build.sh package');
  nodeEngine ??= import(PACKAGE.href).then((m) => m.loadAttnlab({ threads: 1 }));
  return nodeEngine;
}

/** A test file's set-up (top-level await): `root` served on 127.0.0.1 (the built page unless
 * given; null: no server), cross-origin isolated unless `isolated` is false, one Chromium, and with
 * `engine` the package's engine in Node; the browser and server close after the file's tests. */
export async function setUp({ root = DIST, isolated = true, engine = false } = {}) {
  const server = root === null ? undefined : await serve(root, { isolated });
  const browser = await launch();
  after(async () => {
    await browser.close();
    server?.close();
  });
  return { server, browser, engine: engine ? await packageEngine() : undefined };
}

/** A page that fails the test on console errors and records every request it makes; `init` runs
 * in the page before its own scripts. */
export async function openPage(browser, url, { colorScheme = 'light', viewport = { width: 1280, height: 720 }, init } = {}) {
  const context = await browser.newContext({ viewport, colorScheme });
  const page = await context.newPage();
  if (init) await page.addInitScript(init);
  const problems = [];
  const requests = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(url);
  return { page, problems, requests, close: () => context.close() };
}

/** build/offline/attnlab.html, the deck as one file */
export const OFFLINE = new URL('../../build/offline/attnlab.html', import.meta.url);

/** The offline file from file:// at `hash`, every network request refused and recorded (`refused`),
 * console errors in `problems`. */
export async function openOffline(browser, hash) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  const refused = [];
  await context.route(/^(https?|wss?):/, (route) => {
    refused.push(route.request().url());
    return route.abort();
  });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${pathToFileURL(OFFLINE.pathname).href}#${hash}`);
  return { page, problems, refused, close: () => context.close() };
}
