// attnlab/reveal: the reveal.js plugin (see README, "In a reveal.js deck"). Importing the module
// defines every <attn-…> element, like attnlab/widgets, whose exports it shares. The contract of its exports:
import type { EngineInfo } from '../index.js';

/** what the plugin uses of reveal.js's API (reveal.js 6) */
export interface RevealDeck {
  on(type: string, listener: (event: Event) => void): void;
  getRevealElement(): HTMLElement | null;
  getCurrentSlide(): HTMLElement | undefined;
}

export interface RevealPlugin {
  id: string;
  init(deck: RevealDeck): void;
}

/** The plugin: Reveal.initialize({ plugins: [AttnlabReveal] }). */
declare function AttnlabReveal(): RevealPlugin;
export default AttnlabReveal;

/** the custom elements the module defines */
export declare const widgets: readonly string[];
/** Sets the folder of the shipped models (holding coreference/ and sort/) for every widget. */
export declare function useModelsFrom(folder: string | URL): void;
/** The engine the widgets share, once it has loaded: version, build (single-thread or threads), SIMD, threads in use. */
export declare function engineInfo(): Promise<EngineInfo>;
