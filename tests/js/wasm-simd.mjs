// Fails when a WebAssembly build is silently scalar: disassembles the module and requires
// 128-bit SIMD instructions inside the hot kernels (the softmax exponential, whose clamps are the
// one-instruction pmin/pmax, the engine's matrix product, whose register blocks broadcast A's
// entries with load32_splat, Eigen's GEMM, which the backward passes use, and the finiteness check
// every call makes).
// usage: node wasm-simd.mjs <wasm-dis> <module.wasm>
import { execFileSync } from 'node:child_process';

const [disassembler, wasmPath] = process.argv.slice(2);
const text = execFileSync(disassembler, [wasmPath], { maxBuffer: 1 << 30 }).toString();

// function name → body text, from the disassembly's "(func $name" blocks
const bodies = new Map();
const starts = [...text.matchAll(/^ \(func \$(\S+)/gm)];
starts.forEach((match, i) => {
  const end = i + 1 < starts.length ? starts[i + 1].index : text.length;
  bodies.set(match[1], text.slice(match.index, end));
});

const requirements = [
  { kernel: 'exp_inplace', instructions: ['f32x4.mul', 'f32x4.add', 'f32x4.pmin', 'f32x4.pmax', 'i32x4.shl'] },
  { kernel: 'packed_columns', instructions: ['f32x4.mul', 'f32x4.add', 'v128.load32_splat'] },
  { kernel: 'gebp_kernel', instructions: ['f32x4.mul', 'f32x4.add'] },
  { kernel: 'all_finite', instructions: ['i32x4.max_u'] },
];

let failures = 0;
for (const { kernel, instructions } of requirements) {
  const matching = [...bodies.entries()].filter(([name]) => name.includes(kernel));
  if (matching.length === 0) {
    console.error(`FAIL ${kernel}: no such function in ${wasmPath} (was it built with --profiling-funcs?)`);
    failures++;
    continue;
  }
  const body = matching.map(([, b]) => b).join('\n');
  const missing = instructions.filter((op) => !body.includes(op));
  if (missing.length) {
    console.error(`FAIL ${kernel}: scalar code, missing ${missing.join(', ')}`);
    failures++;
  } else {
    console.log(`ok   ${kernel}: ${instructions.join(', ')} present in ${matching.length} function(s)`);
  }
}
const simdCount = (text.match(/\b[fi](32|64)x[24]\.\w+|\bv128\.\w+/g) || []).length;
console.log(`module holds ${simdCount} SIMD instructions`);
if (simdCount < 500) {
  console.error('FAIL: fewer than 500 SIMD instructions in the whole module');
  failures++;
}
process.exit(failures ? 1 : 0);
