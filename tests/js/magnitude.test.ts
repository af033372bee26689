import { describe, expect, it } from 'vitest';
import { formatFactor, formatMagnitude, formatNorm, isPowerOfTen, powerOfTen, superscript } from '../../web/src/math/magnitude';

describe('superscript and powerOfTen', () => {
  it('writes whole numbers as superscripts, with a superscript minus', () => {
    expect(superscript(0)).toBe('⁰');
    expect(superscript(45)).toBe('⁴⁵');
    expect(superscript(-33)).toBe('⁻³³');
    expect(powerOfTen(-33)).toBe('10⁻³³');
    expect(powerOfTen(3)).toBe('10³');
  });
  it('knows a power of ten', () => {
    expect(isPowerOfTen(1e-30)).toBe(true);
    expect(isPowerOfTen(1000)).toBe(true);
    expect(isPowerOfTen(2e-30)).toBe(false);
    expect(isPowerOfTen(0)).toBe(false);
    expect(isPowerOfTen(Infinity)).toBe(false);
  });
});

describe('formatFactor', () => {
  it('writes ratios near 1 as a factor with two significant digits', () => {
    expect(formatFactor(84, 82)).toBe('×1.0');
    expect(formatFactor(253, 95)).toBe('×2.7');
    expect(formatFactor(31, 100)).toBe('×0.31');
    expect(formatFactor(9000, 3000)).toBe('×3.0');
  });
  it('writes ratios of many orders of magnitude as powers of ten', () => {
    expect(formatFactor(4e-34, 34)).toBe('1.2 × 10⁻³⁵');
    expect(formatFactor(1e-30, 1)).toBe('10⁻³⁰');
    expect(formatFactor(5000, 1)).toBe('5.0 × 10³');
    // 9.96 rounds up to the next power of ten
    expect(formatFactor(9.96e-8, 1)).toBe('10⁻⁷');
    // beyond a double's range, from the logarithms
    expect(formatFactor(1e-300, 1e300)).toBe('10⁻⁶⁰⁰');
  });
  it('names a zero numerator and an undefined ratio', () => {
    expect(formatFactor(0, 34)).toBe('0');
    expect(formatFactor(1, 0)).toBe('—');
    expect(formatFactor(NaN, 1)).toBe('—');
    expect(formatFactor(Infinity, 1)).toBe('—');
  });
});

describe('formatMagnitude', () => {
  it('writes decades far from 1 as powers of ten and the rest plainly', () => {
    expect(formatMagnitude(1e-30)).toBe('10⁻³⁰');
    expect(formatMagnitude(1e4)).toBe('10⁴');
    expect(formatMagnitude(100)).toBe('100');
    expect(formatMagnitude(0.5)).toBe('0.5');
    expect(formatMagnitude(84.3)).toBe('84');
    expect(formatMagnitude(2.46e-5)).toBe('2.5 × 10⁻⁵');
    expect(formatMagnitude(0)).toBe('0');
    expect(formatMagnitude(-0.5)).toBe('−0.5');
    expect(formatMagnitude(Infinity)).toBe('∞');
  });
});

describe('formatNorm', () => {
  it('keeps four significant digits and names an exact 0 an underflow', () => {
    expect(formatNorm(84.3137)).toBe('84.31');
    expect(formatNorm(1.23456e-35)).toBe('1.235e−35');
    expect(formatNorm(250)).toBe('250.0');
    expect(formatNorm(0)).toBe('0 (underflow)');
    expect(formatNorm(Infinity)).toBe('Infinity');
    expect(Number(formatNorm(3.2e-41).replaceAll('−', '-'))).toBe(Number((3.2e-41).toPrecision(4)));
  });
});
