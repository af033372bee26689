// The offline page's engine and models: carried inside the page itself (build/offline/attnlab.html,
// built with `vite build --mode offline`, which puts this module in place of engine-files.ts), so
// that the page runs from file:// with no server and no network. Single-thread only: a page opened
// from a file is never cross-origin isolated.
import { ENGINE, MODELS } from 'virtual:attnlab-offline';
import EngineWorker from '../engine/worker.ts?worker&inline';

/** the engine's files by name (data: URLs), for LoadOptions.files */
export const ENGINE_FILES: Record<string, string> = ENGINE;

export function startWorker(): Worker {
  return new EngineWorker();
}

/** the models are part of the page: there are no folders to set */
export function setHomeFolder(_folder: string | URL): void {}
export function setModelsFolder(_folder: string | URL): void {}

/** GPT-2's tokenizer is not in the offline file (a 2 MB table): a GPT-2 checkpoint opened here brings its own */
export function gpt2TokenizerFileUrl(): string | undefined {
  return undefined;
}

/** the one file is the deck: its widgets' terms link within it */
export function deckPageUrl(_hash: string): string | undefined {
  return undefined;
}

/** one file has no embed page beside it */
export function embedPageUrl(_hash: string): string | undefined {
  return undefined;
}

/** a shipped model's file, as a data: URL */
export function modelFileUrl(name: string, file: string): string {
  const url = MODELS[`${name}/${file}`];
  if (!url) throw new Error(`the offline page has no model file ${name}/${file}`);
  return url;
}
