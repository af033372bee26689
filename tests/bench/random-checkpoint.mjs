// A Hugging Face GPT-2 checkpoint made on the spot, for the tests (tests/js) and the benchmark
// (tests/bench, in Node and in a browser Worker): no Node modules here.
/** A Hugging Face GPT-2 checkpoint of the given shape with seeded random F32 weights, made in
 * memory (the benchmark writes one to a temporary file for a page's file picker): {config: config.json's text, weights: model.safetensors' bytes, parameters}.
 * Tensors are in GPT-2's Conv1D layout under the names of the hub's files; with `masks`, each layer
 * also stores its causal mask (h.{i}.attn.bias, 1 × 1 × n_positions × n_positions, ones on and
 * below the diagonal) as the hub's model.safetensors does, which makes GPT-2 small's file 548 MB. */
export function randomGpt2Checkpoint({ vocab_size = 50257, n_positions = 1024, n_embd = 768, n_head = 12, n_layer = 12 } = {}, seed = 1,
  { masks = false } = {}) {
  const d = n_embd, shapes = { 'wte.weight': [vocab_size, d], 'wpe.weight': [n_positions, d], 'ln_f.weight': [d], 'ln_f.bias': [d] };
  for (let i = 0; i < n_layer; i++) {
    Object.assign(shapes, {
      [`h.${i}.ln_1.weight`]: [d], [`h.${i}.ln_1.bias`]: [d], [`h.${i}.attn.c_attn.weight`]: [d, 3 * d], [`h.${i}.attn.c_attn.bias`]: [3 * d],
      [`h.${i}.attn.c_proj.weight`]: [d, d], [`h.${i}.attn.c_proj.bias`]: [d], [`h.${i}.ln_2.weight`]: [d], [`h.${i}.ln_2.bias`]: [d],
      [`h.${i}.mlp.c_fc.weight`]: [d, 4 * d], [`h.${i}.mlp.c_fc.bias`]: [4 * d], [`h.${i}.mlp.c_proj.weight`]: [4 * d, d], [`h.${i}.mlp.c_proj.bias`]: [d],
    });
  }
  const maskNames = masks ? Array.from({ length: n_layer }, (_, i) => `h.${i}.attn.bias`) : [];
  const { bytes: weights, values, tensors } = safetensorsF32([...Object.entries(shapes), ...maskNames.map((name) => [name, [1, 1, n_positions, n_positions]])]);
  // small uniform values from a xorshift generator: finite, and quick to make by the hundred million
  let state = seed >>> 0 || 1;
  for (let i = 0; i < values.length; i++) {
    state ^= state << 13; state ^= state >>> 17; state ^= state << 5;
    values[i] = ((state >>> 0) / 4294967296 - 0.5) * 0.04;
  }
  for (const name of maskNames) causalMask(tensors[name], n_positions);
  const config = JSON.stringify({ model_type: 'gpt2', vocab_size, n_positions, n_embd, n_head, n_layer });
  const parameters = Object.values(shapes).reduce((sum, shape) => sum + shape.reduce((a, b) => a * b, 1), 0);
  return { config, weights, parameters };
}

/** an (n × n) matrix, row-major, set to ones on and below the diagonal and zeros above */
function causalMask(matrix, n) {
  for (let row = 0; row < n; row++) matrix.fill(1, row * n, row * n + row + 1).fill(0, row * n + row + 1, (row + 1) * n);
}

/** A safetensors file of F32 tensors, [name, shape] in the order given, its values zero:
 * {bytes, values, tensors}, values a view of every tensor's numbers one after another, to fill in,
 * and tensors each tensor's view by name. */
export function safetensorsF32(tensors) {
  const header = {};
  let offset = 0;
  for (const [name, shape] of tensors) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 4;
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const bytes = new Uint8Array(8 + json.length + offset);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(json.length), true);
  bytes.set(new TextEncoder().encode(json), 8);
  return { bytes, values: new Float32Array(bytes.buffer, 8 + json.length, offset / 4), tensors: safetensorsTensors(bytes) };
}

/** A safetensors file's F32 tensors as views of its bytes, by name (every tensor here is F32 and,
 * as the header's length is a multiple of 8, aligned) */
export function safetensorsTensors(bytes) {
  const headerSize = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerSize)));
  delete header.__metadata__;
  const start = bytes.byteOffset + 8 + headerSize;
  return Object.fromEntries(Object.entries(header).map(([name, { data_offsets: [begin, end] }]) =>
    [name, new Float32Array(bytes.buffer, start + begin, (end - begin) / 4)]));
}
