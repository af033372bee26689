// Checkpoints the reader opens (GPT-2, Llama-family models from the Hugging Face hub): their files
// sorted by role, what the engine says they are before any weight is read, loading them into the
// page's engine with progress, and keeping them in this browser's Origin Private File System so
// that a reload, or a link naming one (&model=gpt2), finds them again. One opened model is in the
// engine at a time: a 124M-parameter model takes half a gigabyte of its memory.
import type { CheckpointDescription } from '../engine/index';
import { formatBytes } from '../math/format';
import { pageEngine, type RemoteModel } from './engine';
import { gpt2TokenizerFileUrl } from './engine-files';
import { isShippedModel, type ShippedModel } from './shipped-models';

/** a checkpoint's files by role (names as the hub writes them) */
export interface CheckpointFiles {
  /** model.safetensors, or the shards of a sharded checkpoint (sorted by name) */
  weights: File[];
  config: File;
  /** tokenizer.json (or the engine's own vocab.json): needed unless the model is a GPT-2 with GPT-2's vocabulary */
  tokenizer?: File;
  /** model.safetensors.index.json of a sharded checkpoint */
  index?: File;
  /** files dropped that the engine does not read (generation_config.json, merges.txt …) */
  ignored: string[];
}

/** What the engine says a checkpoint is, and what it needs, before its weights are read. */
export interface ModelSummary extends CheckpointDescription {
  /** the name it is kept and linked by: letters, digits, ".", "_", "-" */
  name: string;
  parameters: number;
  /** bytes of all its files (what keeping it takes) */
  fileBytes: number;
  /** whose tokenizer it reads text with */
  tokenizer: 'tokenizer.json' | "GPT-2's" | 'vocab.json';
}

export interface OpenedModel {
  name: string;
  summary: ModelSummary;
  model: RemoteModel;
}

/** what keeping a model in this browser became */
export type KeptState = { kept: true; usage: number; quota: number } | { kept: false; reason: string };

/** "change": the opened or kept models changed (detail: the name opened, if one was); "progress":
 * a model is being read into the engine (detail: { name, read, total, tensor }) */
export const openedModels = new EventTarget();

const NAME_CHARS = 60;
const WEIGHTS = /\.safetensors$/i;

/** Sorts dropped or picked files by role; an Error says which file is missing. */
export function sortCheckpointFiles(files: readonly File[]): CheckpointFiles {
  const named = (name: string) => files.find((f) => f.name.toLowerCase() === name);
  const weights = files.filter((f) => WEIGHTS.test(f.name)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const config = named('config.json');
  if (!config) throw new Error('config.json is missing: the model\'s configuration comes with its weights on the hub.');
  if (weights.length === 0) throw new Error('The weights are missing: pick model.safetensors (or all its shards) with config.json.');
  const tokenizer = named('tokenizer.json') ?? named('vocab.json');
  const index = named('model.safetensors.index.json');
  if (weights.length > 1 && !index) throw new Error(`${weights.length} weight files but no model.safetensors.index.json to say which tensor is in which.`);
  const used = new Set<File>([...weights, config, ...(tokenizer ? [tokenizer] : []), ...(index ? [index] : [])]);
  return { weights, config, tokenizer, index, ignored: files.filter((f) => !used.has(f)).map((f) => f.name) };
}

/** the name a checkpoint is kept by: its config's _name_or_path, the folder it was picked from, or
 * its family and shape ("gpt2-12x768") */
export function checkpointName(configText: string, files: CheckpointFiles, description: CheckpointDescription): string {
  let named = '';
  try {
    const value = (JSON.parse(configText) as { _name_or_path?: unknown })._name_or_path;
    if (typeof value === 'string') named = value.split(/[\\/]/).filter(Boolean).pop() ?? '';
  } catch {
    // the engine has read the config already; an unreadable name is only not used
  }
  const folder = (files.config.webkitRelativePath || '').split('/').slice(-2, -1)[0] ?? '';
  const { family, config } = description;
  const shape = `${family}-${config.n_layers}x${config.d_model}`;
  const name = [named, folder, shape].map(cleanName).find((n) => n.length > 0)!;
  // a shipped model's name means the shipped model in a link
  return isShippedModel(name) ? `${name}-opened` : name;
}

/** a name as it may stand in a link and as a folder: letters, digits, ".", "_", "-" */
export function cleanName(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|-+$/g, '').slice(0, NAME_CHARS);
}

/** Asks the engine what the files are: family, layers, heads, parameters, memory. Refused (an
 * Error with the engine's reason) when the engine cannot load it. */
export async function describeCheckpoint(files: CheckpointFiles): Promise<ModelSummary> {
  const engine = await pageEngine();
  const configText = await files.config.text();
  const description = await engine.describeCheckpoint({ config: configText });
  const gpt2Vocabulary = description.family === 'gpt2' && description.config.vocab_size >= 50257;
  if (!files.tokenizer && !gpt2Vocabulary) {
    throw new Error(`tokenizer.json is missing: a ${description.family === 'llama' ? 'Llama-family model' : 'model'} reads text with its own tokenizer.`);
  }
  if (!files.tokenizer && !gpt2TokenizerFileUrl()) {
    throw new Error('tokenizer.json is missing: this page does not carry GPT-2\'s tokenizer; pick the model\'s tokenizer.json too.');
  }
  const all = [...files.weights, files.config, ...(files.tokenizer ? [files.tokenizer] : []), ...(files.index ? [files.index] : [])];
  return {
    ...description,
    name: checkpointName(configText, files, description),
    parameters: description.parameterBytes / 4,
    fileBytes: all.reduce((sum, f) => sum + f.size, 0),
    tokenizer: files.tokenizer ? (files.tokenizer.name === 'vocab.json' ? 'vocab.json' : 'tokenizer.json') : "GPT-2's",
  };
}

/** GPT-2's tokenizer.json, for a GPT-2 checkpoint opened without one (describeCheckpoint has made
 * sure the page carries it) */
async function gpt2Tokenizer(): Promise<string> {
  const url = gpt2TokenizerFileUrl()!;
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GPT-2's tokenizer could not be read (${url}: HTTP ${response.status})`);
  return response.text();
}

/** the model in the engine now (one at a time), by name */
let current: { name: string; opened: Promise<OpenedModel> } | undefined;

/** Makes `load`'s model the one in the engine, once the one before it is freed. */
function replaceCurrent(name: string, load: () => Promise<OpenedModel>): Promise<OpenedModel> {
  const previous = current;
  const opened = (async () => {
    if (previous) await (await previous.opened.catch(() => undefined))?.model.dispose().catch(() => undefined);
    return load();
  })();
  current = { name, opened };
  opened.catch(() => { if (current?.opened === opened) current = undefined; });
  return opened;
}

/** Loads the files into the page's engine, reporting bytes read and the tensor being read. */
async function loadFiles(files: CheckpointFiles, summary: ModelSummary,
  onProgress?: (read: number, total: number, tensor: string) => void): Promise<OpenedModel> {
  const engine = await pageEngine();
  const [config, tokenizer, index] = await Promise.all([files.config.text(), files.tokenizer ? files.tokenizer.text() : gpt2Tokenizer(), files.index?.text()]);
  // the page runs opened models, never trains them: BF16 and F16 weights stay in their 16 bits
  const model = await engine.loadModel({
    weights: files.weights, config, tokenizer, weightStorage: 'as-stored', ...(index === undefined ? {} : { index }),
    onProgress: (read: number, total: number, tensor: string) => {
      onProgress?.(read, total, tensor);
      openedModels.dispatchEvent(new CustomEvent('progress', { detail: { name: summary.name, read, total, tensor } }));
    },
  });
  return { name: summary.name, summary, model };
}

async function forgetLoaded(): Promise<void> {
  const previous = current;
  current = undefined;
  if (!previous) return;
  const opened = await previous.opened.catch(() => undefined);
  await opened?.model.dispose().catch(() => undefined);
}

/** Opens a checkpoint the reader picked: loads it into the engine and keeps its files in this
 * browser (where it has storage); `onProgress` hears each piece read. */
export async function openCheckpoint(files: CheckpointFiles, summary: ModelSummary,
  onProgress?: (read: number, total: number, tensor: string) => void): Promise<{ opened: OpenedModel; kept: KeptState }> {
  const model = await replaceCurrent(summary.name, () => loadFiles(files, summary, onProgress));
  const kept = await keepCheckpoint(files, summary).catch((error: unknown): KeptState => ({ kept: false, reason: String(error instanceof Error ? error.message : error) }));
  openedModels.dispatchEvent(new CustomEvent('change', { detail: summary.name }));
  return { opened: model, kept };
}

/** The opened model named `name`: the one in the engine, or one kept in this browser, loaded now
 * ("progress" events on openedModels). An Error says when this browser has no such model. */
export function openedModel(name: string): Promise<OpenedModel> {
  if (current?.name === name) return current.opened;
  return replaceCurrent(name, async () => {
    const kept = await keptModel(name);
    if (!kept) throw new Error(`This browser has no model “${name}”: open its files (Open a model…) first.`);
    return loadFiles(kept.files, kept.summary);
  });
}

/** A shipped model as a widget shows an opened one (its name, summary and model). */
export async function shippedAsOpened(name: ShippedModel, model: RemoteModel): Promise<OpenedModel> {
  const [config, { weights }] = await Promise.all([model.config(), model.save()]);
  const summary: ModelSummary = {
    name, family: 'attnlab', config, parameterBytes: weights.byteLength, parameters: weights.byteLength / 4, fileBytes: weights.byteLength, tokenizer: 'vocab.json',
  };
  return { name, summary, model };
}

/** the name of the opened model in the engine now, if any */
export function loadedModelName(): string | undefined {
  return current?.name;
}

// ---- keeping models: the Origin Private File System --------------------------------------------

const FOLDER = 'attnlab-models';
const ABOUT = 'about.json';

/** what a kept model's folder says about it */
interface KeptAbout {
  summary: ModelSummary;
  /** file names by role */
  weights: string[];
  config: string;
  tokenizer?: string;
  index?: string;
}

/** this browser's folder of kept models; an Error says why there is none (a file:// page, a
 * private window) */
async function keptFolder(): Promise<FileSystemDirectoryHandle> {
  if (typeof navigator === 'undefined' || !navigator.storage?.getDirectory) throw new Error('this browser keeps no files for pages');
  try {
    const root = await navigator.storage.getDirectory();
    return await root.getDirectoryHandle(FOLDER, { create: true });
  } catch (error) {
    throw new Error(location.protocol === 'file:'
      ? 'a page opened from a file has no storage in this browser: open the files again after a reload'
      : `this browser refused storage (${error instanceof Error ? error.message : String(error)})`);
  }
}

/** how much the browser lets this page keep, and has kept: bytes */
export async function storageUse(): Promise<{ usage: number; quota: number } | { reason: string }> {
  try {
    await keptFolder();
    const { usage = 0, quota = 0 } = await navigator.storage.estimate();
    return { usage, quota };
  } catch (error) {
    return { reason: error instanceof Error ? error.message : String(error) };
  }
}

/** Copies the files into the model's folder (streamed, never whole in memory), once the quota is
 * known to hold them; a half-written copy is removed. */
async function keepCheckpoint(files: CheckpointFiles, summary: ModelSummary): Promise<KeptState> {
  const folder = await keptFolder();
  const { usage = 0, quota = 0 } = await navigator.storage.estimate();
  const already = await keptModel(summary.name);
  const freed = already ? already.summary.fileBytes : 0;
  if (usage - freed + summary.fileBytes > quota) {
    return { kept: false, reason: `keeping it needs ${formatBytes(summary.fileBytes)}; this browser allows this page ${formatBytes(Math.max(0, quota - usage))} more` };
  }
  await folder.removeEntry(summary.name, { recursive: true }).catch(() => undefined);
  const own = await folder.getDirectoryHandle(summary.name, { create: true });
  try {
    const all = [...files.weights, files.config, ...(files.tokenizer ? [files.tokenizer] : []), ...(files.index ? [files.index] : [])];
    for (const file of all) {
      const writable = await (await own.getFileHandle(file.name, { create: true })).createWritable();
      await file.stream().pipeTo(writable);
    }
    const about: KeptAbout = {
      summary, weights: files.weights.map((f) => f.name), config: files.config.name, tokenizer: files.tokenizer?.name, index: files.index?.name,
    };
    const writable = await (await own.getFileHandle(ABOUT, { create: true })).createWritable();
    await writable.write(JSON.stringify(about));
    await writable.close();
  } catch (error) {
    await folder.removeEntry(summary.name, { recursive: true }).catch(() => undefined);
    throw error;
  }
  const after = await navigator.storage.estimate();
  return { kept: true, usage: after.usage ?? 0, quota: after.quota ?? 0 };
}

/** a kept model's summary and files, or undefined when this browser has none by that name */
async function keptModel(name: string): Promise<{ summary: ModelSummary; files: CheckpointFiles } | undefined> {
  if (cleanName(name) !== name || name === '') return undefined;
  let own: FileSystemDirectoryHandle;
  try {
    own = await (await keptFolder()).getDirectoryHandle(name);
  } catch {
    return undefined;
  }
  try {
    const about = JSON.parse(await (await (await own.getFileHandle(ABOUT)).getFile()).text()) as KeptAbout;
    const file = async (fileName: string) => (await own.getFileHandle(fileName)).getFile();
    const files: CheckpointFiles = {
      weights: await Promise.all(about.weights.map(file)),
      config: await file(about.config),
      tokenizer: about.tokenizer ? await file(about.tokenizer) : undefined,
      index: about.index ? await file(about.index) : undefined,
      ignored: [],
    };
    return { summary: about.summary, files };
  } catch {
    return undefined;  // a copy cut short (the tab closed while keeping it): as if never kept
  }
}

/** the models kept in this browser, by name (none where it keeps no files) */
export async function keptModels(): Promise<ModelSummary[]> {
  let folder: FileSystemDirectoryHandle;
  try {
    folder = await keptFolder();
  } catch {
    return [];
  }
  const summaries: ModelSummary[] = [];
  for await (const name of (folder as unknown as { keys(): AsyncIterable<string> }).keys()) {
    const kept = await keptModel(name);
    if (kept) summaries.push(kept.summary);
  }
  return summaries.sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** Forgets a kept model: its files leave this browser, and the engine frees it if it is loaded. */
export async function forgetModel(name: string): Promise<void> {
  if (current?.name === name) await forgetLoaded();
  const folder = await keptFolder();
  await folder.removeEntry(name, { recursive: true }).catch(() => undefined);
  openedModels.dispatchEvent(new CustomEvent('change'));
}
