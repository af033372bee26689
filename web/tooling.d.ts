// The Node.js API the build configuration and the unit tests read files with (the project has no
// dependency on @types/node).
declare module 'node:fs' {
  export function readFileSync(path: string | URL, encoding: 'utf8'): string;
  export function readFileSync(path: string | URL): { toString(encoding: 'base64' | 'utf8'): string };
  export function existsSync(path: string | URL): boolean;
}
