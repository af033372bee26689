// Tables of numbers as CSV (RFC 4180), for a widget's "Download CSV": each table's caption on a
// line of its own, its header row, its rows, and an empty line between tables. Numbers are written
// exactly (shortest round-trip form), not as shown. DOM-free.
export interface CsvTable {
  caption?: string;
  head?: readonly string[];
  rows: readonly (readonly (string | number)[])[];
}

function field(value: string | number): string {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : value > 0 ? 'inf' : value < 0 ? '-inf' : 'nan') : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(tables: readonly CsvTable[]): string {
  return tables.map((t) => [
    ...(t.caption ? [field(t.caption)] : []),
    ...(t.head ? [t.head.map(field).join(',')] : []),
    ...t.rows.map((r) => r.map(field).join(',')),
  ].join('\r\n')).join('\r\n\r\n') + '\r\n';
}
