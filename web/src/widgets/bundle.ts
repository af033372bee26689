// attnlab/widgets: one module that defines every <attn-…> element, for any page: a lecture's own
// slides, a course site, a blog post. It finds the engine files and the shipped models beside itself
// (from its own URL), so the folder it ships in can be copied anywhere; a widget's `models` attribute
// names another folder. One engine serves every widget of the page, in a Worker: the threaded build
// where the page is cross-origin isolated, the single-thread one elsewhere.
import { pageEngine } from '../runtime/engine';
import { setHomeFolder, setModelsFolder } from '../runtime/engine-files';
import type { EngineInfo } from '../engine/index.js';
import { loadWidget, WIDGET_TAGS } from '../runtime/registry';

// its folder holds embed.html and models/ too
setHomeFolder(new URL(/* @vite-ignore */ './', import.meta.url));
for (const tag of WIDGET_TAGS) void loadWidget(tag);

/** the custom elements this module defines */
export const widgets: readonly string[] = WIDGET_TAGS;

/** Sets the folder of the shipped models (holding coreference/ and sort/) for every widget. */
export function useModelsFrom(folder: string | URL): void {
  setModelsFolder(folder);
}

/** The engine the widgets share: its version, build (threads or not) and SIMD, once it has loaded. */
export async function engineInfo(): Promise<EngineInfo> {
  return (await pageEngine()).info();
}
