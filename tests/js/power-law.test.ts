import { describe, expect, it } from 'vitest';
import { fitPowerLaw, powerLawAt } from '../../web/src/math/power-law';

describe('fitPowerLaw', () => {
  it('recovers an exact law', () => {
    const points = [128, 256, 512, 1024].map((n) => [n, 3e-6 * n ** 2] as const);
    const law = fitPowerLaw(points);
    expect(law.exponent).toBeCloseTo(2, 12);
    expect(law.coefficient).toBeCloseTo(3e-6, 15);
    expect(law.r2).toBeCloseTo(1, 12);
    expect(powerLawAt(law, 2048)).toBeCloseTo(3e-6 * 2048 ** 2, 6);
  });
  it('fits a decreasing law and reports scatter in R²', () => {
    const points: [number, number][] = [[1e3, 4.1], [1e4, 3.5], [1e5, 2.9], [1e6, 2.6]];
    const law = fitPowerLaw(points);
    expect(law.exponent).toBeLessThan(0);
    expect(law.r2).toBeGreaterThan(0.9);
    expect(law.r2).toBeLessThan(1);
  });
  it('ignores points that have no logarithm, and refuses too few', () => {
    expect(fitPowerLaw([[0, 1], [2, 4], [4, 16], [8, Number.NaN]]).exponent).toBeCloseTo(2, 12);
    expect(() => fitPowerLaw([[2, 4]])).toThrow(/two points/);
    expect(() => fitPowerLaw([[2, 4], [2, 5]])).toThrow(/two points/);
  });
});
