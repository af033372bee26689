// The numbers behind a picture, as an HTML table that only screen readers see. The table sits in a
// one-pixel box that clips it: a table never shrinks below its content, so clipping the table itself
// would leave a page-wide invisible box (and a sideways-scrolling page on a phone). Laying out a
// table of hundreds of cells takes tens of milliseconds, so tables are written one per idle moment,
// and only once they are on a shown slide: the picture comes first and the page never stalls.
import { formatNumber } from '../math/format';

export interface TableRows {
  caption?: string;
  /** the first row, of column headers ('' for an empty corner) */
  head?: readonly string[];
  /** each row: its header cell, then its data cells (numbers are kept exact for export) */
  rows: readonly (readonly [string, ...(string | number)[]])[];
  /** how a number in data column `column` (0: the first after the row's header) is shown; default: 4 decimals */
  format?: (value: number, column: number) => string;
}

const byElement = new WeakMap<Element, ScreenReaderTable>();

/** Larger tables are summarised, not written: laying out 65,536 cells blocks the page for seconds,
 * and nobody listens to them. Their numbers stay in `data`, for Download CSV. */
export const MAX_WRITTEN_CELLS = 2048;

/** the numbers of every screen-reader table under `root`, latest first written or not (for export) */
export function tablesIn(root: ParentNode): TableRows[] {
  return [...root.querySelectorAll('.sr-only')].flatMap((e) => byElement.get(e)?.data ?? []);
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
  /** the numbers shown (or about to be) */
  data?: TableRows;

  constructor() {
    this.element = document.createElement('div');
    this.element.className = 'sr-only';
    byElement.set(this.element, this);
  }

  /** the numbers to show; the table is replaced soon (see above) */
  fill(rows: TableRows): void {
    this.data = rows;
    unwritten.add(this);
    writeSoon();
  }

  /** writes the table now: one string parsed once, since thousands of cells made node by node block the page */
  write(): void {
    if (!unwritten.delete(this) || !this.data) return;
    const { caption, head, rows, format = (v: number) => formatNumber(v, 4) } = this.data;
    const cell = (c: string | number, column: number) => escapeHtml(typeof c === 'number' ? format(c, column) : c);
    const html: string[] = ['<table>'];
    if (caption) html.push(`<caption>${escapeHtml(caption)}</caption>`);
    const cells = rows.reduce((sum, r) => sum + r.length - 1, 0);
    if (cells > MAX_WRITTEN_CELLS) {
      const columns = Math.max(0, ...rows.map((r) => r.length - 1));
      this.element.innerHTML = `${html.join('')}<tr><td>${rows.length} × ${columns} numbers, too many to read out: `
        + 'Share → Download CSV has them all.</td></tr></table>';
      return;
    }
    if (head) html.push('<tr>', ...head.map((h) => `<th>${escapeHtml(h)}</th>`), '</tr>');
    for (const [header, ...cells] of rows) {
      html.push('<tr>', header === '' ? '<td></td>' : `<th>${escapeHtml(header)}</th>`, ...cells.map((c, k) => `<td>${cell(c, k)}</td>`), '</tr>');
    }
    html.push('</table>');
    this.element.innerHTML = html.join('');
  }
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
}
