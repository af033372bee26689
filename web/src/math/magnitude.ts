// Numbers that span tens of orders of magnitude, written the way a slide reads them: powers of ten
// with superscripts ("10⁻³³"), and how many times one number is another ("×2.7", "3.1 × 10⁻³⁵").
// DOM-free.

const SUPERSCRIPTS = '⁰¹²³⁴⁵⁶⁷⁸⁹';

/** a whole number in superscript digits, with a superscript minus: −33 → "⁻³³" */
export function superscript(n: number): string {
  const digits = [...String(Math.abs(Math.round(n)))].map((c) => SUPERSCRIPTS[Number(c)]).join('');
  return n < 0 && Math.round(n) !== 0 ? `⁻${digits}` : digits;
}

/** 10 to a whole power: −33 → "10⁻³³" */
export function powerOfTen(exponent: number): string {
  return `10${superscript(exponent)}`;
}

/** whether v is 10^k for a whole k (to float precision) */
export function isPowerOfTen(v: number): boolean {
  if (!(v > 0) || !Number.isFinite(v)) return false;
  const k = Math.round(Math.log10(v));
  return Math.abs(v / 10 ** k - 1) < 1e-9;
}

/** m × 10^e from log10 of a positive number, m rounded to `digits` significant digits (1 ≤ m < 10) */
function scientific(log: number, digits: number): { mantissa: number; exponent: number } {
  let exponent = Math.floor(log);
  let mantissa = Number((10 ** (log - exponent)).toPrecision(digits));
  if (mantissa >= 10) {
    mantissa = Number((mantissa / 10).toPrecision(digits));
    exponent += 1;
  }
  return { mantissa, exponent };
}

/** "3.1 × 10⁻³⁵", or "10⁻³⁵" when the digits are 1 */
function scientificText({ mantissa, exponent }: { mantissa: number; exponent: number }, digits: number): string {
  return mantissa === 1 ? powerOfTen(exponent) : `${mantissa.toFixed(digits - 1)} × ${powerOfTen(exponent)}`;
}

/** A ratio a/b (both ≥ 0) as a factor: "×1.0", "×2.7", "×0.31" from 10⁻³ up to 10³; beyond, a power
 * of ten with two significant digits, "3.1 × 10⁻³⁵" or "10⁻³⁵" (computed from the logarithms, so a
 * ratio beyond the range of a double still reads right). "0" when a is 0 and b is not; "—" when the
 * ratio is undefined (b is 0, or either is ±∞ or NaN). */
export function formatFactor(a: number, b: number): string {
  if (!Number.isFinite(a) || !Number.isFinite(b) || a < 0 || !(b > 0)) return '—';
  if (a === 0) return '0';
  const r = a / b;
  if (r >= 1e-3 && r < 1e3) return `×${r.toPrecision(2)}`;
  return scientificText(scientific(Math.log10(a) - Math.log10(b), 2), 2);
}

/** A positive number for an axis or a label: a power of ten as "10⁻³⁰" when it is one and lies
 * outside [0.01, 1000); plain with `digits` significant digits from 0.01 up to 10⁵ ("0.5", "84");
 * else "2.5 × 10⁻⁵". */
export function formatMagnitude(v: number, digits = 2): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '∞';
  if (v === 0) return '0';
  if (v < 0 || v === -Infinity) return `−${formatMagnitude(-v, digits)}`;
  if (isPowerOfTen(v) && (v < 0.01 || v >= 1000)) return powerOfTen(Math.round(Math.log10(v)));
  if (v >= 0.01 && v < 1e5) return String(Number(v.toPrecision(digits)));
  return scientificText(scientific(Math.log10(v), digits), digits);
}

/** A norm for a table, exact enough to check: four significant digits ("84.31", "1.234e−35"), and 0
 * named as what it is in float32, an underflow. */
export function formatNorm(v: number): string {
  if (v === 0) return '0 (underflow)';
  if (!Number.isFinite(v)) return String(v);
  return v.toPrecision(4).replaceAll('-', '−');
}
