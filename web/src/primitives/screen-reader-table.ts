// The numbers behind a picture, as an HTML table that only screen readers see. The table sits in a
// one-pixel box that clips it: a table never shrinks below its content, so clipping the table itself
// would leave a page-wide invisible box (and a sideways-scrolling page on a phone). Laying out a
// table of hundreds of cells takes tens of milliseconds, so tables are written one per idle moment,
// and only once they are on a shown slide: the picture comes first and the page never stalls.
export interface TableRows {
  caption?: string;
  /** the first row, of column headers ('' for an empty corner) */
  head?: readonly string[];
  /** each row: its header cell, then its data cells */
  rows: readonly (readonly [string, ...string[]])[];
}

/** tables with new numbers not written yet */
const unwritten = new Set<ScreenReaderTable>();
let writing = false;

function writeSoon(): void {
  if (writing || unwritten.size === 0) return;
  writing = true;
  const step = () => {
    const next = [...unwritten].find((table) => table.element.isConnected && table.element.checkVisibility());
    if (!next) {
      writing = false;
      return;
    }
    next.write();
    // the next one after the browser has laid this one out
    requestAnimationFrame(() => setTimeout(step, 0));
  };
  requestAnimationFrame(() => setTimeout(step, 0));
}
// a slide shown, a theme or size changed: tables that were out of sight may be due
globalThis.addEventListener?.('attn-redraw', writeSoon);

export class ScreenReaderTable {
  readonly element: HTMLElement;
  private rows?: TableRows;

  constructor() {
    this.element = document.createElement('div');
    this.element.className = 'sr-only';
  }

  /** the numbers to show; the table is replaced soon (see above) */
  fill(rows: TableRows): void {
    this.rows = rows;
    unwritten.add(this);
    writeSoon();
  }

  /** writes the table now: one string parsed once, since thousands of cells made node by node block the page */
  write(): void {
    unwritten.delete(this);
    if (!this.rows) return;
    const { caption, head, rows } = this.rows;
    this.rows = undefined;
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
