// What the training slide draws from a run, without the DOM: the per-step curves averaged over
// fixed buckets of steps (a few hundred points however long the run, so that a redraw stays cheap
// and the noise of single batches is smoothed), the learning-rate schedule thinned the same way,
// and what a letter task should answer for a string (the task's definition, for "try it").

/** steps per bucket so that a run of `totalSteps` gives at most `maxPoints` points */
export function bucketSize(totalSteps: number, maxPoints: number): number {
  return Math.max(1, Math.ceil(totalSteps / Math.max(1, maxPoints)));
}

/** The mean of each bucket of `size` consecutive values, at the mean step of its bucket (value i is
 * step i + 1); the last bucket may be partial, so the curve reaches the newest step. */
export function bucketMeans(values: ArrayLike<number>, size: number): { x: number[]; y: number[] } {
  const x: number[] = [];
  const y: number[] = [];
  for (let start = 0; start < values.length; start += size) {
    const end = Math.min(values.length, start + size);
    let sum = 0;
    for (let i = start; i < end; i++) sum += values[i];
    x.push((start + 1 + end) / 2);
    y.push(sum / (end - start));
  }
  return { x, y };
}

/** Every `size`-th value of a per-step curve (value i is step i + 1), the last, and the values at
 * the indices in `keep` (a corner such as the schedule's peak, which thinning would cut off). */
export function thinned(values: ArrayLike<number>, size: number, keep: readonly number[] = []): { x: number[]; y: number[] } {
  const kept = new Set(keep.filter((i) => i >= 0 && i < values.length));
  for (let i = 0; i < values.length; i += size) kept.add(i);
  if (values.length > 0) kept.add(values.length - 1);
  const indices = [...kept].sort((a, b) => a - b);
  return { x: indices.map((i) => i + 1), y: indices.map((i) => values[i]) };
}

export type LetterTask = 'copy' | 'reverse' | 'sort';

/** what a letter task asks for, given its letters */
export function letterAnswer(task: LetterTask, letters: string): string {
  const chars = [...letters];
  if (task === 'reverse') return chars.reverse().join('');
  if (task === 'sort') return chars.sort().join('');
  return letters;
}

/** "12 s", "3 min 05 s": a duration for an estimate of the time left */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/** the longest string a letter task's model of context `context` (n_ctx) takes: [BOS] the letters
 * [SEP] its answer [EOS] */
export function longestLetters(context: number): number {
  return Math.floor((context - 3) / 2);
}

/** steps between two measurements of something slow (the held-out loss): a multiple of `every` (the
 * steps between cheaper ones, which it then falls on) that gives about `points` over a run */
export function measureEvery(totalSteps: number, every: number, points: number): number {
  return every * Math.max(1, Math.ceil(totalSteps / (every * points)));
}
