// A Hugging Face GPT-2 checkpoint made on the spot, for the tests (tests/js) and the benchmark
// (tests/bench, in Node and in a browser Worker): no Node modules here.
/** A Hugging Face GPT-2 checkpoint of the given shape with seeded random F32 weights (never
 * written to disk): {config: config.json's text, weights: model.safetensors' bytes, parameters}.
 * Tensors are in GPT-2's Conv1D layout under the names of the hub's files. */
export function randomGpt2Checkpoint({ vocab_size = 50257, n_positions = 1024, n_embd = 768, n_head = 12, n_layer = 12 } = {}, seed = 1) {
  const d = n_embd, shapes = { 'wte.weight': [vocab_size, d], 'wpe.weight': [n_positions, d], 'ln_f.weight': [d], 'ln_f.bias': [d] };
  for (let i = 0; i < n_layer; i++) {
    Object.assign(shapes, {
      [`h.${i}.ln_1.weight`]: [d], [`h.${i}.ln_1.bias`]: [d], [`h.${i}.attn.c_attn.weight`]: [d, 3 * d], [`h.${i}.attn.c_attn.bias`]: [3 * d],
      [`h.${i}.attn.c_proj.weight`]: [d, d], [`h.${i}.attn.c_proj.bias`]: [d], [`h.${i}.ln_2.weight`]: [d], [`h.${i}.ln_2.bias`]: [d],
      [`h.${i}.mlp.c_fc.weight`]: [d, 4 * d], [`h.${i}.mlp.c_fc.bias`]: [4 * d], [`h.${i}.mlp.c_proj.weight`]: [4 * d, d], [`h.${i}.mlp.c_proj.bias`]: [d],
    });
  }
  const { bytes: weights, values } = safetensorsF32(Object.entries(shapes));
  // small uniform values from a xorshift generator: finite, and quick to make by the hundred million
  let state = seed >>> 0 || 1;
  for (let i = 0; i < values.length; i++) {
    state ^= state << 13; state ^= state >>> 17; state ^= state << 5;
    values[i] = ((state >>> 0) / 4294967296 - 0.5) * 0.04;
  }
  const config = JSON.stringify({ model_type: 'gpt2', vocab_size, n_positions, n_embd, n_head, n_layer });
  return { config, weights, parameters: values.length };
}

/** A safetensors file of F32 tensors, [name, shape] in the order given, its values zero:
 * {bytes, values}, values a view of every tensor's numbers one after another, to fill in. */
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
  return { bytes, values: new Float32Array(bytes.buffer, 8 + json.length, offset / 4) };
}
