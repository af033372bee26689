// BackgroundJob in Node, where there is no IntersectionObserver and so every widget counts as on
// screen: its slices, its states, stopping and going on, a failed slice, and what it does last.
import { describe, expect, it } from 'vitest';
import { BackgroundJob, type JobState } from '../../web/src/primitives/background-job';

/** a job of `total` slices that counts them, and the states it reports (one entry per change) */
function counting(total: number, options: { failAt?: number; onSlice?: (done: number) => void } = {}) {
  const states: JobState[] = [];
  const work = {
    done: 0,
    settled: 0,
    remaining: () => work.done < total,
    slice: async () => {
      if (work.done === options.failAt) throw new Error('the engine refused');
      work.done++;
      options.onSlice?.(work.done);
    },
    settle: async () => { work.settled++; },
    report: (state: JobState) => { if (states[states.length - 1] !== state) states.push(state); },
  };
  return { work, states, job: new BackgroundJob({} as Element, work) };
}

describe('BackgroundJob', () => {
  it('runs its slices until the work is done, then settles', async () => {
    const { work, states, job } = counting(3);
    expect(job.state).toBe('stopped');
    await job.start();
    expect(work.done).toBe(3);
    expect(work.settled).toBe(1);
    expect(states).toEqual(['waiting', 'running', 'done']);
  });

  it('stops after the slice running, and goes on from there when started again', async () => {
    const { work, states, job } = counting(5, { onSlice: (done) => { if (done === 2) void job.stop(); } });
    await job.start();
    expect(work.done).toBe(2);
    expect(job.state).toBe('stopped');
    expect(states).toEqual(['waiting', 'running', 'stopping', 'stopped']);
    await job.start();
    expect(work.done).toBe(5);
    expect(job.state).toBe('done');
    expect(work.settled).toBe(2);
  });

  it('is stopped by a slice that fails, keeping what was done', async () => {
    const { work, job } = counting(5, { failAt: 3 });
    await expect(job.start()).rejects.toThrow('the engine refused');
    expect(work.done).toBe(3);
    expect(job.state).toBe('stopped');
  });

  it('does new work that comes before it has said it is done', async () => {
    let total = 2;
    const { work, job } = counting(Infinity);
    work.remaining = () => work.done < total;
    work.settle = async () => {
      if (total === 2) total = 4;
    };
    await job.start();
    expect(work.done).toBe(4);
    expect(job.state).toBe('done');
  });

  it('starts nothing when there is nothing to do', async () => {
    const { work, states, job } = counting(0);
    await job.start();
    expect(work.done).toBe(0);
    expect(states).toEqual(['done']);
  });
});
