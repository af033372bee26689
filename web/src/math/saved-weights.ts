// One tensor of a model the engine saved (model.save()'s safetensors bytes, every tensor F32 under
// the engine's GPT-2-style names, e.g. "h.1.attn.c_proj.weight": W_O as (h·d_k) × d). DOM-free.
import type { MatrixData } from './matrix';

interface TensorEntry { dtype: string; shape: number[]; data_offsets: [number, number] }

/** the named tensor as a matrix (a vector is one row); an Error when it is absent or not F32 */
export function savedTensor(bytes: Uint8Array, name: string): MatrixData {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerSize = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerSize))) as Record<string, TensorEntry>;
  const entry = header[name];
  if (!entry) throw new Error(`the saved model has no tensor ${name}`);
  if (entry.dtype !== 'F32') throw new Error(`the saved tensor ${name} is ${entry.dtype}, not F32`);
  const [begin, end] = entry.data_offsets;
  // a copy: the tensor's offset in the file need not be a multiple of 4
  const data = new Float32Array(bytes.slice(8 + headerSize + begin, 8 + headerSize + end).buffer);
  const [rows, cols] = entry.shape.length === 1 ? [1, entry.shape[0]] : entry.shape;
  return { rows, cols, data };
}
