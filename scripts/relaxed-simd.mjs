// node scripts/relaxed-simd.mjs FILE.wasm: rewrites the relaxed fused multiply-adds that clang 14
// (Emscripten 3.1.6) writes with the relaxed-SIMD proposal's early opcodes — f32x4 0xfd 0xaf,
// f64x2 0xfd 0xcf, which browsers no longer accept — to the standard relaxed_madd opcodes
// (0xfd 0x105, 0xfd 0x107), in place: both are two-byte LEB128 codes, so nothing moves. The code
// section is decoded instruction by instruction to find them (the same bytes may sit inside an
// immediate), and the count is checked against binaryen's disassembly.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

/** early SIMD sub-opcode → [standard sub-opcode, binaryen's name for the instruction] */
const REWRITES = new Map([[0xaf, [0x105, 'f32x4.relaxed_fma']], [0xcf, [0x107, 'f64x2.relaxed_fma']]]);

/** Reads a module's instructions; `rewrites` collects [offset of the sub-opcode, early sub-opcode]. */
class Reader {
  constructor(bytes) {
    this.bytes = bytes;
    this.at = 0;
  }
  byte() {
    if (this.at >= this.bytes.length) throw new Error('unexpected end of the module');
    return this.bytes[this.at++];
  }
  /** an unsigned or signed LEB128 number (value unused beyond 2⁵³: only lengths are read as numbers) */
  leb() {
    let value = 0;
    let scale = 1;
    for (;;) {
      const b = this.byte();
      value += (b & 0x7f) * scale;
      scale *= 128;
      if (!(b & 0x80)) return value;
    }
  }
  skip(count) {
    this.at += count;
  }
  memarg() {
    this.leb();
    this.leb();
  }
  blockType() {
    const b = this.bytes[this.at];
    if (b === 0x40 || (b >= 0x6f && b <= 0x7f)) this.skip(1);
    else this.leb();  // a type index (s33)
  }

  /** one function body: its locals, then instructions to its end */
  body(end, rewrites) {
    for (let groups = this.leb(); groups > 0; groups--) {
      this.leb();
      this.skip(1);
    }
    while (this.at < end) this.instruction(rewrites);
    if (this.at !== end) throw new Error(`a function body ends at ${this.at}, not at ${end}`);
  }

  instruction(rewrites) {
    const op = this.byte();
    if ([0x02, 0x03, 0x04, 0x06].includes(op)) return this.blockType();  // block loop if try
    if ([0x0c, 0x0d, 0x10, 0x12, 0x07, 0x08, 0x09, 0x18, 0xd2, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26].includes(op)) return this.leb();
    if (op === 0x0e) {  // br_table
      for (let n = this.leb(); n >= 0; n--) this.leb();
      return undefined;
    }
    if (op === 0x11 || op === 0x13) return this.leb(), this.leb();  // call_indirect, return_call_indirect
    if (op === 0x1c) {  // select with types
      for (let n = this.leb(); n > 0; n--) this.skip(1);
      return undefined;
    }
    if (op === 0xd0) return this.skip(1);  // ref.null
    if (op >= 0x28 && op <= 0x3e) return this.memarg();
    if (op === 0x3f || op === 0x40) return this.skip(1);  // memory.size, memory.grow
    if (op === 0x41 || op === 0x42) return this.leb();
    if (op === 0x43) return this.skip(4);
    if (op === 0x44) return this.skip(8);
    if (op === 0xfc) return this.misc(this.leb());
    if (op === 0xfd) return this.simd(rewrites);
    if (op === 0xfe) return this.atomic(this.leb());
    return undefined;  // no immediates (catch_all 0x19 among them)
  }

  misc(sub) {
    if (sub <= 7) return;
    if (sub === 8) return this.leb(), this.skip(1);  // memory.init
    if (sub === 10) return this.skip(2);  // memory.copy
    if (sub === 11) return this.skip(1);  // memory.fill
    if (sub === 12 || sub === 14) return this.leb(), this.leb();
    if ([9, 13, 15, 16, 17].includes(sub)) return this.leb();
    throw new Error(`unknown 0xfc instruction ${sub} at ${this.at}`);
  }

  simd(rewrites) {
    const at = this.at;
    const sub = this.leb();
    if (REWRITES.has(sub)) {
      if (this.at - at !== 2) throw new Error(`a relaxed multiply-add encoded in ${this.at - at} bytes at ${at}`);
      rewrites.push([at, sub]);
    }
    if (sub <= 11 || sub === 92 || sub === 93) return this.memarg();  // loads, stores, load*_zero
    if (sub === 12 || sub === 13) return this.skip(16);  // v128.const, i8x16.shuffle
    if (sub >= 21 && sub <= 34) return this.skip(1);  // extract and replace lane
    if (sub >= 84 && sub <= 91) return this.memarg(), this.skip(1);  // load and store lane
    return undefined;
  }

  atomic(sub) {
    if (sub === 3) return this.skip(1);  // atomic.fence
    return this.memarg();
  }
}

/** every early relaxed multiply-add of the module: [offset of its sub-opcode, sub-opcode] */
function findRewrites(bytes) {
  const reader = new Reader(bytes);
  reader.skip(8);  // magic and version
  const rewrites = [];
  while (reader.at < bytes.length) {
    const id = reader.byte();
    const size = reader.leb();
    const end = reader.at + size;
    if (id === 10) {  // code
      for (let functions = reader.leb(); functions > 0; functions--) {
        const length = reader.leb();
        reader.body(reader.at + length, rewrites);
      }
    }
    reader.at = end;
  }
  return rewrites;
}

const [file] = process.argv.slice(2);
if (!file) throw new Error('usage: node scripts/relaxed-simd.mjs FILE.wasm');
const bytes = new Uint8Array(readFileSync(file));
const rewrites = findRewrites(bytes);
const text = execFileSync('wasm-dis', ['--all-features', file], { encoding: 'utf8', maxBuffer: 1 << 30 });
for (const [early, [, name]] of REWRITES) {
  const decoded = rewrites.filter(([, sub]) => sub === early).length;
  const disassembled = text.split(`(${name}`).length - 1;
  if (decoded !== disassembled) throw new Error(`${file}: ${decoded} ${name} decoded, ${disassembled} disassembled`);
}
if (rewrites.length === 0) throw new Error(`${file}: no relaxed multiply-add to rewrite (was it built with -mrelaxed-simd?)`);
for (const [at, early] of rewrites) {
  const standard = REWRITES.get(early)[0];
  bytes.set([(standard & 0x7f) | 0x80, standard >> 7], at);
}
writeFileSync(file, bytes);
console.log(`${file}: ${rewrites.length} relaxed multiply-adds given their standard opcodes`);
