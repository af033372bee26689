// The ONNX models onnxruntime-web runs in the peers benchmark, written by hand: a protobuf writer of
// the few messages a model needs (field numbers from onnx.proto) and the four graphs. No converter
// or Python toolchain is involved, so the graphs are exactly the operators listed here.
//   matmulGraph          y = x·W                               x (n × d), W (d × d)
//   singleHeadGraph      softmax(Q·Kᵀ/√d)·V                    Q, K, V (n × d)
//   multiHeadGraph       8-head self-attention as operators     x (n × d)
//   fusedMultiHeadGraph  the same through com.microsoft's Attention kernel, then ·W_O + b_O   x (1 × n × d)

const FLOAT = 1;
const INT64 = 7;
const ATTRIBUTE_INT = 2;
const ATTRIBUTE_INTS = 7;
const IR_VERSION = 8;
const OPSET = 17;
const WIRE_VARINT = 0;
const WIRE_BYTES = 2;

const utf8 = new TextEncoder();

function concat(parts) {
  const out = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
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
const bytesField = (field, bytes) => concat([tag(field, WIRE_BYTES), varint(bytes.length), bytes]);
const stringField = (field, text) => bytesField(field, utf8.encode(text));
const rawBytes = (typed) => new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);

// TensorProto: dims 1, data_type 2, name 8, raw_data 9 (little-endian, as typed arrays are here)
function tensor(name, dims, values) {
  const type = values instanceof BigInt64Array ? INT64 : FLOAT;
  return concat([...dims.map((d) => intField(1, d)), intField(2, type), stringField(8, name), bytesField(9, rawBytes(values))]);
}
const floats = (name, dims, values) => tensor(name, dims, Float32Array.from(values));
const int64s = (name, values) => tensor(name, [values.length], BigInt64Array.from(values, BigInt));

// ValueInfoProto { name 1, type 2: TypeProto { tensor_type 1: { elem_type 1, shape 2: { dim 1: { dim_value 1 } } } } }
function valueInfo(name, dims) {
  const shape = concat(dims.map((d) => bytesField(1, intField(1, d))));
  return concat([stringField(1, name), bytesField(2, bytesField(1, concat([intField(1, FLOAT), bytesField(2, shape)])))]);
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
    ...inputs.map(([input, dims]) => bytesField(11, valueInfo(input, dims))),
    ...outputs.map(([output, dims]) => bytesField(12, valueInfo(output, dims))),
  ]);
  const opsetImports = opsets.map(([domain, version]) =>
    bytesField(8, concat([...(domain ? [stringField(1, domain)] : []), intField(2, version)])));
  return concat([intField(1, IR_VERSION), stringField(2, 'attnlab-bench-peers'), ...opsetImports, bytesField(7, graph)]);
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
