import { describe, expect, it } from 'vitest';
import {
  attributesFor, decodeHash, encodeHash, fieldFor, FIELDS, followLink, linkTo, parseValue, withValue, type Field, type PageState,
} from '../../web/src/runtime/state';

const field = (element: string, attribute: string): Field => {
  const f = fieldFor(element, attribute);
  if (!f) throw new Error(`no field ${element}.${attribute}`);
  return f;
};

describe('the page state in the URL', () => {
  it('gives every field a unique key (a shared row, the model in use, one key) and a default within its limits', () => {
    const byKey = new Map<string, Omit<Field, 'element'>>();
    for (const { element: _, ...row } of FIELDS) {
      // a key appears again only as the same row: the same setting of the page
      if (byKey.has(row.key)) expect(row).toEqual(byKey.get(row.key));
      byKey.set(row.key, row);
    }
    expect(FIELDS.filter((f) => f.key === 'model').length).toBeGreaterThan(1);
    expect(new Set(FIELDS.map((f) => `${f.element}.${f.attribute}`)).size).toBe(FIELDS.length);
    for (const f of FIELDS) expect(parseValue(f, null)).toBe(f.default);
    for (const f of FIELDS) if (f.type === 'int' || f.type === 'number') expect(f.default).toBe(parseValue(f, String(f.default)));
  });

  it('round-trips the slide and every field set to a non-default value', () => {
    let state: PageState = { slide: 'worked-example', values: new Map() };
    for (const f of FIELDS) {
      const value = f.type === 'bool' ? !f.default : f.type === 'enum' ? f.values.find((v) => v !== f.default)!
        // the end of the text, as much as the field holds: it keeps the characters URLs must escape
        : f.type === 'text' ? 'the dog chased the ball because it was fast & <b>'.slice(-f.maxLength) : f.max;
      state = withValue(state, f, value);
    }
    const decoded = decodeHash(encodeHash(state));
    expect(decoded.slide).toBe('worked-example');
    expect([...decoded.values].sort()).toEqual([...state.values].sort());
    // the shared model setting reaches every widget that reads it
    for (const f of FIELDS.filter((g) => g.key === 'model')) expect(attributesFor(f.element, decoded).find(([name]) => name === 'model')?.[1]).toBe(state.values.get('model'));
  });

  it('writes only the slide for the defaults', () => {
    expect(encodeHash({ slide: 'title', values: new Map() })).toBe('#title');
    const empty = decodeHash('');
    expect(empty.slide).toBe('');
    expect(empty.values.size).toBe(0);
  });

  it('reads settings without a slide', () => {
    const s = decodeHash('#causal=1&q=2');
    expect(s.slide).toBe('');
    expect(s.values.get('causal')).toBe(true);
    expect(s.values.get('q')).toBe(2);
  });

  it('clamps or ignores hostile values instead of failing', () => {
    const s = decodeHash('#%E0%A4%A&n=1e99&d=abc&base=-5&q=<script>&causal=maybe&pe=fourier&head=-9&unknown=1');
    expect(s.slide).toBe('');
    expect(s.values.get('n')).toBe(128);
    expect(s.values.has('d')).toBe(false);
    expect(s.values.get('base')).toBe(10);
    expect(s.values.has('q')).toBe(false);
    expect(s.values.has('causal')).toBe(false);
    expect(s.values.has('pe')).toBe(false);
    expect(s.values.has('head')).toBe(false);
    const sentence = field('attn-explorer', 'sentence');
    const long = decodeHash(`#x&${sentence.key}=${'x'.repeat(5000)}`).values.get(sentence.key) as string;
    expect(long.length).toBe(sentence.type === 'text' ? sentence.maxLength : 0);
  });

  it('keeps multiples where a field asks for them (an even width)', () => {
    expect(decodeHash('#d=7').values.get('d')).toBe(8);
    expect(parseValue(field('attn-positional-encoding', 'd'), '3')).toBe(4);
  });

  it('reads boolean attributes as HTML does: present and empty means true', () => {
    const causal = field('attn-attention-steps', 'causal');
    expect(parseValue(causal, '')).toBe(true);
    expect(parseValue(causal, '0')).toBe(false);
    expect(parseValue(causal, null)).toBe(false);
  });

  it('lists a widget\'s attributes for a state, removing those at their default', () => {
    const state = withValue({ slide: '', values: new Map() }, field('attn-attention-steps', 'causal'), true);
    const attributes = new Map(attributesFor('attn-attention-steps', state));
    expect(attributes.get('causal')).toBe('1');
    expect(attributes.get('query')).toBeNull();
  });

  it('gives a slide\'s link its own widgets\' settings only, and keeps the others when a link is followed', () => {
    let state: PageState = { slide: 'flash-attention', values: new Map() };
    state = withValue(state, field('attn-attention-steps', 'step'), 5);
    state = withValue(state, field('attn-flash', 'step'), 9);
    state = withValue(state, field('attn-explorer', 'model'), 'sort');
    // the flash slide's link: its tiles, not the worked example's stage nor the model it has no widget for
    expect(encodeHash(linkTo(state, ['attn-flash']))).toBe('#flash-attention&fl-step=9');
    // a setting several widgets share goes with every slide that has one of them
    expect(decodeHash(encodeHash(linkTo(state, ['attn-multi-head']))).values).toEqual(new Map([['model', 'sort']]));
    // back to the worked example at stage 2: the flash slide's tiles and the model are kept
    const back = followLink(state, decodeHash('#worked-example&stage=2'), ['attn-attention-steps']);
    expect(back.slide).toBe('worked-example');
    expect([...back.values].sort()).toEqual([['fl-step', 9], ['model', 'sort'], ['stage', 2]]);
    // a link that leaves its slide's settings out sets them back to their defaults
    expect(followLink(state, decodeHash('#flash-attention'), ['attn-flash']).values.has('fl-step')).toBe(false);
  });
});
