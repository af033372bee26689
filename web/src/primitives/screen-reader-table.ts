// The numbers behind a picture, as an HTML table that only screen readers see. The table sits in a
// one-pixel box that clips it: a table never shrinks below its content, so clipping the table itself
// would leave a page-wide invisible box (and a sideways-scrolling page on a phone). Laying out a
// table of hundreds of cells takes tens of milliseconds, so tables are written one per idle moment,
// and only once their widget is on screen (on-screen.ts): the picture comes first and the page never
// stalls. Its rows are laid out as lines of text, not as a table (which sizes every column from
// every cell, several times slower), and its cells say what they are with ARIA roles. A long table is
// written whole (its numbers are all there at once) but laid out a few rows per frame: its later
// rows stay hidden until their turn, and are hidden again when it leaves the screen (a slide no
// longer shown), so that showing it again costs no more than its first rows.
import { formatNumber } from '../math/format';
import { onScreen, whenScreenChanges, widgetOf } from './on-screen';

export interface TableRows {
  caption?: string;
  /** the first row, of column headers ('' for an empty corner) */
  head?: readonly string[];
  /** each row: its header cell, then its data cells (numbers are kept exact for export) */
  rows: readonly (readonly [string, ...(string | number)[]])[];
  /** how a number in data column `column` (0: the first after the row's header) is shown; default: 4 decimals */
  format?: (value: number, column: number) => string;
}

/** A table given by its size, its rows made only when something reads them (Download CSV): the rows
 * of a large matrix (GPT-2's W_O, 768 × 768) take longer than a frame to make, and a table that
 * large is only summarised on the page. */
export interface LazyTableRows extends Omit<TableRows, 'rows'> {
  size: { rows: number; columns: number };
  rows: () => TableRows['rows'];
}

const isLazy = (table: TableRows | LazyTableRows): table is LazyTableRows => typeof table.rows === 'function';

const byElement = new WeakMap<Element, ScreenReaderTable>();

/** Larger tables are summarised, not written: laying out 65,536 cells blocks the page for seconds,
 * and nobody listens to them. Their numbers stay in `data`, for Download CSV. */
export const MAX_WRITTEN_CELLS = 2048;

/** the numbers of every screen-reader table under `root`, latest first written or not (for export) */
export function tablesIn(root: ParentNode): TableRows[] {
  return [...root.querySelectorAll('.sr-only')].flatMap((e) => byElement.get(e)?.data ?? []);
}

/** whether a screen-reader table under `root` has numbers, without making any table's rows */
export function hasTables(root: ParentNode): boolean {
  return [...root.querySelectorAll('.sr-only')].some((e) => byElement.get(e)?.filled);
}

/** cells laid out per frame: a few milliseconds of layout */
const CELLS_PER_FRAME = 240;

/** tables with new numbers not written yet */
const unwritten = new Set<ScreenReaderTable>();
/** tables written with rows still hidden */
const unfolding = new Set<ScreenReaderTable>();
let writing = false;
/** the tables written under each widget, folded again when it leaves the screen */
const tablesOf = new WeakMap<Element, Set<ScreenReaderTable>>();
whenScreenChanges((left) => {
  for (const widget of left) for (const table of tablesOf.get(widget) ?? []) table.fold();
  writeSoon();
});
const shown = (table: ScreenReaderTable) => table.element.isConnected && onScreen(table.element) === true;

function writeSoon(): void {
  if (writing || unwritten.size + unfolding.size === 0) return;
  writing = true;
  const step = () => {
    for (const table of unfolding) if (!table.element.isConnected) unfolding.delete(table);
    // new numbers first, then the rest of the rows of tables already right
    const next = [...unwritten].find(shown);
    const started = next ? undefined : [...unfolding].find(shown);
    if (!started && !next) {
      writing = false;
      return;
    }
    if (next) next.write();
    else started?.unfold();
    // the next rows after the browser has laid these out
    requestAnimationFrame(() => setTimeout(step, 0));
  };
  requestAnimationFrame(() => setTimeout(step, 0));
}

export class ScreenReaderTable {
  readonly element: HTMLElement;
  private given?: TableRows | LazyTableRows;
  /** a lazy table's rows, once made */
  private made?: TableRows;
  /** rows written but hidden until their turn to be laid out */
  private folded: HTMLElement[] = [];

  constructor() {
    this.element = document.createElement('div');
    this.element.className = 'sr-only sr-table';
    byElement.set(this.element, this);
  }

  get filled(): boolean {
    return this.given !== undefined;
  }

  /** the numbers shown (or about to be), a lazy table's rows made now (once) */
  get data(): TableRows | undefined {
    const given = this.given;
    if (!given || !isLazy(given)) return given;
    this.made ??= { ...given, rows: given.rows() };
    return this.made;
  }

  /** the numbers to show; the table is replaced soon (see above) */
  fill(rows: TableRows | LazyTableRows): void {
    this.given = rows;
    this.made = undefined;
    // the numbers shown are out of date until written (assistive technology, and tests, wait)
    this.element.setAttribute('aria-busy', 'true');
    unfolding.delete(this);
    unwritten.add(this);
    writeSoon();
  }

  /** writes the table now: one string parsed once, since thousands of cells made node by node block the page */
  write(): void {
    if (!unwritten.delete(this) || !this.given) return;
    this.element.removeAttribute('aria-busy');
    this.folded = [];
    const given = this.given;
    const html: string[] = ['<table role="table">'];
    if (given.caption) html.push(`<caption>${escapeHtml(given.caption)}</caption>`);
    const size = isLazy(given) ? given.size
      : { rows: given.rows.length, columns: Math.max(0, ...given.rows.map((r) => r.length - 1)) };
    const cells = isLazy(given) ? size.rows * size.columns : given.rows.reduce((sum, r) => sum + r.length - 1, 0);
    if (cells > MAX_WRITTEN_CELLS) {
      this.element.innerHTML = `${html.join('')}<tr role="row"><td role="cell">${size.rows} × ${size.columns} numbers, too many to read out: `
        + 'Share → Download CSV has them all.</td></tr></table>';
      return;
    }
    const { head, rows, format = (v: number) => formatNumber(v, 4) } = this.data!;
    const cell = (c: string | number, column: number) => escapeHtml(typeof c === 'number' ? format(c, column) : c);
    if (head) html.push('<tr role="row">', ...head.map((h) => `<th role="columnheader">${escapeHtml(h)}</th>`), '</tr>');
    for (const [header, ...cells] of rows) {
      html.push('<tr role="row">', header === '' ? '<td role="cell"></td>' : `<th role="rowheader">${escapeHtml(header)}</th>`,
        ...cells.map((c, k) => `<td role="cell">${cell(c, k)}</td>`), '</tr>');
    }
    html.push('</table>');
    this.element.innerHTML = html.join('');
    const widget = widgetOf(this.element);
    tablesOf.set(widget, (tablesOf.get(widget) ?? new Set()).add(this));
    this.fold();
  }

  /** hides the rows after the first CELLS_PER_FRAME cells, to be laid out a few at a time */
  fold(): void {
    let cells = 0;
    this.folded = [];
    for (const row of this.element.querySelectorAll<HTMLElement>('tr')) {
      cells += row.childElementCount;
      if (cells <= CELLS_PER_FRAME) continue;
      row.hidden = true;
      this.folded.push(row);
    }
    if (this.folded.length > 0) unfolding.add(this);
  }

  /** shows the next hidden rows, about CELLS_PER_FRAME cells */
  unfold(): void {
    let cells = 0;
    while (this.folded.length > 0 && cells < CELLS_PER_FRAME) {
      const row = this.folded.shift()!;
      row.hidden = false;
      cells += row.childElementCount;
    }
    if (this.folded.length === 0) unfolding.delete(this);
  }
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
}
