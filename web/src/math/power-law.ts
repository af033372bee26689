// Power laws y = c·x^k, the shape of both the measured costs (time ∝ n², ∝ n) and the scaling laws
// (L ∝ N^−0.076): a straight line of slope k on log-log axes. DOM-free.

export interface PowerLaw {
  /** k: the slope on log-log axes */
  exponent: number;
  /** c: y at x = 1 */
  coefficient: number;
  /** R² of the fit on the logarithms (1: every point on the line) */
  r2: number;
}

/** least squares on (ln x, ln y) over points with x, y > 0 and finite; needs two distinct x */
export function fitPowerLaw(points: readonly (readonly [number, number])[]): PowerLaw {
  const logs = points.filter(([x, y]) => x > 0 && y > 0 && Number.isFinite(x) && Number.isFinite(y))
    .map(([x, y]) => [Math.log(x), Math.log(y)] as const);
  const count = logs.length;
  const meanX = logs.reduce((s, [u]) => s + u, 0) / count;
  const meanY = logs.reduce((s, [, v]) => s + v, 0) / count;
  let sxx = 0, sxy = 0, syy = 0;
  for (const [u, v] of logs) {
    sxx += (u - meanX) ** 2;
    sxy += (u - meanX) * (v - meanY);
    syy += (v - meanY) ** 2;
  }
  if (count < 2 || !(sxx > 0)) throw new Error('a power law needs two points at different positive x');
  const exponent = sxy / sxx;
  return { exponent, coefficient: Math.exp(meanY - exponent * meanX), r2: syy > 0 ? (sxy * sxy) / (sxx * syy) : 1 };
}

/** y of the law at x */
export function powerLawAt(law: Pick<PowerLaw, 'exponent' | 'coefficient'>, x: number): number {
  return law.coefficient * x ** law.exponent;
}
