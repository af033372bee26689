import { readFileSync } from 'node:fs';
import katex from 'katex';
import { describe, expect, it } from 'vitest';
import { alphabetical, definitionParts, GLOSSARY, glossaryEntry, glossaryMarkup } from '../../web/src/math/glossary';

// The glossary's data against the deck that marks its terms: web/index.html, and the widgets,
// which mark terms in their captions with term('key', …).
const deck = readFileSync(new URL('../../web/index.html', import.meta.url), 'utf8');
const widgets = Object.entries(import.meta.glob<string>('../../web/src/widgets/*.ts', { query: '?raw', import: 'default', eager: true }))
  .map(([path, text]) => ({ file: path.replace('../../web/src/', ''), text }));

const slideIds = [...deck.matchAll(/<section class="slide[^"]*" id="([^"]+)"/g)].map((m) => m[1]);

/** every slide's marked terms, in order: [slide id, key] */
const deckMarks = slideIds.flatMap((id) => {
  const start = deck.indexOf(`id="${id}"`);
  const end = deck.indexOf('</section>', start);
  return [...deck.slice(start, end).matchAll(/data-term="([^"]*)"/g)].map((m) => [id, m[1]] as const);
});
const widgetMarks = widgets.flatMap(({ file, text }) => [...text.matchAll(/\bterm\('([^']*)'/g)].map((m) => [file, m[1]] as const));

describe('the glossary', () => {
  it('has at least 60 entries under unique keys of lowercase words', () => {
    expect(GLOSSARY.length).toBeGreaterThanOrEqual(60);
    const keys = GLOSSARY.map((e) => e.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of keys) expect(key).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(new Set(GLOSSARY.map((e) => e.term.toLowerCase())).size).toBe(keys.length);
  });

  it('has the terms the slides on in-context learning, universality and mistakes use', () => {
    const expected = {
      'in-context-learning': 'in-context-learning', 'induction-head': 'in-context-learning', 'phase-change': 'in-context-learning',
      universality: 'universality', 'turing-complete': 'universality', rasp: 'universality', select: 'universality', aggregate: 'universality',
      'numerical-overflow': 'mistakes', 'log-sum-exp': 'mistakes',
    };
    for (const [key, slide] of Object.entries(expected)) expect(glossaryEntry(key)?.slide, key).toBe(slide);
  });

  it('points every entry to a slide of the deck', () => {
    expect(slideIds).toContain('glossary');
    expect(slideIds[slideIds.length - 1]).toBe('glossary');
    for (const { key, slide } of GLOSSARY) {
      expect(slideIds, `${key} → #${slide}`).toContain(slide);
    }
  });

  it('defines every term the deck and the widgets mark, each once per slide', () => {
    expect(deckMarks.length).toBeGreaterThan(100);
    expect(widgetMarks.length).toBeGreaterThan(3);
    for (const [where, key] of [...deckMarks, ...widgetMarks]) expect(glossaryEntry(key), `${where}: data-term="${key}"`).toBeDefined();
    const seen = new Set<string>();
    for (const [slide, key] of deckMarks) {
      expect(seen.has(`${slide} ${key}`), `${key} marked twice on #${slide}`).toBe(false);
      seen.add(`${slide} ${key}`);
    }
  });

  it('lists every entry on the glossary slide, A to Z, and most are marked on a slide too', () => {
    const markup = glossaryMarkup(new Set(slideIds));
    const listed = [...markup.matchAll(/data-entry="([^"]+)"/g)].map((m) => m[1]);
    expect(listed).toEqual(alphabetical().map((e) => e.key));
    expect([...listed].sort()).toEqual(GLOSSARY.map((e) => e.key).sort());
    expect(listed.slice(0, 3)).toEqual(['adamw', 'aggregate', 'alibi']);
    const marked = new Set([...deckMarks, ...widgetMarks].map(([, key]) => key));
    expect(marked.size).toBeGreaterThan(GLOSSARY.length / 2);
    // links only to slides the deck has
    expect(markup).toContain('<a href="#why-sqrt-dk">see it live →</a>');
    for (const [, slide] of markup.matchAll(/<a href="#([^"]+)"/g)) expect(slideIds).toContain(slide);
    expect(glossaryMarkup(new Set())).not.toContain('<a ');
  });

  it('writes definitions of one to three sentences whose formulas typeset', () => {
    for (const { key, term, definition } of GLOSSARY) {
      expect(term.trim(), key).toBe(term);
      expect(definition.split('$').length % 2, `${key}: a $ left open`).toBe(1);
      const prose = definitionParts(definition).filter((p) => !p.tex).map((p) => p.text).join('x').replace(/et al\./g, 'et al');
      const sentences = prose.split(/[.!?](?=\s|$)/).filter((s) => s.trim() !== '');
      expect(sentences.length, `${key}: ${sentences.length} sentences`).toBeGreaterThanOrEqual(1);
      expect(sentences.length, `${key}: ${sentences.length} sentences`).toBeLessThanOrEqual(3);
      expect(definition, key).toMatch(/[.)]$/);
      for (const { text, tex } of definitionParts(definition)) {
        if (tex) expect(() => katex.renderToString(text, { throwOnError: true }), `${key}: ${text}`).not.toThrow();
      }
    }
  });

  it('cuts a definition into text and formulas', () => {
    expect(definitionParts('Turns $z$ into $\\mathrm{softmax}(z)$.')).toEqual([
      { text: 'Turns ', tex: false }, { text: 'z', tex: true }, { text: ' into ', tex: false },
      { text: '\\mathrm{softmax}(z)', tex: true }, { text: '.', tex: false },
    ]);
    expect(definitionParts('$x$')).toEqual([{ text: 'x', tex: true }]);
  });
});
