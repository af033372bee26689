// The hand-written contract (web/src/engine/attnlab.d.mts) names exactly what the compiled
// module exports through Embind, on both builds.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import ts from 'typescript';

const require = createRequire(import.meta.url);
const contract = new URL('../../web/src/engine/attnlab.d.mts', import.meta.url);

// members of `interface AttnlabModule` in the contract
function declaredMembers() {
  const source = ts.createSourceFile('attnlab.d.mts', readFileSync(contract, 'utf8'), ts.ScriptTarget.Latest);
  const iface = source.statements.find((s) => ts.isInterfaceDeclaration(s) && s.name.text === 'AttnlabModule');
  assert.ok(iface, 'the contract declares AttnlabModule');
  return iface.members.map((m) => m.name.getText(source)).sort();
}

// Emscripten's own runtime exports, which are not part of the contract
const RUNTIME = new Set(['inspect', 'BindingError', 'InternalError', 'UnboundTypeError', 'getInheritedInstanceCount',
  'getLiveInheritedInstances', 'flushPendingDeletes', 'setDelayFunction', 'count_emval_handles', 'get_first_emval',
  'stackSave', 'stackRestore', 'run', 'PThread', 'ExitStatus', 'establishStackSpace', 'invokeEntryPoint',
  'keepRuntimeAlive', 'stackAlloc']);

for (const name of ['attnlab', 'attnlab-threads']) {
  it(`${name}: the Embind exports are the contract's`, async () => {
    const folder = new URL('../../build/package/engine/node/', import.meta.url);
    const factory = require(new URL(`${name}.js`, folder).pathname);
    const module = await factory({ wasmBinary: readFileSync(new URL(`${name}.wasm`, folder)) });
    module.unrefThreads?.();
    const exported = Object.keys(module)
      .filter((k) => typeof module[k] === 'function' && /^[A-Za-z]/.test(k) && !RUNTIME.has(k) && !k.startsWith('dynCall'))
      .sort();
    assert.deepEqual(exported, declaredMembers());
  });
}
