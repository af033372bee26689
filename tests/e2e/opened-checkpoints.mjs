// Checkpoints a test opens in the page as a reader would: their files written to a folder on disk
// (what a reader downloads), the same model in Node's engine to compare with, and the "Open a
// model…" dialog driven from the deck's bar or a widget's model list.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** files (name → content) written to a fresh folder: their paths */
export function folderOf(files, name = 'checkpoint') {
  const folder = mkdtempSync(join(tmpdir(), `attnlab-${name}-`));
  for (const [file, content] of Object.entries(files)) writeFileSync(join(folder, file), content);
  return Object.keys(files).map((file) => join(folder, file));
}

/** a checkpoint's folder on disk ({config, weights} and a tokenizer.json), and the same model in `engine` */
export function checkpoint(engine, name, { config, weights }, tokenizer) {
  return {
    paths: folderOf({ 'config.json': config, 'model.safetensors': weights, 'tokenizer.json': tokenizer }, name),
    model: engine.loadModel({ weights, config, tokenizer }),
  };
}

/** the deck bar's "Open a model…" */
export const fromDeckBar = (page) => page.locator('#open-model').click();
/** the last entry of a widget's model list */
export const fromModelList = (tag) => (page) => page.locator(`${tag} [data-control="model"] select`).selectOption({ label: 'Open a model…' });

/** Opens the files through the dialog (shown by `open`); returns the description it showed. */
export async function openFiles(page, paths, open = fromDeckBar) {
  await open(page);
  const dialog = page.locator('dialog[open]');
  await dialog.locator('input[type="file"]:not([webkitdirectory])').setInputFiles(paths);
  await dialog.locator('dl').waitFor();
  const description = await dialog.locator('dl').textContent();
  await dialog.getByRole('button', { name: 'Load' }).click();
  await dialog.waitFor({ state: 'detached', timeout: 60000 });
  return description;
}

/** the model the page's link names */
export const linkedModel = async (page) => {
  await page.waitForFunction(() => location.hash.includes('model='));
  return page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('model'));
};
