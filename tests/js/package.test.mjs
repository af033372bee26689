// `npm pack` gives a tarball that a separate project installs and uses.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

it('installs from its tarball into a scratch project and runs there', { timeout: 180000 }, () => {
  const scratch = mkdtempSync(join(tmpdir(), 'attnlab-scratch-'));
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: root, encoding: 'utf8' }));
  const files = packed[0].files.map((f) => f.path);
  const entries = Object.values(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).exports)
    .flatMap((entry) => Object.values(entry).map((file) => file.replace(/^\.\//, '')));
  for (const f of [...entries, 'build/package/attnlab.d.mts', 'build/package/gpt2-tokenizer.json', 'build/package/engine/web/attnlab.wasm',
    'build/package/engine/node/attnlab-threads.worker.js', 'build/package/widgets/models/sort/model.safetensors', 'build/package/widgets/index.html']) {
    assert.ok(files.includes(f), `the tarball holds ${f}`);
  }
  assert.ok(!files.some((f) => f.startsWith('src/') || f.startsWith('tests/')), 'sources and tests stay out');
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', join(scratch, packed[0].filename)], { cwd: scratch, stdio: 'pipe' });
  writeFileSync(join(scratch, 'use.mjs'), `
    import { loadAttnlab } from 'attnlab';
    const engine = await loadAttnlab();
    const r = engine.attention({ x: [1,0,1,0, 0,1,0,1, 1,1,0,0], n: 3, d: 4,
      wQ: [1,0,0,1,1,0,0,1], wK: [0,1,1,0,0,1,1,0], wV: [1,1,0,0,1,0,0,1], dK: 2, dV: 2, trace: ['weights'] });
    console.log(JSON.stringify({ build: engine.info.build, weight: r.heads[0].weights.data[1] }));
  `);
  const out = JSON.parse(execFileSync('node', ['use.mjs'], { cwd: scratch, encoding: 'utf8', timeout: 60000 }));
  assert.equal(out.build, 'simd-threads');
  assert.ok(Math.abs(out.weight - 0.7679176) < 1e-6);
  // and its types check in the scratch project
  writeFileSync(join(scratch, 'use.ts'), `
    import { loadAttnlab, type AttentionResult } from 'attnlab';
    import { createEngineWorker } from 'attnlab/worker';
    import { useModelsFrom } from 'attnlab/widgets';
    import AttnlabReveal, { type RevealPlugin } from 'attnlab/reveal';
    const engine = await loadAttnlab({ threads: 1 });
    const r: AttentionResult = engine.attention({ x: [1], n: 1, d: 1, wQ: [1], wK: [1], wV: [1], dK: 1, dV: 1 });
    const plugin: RevealPlugin = AttnlabReveal();
    export const used = [r.stage, createEngineWorker, useModelsFrom, plugin.id] as const;
  `);
  execFileSync(join(root, 'node_modules/.bin/tsc'), ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext',
    '--moduleResolution', 'nodenext', '--lib', 'es2022,dom', '--skipLibCheck', 'false', 'use.ts'], { cwd: scratch, stdio: 'pipe' });
});
