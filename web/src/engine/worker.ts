// The engine inside a Web Worker, so that heavy calls never block the page: it answers the
// messages of worker-client.ts. Models live here and are named by number.
import { loadAttnlab, type Engine, type LoadOptions, type Model } from './index.js';

export interface Request {
  id: number;
  method: string;
  args: unknown[];
  model?: number;
}

let engine: Engine | undefined;
const models = new Map<number, Model>();
let nextModel = 1;

// engine methods a client may call, and model methods by name
const ENGINE_METHODS = new Set([
  'setThreads', 'memoryInUse', 'positionalTable', 'positionSimilarity', 'sinusoidalShiftMatrix', 'ropeApply',
  'ropeRotation', 'alibiSlopes', 'alibiBias', 'attention', 'benchmark',
]);
const MODEL_METHODS = new Set([
  'tokenize', 'decode', 'forward', 'nextTokenProbabilities', 'startGeneration', 'generateStep', 'save',
]);

async function handle(request: Request): Promise<unknown> {
  const { method, args } = request;
  if (method === 'load') {
    engine = await loadAttnlab(args[0] as LoadOptions);
    return engine.info;
  }
  if (!engine) throw new Error('attnlab: the worker has not loaded the engine');
  if (method === 'info') return engine.info;
  if (method === 'createModel' || method === 'loadModel') {
    const id = nextModel++;
    models.set(id, method === 'createModel'
      ? engine.createModel(args[0] as Parameters<Engine['createModel']>[0])
      : engine.loadModel(args[0] as Parameters<Engine['loadModel']>[0]));
    return id;
  }
  if (request.model !== undefined) {
    const model = models.get(request.model);
    if (!model) throw new Error(`attnlab: model ${request.model} does not exist (disposed?)`);
    if (method === 'dispose') {
      model.dispose();
      models.delete(request.model);
      return undefined;
    }
    if (method === 'config') return model.config;
    if (!MODEL_METHODS.has(method)) throw new Error(`attnlab: models have no method "${method}"`);
    return (model as unknown as Record<string, (...a: unknown[]) => unknown>)[method](...args);
  }
  if (!ENGINE_METHODS.has(method)) throw new Error(`attnlab: the engine has no method "${method}"`);
  return (engine as unknown as Record<string, (...a: unknown[]) => unknown>)[method](...args);
}

self.onmessage = async (event: MessageEvent<Request>) => {
  const { id } = event.data;
  try {
    const result = await handle(event.data);
    self.postMessage({ id, result });
  } catch (error) {
    self.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
};
