// The engine inside a Web Worker, so that heavy calls never block the page. It answers the
// messages of worker-client.ts generically: any public member of the Engine, or of an object an
// engine call returned (Model, Trainer, AttentionStepper), is called here by name; loading is a
// message of its own, which no member name reaches. No method is listed
// twice: the Engine class in index.ts is the whole API.
import { loadAttnlab } from './index.js';
import { CALLBACK, type Request, type Response } from './worker-protocol.js';

/** Objects that own engine memory stay in the worker; the client gets a handle to them. */
function ownsEngineMemory(value: unknown): value is { dispose(): void } {
  return typeof value === 'object' && value !== null && typeof (value as { dispose?: unknown }).dispose === 'function';
}

/** typed-array buffers in a result, moved to the page instead of copied */
function transferables(value: unknown, found: Set<ArrayBuffer> = new Set()): Set<ArrayBuffer> {
  if (ArrayBuffer.isView(value)) {
    if (value.buffer instanceof ArrayBuffer && value.byteLength === value.buffer.byteLength) found.add(value.buffer);
  } else if (Array.isArray(value)) {
    for (const item of value) transferables(item, found);
  } else if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) transferables(item, found);
  }
  return found;
}

/** methods and getters of the object's classes; not its own fields (its private state) */
function isPublicMember(object: object, member: string): boolean {
  if (member === 'constructor') return false;
  for (let p = Object.getPrototypeOf(object); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    if (Object.prototype.hasOwnProperty.call(p, member)) return true;
  }
  return false;
}

/** a marker { [CALLBACK]: n } as a function that posts its arguments to the page */
function callbackFrom(value: unknown): ((...args: unknown[]) => void) | undefined {
  if (typeof value !== 'object' || value === null || Object.keys(value).length !== 1) return undefined;
  const id = (value as Record<string, unknown>)[CALLBACK];
  return typeof id === 'number' ? (...args: unknown[]) => scope.postMessage({ callback: id, args }) : undefined;
}

/** an argument with the page's functions restored: itself a marker, or an options object holding some */
function withCallbacks(arg: unknown): unknown {
  const callback = callbackFrom(arg);
  if (callback) return callback;
  if (typeof arg !== 'object' || arg === null || Array.isArray(arg) || ArrayBuffer.isView(arg) || Object.getPrototypeOf(arg) !== Object.prototype) return arg;
  return Object.fromEntries(Object.entries(arg).map(([key, item]) => [key, callbackFrom(item) ?? item]));
}

const scope = self as unknown as {
  postMessage(message: Response, transfer?: Transferable[]): void;
  onmessage: ((event: MessageEvent<Request>) => void) | null;
};
const objects = new Map<number, object>();
let nextObject = 1;

/** a load was asked for (and has not failed): one engine per worker, since a second one would
 * hold its threads and memory for ever */
let loadAsked = false;

async function handle(request: Request): Promise<Response | Omit<Response, 'id'>> {
  if ('load' in request) {
    if (loadAsked) throw new Error('attnlab: the worker has loaded its engine already');
    loadAsked = true;
    try {
      const engine = await loadAttnlab({
        ...request.load,
        onProgress: (loaded, total) => scope.postMessage({ progress: { loaded, total } }),
      });
      objects.set(0, engine);
      return { result: engine.info };
    } catch (error) {
      loadAsked = false;
      throw error;
    }
  }
  const { target, member, args } = request;
  const object = objects.get(target) as Record<string, unknown> | undefined;
  if (!object) {
    throw new Error(target === 0 ? 'attnlab: the worker has not loaded the engine' : 'attnlab: this object was disposed');
  }
  if (!isPublicMember(object, member)) {
    throw new Error(`attnlab: ${target === 0 ? "the engine" : "this object"} has no member "${member}"`);
  }
  const value = object[member];
  const result = typeof value === 'function' ? await (value as (...a: unknown[]) => unknown).apply(object, args.map(withCallbacks)) : value;
  if (member === 'dispose') objects.delete(target);
  if (ownsEngineMemory(result)) {
    const id = nextObject++;
    objects.set(id, result);
    return { remote: id };
  }
  return { result };
}

scope.onmessage = async (event: MessageEvent<Request>) => {
  const { id } = event.data;
  try {
    const response = { id, ...(await handle(event.data)) } as Response;
    scope.postMessage(response, 'result' in response ? [...transferables(response.result)] : []);
  } catch (error) {
    scope.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
};
