import { describe, expect, it } from 'vitest';

// The front end's layers, lowest first: a module imports only from its own layer or those below.
// The one exception is the widget registry, which names the widget modules it loads on demand.
const LAYERS = [
  ['engine', 'math'],
  ['primitives'],
  ['runtime'],
  ['widgets'],
  ['app', '.'],
] as const;
const REGISTRY = 'runtime/registry.ts';

const sources = import.meta.glob('../../web/src/**/*.ts', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;
const modules = Object.entries(sources)
  .map(([path, text]) => ({ path: path.replace('../../web/src/', ''), text }))
  .filter(({ path }) => !path.startsWith('engine/build/') && !path.endsWith('.d.ts'));

const layerOf = (path: string) => {
  const folder = path.includes('/') ? path.slice(0, path.indexOf('/')) : '.';
  const layer = LAYERS.findIndex((names) => (names as readonly string[]).includes(folder));
  if (layer < 0) throw new Error(`${path}: its folder is in no layer`);
  return layer;
};

/** the modules `text` imports (statically, or dynamically with import()), as paths under web/src */
function importsOf(path: string, text: string): { target: string; dynamic: boolean }[] {
  const base = path.split('/').slice(0, -1);
  const found = [...text.matchAll(/(?:^import\s[^;]*?from\s+|^export\s[^;]*?from\s+|^import\s+|import\()\s*'(\.{1,2}\/[^']+)'/gm)];
  return found.map((m) => {
    const parts = [...base];
    for (const part of m[1].split('/')) {
      if (part === '..') parts.pop();
      else if (part !== '.') parts.push(part);
    }
    return { target: parts.join('/'), dynamic: m[0].includes('import(') };
  });
}

describe('the front end\'s layers', () => {
  it('are known for every module', () => {
    expect(modules.length).toBeGreaterThan(50);
    for (const { path } of modules) expect(() => layerOf(path), path).not.toThrow();
  });
  it('import only downwards', () => {
    const upward: string[] = [];
    for (const { path, text } of modules) {
      for (const { target, dynamic } of importsOf(path, text)) {
        if (dynamic && path === REGISTRY && target.startsWith('widgets/')) continue;
        if (layerOf(target) > layerOf(path)) upward.push(`${path} → ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });
  it('find imports the way the modules write them', () => {
    expect(importsOf('widgets/ffn.ts', "import { h } from '../primitives/controls';\nconst m = () => import('./other');"))
      .toEqual([{ target: 'primitives/controls', dynamic: false }, { target: 'widgets/other', dynamic: true }]);
    expect(importsOf('main.ts', "import './app/theme.css';\nimport type { X } from './engine/index';"))
      .toEqual([{ target: 'app/theme.css', dynamic: false }, { target: 'engine/index', dynamic: false }]);
  });
});
