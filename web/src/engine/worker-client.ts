/**
 * The engine in a Web Worker: the same calls as Engine and Model, asynchronous, so that model
 * forwards, training and benchmarks never block the page.
 *
 *   import { createEngineWorker } from 'attnlab/worker';
 *   const engine = await createEngineWorker();
 *   const model = await engine.createModel({ config });
 *   const { logits } = await model.forward({ tokens: [1, 2, 3] });
 */
import type { AttentionResult, EngineInfo, LoadOptions } from './index.js';
import type { Request } from './worker.js';
import type { ForwardOptions, MatrixData, ModelConfig, MultiHeadInput, SamplingOptions, SingleHeadInput } from './attnlab.mjs';

export interface WorkerOptions extends LoadOptions {
  /** URL of worker.js (default: beside this module) */
  workerUrl?: string | URL;
}

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };

class Channel {
  private next = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(readonly worker: Worker) {
    worker.onmessage = (event: MessageEvent<{ id: number; result?: unknown; error?: string }>) => {
      const waiting = this.pending.get(event.data.id);
      if (!waiting) return;
      this.pending.delete(event.data.id);
      if (event.data.error !== undefined) waiting.reject(new Error(event.data.error));
      else waiting.resolve(event.data.result);
    };
    worker.onerror = (event) => {
      const error = new Error(`attnlab worker failed: ${event.message}`);
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
  }

  call<T>(method: string, args: unknown[] = [], model?: number): Promise<T> {
    const id = this.next++;
    const request: Request = { id, method, args, model };
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage(request);
    });
  }
}

/** A model living in the worker. */
export class RemoteModel {
  constructor(private readonly channel: Channel, private readonly id: number) {}
  config(): Promise<Required<ModelConfig>> { return this.channel.call('config', [], this.id); }
  tokenize(text: string): Promise<{ ids: Int32Array; pieces: string[] }> { return this.channel.call('tokenize', [text], this.id); }
  decode(ids: ArrayLike<number>): Promise<string> { return this.channel.call('decode', [Array.from(ids)], this.id); }
  forward(options: ForwardOptions): Promise<{ logits: MatrixData; trace?: Record<string, MatrixData> }> {
    return this.channel.call('forward', [options], this.id);
  }
  nextTokenProbabilities(options: { tokens: ArrayLike<number> } & SamplingOptions): Promise<Float32Array> {
    return this.channel.call('nextTokenProbabilities', [options], this.id);
  }
  startGeneration(tokens: ArrayLike<number>): Promise<{ length: number; cacheBytes: number }> {
    return this.channel.call('startGeneration', [Array.from(tokens)], this.id);
  }
  generateStep(options: SamplingOptions = {}): Promise<{ token: number; probabilities: Float32Array; length: number; cacheBytes: number }> {
    return this.channel.call('generateStep', [options], this.id);
  }
  save(): Promise<{ weights: Uint8Array; config: string; vocab?: string }> { return this.channel.call('save', [], this.id); }
  dispose(): Promise<void> { return this.channel.call('dispose', [], this.id); }
}

/** The engine living in the worker. */
export class RemoteEngine {
  constructor(private readonly channel: Channel, readonly info: EngineInfo) {}
  setThreads(threads: number): Promise<number> { return this.channel.call('setThreads', [threads]); }
  memoryInUse(): Promise<number> { return this.channel.call('memoryInUse'); }
  positionalTable(options: Record<string, unknown>): Promise<MatrixData> { return this.channel.call('positionalTable', [options]); }
  attention(options: SingleHeadInput | MultiHeadInput): Promise<AttentionResult> { return this.channel.call('attention', [options]); }
  benchmark(options: { kernel: 'single_head' | 'multi_head'; n: number; repeats?: number; minMs?: number }): Promise<{ medianMs: number; gflops: number; repeats: number }> {
    return this.channel.call('benchmark', [options]);
  }
  async createModel(options: { config: ModelConfig; seed?: number; vocab?: string }): Promise<RemoteModel> {
    return new RemoteModel(this.channel, await this.channel.call<number>('createModel', [options]));
  }
  async loadModel(options: { weights: Uint8Array; config: string; vocab: string }): Promise<RemoteModel> {
    return new RemoteModel(this.channel, await this.channel.call<number>('loadModel', [options]));
  }
  /** stops the worker and frees everything in it */
  terminate(): void { this.channel.worker.terminate(); }
}

export async function createEngineWorker(options: WorkerOptions = {}): Promise<RemoteEngine> {
  const { workerUrl, ...load } = options;
  const worker = new Worker(workerUrl ?? new URL('./worker.js', import.meta.url), { type: 'module' });
  const channel = new Channel(worker);
  const info = await channel.call<EngineInfo>('load', [{ ...load, engineUrl: load.engineUrl?.toString() }]);
  return new RemoteEngine(channel, info);
}
