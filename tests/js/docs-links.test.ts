import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The README is for users and stays short; the depth is in docs/. Every relative link of the
// README and of docs/*.md must reach a file (and, with a #fragment into a Markdown file, a heading).
const docs = import.meta.glob<string>('../../docs/*.md', { query: '?raw', import: 'default', eager: true });
const texts = new Map<string, string>([
  ['README.md', readFileSync(new URL('../../README.md', import.meta.url), 'utf8')],
  ...Object.entries(docs).map(([path, text]): [string, string] => [path.replace('../../', ''), text]),
]);
const read = (file: string) => texts.get(file)!;

/** whether a file or folder exists (the project's Node typings have readFileSync alone) */
function exists(url: URL): boolean {
  try {
    readFileSync(url);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EISDIR';
  }
}

/** the text outside fenced code blocks */
const outsideFences = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '');
/** the same, with brackets in inline code spans blanked so that they read as no link */
const prose = (text: string) => outsideFences(text).replace(/`[^`\n]*`/g, (code) => code.replace(/[[\]()]/g, ' '));

/** the anchors GitHub gives a file's headings */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of outsideFences(text).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = heading.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    result.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return result;
}

/** every link target of a Markdown file: [text](target), ![alt](target), [text](target "title") */
const links = (text: string) => [...prose(text).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);

describe('README.md and docs/*.md', () => {
  it('README.md is at most 250 lines', () => {
    const text = read('README.md');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    expect(lines).toBeLessThanOrEqual(250);
  });

  it('README.md links every document of docs/', () => {
    const targets = new Set(links(read('README.md')).map((t) => t.split('#')[0]));
    expect(texts.size).toBeGreaterThan(1);
    for (const file of texts.keys()) if (file !== 'README.md') expect(targets.has(file), file).toBe(true);
  });

  for (const file of texts.keys()) {
    it(`${file}: every relative link reaches a file`, () => {
      const base = new URL(`../../${file}`, import.meta.url);
      for (const target of links(read(file)).filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t))) {
        const [path, fragment] = target.split('#');
        const resolved = path ? new URL(path, base) : base;
        expect(exists(resolved), `${file} → ${target}`).toBe(true);
        if (fragment && resolved.pathname.endsWith('.md')) {
          expect(anchors(readFileSync(resolved, 'utf8')).has(fragment), `${file} → ${target}: no such heading`).toBe(true);
        }
      }
    });
  }
});
