// Number formatting for matrices and labels. DOM-free.

/** Fixed-point text with a true minus sign; −∞ for masked scores; never "-0.00". */
export function formatNumber(x: number, decimals = 2): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '∞';
  if (x === -Infinity) return '−∞';
  const text = x.toFixed(decimals);
  const zero = (0).toFixed(decimals);
  if (text === `-${zero}`) return zero;
  return text.startsWith('-') ? `−${text.slice(1)}` : text;
}

/** formatNumber with a plus sign on a positive number: a difference, "+0.0121" */
export function formatSigned(x: number, decimals = 2): string {
  return x > 0 ? `+${formatNumber(x, decimals)}` : formatNumber(x, decimals);
}

/** A number of any size to `digits` significant digits: plain between 0.001 and 100000, else
 * scientific ("3.2e−9"); true minus signs. */
export function formatSignificant(x: number, digits = 2): string {
  if (!Number.isFinite(x) || x === 0) return formatNumber(x, 0);
  const a = Math.abs(x);
  const text = a >= 1e-3 && a < 1e5 ? String(Number(x.toPrecision(digits))) : x.toExponential(digits - 1).replace('e+', 'e');
  return text.replaceAll('-', '−');
}

/** a duration in ms or, from a second on, in s, to three significant digits: "1.76 ms", "2.35 s" */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${formatSignificant(ms, 3)} ms` : `${formatSignificant(ms / 1000, 3)} s`;
}

/** A whole number with its thousands grouped: 1234567 → "1,234,567". What toLocaleString('en')
 * writes, without the browser's number formatting, whose first use stalls a page for 100 ms. */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return formatNumber(n, 0);
  const grouped = String(Math.round(Math.abs(n))).replace(/\B(?=(\d{3})+$)/g, ',');
  return n <= -0.5 ? `−${grouped}` : grouped;
}

const SUBSCRIPTS = '₀₁₂₃₄₅₆₇₈₉';

/** a whole number 0 or more in subscript digits: 12 → "₁₂" */
export function subscript(n: number): string {
  return [...String(n)].map((c) => SUBSCRIPTS[Number(c)]).join('');
}

/** 1536 → "1.5 KiB", in binary units */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  return `${formatSignificant(n, 3)} ${units[u]}`;
}
