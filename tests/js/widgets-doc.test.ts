import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIELDS } from '../../web/src/runtime/state';

// The table of widget attributes in docs/widgets.md is what a lecturer reads: every setting in the
// field table must be there, on its element's row.
const doc = readFileSync(new URL('../../docs/widgets.md', import.meta.url), 'utf8');
const rows = new Map([...doc.matchAll(/^\| `<(attn-[a-z-]+)>` \|[^|]*\|([^\n]*)\|$/gm)].map((m) => [m[1], m[2]]));

describe('the widget table of docs/widgets.md', () => {
  it('names every element with settings', () => {
    for (const element of new Set(FIELDS.map((f) => f.element))) expect(rows.has(element), element).toBe(true);
  });
  it('lists every attribute of each element', () => {
    for (const field of FIELDS) expect(rows.get(field.element), `${field.element} ${field.attribute}`).toContain(`\`${field.attribute}\``);
  });
});
