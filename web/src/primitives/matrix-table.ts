// A matrix as a table of numbers, each cell tinted by its value, or as a table of inputs to type
// one in: the shared way widgets print and read small matrices (the worked examples).
import { css, textOn } from '../math/colormap';
import { formatNumber } from '../math/format';
import { at, maxAbsFinite, type MatrixData } from '../math/matrix';
import { colourWithTheme, themeColours } from './canvas';
import { h } from './controls';

export interface MatrixTableOptions {
  /** caption above the table, e.g. "Q = X·W_Q" */
  label: string;
  /** "weights": values in [0,1]; "signed": diverging around 0; "plain": no tint */
  tint?: 'weights' | 'signed' | 'plain';
  decimals?: number;
  rowLabels?: readonly string[];
  colLabels?: readonly string[];
  highlightRow?: number;
  onRowClick?: (row: number) => void;
}

export const matrixTableStyles = `
figure.matrix { margin: 0; }
figure.matrix figcaption { font-size: 13px; color: var(--attn-muted); margin-bottom: 4px; white-space: nowrap; }
table.matrix { border-collapse: separate; border-spacing: 2px; font-variant-numeric: tabular-nums; }
table.matrix td { min-width: 3.6em; padding: 3px 6px; text-align: right; border-radius: 4px; font-size: 14px; }
table.matrix th { font-weight: 500; font-size: 14px; color: var(--attn-muted); padding: 0 4px; }
table.matrix tr.highlight td { outline: 2px solid var(--attn-accent); }
table.matrix tr.clickable { cursor: pointer; }
/* untinted numbers get a matrix's brackets, so neighbouring matrices read as separate */
table.matrix.plain { border-left: 2px solid var(--attn-muted); border-right: 2px solid var(--attn-muted); border-radius: 6px; }
table.matrix.plain td { min-width: 1.8em; }
table.matrix td:has(input) { padding: 0; min-width: 0; }
table.matrix input { width: 3.4em; box-sizing: border-box; padding: 1px 3px; font-size: 14px; line-height: 1.2; text-align: right; }
table.matrix input[aria-invalid="true"] { border-color: var(--bad); border-width: 2px; }
`;

export function matrixTable(m: MatrixData, options: MatrixTableOptions): HTMLElement {
  const { tint = 'signed', decimals = 2 } = options;
  const figure = document.createElement('figure');
  figure.className = 'matrix';
  const caption = document.createElement('figcaption');
  caption.textContent = `${options.label}  (${m.rows}×${m.cols})`;
  figure.append(caption);
  const table = document.createElement('table');
  table.className = `matrix ${tint}`;
  const range = maxAbsFinite(m);
  const tinted: [HTMLTableCellElement, number][] = [];
  if (options.colLabels) {
    const head = table.insertRow();
    head.append(document.createElement('th'));
    for (const label of options.colLabels) {
      const th = document.createElement('th');
      th.textContent = label;
      head.append(th);
    }
  }
  for (let i = 0; i < m.rows; i++) {
    const tr = table.insertRow();
    tr.dataset.row = String(i);
    if (options.rowLabels) {
      const th = document.createElement('th');
      th.textContent = options.rowLabels[i] ?? '';
      tr.append(th);
    }
    if (i === options.highlightRow) tr.classList.add('highlight');
    if (options.onRowClick) {
      tr.classList.add('clickable');
      tr.addEventListener('click', () => options.onRowClick?.(i));
    }
    for (let j = 0; j < m.cols; j++) {
      const value = at(m, i, j);
      const td = tr.insertCell();
      td.dataset.col = String(j);
      td.textContent = formatNumber(value, decimals);
      if (tint !== 'plain' && Number.isFinite(value)) {
        tinted.push([td, value]);
      } else if (!Number.isFinite(value)) {
        td.style.color = 'var(--attn-muted)';
      }
    }
  }
  figure.append(table);
  // in the colours of the theme the table is shown in, once it is on the page
  colourWithTheme(figure, () => {
    const colours = themeColours(figure);
    for (const [td, value] of tinted) {
      const colour = tint === 'weights' ? colours.sequential(value) : colours.diverging(value, range);
      td.style.background = css(colour);
      td.style.color = textOn(colour);
    }
  });
  return figure;
}

/** A matrix to type in: text inputs in a table shaped and styled like matrixTable's. */
export interface InputMatrix {
  figure: HTMLElement;
  /** [row][column] */
  inputs: HTMLInputElement[][];
}

/** `label` captions it; `ariaLabel(i, j)` names each entry's input; `data`: the figure's data-* */
export function inputMatrix(rows: number, cols: number, options: {
  label: string; rowLabels?: readonly string[]; colLabels?: readonly string[]; ariaLabel: (i: number, j: number) => string;
  data?: Record<string, string>;
}): InputMatrix {
  const table = h('table', 'matrix');
  if (options.colLabels) table.insertRow().append(h('th'), ...options.colLabels.map((label) => h('th', { textContent: label })));
  const inputs = Array.from({ length: rows }, (_, i) => {
    const tr = table.insertRow();
    tr.dataset.row = String(i);
    if (options.rowLabels) tr.append(h('th', { textContent: options.rowLabels[i] ?? '' }));
    return Array.from({ length: cols }, (_, j) => {
      const input = h('input', {
        type: 'text', inputMode: 'decimal', autocomplete: 'off', spellcheck: false, attrs: { 'aria-label': options.ariaLabel(i, j) },
      });
      tr.append(h('td', { data: { col: String(j) } }, input));
      return input;
    });
  });
  return { figure: h('figure', { className: 'matrix', data: options.data }, h('figcaption', { textContent: options.label }), table), inputs };
}

/** the entries of a matrixTable or inputMatrix figure in `row` and `col` (one left out: every row, or every column) */
export function matrixCells(figure: Element, { row, col }: { row?: number; col?: number }): HTMLElement[] {
  return [...figure.querySelectorAll<HTMLElement>('td[data-col]')].filter((td) =>
    (row === undefined || Number((td.parentElement as HTMLElement).dataset.row) === row) && (col === undefined || Number(td.dataset.col) === col));
}
