// attnlab/widgets: importing the module defines every <attn-…> element (see README, "Widgets on
// your own pages"). The contract of its exports:
import type { EngineInfo } from '../index.js';

/** the custom elements the module defines */
export declare const widgets: readonly string[];
/** Sets the folder of the shipped models (holding coreference/ and sort/) for every widget. */
export declare function useModelsFrom(folder: string | URL): void;
/** The engine the widgets share, once it has loaded: version, build (single-thread or threads), SIMD, threads in use. */
export declare function engineInfo(): Promise<EngineInfo>;
