// A static file server for the built page (web/dist) on 127.0.0.1, optionally cross-origin
// isolated, that records every request it receives.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

/** the built page: web/dist, or another build folder named by ATTNLAB_DIST */
export const DIST = process.env.ATTNLAB_DIST ?? fileURLToPath(new URL('../../web/dist/', import.meta.url));

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json', '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf',
};

/** `isolated`: COOP/COEP headers (threads); `cors`: any origin may load the files (a bundle on another site) */
export async function serve(root, { isolated = true, cors = false } = {}) {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(root, path.endsWith('/') ? `${path}index.html` : path);
    try {
      const body = await readFile(file);
      const headers = { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' };
      if (isolated) {
        headers['Cross-Origin-Opener-Policy'] = 'same-origin';
        headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
      }
      if (cors) headers['Access-Control-Allow-Origin'] = '*';
      res.writeHead(200, headers).end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() };
}
