// Debian's Chromium driven by playwright-core, kept off every network but loopback.
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';

export const SCREENSHOTS = new URL('../../build/screenshots/', import.meta.url).pathname;

export async function launch() {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic'],
  });
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
