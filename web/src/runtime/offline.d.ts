// The offline build's virtual module (vite.config.ts, offlineFiles): the engine and the shipped
// models as data: URLs.
declare module 'virtual:attnlab-offline' {
  export const ENGINE: Record<string, string>;
  export const MODELS: Record<string, string>;
}
