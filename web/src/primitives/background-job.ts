// A widget's long work (timing the engine, training models) done in slices while the widget is on
// screen (on-screen.ts), so that the engine its worker shares with the whole page serves the slide
// being looked at: the job waits while the widget is off screen and goes on when it is back, can be
// stopped after the slice it is in and started again, and each slice takes up where the last one
// stopped (the work keeps its own progress). Between slices the page does its own work first:
// drawing what the slice found, and other widgets rendering, would otherwise share the cores with
// the next slice.
import { whenIdle } from './idle';
import { onScreen, watchScreen } from './on-screen';

/** waiting: off screen, to run once on screen; stopping: stop() asked, the slice finishing;
 * stopped: not started, or stopped, with work left */
export type JobState = 'waiting' | 'running' | 'stopping' | 'stopped' | 'done';

export interface JobWork {
  /** whether there is work left */
  remaining(): boolean;
  /** does the next slice of the work: an engine call, or steps for a few hundred ms */
  slice(): Promise<void>;
  /** what is left to do once the job stops or its work is done, before it says so */
  settle?(): Promise<void>;
  /** told of every change of state, and after every slice */
  report(state: JobState): void;
}

/** the longest wait for the page to be idle before the next slice */
const IDLE_WAIT_MS = 500;

export class BackgroundJob {
  private current: JobState = 'stopped';
  /** start() holds until stop() */
  private wanted = false;
  /** the loop, while it runs */
  private running?: Promise<void>;
  /** ends a wait for the widget to come on screen */
  private wake?: () => void;

  constructor(private readonly widget: Element, private readonly work: JobWork) {}

  get state(): JobState {
    return this.current;
  }

  /** Runs the work, now or once the widget is on screen, until it is done or stopped; after a stop,
   * goes on from where it stopped. Resolves once the job stops or is done; rejects with the error
   * of a slice that failed (the job is stopped then). */
  start(): Promise<void> {
    this.wanted = true;
    // wanted from now on: waiting for its first slice, or running on after a stop it had not reached
    if ((this.current === 'stopped' || this.current === 'done') && this.work.remaining()) this.set('waiting');
    else if (this.current === 'stopping') this.set('running');
    this.running ??= this.loop().finally(() => { this.running = undefined; });
    return this.running;
  }

  /** stops after the slice running (a job waiting for the screen at once); resolves once stopped */
  stop(): Promise<void> {
    this.wanted = false;
    if (this.current === 'running') this.set('stopping');
    this.wake?.();
    return this.running?.catch(() => undefined) ?? Promise.resolve();
  }

  /** slices while wanted and there is work, waiting off screen; then settles and says how it ended */
  private async loop(): Promise<void> {
    try {
      do {
        while (this.wanted && this.work.remaining()) {
          await new Promise<void>((resolve) => whenIdle(resolve, IDLE_WAIT_MS));
          if (!this.wanted) break;
          if (onScreen(this.widget) !== true) {
            this.set('waiting');
            await this.untilOnScreen();
            continue;
          }
          this.set('running');
          await this.work.slice();
          this.work.report(this.current);
        }
        await this.work.settle?.();
        // work that came meanwhile (a new setting) is done in the same run
      } while (this.wanted && this.work.remaining());
    } catch (error) {
      this.wanted = false;
      throw error;
    } finally {
      this.set(this.work.remaining() ? 'stopped' : 'done');
    }
  }

  /** resolves once the widget is on screen, or the job is stopped */
  private untilOnScreen(): Promise<void> {
    return new Promise((resolve) => {
      const unwatch = watchScreen(this.widget, (shown) => { if (shown) done(); });
      const done = () => {
        unwatch();
        this.wake = undefined;
        resolve();
      };
      this.wake = done;
    });
  }

  /** a new state, reported */
  private set(state: JobState): void {
    if (state === this.current) return;
    this.current = state;
    this.work.report(state);
  }
}
