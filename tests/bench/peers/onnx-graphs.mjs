// The ONNX models onnxruntime-web runs in the peers benchmark, written by hand: a protobuf writer of
// the few messages a model needs (field numbers from onnx.proto) and the graphs. No converter or
// Python toolchain is involved, so the graphs are exactly the operators listed here.
//   matmulGraph          y = x·W                               x (n × d), W (d × d)
//   singleHeadGraph      softmax(Q·Kᵀ/√d)·V                    Q, K, V (n × d)
//   multiHeadGraph       8-head self-attention as operators     x (n × d)
//   fusedMultiHeadGraph  the same through com.microsoft's Attention kernel, then ·W_O + b_O   x (1 × n × d)
//   gpt2Graph            a GPT-2 forward over new tokens with each layer's KV cache as inputs and
//                        outputs: a 128-token prefill on an empty cache, or one decoded token

const FLOAT = 1;
const INT64 = 7;
const ATTRIBUTE_INT = 2;
const ATTRIBUTE_INTS = 7;
const IR_VERSION = 8;
const OPSET = 17;
const WIRE_VARINT = 0;
const WIRE_BYTES = 2;

const utf8 = new TextEncoder();

// A message is a list of byte pieces, joined once when the model is done: a model's weights are
// copied once, not once per level of nesting.
const concat = (parts) => parts.flat();
const byteLength = (message) => message.reduce((sum, piece) => sum + piece.length, 0);

function joined(message) {
  const out = new Uint8Array(byteLength(message));
  let at = 0;
  for (const piece of message) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

// int64 fields are two's complement on the wire: -1 takes ten bytes
function varint(value) {
  let v = BigInt.asUintN(64, BigInt(value));
  const bytes = [];
  do {
    const low = Number(v & 0x7fn);
    v >>= 7n;
    bytes.push(v ? low | 0x80 : low);
  } while (v);
  return Uint8Array.from(bytes);
}

const tag = (field, wire) => varint((field << 3) | wire);
const intField = (field, value) => concat([tag(field, WIRE_VARINT), varint(value)]);
function bytesField(field, message) {
  const pieces = concat([message]);
  return concat([tag(field, WIRE_BYTES), varint(byteLength(pieces)), pieces]);
}
const stringField = (field, text) => bytesField(field, utf8.encode(text));
const rawBytes = (typed) => new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);

// TensorProto: dims 1, data_type 2, name 8, raw_data 9 (little-endian, as typed arrays are here)
function tensor(name, dims, values) {
  const type = values instanceof BigInt64Array ? INT64 : FLOAT;
  return concat([...dims.map((d) => intField(1, d)), intField(2, type), stringField(8, name), bytesField(9, rawBytes(values))]);
}
const floats = (name, dims, values) => tensor(name, dims, values instanceof Float32Array ? values : Float32Array.from(values));
const int64s = (name, values) => tensor(name, [values.length], BigInt64Array.from(values, BigInt));

// ValueInfoProto { name 1, type 2: TypeProto { tensor_type 1: { elem_type 1, shape 2: { dim 1: {
// dim_value 1 | dim_param 2 } } } } }: a dimension is a number, or a name for a size given at run time
function valueInfo(name, dims, type = FLOAT) {
  const shape = concat(dims.map((d) => bytesField(1, typeof d === 'string' ? stringField(2, d) : intField(1, d))));
  return concat([stringField(1, name), bytesField(2, bytesField(1, concat([intField(1, type), bytesField(2, shape)])))]);
}

// AttributeProto: name 1, type 20, i 3, ints 8
function attribute(name, value) {
  if (Array.isArray(value)) {
    return concat([stringField(1, name), intField(20, ATTRIBUTE_INTS), ...value.map((v) => intField(8, v))]);
  }
  return concat([stringField(1, name), intField(20, ATTRIBUTE_INT), intField(3, value)]);
}

// NodeProto: input 1, output 2, name 3, op_type 4, attribute 5, domain 7
function node(opType, inputs, outputs, attributes = {}, domain = '') {
  return concat([
    ...inputs.map((s) => stringField(1, s)),
    ...outputs.map((s) => stringField(2, s)),
    stringField(3, outputs[0]),
    stringField(4, opType),
    ...Object.entries(attributes).map(([name, value]) => bytesField(5, attribute(name, value))),
    ...(domain ? [stringField(7, domain)] : []),
  ]);
}

// ModelProto { ir_version 1, producer_name 2, graph 7: GraphProto { node 1, name 2, initializer 5,
// input 11, output 12 }, opset_import 8: { domain 1, version 2 } }
function model({ name, nodes, initializers, inputs, outputs, opsets = [['', OPSET]] }) {
  const graph = concat([
    ...nodes.map((n) => bytesField(1, n)),
    stringField(2, name),
    ...initializers.map((t) => bytesField(5, t)),
    ...inputs.map(([input, dims, type]) => bytesField(11, valueInfo(input, dims, type))),
    ...outputs.map(([output, dims]) => bytesField(12, valueInfo(output, dims))),
  ]);
  const opsetImports = opsets.map(([domain, version]) =>
    bytesField(8, concat([...(domain ? [stringField(1, domain)] : []), intField(2, version)])));
  return joined(concat([intField(1, IR_VERSION), stringField(2, 'attnlab-bench-peers'), ...opsetImports, bytesField(7, graph)]));
}

/** y = x·W, x (n × d) the input, W (d × d) a weight of the model */
export function matmulGraph({ n, d, weight }) {
  return model({
    name: 'matmul',
    nodes: [node('MatMul', ['x', 'w'], ['y'])],
    initializers: [floats('w', [d, d], weight)],
    inputs: [['x', [n, d]]],
    outputs: [['y', [n, d]]],
  });
}

/** softmax(Q·Kᵀ/√d)·V with Q, K, V (n × d) the inputs */
export function singleHeadGraph({ n, d }) {
  return model({
    name: 'single_head',
    nodes: [
      node('Transpose', ['k'], ['k_t'], { perm: [1, 0] }),
      node('MatMul', ['q', 'k_t'], ['scores']),
      node('Mul', ['scores', 'scale'], ['scaled']),
      node('Softmax', ['scaled'], ['weights'], { axis: -1 }),
      node('MatMul', ['weights', 'v'], ['y']),
    ],
    initializers: [floats('scale', [], [1 / Math.sqrt(d)])],
    inputs: [['q', [n, d]], ['k', [n, d]], ['v', [n, d]]],
    outputs: [['y', [n, d]]],
  });
}

/** self-attention of x (n × d) in `heads` heads, GPT-2 layout: [Q K V] = x·W_qkv + b_qkv, W_qkv
 * (d × 3d); each head softmax(Q_h·K_hᵀ/√(d/h))·V_h; heads side by side ·W_O + b_O */
export function multiHeadGraph({ n, d, heads, wQkv, bQkv, wO, bO }) {
  const dHead = d / heads;
  return model({
    name: 'multi_head',
    nodes: [
      node('MatMul', ['x', 'w_qkv'], ['qkv_raw']),
      node('Add', ['qkv_raw', 'b_qkv'], ['qkv']),
      node('Split', ['qkv', 'split_sizes'], ['q', 'k', 'v'], { axis: 1 }),
      node('Reshape', ['q', 'heads_shape'], ['q_rows']),
      node('Reshape', ['k', 'heads_shape'], ['k_rows']),
      node('Reshape', ['v', 'heads_shape'], ['v_rows']),
      node('Transpose', ['q_rows'], ['q_heads'], { perm: [1, 0, 2] }), // (h × n × d_head)
      node('Transpose', ['k_rows'], ['k_heads_t'], { perm: [1, 2, 0] }), // (h × d_head × n)
      node('Transpose', ['v_rows'], ['v_heads'], { perm: [1, 0, 2] }),
      node('MatMul', ['q_heads', 'k_heads_t'], ['scores']),
      node('Mul', ['scores', 'scale'], ['scaled']),
      node('Softmax', ['scaled'], ['weights'], { axis: -1 }),
      node('MatMul', ['weights', 'v_heads'], ['mixed']),
      node('Transpose', ['mixed'], ['mixed_rows'], { perm: [1, 0, 2] }),
      node('Reshape', ['mixed_rows', 'concat_shape'], ['concat']),
      node('MatMul', ['concat', 'w_o'], ['out_raw']),
      node('Add', ['out_raw', 'b_o'], ['y']),
    ],
    initializers: [
      floats('w_qkv', [d, 3 * d], wQkv),
      floats('b_qkv', [3 * d], bQkv),
      floats('w_o', [d, d], wO),
      floats('b_o', [d], bO),
      floats('scale', [], [1 / Math.sqrt(dHead)]),
      int64s('split_sizes', [d, d, d]),
      int64s('last_row_start', [-1]), int64s('last_row_end', [Number.MAX_SAFE_INTEGER]), int64s('first_axis', [0]),
      int64s('heads_shape', [n, heads, dHead]),
      int64s('concat_shape', [n, d]),
    ],
    inputs: [['x', [n, d]]],
    outputs: [['y', [n, d]]],
  });
}

/** the same self-attention through onnxruntime's contrib kernel Attention (input (1 × n × d),
 * weights (d × 3d) and bias (3d) in the GPT-2 layout, scaled by 1/√(d/h)), then ·W_O + b_O */
export function fusedMultiHeadGraph({ n, d, heads, wQkv, bQkv, wO, bO }) {
  return model({
    name: 'multi_head_fused',
    nodes: [
      node('Attention', ['x', 'w_qkv', 'b_qkv'], ['concat'], { num_heads: heads }, 'com.microsoft'),
      node('MatMul', ['concat', 'w_o'], ['out_raw']),
      node('Add', ['out_raw', 'b_o'], ['y']),
    ],
    initializers: [
      floats('w_qkv', [d, 3 * d], wQkv),
      floats('b_qkv', [3 * d], bQkv),
      floats('w_o', [d, d], wO),
      floats('b_o', [d], bO),
    ],
    inputs: [['x', [1, n, d]]],
    outputs: [['y', [1, n, d]]],
    opsets: [['', OPSET], ['com.microsoft', 1]],
  });
}

// The new tokens' hidden rows x (s × d) through GPT-2 layer i, GPT-2 layout (Conv1D weights d_in ×
// d_out, x·W): its keys and values are appended to the layer's past (1 × h × p × d_head) as
// present.{i}.key / .value (1 × h × (p + s) × d_head); attention_bias (s × (p + s)) is the causal
// mask, added to the scores. GELU is written as a PyTorch export writes GPT-2's gelu_new.
function gpt2LayerNodes(i) {
  const name = (local) => `h.${i}.${local}`;
  const splitHeads = (part) => [
    node('Reshape', [name(part), 'heads_shape'], [name(`${part}_rows`)]), // (1 × s × h × d_head)
    node('Transpose', [name(`${part}_rows`)], [name(`${part}_heads`)], { perm: [0, 2, 1, 3] }),
  ];
  return [
    node('LayerNormalization', [name('in'), name('ln_1.weight'), name('ln_1.bias')], [name('ln_1')], { axis: -1 }),
    node('MatMul', [name('ln_1'), name('attn.c_attn.weight')], [name('qkv_raw')]),
    node('Add', [name('qkv_raw'), name('attn.c_attn.bias')], [name('qkv')]),
    node('Split', [name('qkv'), 'split_sizes'], [name('q'), name('k'), name('v')], { axis: 1 }),
    ...['q', 'k', 'v'].flatMap(splitHeads),
    node('Concat', [`past_key_values.${i}.key`, name('k_heads')], [`present.${i}.key`], { axis: 2 }),
    node('Concat', [`past_key_values.${i}.value`, name('v_heads')], [`present.${i}.value`], { axis: 2 }),
    node('Transpose', [`present.${i}.key`], [name('keys_t')], { perm: [0, 1, 3, 2] }),
    node('MatMul', [name('q_heads'), name('keys_t')], [name('scores')]),
    node('Mul', [name('scores'), 'scale'], [name('scaled')]),
    node('Add', [name('scaled'), 'attention_bias'], [name('masked')]),
    node('Softmax', [name('masked')], [name('weights')], { axis: -1 }),
    node('MatMul', [name('weights'), `present.${i}.value`], [name('mixed')]),
    node('Transpose', [name('mixed')], [name('mixed_rows')], { perm: [0, 2, 1, 3] }),
    node('Reshape', [name('mixed_rows'), 'rows_shape'], [name('concat')]),
    node('MatMul', [name('concat'), name('attn.c_proj.weight')], [name('attn_raw')]),
    node('Add', [name('attn_raw'), name('attn.c_proj.bias')], [name('attn')]),
    node('Add', [name('in'), name('attn')], [name('mid')]),
    node('LayerNormalization', [name('mid'), name('ln_2.weight'), name('ln_2.bias')], [name('ln_2')], { axis: -1 }),
    node('MatMul', [name('ln_2'), name('mlp.c_fc.weight')], [name('fc_raw')]),
    node('Add', [name('fc_raw'), name('mlp.c_fc.bias')], [name('fc')]),
    // ½·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
    node('Pow', [name('fc'), 'three'], [name('fc_cubed')]),
    node('Mul', [name('fc_cubed'), 'gelu_cubic'], [name('fc_cubic')]),
    node('Add', [name('fc'), name('fc_cubic')], [name('gelu_inner')]),
    node('Mul', [name('gelu_inner'), 'gelu_scale'], [name('gelu_scaled')]),
    node('Tanh', [name('gelu_scaled')], [name('gelu_tanh')]),
    node('Add', [name('gelu_tanh'), 'one'], [name('gelu_gate')]),
    node('Mul', [name('fc'), name('gelu_gate')], [name('gelu_gated')]),
    node('Mul', [name('gelu_gated'), 'half'], [name('gelu')]),
    node('MatMul', [name('gelu'), name('mlp.c_proj.weight')], [name('mlp_raw')]),
    node('Add', [name('mlp_raw'), name('mlp.c_proj.bias')], [name('mlp')]),
    node('Add', [name('mid'), name('mlp')], [`h.${i + 1}.in`]),
  ];
}

/** GPT-2 on s new tokens after p cached ones, in one graph for the prefill (p = 0) and each decoded
 * token (s = 1), as onnxruntime's GPT-2 exports run with a KV cache. Inputs: input_ids and
 * position_ids (s, int64), attention_bias (s × (p + s): 0 where a token may look, −∞ elsewhere)
 * and past_key_values.{i}.key / .value (1 × heads × p × d_head); outputs: the last token's logits
 * (1 × vocab: all that generation reads, and all the engine's generation computes) and
 * present.{i}.key / .value.
 * `tensors`: a Hugging Face GPT-2 checkpoint's F32 tensors by name (the hub's names, Conv1D layout;
 * the output projection is wte, tied); `config`: its config.json. */
export function gpt2Graph({ config: { vocab_size: vocab, n_positions: positions, n_embd: d, n_head: heads, n_layer: layers }, tensors }) {
  const dHead = d / heads;
  const weight = (name, dims) => floats(name, dims, tensors[name]);
  const layerWeights = (i) => {
    const h = `h.${i}.`;
    return [
      weight(`${h}ln_1.weight`, [d]), weight(`${h}ln_1.bias`, [d]),
      weight(`${h}attn.c_attn.weight`, [d, 3 * d]), weight(`${h}attn.c_attn.bias`, [3 * d]),
      weight(`${h}attn.c_proj.weight`, [d, d]), weight(`${h}attn.c_proj.bias`, [d]),
      weight(`${h}ln_2.weight`, [d]), weight(`${h}ln_2.bias`, [d]),
      weight(`${h}mlp.c_fc.weight`, [d, 4 * d]), weight(`${h}mlp.c_fc.bias`, [4 * d]),
      weight(`${h}mlp.c_proj.weight`, [4 * d, d]), weight(`${h}mlp.c_proj.bias`, [d]),
    ];
  };
  const cache = (kind, length) => Array.from({ length: layers }, (_, i) => [
    [`${kind}.${i}.key`, [1, heads, length, dHead]], [`${kind}.${i}.value`, [1, heads, length, dHead]]]).flat();
  return model({
    name: 'gpt2',
    nodes: [
      node('Gather', ['wte.weight', 'input_ids'], ['token_rows'], { axis: 0 }),
      node('Gather', ['wpe.weight', 'position_ids'], ['position_rows'], { axis: 0 }),
      node('Add', ['token_rows', 'position_rows'], ['h.0.in']),
      ...Array.from({ length: layers }, (_, i) => gpt2LayerNodes(i)).flat(),
      node('LayerNormalization', [`h.${layers}.in`, 'ln_f.weight', 'ln_f.bias'], ['ln_f'], { axis: -1 }),
      node('Slice', ['ln_f', 'last_row_start', 'last_row_end', 'first_axis'], ['ln_f_last']),
      node('Gemm', ['ln_f_last', 'wte.weight'], ['logits'], { transB: 1 }),
    ],
    initializers: [
      weight('wte.weight', [vocab, d]), weight('wpe.weight', [positions, d]),
      ...Array.from({ length: layers }, (_, i) => layerWeights(i)).flat(),
      weight('ln_f.weight', [d]), weight('ln_f.bias', [d]),
      floats('scale', [], [1 / Math.sqrt(dHead)]),
      floats('three', [], [3]), floats('gelu_cubic', [], [0.044715]), floats('gelu_scale', [], [Math.sqrt(2 / Math.PI)]),
      floats('one', [], [1]), floats('half', [], [0.5]),
      int64s('split_sizes', [d, d, d]),
      int64s('last_row_start', [-1]), int64s('last_row_end', [Number.MAX_SAFE_INTEGER]), int64s('first_axis', [0]),
      int64s('heads_shape', [1, -1, heads, dHead]),
      int64s('rows_shape', [-1, d]),
    ],
    inputs: [
      ['input_ids', ['sequence'], INT64], ['position_ids', ['sequence'], INT64], ['attention_bias', ['sequence', 'total']],
      ...cache('past_key_values', 'past'),
    ],
    outputs: [['logits', [1, vocab]], ...cache('present', 'total')],
  });
}
