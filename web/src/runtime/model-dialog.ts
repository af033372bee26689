// "Open a model": the dialog where a reader picks or drops a checkpoint's files, reads what the
// engine says the model is and the memory it needs, loads it with a progress bar, and manages the
// models this browser keeps. One dialog per page, in the top layer, opened by the deck's toolbar
// and by every model widget's model list; keys pressed in it stay in it.
import { CHECKPOINT_FAMILIES } from '../math/architecture';
import { formatBytes, formatCount } from '../math/format';
import { baseStyles } from '../primitives/styles';
import { button, h } from '../primitives/controls';
import {
  describeCheckpoint, forgetModel, keptModels, openCheckpoint, sortCheckpointFiles, storageUse,
  type CheckpointFiles, type ModelSummary,
} from './opened-models';

const styles = `
dialog { max-width: min(44em, calc(100vw - 24px)); width: 44em; box-sizing: border-box; color: var(--fg); background: var(--bg);
  border: 1px solid var(--border); border-radius: 10px; padding: 16px 20px; }
dialog::backdrop { background: rgb(0 0 0 / 0.45); }
h2 { margin: 0 0 8px; font-size: 20px; }
h3 { margin: 16px 0 6px; font-size: 16px; }
p { margin: 0 0 8px; }
.drop { border: 2px dashed var(--border); border-radius: 8px; padding: 14px; text-align: center; }
.drop.over { border-color: var(--accent); background: color-mix(in srgb, var(--accent) 10%, transparent); }
.drop button { margin: 4px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 10px 0; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
.error { color: var(--bad); overflow-wrap: anywhere; }
.error:empty, .said:empty { display: none; }
.progress { display: flex; gap: 10px; align-items: center; }
.progress progress { flex: 0 0 12em; }
.progress span { overflow-wrap: anywhere; font-size: 14px; }
ul { list-style: none; padding: 0; margin: 0; }
li { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; padding: 3px 0; }
li .name { font-weight: 600; }
.actions { display: flex; gap: 8px; justify-content: flex-end; margin-top: 12px; }
button { font: inherit; padding: 3px 12px; border-radius: 6px; border: 1px solid var(--border); background: var(--panel); color: var(--fg); cursor: pointer; }
button.primary { background: var(--accent); color: var(--attn-on-accent, #fff); border-color: var(--accent); }
button:disabled { opacity: 0.5; cursor: default; }
`;


class ModelDialog {
  private readonly dialog = h('dialog', { attrs: { 'aria-labelledby': 'open-model-title' } });
  private readonly filesInput = h('input', { type: 'file', multiple: true, hidden: true });
  private readonly folderInput = h('input', { type: 'file', multiple: true, hidden: true, attrs: { webkitdirectory: '' } });
  private readonly drop = h('div', { className: 'drop' });
  private readonly description = h('div', { attrs: { 'aria-live': 'polite' } });
  private readonly error = h('p', { className: 'error', attrs: { role: 'alert' } });
  private readonly bar = h('progress', { max: 1, value: 0 });
  private readonly barText = h('span');
  private readonly progress = h('div', { className: 'progress', hidden: true }, this.bar, this.barText);
  private readonly said = h('p', { className: 'said', attrs: { role: 'status' } });
  private readonly load = button('Load', () => void this.loadPicked(), { className: 'primary', disabled: true });
  private readonly kept = h('ul');
  private readonly storage = h('p', { className: 'muted' });
  private picked?: { files: CheckpointFiles; summary: ModelSummary };
  private loading = false;
  /** settles the open() that showed the dialog: the name of the model to use, or undefined */
  private settle?: (name: string | undefined) => void;

  constructor() {
    const host = h('div', { attrs: { 'data-attnlab': 'open-model' } });
    const root = host.attachShadow({ mode: 'open' });
    root.append(h('style', { textContent: baseStyles.replace(':host {', ':host { display: contents;') + styles }), this.dialog);
    // the dialog is modal: no key pressed in it is the page's — Escape included, which closes it
    // (as the browser does) and would otherwise also open the deck's overview
    root.addEventListener('keydown', (e) => e.stopPropagation());
    this.drop.append(
      h('p', { textContent: 'Drop the files here, or' }),
      button('Pick files…', () => this.filesInput.click()), button('Pick a folder…', () => this.folderInput.click()),
      this.filesInput, this.folderInput,
    );
    for (const input of [this.filesInput, this.folderInput]) {
      input.addEventListener('change', () => void this.pick([...(input.files ?? [])]));
    }
    this.drop.addEventListener('dragover', (e) => { e.preventDefault(); this.drop.classList.add('over'); });
    this.drop.addEventListener('dragleave', () => this.drop.classList.remove('over'));
    this.drop.addEventListener('drop', (e) => {
      e.preventDefault();
      this.drop.classList.remove('over');
      void this.pick([...(e.dataTransfer?.files ?? [])]);
    });
    this.dialog.addEventListener('close', () => this.finish(undefined));
    this.dialog.append(
      h('h2', { id: 'open-model-title', textContent: 'Open a model' }),
      h('p', { textContent: 'A GPT-2 or Llama-family checkpoint from the Hugging Face hub (gpt2, HuggingFaceTB/SmolLM2-135M …): '
        + 'model.safetensors (or its shards with model.safetensors.index.json), config.json, and tokenizer.json unless it is GPT-2. '
        + 'The files never leave this computer.' }),
      this.drop, this.description, this.error, this.progress, this.said,
      h('div', 'actions', this.load),
      h('h3', { textContent: 'Kept in this browser' }), this.kept, this.storage,
      h('div', 'actions', button('Close', () => this.dialog.close())),
    );
    document.body.append(host);
  }

  /** Shows the dialog; resolves with the name of the model the reader opened or chose (undefined: closed). */
  open(): Promise<string | undefined> {
    this.settle?.(undefined);
    if (!this.dialog.open) this.dialog.showModal();
    void this.showKept();
    return new Promise((resolve) => { this.settle = resolve; });
  }

  private finish(name: string | undefined): void {
    const settle = this.settle;
    this.settle = undefined;
    settle?.(name);
    if (this.dialog.open) this.dialog.close();
  }

  /** the files the reader picked: sorted by role, and what the engine says they are */
  private async pick(files: File[]): Promise<void> {
    if (this.loading || files.length === 0) return;
    this.picked = undefined;
    this.load.disabled = true;
    this.error.textContent = '';
    this.said.textContent = '';
    this.description.replaceChildren();
    try {
      const sorted = sortCheckpointFiles(files);
      const summary = await describeCheckpoint(sorted);
      this.picked = { files: sorted, summary };
      this.describe(sorted, summary);
      this.load.disabled = false;
      this.load.focus();
    } catch (error) {
      this.error.textContent = `This model cannot be opened: ${reason(error)}`;
    }
  }

  private describe(files: CheckpointFiles, summary: ModelSummary): void {
    const { config } = summary;
    const heads = config.n_kv_heads && config.n_kv_heads !== config.n_heads ? `${config.n_heads} (${config.n_kv_heads} key/value heads)` : String(config.n_heads);
    const rows: [string, string][] = [
      ['model', `${summary.name} · ${CHECKPOINT_FAMILIES[summary.family]}`],
      ['layers × heads', `${config.n_layers} × ${heads}, width ${config.d_model}`],
      ['parameters', `${(summary.parameters / 1e6).toFixed(1)} M`],
      ['vocabulary, context', `${formatCount(config.vocab_size)} tokens (${summary.tokenizer} tokenizer), ${formatCount(config.n_ctx)} positions`],
      ['memory it needs', `${formatBytes(summary.parameterBytes)} in the engine as 32-bit floats, about half as much for BF16 or F16 weights (kept in their 16 bits); the files: ${formatBytes(summary.fileBytes)}`],
    ];
    if (files.ignored.length) rows.push(['not read', files.ignored.join(', ')]);
    this.description.replaceChildren(h('dl', {}, ...rows.flatMap(([name, value]) => [h('dt', { textContent: name }), h('dd', { textContent: value })])));
  }

  private async loadPicked(): Promise<void> {
    const picked = this.picked;
    if (!picked || this.loading) return;
    this.loading = true;
    this.load.disabled = true;
    this.error.textContent = '';
    this.progress.hidden = false;
    this.bar.value = 0;
    this.barText.textContent = 'Reading…';
    try {
      const { kept } = await openCheckpoint(picked.files, picked.summary, (read, total, tensor) => {
        this.bar.value = total > 0 ? read / total : 0;
        this.barText.textContent = `${formatBytes(read)} of ${formatBytes(total)} · ${tensor}`;
      });
      this.said.textContent = kept.kept
        ? `Loaded, and kept in this browser (${formatBytes(kept.usage)} of ${formatBytes(kept.quota)} used).`
        : `Loaded; not kept (${kept.reason}).`;
      this.finish(picked.summary.name);
    } catch (error) {
      this.error.textContent = `This model cannot be loaded: ${reason(error)}`;
      this.load.disabled = false;
    } finally {
      this.loading = false;
      this.progress.hidden = true;
    }
  }

  private async showKept(): Promise<void> {
    const [models, use] = await Promise.all([keptModels(), storageUse()]);
    this.kept.replaceChildren(...models.map((summary) => h('li', {},
      h('span', { className: 'name', textContent: summary.name }),
      h('span', { className: 'muted', textContent: `${CHECKPOINT_FAMILIES[summary.family]} · ${summary.config.n_layers} layers × ${summary.config.n_heads} heads · ${formatBytes(summary.fileBytes)}` }),
      button('Use', () => this.finish(summary.name), { attrs: { 'aria-label': `use ${summary.name}` } }),
      button('Forget', () => void forgetModel(summary.name).then(() => this.showKept()), { attrs: { 'aria-label': `forget ${summary.name}` } }))));
    if (models.length === 0) this.kept.replaceChildren(h('li', { className: 'muted', textContent: 'None yet.' }));
    this.storage.textContent = 'reason' in use
      ? `Models are not kept here: ${use.reason}.`
      : `This browser lets the page keep ${formatBytes(use.quota)}; ${formatBytes(use.usage)} in use.`;
  }
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error)).replace(/^attnlab: /, '');

let dialog: ModelDialog | undefined;

/** Shows "Open a model"; resolves with the name of the model opened or chosen (undefined: none). */
export function openModelDialog(): Promise<string | undefined> {
  dialog ??= new ModelDialog();
  return dialog.open();
}
