// Axis ticks. DOM-free.

/** Round tick values covering [lo, hi]: 1-2-5 steps on a linear axis, powers of ten on a log
 * axis (with 2 and 5 between them when the range spans less than three decades). */
export function niceTicks(lo: number, hi: number, log = false, target = 6): number[] {
  if (!(hi > lo)) return [lo];
  if (log) {
    const a = Math.floor(Math.log10(lo));
    const b = Math.ceil(Math.log10(hi));
    const decades = b - a;
    const every = Math.max(1, Math.ceil(decades / target));
    const ticks: number[] = [];
    for (let e = a; e <= b; e += every) {
      ticks.push(10 ** e);
      if (decades < 3 && e < b) ticks.push(2 * 10 ** e, 5 * 10 ** e);
    }
    return ticks.filter((v) => v >= 10 ** a && v <= 10 ** b);
  }
  const raw = (hi - lo) / target;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((k) => k * magnitude).find((s) => s >= raw) ?? 10 * magnitude;
  const ticks: number[] = [];
  for (let v = Math.floor(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  if (ticks[ticks.length - 1] < hi) ticks.push(Number((ticks[ticks.length - 1] + step).toPrecision(12)));
  return ticks;
}
