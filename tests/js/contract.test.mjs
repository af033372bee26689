// The API is declared once: the hand-written contract (web/src/engine/attnlab.d.mts) names exactly
// what the compiled module exports through Embind, on both builds; the package's classes have
// exactly the members their declarations (build/package/index.d.ts, generated) name, Engine
// reaches every export of the module, and the Worker answers every member.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import ts from 'typescript';
import { Engine, loadAttnlab } from '../../build/package/index.js';
import { createEngineWorker } from '../../build/package/worker-client.js';
import { randomGpt2Checkpoint } from '../bench/random-checkpoint.mjs';
import { vocabJson } from './helpers.mjs';

const require = createRequire(import.meta.url);
const path = (relative) => fileURLToPath(new URL(relative, import.meta.url));
const CONTRACT = path('../../web/src/engine/attnlab.d.mts');
const PACKAGE = path('../../build/package/index.d.ts');

const program = ts.createProgram([CONTRACT, PACKAGE], {
  noEmit: true, strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
});
const checker = program.getTypeChecker();

// the public members of the type a file exports as `name`, as TypeScript sees them (a class with
// the interfaces merged into it, getters included)
function declaredMembers(file, name) {
  const exports = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file)));
  const symbol = exports.find((s) => s.name === name);
  assert.ok(symbol, `${file} exports ${name}`);
  const hidden = ts.ModifierFlags.Private | ts.ModifierFlags.Protected;
  return checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol))
    .filter((member) => !(ts.getDeclarationModifierFlagsFromSymbol(member) & hidden))
    .map((member) => member.name).sort();
}

// what an object answers to as the worker looks members up: its classes' methods and getters
function members(object) {
  const names = new Set();
  for (let p = Object.getPrototypeOf(object); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const name of Object.getOwnPropertyNames(p)) if (name !== 'constructor') names.add(name);
  }
  return [...names].sort();
}

// Emscripten's own runtime exports, which are not part of the contract
const RUNTIME = new Set(['inspect', 'BindingError', 'InternalError', 'UnboundTypeError', 'getInheritedInstanceCount',
  'getLiveInheritedInstances', 'flushPendingDeletes', 'setDelayFunction', 'count_emval_handles', 'get_first_emval',
  'stackSave', 'stackRestore', 'run', 'PThread', 'ExitStatus', 'establishStackSpace', 'invokeEntryPoint',
  'keepRuntimeAlive', 'stackAlloc']);

// exports of the module that no Engine member uses when called without arguments: the classes,
// whose instances the factories return wrapped, unrefThreads, which setThreads calls for the Node
// builds, and safetensorsHeaderSize, which loadModel calls once it has files to read
const INTERNAL = ['AttentionSteps', 'CheckpointLoader', 'Model', 'Trainer', 'safetensorsHeaderSize', 'unrefThreads'];

const SMALL_MODEL = { vocab_size: 12, n_ctx: 16, d_model: 16, n_heads: 4, d_ff: 32, n_layers: 2 };
const DECK = {
  x: [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0], n: 3, d: 4,
  wQ: [1, 0, 0, 1, 1, 0, 0, 1], wK: [0, 1, 1, 0, 0, 1, 1, 0], wV: [1, 1, 0, 0, 1, 0, 0, 1], dK: 2, dV: 2,
};

for (const name of ['attnlab', 'attnlab-threads']) {
  it(`${name}: the Embind exports are the contract's`, async () => {
    const folder = new URL('../../build/package/engine/node/', import.meta.url);
    const factory = require(new URL(`${name}.js`, folder).pathname);
    const module = await factory({ wasmBinary: readFileSync(new URL(`${name}.wasm`, folder)) });
    module.unrefThreads?.();
    const exported = Object.keys(module)
      .filter((k) => typeof module[k] === 'function' && /^[A-Za-z]/.test(k) && !RUNTIME.has(k) && !k.startsWith('dynCall'))
      .sort();
    assert.deepEqual(exported, declaredMembers(CONTRACT, 'AttnlabModule'));
  });
}

describe('the package', () => {
  let engine;
  before(async () => {
    engine = await loadAttnlab({ threads: 1 });
  });

  it('has the members its declarations name: Engine, Model, Trainer, AttentionStepper', () => {
    const model = engine.createModel({ config: SMALL_MODEL });
    const trainer = engine.createTrainer({ task: 'copy' });
    const stepper = engine.attentionSteps(DECK);
    for (const [name, object] of Object.entries({ Engine: engine, Model: model, Trainer: trainer, AttentionStepper: stepper })) {
      assert.deepEqual(members(object), declaredMembers(PACKAGE, name), name);
    }
    for (const object of [model, trainer, stepper]) object.dispose();
  });

  it('reaches every export of the module through Engine, but the internal ones', () => {
    const used = new Set();
    const probe = new Engine(new Proxy(engine.raw, {
      get(raw, key) {
        used.add(key);
        return Reflect.get(raw, key);
      },
    }));
    for (const member of declaredMembers(PACKAGE, 'Engine')) {
      try {
        const value = probe[member];
        if (typeof value === 'function') value.call(probe);
      } catch {
        // without arguments most calls throw, once they have reached the module
      }
    }
    const unused = declaredMembers(CONTRACT, 'AttnlabModule').filter((name) => !used.has(name));
    assert.deepEqual(unused, INTERNAL);
  });
});

// the package's worker.js in a Node worker thread, behind the part of the Worker API that the client uses
function nodeWorker() {
  const thread = new Worker(`
    const { parentPort, workerData } = require('node:worker_threads');
    globalThis.self = {
      postMessage: (message, transfer) => parentPort.postMessage(message, transfer),
      set onmessage(handler) { parentPort.on('message', (data) => handler({ data })); },
    };
    import(workerData);
  `, { eval: true, workerData: new URL('../../build/package/worker.js', import.meta.url).href });
  return {
    postMessage: (message) => thread.postMessage(message),
    terminate: () => void thread.terminate(),
    set onmessage(handler) { thread.on('message', (data) => handler({ data })); },
    set onerror(handler) { thread.on('error', (error) => handler({ message: error.message })); },
  };
}

// the names the worker does not answer to: each is called without arguments (an error that the
// call needs them is an answer), dispose last
async function unanswered(remote, names) {
  const refused = [];
  for (const name of [...names].sort((a, b) => (a === 'dispose') - (b === 'dispose'))) {
    try {
      await remote[name]();
    } catch (error) {
      if (/has no member/.test(error.message)) refused.push(name);
    }
  }
  return refused;
}

describe('the package in a Worker', () => {
  let engine;
  before(async () => {
    engine = await createEngineWorker({ worker: nodeWorker(), threads: 1 });
  });
  after(() => engine.terminate());

  it('answers every member of Engine, Model, Trainer and AttentionStepper, and no private one', async () => {
    const objects = {
      Engine: engine,
      Model: await engine.createModel({ config: SMALL_MODEL }),
      Trainer: await engine.createTrainer({ task: 'copy' }),
      AttentionStepper: await engine.attentionSteps(DECK),
    };
    for (const [name, remote] of Object.entries(objects)) {
      assert.deepEqual(await unanswered(remote, declaredMembers(PACKAGE, name)), [], name);
    }
    assert.deepEqual(await unanswered(engine, ['raw', 'threadsUsed', 'constructor', 'toString']), ['raw', 'threadsUsed', 'constructor', 'toString']);
  });

  it('calls back a function passed in a call\'s options (loadModel\'s onProgress) from the worker, until the call ends', async () => {
    const { config, weights } = randomGpt2Checkpoint({ vocab_size: 64, n_positions: 16, n_embd: 16, n_head: 2, n_layer: 2 });
    const heard = [];
    const model = await engine.loadModel({ weights: new Blob([weights]), config, vocab: vocabJson(Array.from({ length: 58 }, (_, i) => `w${i}`)), onProgress: (...args) => heard.push(args) });
    assert.equal((await model.config()).n_layers, 2);
    assert.ok(heard.length >= 2, `${heard.length} progress calls`);
    const [read, total, tensor] = heard[heard.length - 1];
    assert.equal(read, total);
    assert.equal(typeof tensor, 'string');
    assert.ok(heard.every(([r], i) => i === 0 || r >= heard[i - 1][0]), 'bytes read grow');
    // a function deeper in the arguments cannot travel: refused with the call's name
    await assert.rejects(engine.attention({ x: { f: () => 1 } }), /attnlab: attention: /);
  });
});
