/**
 * The engine in a Web Worker: every call of Engine, Model, Trainer and AttentionStepper,
 * asynchronous, so that model forwards, training and benchmarks never block the page.
 *
 *   import { createEngineWorker } from 'attnlab/worker';
 *   const engine = await createEngineWorker();
 *   const model = await engine.createModel({ config });
 *   const { logits } = await model.forward({ tokens: [1, 2, 3] });
 *   const config = await model.config();      // getters become calls too
 *
 * The client is a Proxy: a member it is asked for becomes a message naming that member, and
 * worker.ts calls it on the real object. The Engine class in index.ts is the one declaration of
 * the API; nothing is listed again here.
 */
import type { Engine, LoadOptions } from './index.js';
import { CALLBACK, type Request, type Response } from './worker-protocol.js';

export interface WorkerOptions extends Omit<LoadOptions, 'onProgress'> {
  /** URL of worker.js (default: beside this module) */
  workerUrl?: string | URL;
  /** a Worker already started on worker.js (bundlers that build the worker themselves) */
  worker?: Worker;
  /** bytes of the engine's WebAssembly received so far, while it downloads */
  onProgress?: (loaded: number, total: number) => void;
}

/** What a call returns through the worker: objects owning engine memory stay there, as remotes. */
type RemoteValue<R> = R extends { dispose(): void } ? Remote<R> : R;

/** T's methods and getters as asynchronous calls: `model.config` becomes `model.config()`. */
export type Remote<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R
    ? (...args: A) => Promise<RemoteValue<Awaited<R>>>
    : () => Promise<RemoteValue<T[K]>>;
};

export type RemoteEngine = Remote<Engine> & {
  /** stops the worker and frees everything in it */
  terminate(): void;
};
export type RemoteModel = Remote<import('./index.js').Model>;
export type RemoteTrainer = Remote<import('./index.js').Trainer>;
export type RemoteAttentionStepper = Remote<import('./index.js').AttentionStepper>;

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };

class Channel {
  private next = 1;
  private readonly pending = new Map<number, Pending>();
  /** functions passed to calls still running, by number: the worker calls them back */
  private readonly callbacks = new Map<number, (...args: unknown[]) => unknown>();
  /** the callbacks each running call passed, freed when it ends */
  private readonly callbacksOf = new Map<number, number[]>();

  constructor(readonly worker: Worker, private readonly onProgress?: WorkerOptions['onProgress']) {
    worker.onmessage = (event: MessageEvent<Response>) => {
      const message = event.data;
      if ('progress' in message) {
        this.onProgress?.(message.progress.loaded, message.progress.total);
        return;
      }
      if ('callback' in message) {
        this.callbacks.get(message.callback)?.(...message.args);
        return;
      }
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      for (const callback of this.callbacksOf.get(message.id) ?? []) this.callbacks.delete(callback);
      this.callbacksOf.delete(message.id);
      if ('error' in message) waiting.reject(new Error(message.error));
      else if ('remote' in message) waiting.resolve(remote(this, message.remote));
      else waiting.resolve(message.result);
    };
    worker.onerror = (event) => this.fail(new Error(`attnlab worker failed: ${event.message}`));
  }

  call(target: number, member: string, args: unknown[]): Promise<unknown> {
    const id = this.next++;
    const passed: number[] = [];
    const marker = (f: unknown) => {
      if (typeof f !== 'function') return undefined;
      const callback = this.next++;
      this.callbacks.set(callback, f as (...a: unknown[]) => unknown);
      passed.push(callback);
      return { [CALLBACK]: callback };
    };
    // a function, or one held by an options object (loadModel's onProgress), is called back from the worker
    const sent = args.map((arg) => marker(arg) ?? (isPlainObject(arg)
      ? Object.fromEntries(Object.entries(arg).map(([key, item]) => [key, marker(item) ?? item])) : arg));
    if (passed.length) this.callbacksOf.set(id, passed);
    return this.send({ id, target, member, args: sent }, member);
  }

  load(options: Omit<WorkerOptions, 'workerUrl' | 'worker' | 'onProgress'>): Promise<unknown> {
    return this.send({ id: this.next++, load: { ...options, engineUrl: options.engineUrl?.toString() } }, 'loading');
  }

  /** posts the request; `what` names it in the error when an argument cannot be cloned */
  private send(request: Request, what: string): Promise<unknown> {
    const { id } = request;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      try {
        this.worker.postMessage(request);
      } catch (error) {  // an argument that cannot be cloned (a DOM node …)
        this.pending.delete(id);
        for (const callback of this.callbacksOf.get(id) ?? []) this.callbacks.delete(callback);
        this.callbacksOf.delete(id);
        reject(new Error(`attnlab: ${what}: ${error instanceof Error ? error.message : String(error)}`));
      }
    });
  }

  fail(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
    this.callbacks.clear();
    this.callbacksOf.clear();
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

function remote<T>(channel: Channel, target: number): Remote<T> {
  return new Proxy({} as Remote<T>, {
    get(_, member) {
      // not a promise itself, and not a member that a string cannot name
      if (member === 'then' || typeof member !== 'string') return undefined;
      if (member === 'terminate' && target === 0) {
        return () => {
          channel.worker.terminate();
          channel.fail(new Error('attnlab: the engine worker was terminated'));
        };
      }
      return (...args: unknown[]) => channel.call(target, member, args);
    },
  });
}

/** Starts the engine in a Worker; resolves once it has loaded. */
export async function createEngineWorker(options: WorkerOptions = {}): Promise<RemoteEngine> {
  const { workerUrl, worker: started, onProgress, ...load } = options;
  const worker = started ?? new Worker(workerUrl ?? new URL(/* @vite-ignore */ './worker.js', import.meta.url), { type: 'module' });
  const channel = new Channel(worker, onProgress);
  await channel.load(load);
  return remote<Engine>(channel, 0) as RemoteEngine;
}
