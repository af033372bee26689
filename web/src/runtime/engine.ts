// The page's engine: one Web Worker running the engine for every widget, so that no engine call
// ever blocks the page, and the page's shipped models, each loaded into it once. Where the engine
// and the models come from is engine-files.ts's business (files beside the bundle, or inside the
// offline page).
import { createEngineWorker, type RemoteEngine, type RemoteModel } from '../engine/worker-client';
import { ENGINE_FILES, modelFileUrl, startWorker } from './engine-files';
import type { ShippedModel } from './shipped-models';

export type { RemoteEngine, RemoteModel };

/** loading progress of the engine, 0 … 1, for every widget's loading bar */
export const engineProgress = new EventTarget();
export let engineFraction = 0;

let instance: Promise<RemoteEngine> | undefined;

export function pageEngine(): Promise<RemoteEngine> {
  instance ??= createEngineWorker({
    worker: startWorker(),
    files: ENGINE_FILES,
    onProgress: (loaded, total) => {
      engineFraction = total > 0 ? Math.min(1, loaded / total) : 0;
      engineProgress.dispatchEvent(new Event('progress'));
    },
  });
  return instance;
}

export type { ShippedModel };

const models = new Map<ShippedModel, Promise<RemoteModel>>();

/** the generation each model is in the middle of, or last finished */
const generations = new WeakMap<RemoteModel, Promise<unknown>>();

/** Runs `generation` (startGeneration, its generateStep calls, kvCache reads) once the model's
 * earlier generations are done: a model holds one generation at a time, and two widgets on a page
 * share a shipped model, so steps interleaved would grow one another's cache. */
export function alone<T>(model: RemoteModel, generation: () => Promise<T>): Promise<T> {
  const next = (generations.get(model) ?? Promise.resolve()).catch(() => undefined).then(generation);
  generations.set(model, next);
  return next;
}

/** The reader's `text` as `model`'s tokens — after [BOS] for the shipped models, as its own
 * tokenizer writes it for a model the reader opened (`bos: false`) — with the model's configuration
 * and the room its context has left after them; an error names the text (`name`) when there is none. */
export async function promptIn(model: RemoteModel, text: string, name: string, unit: string, { bos = true } = {}) {
  const [config, { ids }] = await Promise.all([model.config(), model.tokenize(bos ? `[BOS]${text}` : text)]);
  const prompt = Array.from(ids);
  if (prompt.length === 0) throw new Error(`Type a ${name}: a model opened here starts from the text it is given.`);
  const room = config.n_ctx - prompt.length;
  if (room < 1) throw new Error(`The ${name} is longer than the model's context of ${config.n_ctx} ${unit}.`);
  return { config, prompt, room };
}

/** A shipped model, fetched (see engine-files.ts) and loaded into the engine worker once. */
export function pageModel(name: ShippedModel): Promise<RemoteModel> {
  let model = models.get(name);
  if (!model) {
    model = loadShipped(name);
    models.set(name, model);
    model.catch(() => models.delete(name));  // a later call tries again
  }
  return model;
}

/** one file of a shipped model, fetched */
async function shippedFile(name: ShippedModel, file: string): Promise<Response> {
  const url = modelFileUrl(name, file);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response;
}

/** The curves of the run that trained a shipped model (induction: training.json, written by
 * attnlab-train): every `steps[i]`, the held-out loss of each part and every head's prefix-matching
 * score (layers × heads, row-major). */
export interface TrainingLog {
  steps: number[];
  first: number[];
  repeat: number[];
  prefixMatching: number[][];
}
export async function shippedTrainingLog(name: ShippedModel): Promise<TrainingLog> {
  return (await shippedFile(name, 'training.json')).json() as Promise<TrainingLog>;
}

async function loadShipped(name: ShippedModel): Promise<RemoteModel> {
  const get = (file: string) => shippedFile(name, file);
  const [engine, weights, config, vocab] = await Promise.all([
    pageEngine(),
    get('model.safetensors').then(async (r) => new Uint8Array(await r.arrayBuffer())),
    get('config.json').then((r) => r.text()),
    get('vocab.json').then((r) => r.text()),
  ]);
  return engine.loadModel({ weights, config, vocab });
}
