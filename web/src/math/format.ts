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
