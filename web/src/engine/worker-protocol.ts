// The messages between the page's worker client (worker-client.ts) and the engine's worker
// (worker.ts): one declaration, which both follow.
import type { LoadOptions } from './index.js';

/** The first message loads the engine; every other one calls a public member of an object. */
export type Request =
  | { id: number; load: Omit<LoadOptions, 'onProgress'> }
  | {
    id: number;
    /** 0: the engine; otherwise an object a call returned */
    target: number;
    /** a method or getter of the target's class */
    member: string;
    /** functions in the arguments (a top-level one, or one an options object holds, such as
     * loadModel's onProgress) travel as { [CALLBACK]: n } and are called back with `callback` */
    args: unknown[];
  };

export type Response =
  | { id: number; result: unknown }
  | { id: number; remote: number }
  | { id: number; error: string }
  | { progress: { loaded: number; total: number } }
  | { callback: number; args: unknown[] };

/** the key that marks a function passed by the page: its number, for `callback` messages */
export const CALLBACK = '@attnlab-callback';
