// Reader-typed text made safe to show and to keep: DOM-free helpers (the DOM side always uses
// textContent; these only fix what would break a URL or a label).

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** the text with every unpaired UTF-16 surrogate replaced by U+FFFD (they cannot be encoded in a URL) */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

/** at most `max` characters (code points), the last replaced by "…" when cut */
export function shortLabel(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}
