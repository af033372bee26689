// The few Node.js APIs the loader uses when it runs under Node (the package has no dependency
// on @types/node).
declare const process: { versions?: { node?: string } } | undefined;
declare module 'node:module' {
  export function createRequire(url: string | URL): (id: string) => (options: object) => Promise<import('./attnlab.mjs').AttnlabModule>;
}
declare module 'node:fs/promises' {
  export function readFile(path: URL): Promise<Uint8Array>;
  export function readFile(path: URL, encoding: 'utf8'): Promise<string>;
}
declare module 'node:url' {
  export function fileURLToPath(url: URL): string;
}
