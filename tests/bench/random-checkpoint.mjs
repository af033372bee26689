// Hugging Face checkpoints (GPT-2, Llama) and a byte-level BPE tokenizer made on the spot, for the
// tests (tests/js, tests/e2e) and the benchmark (tests/bench, in Node and in a browser Worker): no
// Node modules here.
/** A Hugging Face GPT-2 checkpoint of the given shape with seeded random F32 weights (LayerNorm
 * gains 1), made in
 * memory (the benchmark writes one to a temporary file for a page's file picker): {config: config.json's text, weights: model.safetensors' bytes, parameters}.
 * Tensors are in GPT-2's Conv1D layout under the names of the hub's files; with `masks`, each layer
 * also stores its causal mask (h.{i}.attn.bias, 1 × 1 × n_positions × n_positions, ones on and
 * below the diagonal) as the hub's model.safetensors does, which makes GPT-2 small's file 548 MB.
 * With `bf16`, every tensor is BF16 instead (the same generator, rounded; no masks). */
export function randomGpt2Checkpoint({ vocab_size = 50257, n_positions = 1024, n_embd = 768, n_head = 12, n_layer = 12 } = {}, seed = 1,
  { masks = false, bf16 = false } = {}) {
  const d = n_embd, shapes = { 'wte.weight': [vocab_size, d], 'wpe.weight': [n_positions, d], 'ln_f.weight': [d], 'ln_f.bias': [d] };
  for (let i = 0; i < n_layer; i++) {
    Object.assign(shapes, {
      [`h.${i}.ln_1.weight`]: [d], [`h.${i}.ln_1.bias`]: [d], [`h.${i}.attn.c_attn.weight`]: [d, 3 * d], [`h.${i}.attn.c_attn.bias`]: [3 * d],
      [`h.${i}.attn.c_proj.weight`]: [d, d], [`h.${i}.attn.c_proj.bias`]: [d], [`h.${i}.ln_2.weight`]: [d], [`h.${i}.ln_2.bias`]: [d],
      [`h.${i}.mlp.c_fc.weight`]: [d, 4 * d], [`h.${i}.mlp.c_fc.bias`]: [4 * d], [`h.${i}.mlp.c_proj.weight`]: [4 * d, d], [`h.${i}.mlp.c_proj.bias`]: [d],
    });
  }
  const config = JSON.stringify({ model_type: 'gpt2', vocab_size, n_positions, n_embd, n_head, n_layer });
  const parameters = Object.values(shapes).reduce((sum, shape) => sum + shape.reduce((a, b) => a * b, 1), 0);
  if (bf16) {
    const random = xorshift(seed);
    // LayerNorm's gains start at 1 as GPT-2's do: small gains would shrink every activation to nothing
    const { bytes: weights } = safetensorsBf16(Object.entries(shapes), (name) => (/ln_(1|2|f)\.weight$/.test(name) ? 1 : 0.04 * random()));
    return { config, weights, parameters };
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
  // LayerNorm's gains start at 1 as GPT-2's do: small gains would shrink every activation to nothing
  for (const name of Object.keys(shapes).filter((n) => /ln_(1|2|f)\.weight$/.test(n))) tensors[name].fill(1);
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
  const { bytes, data, count } = safetensorsFile(tensors, 'F32', 4);
  return { bytes, values: new Float32Array(bytes.buffer, data, count), tensors: safetensorsTensors(bytes) };
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

/** A safetensors file's bytes for tensors of one dtype (bytes per value `size`), the values zero:
 * {bytes, data: where the values begin, count: how many there are}. */
function safetensorsFile(tensors, dtype, size) {
  const header = {};
  let offset = 0;
  for (const [name, shape] of tensors) {
    const bytes = shape.reduce((a, b) => a * b, 1) * size;
    header[name] = { dtype, shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const bytes = new Uint8Array(8 + json.length + offset);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(json.length), true);
  bytes.set(new TextEncoder().encode(json), 8);
  return { bytes, data: 8 + json.length, count: offset / size };
}

/** A Hugging Face Llama checkpoint of the given shape with seeded random weights in BF16 (the hub's
 * usual dtype), untied head: {config, weights, parameters}. nn.Linear layout (out, in). */
export function randomLlamaCheckpoint({ vocab_size = 320, hidden_size = 32, intermediate_size = 64, num_attention_heads = 4,
  num_key_value_heads = 2, num_hidden_layers = 2, max_position_embeddings = 128 } = {}, seed = 1) {
  const d = hidden_size, kv = (d / num_attention_heads) * num_key_value_heads, f = intermediate_size;
  const shapes = { 'model.embed_tokens.weight': [vocab_size, d], 'model.norm.weight': [d], 'lm_head.weight': [vocab_size, d] };
  for (let i = 0; i < num_hidden_layers; i++) {
    const p = `model.layers.${i}`;
    Object.assign(shapes, {
      [`${p}.input_layernorm.weight`]: [d], [`${p}.post_attention_layernorm.weight`]: [d],
      [`${p}.self_attn.q_proj.weight`]: [d, d], [`${p}.self_attn.k_proj.weight`]: [kv, d], [`${p}.self_attn.v_proj.weight`]: [kv, d],
      [`${p}.self_attn.o_proj.weight`]: [d, d], [`${p}.mlp.gate_proj.weight`]: [f, d], [`${p}.mlp.up_proj.weight`]: [f, d],
      [`${p}.mlp.down_proj.weight`]: [d, f],
    });
  }
  const random = xorshift(seed);
  // norms' scales near 1, every other weight small: a model whose attention is not uniform
  const { bytes: weights, count } = safetensorsBf16(Object.entries(shapes), (name) => (name.endsWith('norm.weight') ? 1 + 0.1 * random() : 0.5 * random()));
  const config = JSON.stringify({
    model_type: 'llama', architectures: ['LlamaForCausalLM'], vocab_size, hidden_size, intermediate_size, num_attention_heads,
    num_key_value_heads, num_hidden_layers, max_position_embeddings, rms_norm_eps: 1e-5, rope_theta: 10000, hidden_act: 'silu',
    tie_word_embeddings: false, torch_dtype: 'bfloat16',
  });
  return { config, weights, parameters: count };
}

/** uniform numbers in [−0.5, 0.5) from a seeded xorshift generator */
function xorshift(seed) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13; state ^= state >>> 17; state ^= state << 5;
    return (state >>> 0) / 4294967296 - 0.5;
  };
}

/** A safetensors file of BF16 tensors ([name, shape] in order), each value value(name) rounded to
 * the nearest bfloat16: {bytes, count} */
function safetensorsBf16(tensors, value) {
  const { bytes, data, count } = safetensorsFile(tensors, 'BF16', 2);
  const halves = new Uint16Array(bytes.buffer, data, count);
  const word = new Uint32Array(1), float = new Float32Array(word.buffer);
  let at = 0;
  for (const [name, shape] of tensors) {
    for (let n = shape.reduce((a, b) => a * b, 1); n > 0; n--) {
      float[0] = value(name);
      // round to nearest even on the 16 bits dropped
      halves[at++] = (word[0] + 0x7fff + ((word[0] >>> 16) & 1)) >>> 16;
    }
  }
  return { bytes, count: at };
}

/** A byte-level BPE tokenizer.json (GPT-2's byte alphabet and pre-tokenizer): the 256 bytes, a
 * merge for each of `words`' pairs in order (so each word becomes one piece, "Ġthe" with its space),
 * then "<|endoftext|>" as a special token. {json, size}: size is the number of tokens. */
export function byteLevelTokenizer(words = ['the', ' the', ' cat', ' sat', ' on', ' mat', ' and', ' a', 'The', ' it']) {
  const alphabet = byteAlphabet();
  const vocab = {};
  for (let b = 0; b < 256; b++) vocab[alphabet[b]] = b;
  const merges = [];
  for (const word of words) {
    let pieces = [...new TextEncoder().encode(word)].map((b) => alphabet[b]);
    while (pieces.length > 1) {
      const merged = pieces[0] + pieces[1];
      if (!(merged in vocab)) {
        merges.push(`${pieces[0]} ${pieces[1]}`);
        vocab[merged] = Object.keys(vocab).length;
      }
      pieces = [merged, ...pieces.slice(2)];
    }
  }
  const size = Object.keys(vocab).length + 1;
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
  const json = JSON.stringify({
    version: '1.0', truncation: null, padding: null,
    added_tokens: [{ id: size - 1, content: '<|endoftext|>', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }],
    normalizer: null, pre_tokenizer: byteLevel, post_processor: null, decoder: byteLevel,
    model: { type: 'BPE', dropout: null, unk_token: null, fuse_unk: false, byte_fallback: false, vocab, merges },
  });
  return { json, size };
}

/** GPT-2's printable stand-ins for the 256 bytes: printable Latin-1 bytes stand for themselves, the rest from U+0100 on */
function byteAlphabet() {
  const printable = (b) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  let next = 0x100;
  return Array.from({ length: 256 }, (_, b) => String.fromCodePoint(printable(b) ? b : next++));
}
