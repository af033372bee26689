import { describe, expect, it } from 'vitest';
import { fitPowerLaw } from '../../web/src/math/power-law';
import { asPowerLaw, decreasesStrictly, KAPLAN_2020, lawCurve, logSpaced, PUBLISHED_LAWS, publishedLoss } from '../../web/src/math/scaling-laws';
import { median } from '../../web/src/math/ranking';

describe('the published scaling laws (Kaplan et al. 2020)', () => {
  it('keeps the paper\'s exponents and constants, with its source', () => {
    expect(KAPLAN_2020.arxiv).toBe('2001.08361');
    expect([PUBLISHED_LAWS.N.alpha, PUBLISHED_LAWS.D.alpha, PUBLISHED_LAWS.C.alpha]).toEqual([0.076, 0.095, 0.05]);
    expect([PUBLISHED_LAWS.N.scale, PUBLISHED_LAWS.D.scale, PUBLISHED_LAWS.C.scale]).toEqual([8.8e13, 5.4e13, 3.1e8]);
  });

  it('gives L = (X_c / X)^α: 1 nat at X_c, and the values at a few points', () => {
    for (const law of Object.values(PUBLISHED_LAWS)) expect(publishedLoss(law, law.scale)).toBeCloseTo(1, 12);
    // (8.8e13 / 1e9)^0.076, (5.4e13 / 1e10)^0.095, (3.1e8 / 1)^0.05, worked out independently
    expect(publishedLoss(PUBLISHED_LAWS.N, 1e9)).toBeCloseTo(Math.exp(0.076 * Math.log(88000)), 12);
    expect(publishedLoss(PUBLISHED_LAWS.N, 1e9)).toBeCloseTo(2.3756, 4);
    expect(publishedLoss(PUBLISHED_LAWS.D, 1e10)).toBeCloseTo(2.2624, 4);
    expect(publishedLoss(PUBLISHED_LAWS.C, 1)).toBeCloseTo(2.6581, 4);
    // ten times the resource divides the loss by 10^α
    expect(publishedLoss(PUBLISHED_LAWS.D, 1e9) / publishedLoss(PUBLISHED_LAWS.D, 1e10)).toBeCloseTo(10 ** 0.095, 12);
  });

  it('is a power law of exponent −α, which a fit of its curve recovers', () => {
    for (const law of Object.values(PUBLISHED_LAWS)) {
      expect(asPowerLaw(law).exponent).toBe(-law.alpha);
      const { x, y } = lawCurve(law);
      expect(x[0]).toBeCloseTo(law.range[0], 6);
      expect(x[x.length - 1] / law.range[1]).toBeCloseTo(1, 12);
      expect(fitPowerLaw(x.map((v, i) => [v, y[i]])).exponent).toBeCloseTo(-law.alpha, 10);
    }
    // one point per decade: N over 10⁶ … 10¹⁰
    expect(lawCurve(PUBLISHED_LAWS.N).x.map((v) => Math.round(Math.log10(v)))).toEqual([6, 7, 8, 9, 10]);
  });
});

describe('helpers', () => {
  it('spaces points evenly in log x', () => {
    const points = logSpaced(1e-4, 1e3, 8);
    expect(points.length).toBe(8);
    points.forEach((v, i) => expect(Math.log10(v)).toBeCloseTo(i - 4, 12));
  });

  it('tells a strictly decreasing list', () => {
    expect(decreasesStrictly([2.1, 1.7, 1.2, 0.5, 0.3])).toBe(true);
    expect(decreasesStrictly([2.1, 1.7, 1.7])).toBe(false);
    expect(decreasesStrictly([1, 2])).toBe(false);
    expect(decreasesStrictly([1])).toBe(true);
  });

  it('takes the median, robust to a few slow calls', () => {
    expect(median([3, 1, 200, 2, 4])).toBe(3);
    expect(median([5, 1, 2, 4])).toBe(3);
    expect(median([])).toBeNaN();
  });
});
