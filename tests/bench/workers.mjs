// What the benchmark's Workers share: calls by name between a page and its Workers (the page's side,
// startWorker; the Worker's, answerCalls), and the memory bandwidth a Worker measures.

/** A Worker at `url` whose handlers answerCalls() serves: call(type, args) resolves with the
 * handler's result, or rejects with its error. */
export function startWorker(url, options) {
  const worker = new Worker(url, options);
  const pending = new Map();
  let next = 0;
  worker.onmessage = ({ data: { id, result, error } }) => {
    const waiting = pending.get(id);
    pending.delete(id);
    if (error) waiting.reject(new Error(error));
    else waiting.resolve(result);
  };
  worker.onerror = (event) => {
    for (const waiting of pending.values()) waiting.reject(new Error(`${url}: ${event.message}`));
    pending.clear();
  };
  return {
    call: (type, args = {}) => new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, type, ...args });
    }),
    terminate: () => worker.terminate(),
  };
}

/** Inside a Worker: each message { id, type, …args } runs handlers[type](args); its result (or its
 * error, prefixed with `runtime`) goes back to startWorker's call. */
export function answerCalls(handlers, runtime) {
  self.onmessage = async ({ data: { id, type, ...args } }) => {
    try {
      self.postMessage({ id, result: await handlers[type](args) });
    } catch (error) {
      self.postMessage({ id, error: `${runtime} ${type}: ${error?.message ?? error}` });
    }
  };
}

/** Memory bandwidth as one thread copies: a TypedArray .set() of `bytes` (far beyond any cache)
 * into another array, both touched first; bytes read + bytes written per second by the fastest of
 * `repeats` copies (other work on the machine only ever slows a copy down). */
export function copyBandwidth({ bytes = 256 << 20, repeats = 9 } = {}) {
  const from = new Uint8Array(bytes).fill(1);
  const to = new Uint8Array(bytes).fill(2);
  let fastest = Infinity;
  for (let i = 0; i < repeats; i++) {
    const start = performance.now();
    to.set(from);
    fastest = Math.min(fastest, performance.now() - start);
  }
  return (2 * bytes) / (fastest / 1000);
}
