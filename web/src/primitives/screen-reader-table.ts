// The numbers behind a picture, as an HTML table that only screen readers see. The table sits in a
// one-pixel box that clips it: a table never shrinks below its content, so clipping the table itself
// would leave a page-wide invisible box (and a sideways-scrolling page on a phone).
export interface TableRows {
  caption?: string;
  /** the first row, of column headers ('' for an empty corner) */
  head?: readonly string[];
  /** each row: its header cell, then its data cells */
  rows: readonly (readonly [string, ...string[]])[];
}

export class ScreenReaderTable {
  readonly element: HTMLElement;

  constructor() {
    this.element = document.createElement('div');
    this.element.className = 'sr-only';
  }

  /** replaces the table; one string parsed once, since thousands of cells made node by node block the page */
  fill({ caption, head, rows }: TableRows): void {
    const html: string[] = ['<table>'];
    if (caption) html.push(`<caption>${escapeHtml(caption)}</caption>`);
    if (head) html.push('<tr>', ...head.map((h) => `<th>${escapeHtml(h)}</th>`), '</tr>');
    for (const [header, ...cells] of rows) {
      html.push('<tr>', header === '' ? '<td></td>' : `<th>${escapeHtml(header)}</th>`, ...cells.map((c) => `<td>${escapeHtml(c)}</td>`), '</tr>');
    }
    html.push('</table>');
    this.element.innerHTML = html.join('');
  }
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
}
