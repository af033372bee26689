// <attn-programmed>: a Transformer programmed by hand. The engine compiles a RASP program (reverse,
// histogram, sort) into the weights of an ordinary model; the reader's letters go through its
// forward pass, whose logits' argmax is the answer, and each head that implements a Select is drawn
// from the trace, characters on both axes: its attention is the program's select matrix.
// Settings: program, text.
import type { RemoteEngine, RemoteModel } from '../runtime/engine';
import type { ProgramDescription, ProgramName } from '../engine/attnlab.mjs';
import { formatSignificant } from '../math/format';
import { largestDifference, rowArgmax, submatrix } from '../math/matrix';
import { h } from '../primitives/controls';
import { EngineElement } from '../runtime/engine-element';
import { Heatmap } from '../primitives/heatmap';

const styles = `
.toolbar input[type="text"] { width: 9em; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
.program { margin: 0 0 8px; padding-left: 1.8em; font: 14px/1.5 ui-monospace, "DejaVu Sans Mono", monospace; }
.program li { padding: 1px 4px; border-radius: 4px; }
.program li.active { background: var(--panel); outline: 1px solid var(--accent); }
.program .where { font: 14px system-ui, sans-serif; color: var(--muted); margin-left: 8px; white-space: nowrap; }
.answer { border-collapse: collapse; margin: 0 0 8px; font: 16px ui-monospace, "DejaVu Sans Mono", monospace; }
.answer th { font: 14px system-ui, sans-serif; color: var(--muted); text-align: right; padding-right: 8px; font-weight: 400; }
.answer td { min-width: 1.6em; text-align: center; border: 1px solid var(--border); padding: 1px 3px; }
.answer .out td { color: var(--accent); font-weight: 600; }
.heads { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: flex-start; }
.heads h4 { margin: 0 0 2px; font-size: 14px; font-weight: 600; max-width: 230px; }
.verdict { margin: 4px 0 0; font-size: 14px; color: var(--muted); }
.layout { margin: 4px 0 0; font-size: 14px; color: var(--muted); overflow-wrap: anywhere; }
`;

/** where a line of the program sits in the model, as "L0·H1" and "L0·FFN" */
function placesOf(described: ProgramDescription, line: number): string {
  const heads = described.heads.filter((h) => h.line === line).map((h) => `layer ${h.layer} head ${h.head}`);
  const ffn = described.feedForward.filter((f) => f.line === line).map((f) => `layer ${f.layer} FFN`);
  return [...new Set([...heads, ...ffn])].join(', ');
}

export default class Programmed extends EngineElement {
  private readonly program = this.bound.choices<ProgramName>('program');
  private readonly text = this.bound.text('text', { commit: 'input', placeholder: 'up to 10 letters a–z' });
  private readonly listing = h('ol', 'program');
  private readonly answer = h('table', 'answer');
  private readonly heads = h('div', 'heads');
  private readonly verdict = h('p', { className: 'verdict', attrs: { 'aria-live': 'polite' } });
  private readonly layoutLine = h('p', 'layout');
  private readonly results = h('div');
  /** the compiled models, one a program, kept in the engine's worker */
  private readonly models = new Map<ProgramName, Promise<RemoteModel>>();

  constructor() {
    super(styles, 'each head’s attention is its Select’s table, a row spread evenly over the keys it selects; the answer is the forward pass’s argmax.');
  }

  protected override layout(): HTMLElement {
    this.results.append(this.answer, this.heads, this.verdict, this.layoutLine);
    return h('div', {}, h('div', 'toolbar', this.program.element, this.text.element), this.listing, this.results);
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    const program = this.value<ProgramName>('program');
    const text = this.value<string>('text');
    if (!this.models.has(program)) this.models.set(program, engine.programmedModel({ program }));
    const [model, described] = await Promise.all([this.models.get(program)!, engine.describeProgram({ program })]);
    this.showProgram(described);
    // the controls and the program stay: a text the program refuses can be corrected in place
    this.results.hidden = true;
    const input = await engine.programInput({ program, text });
    if (input.tokens.length < 2) throw new Error('Type one to ten letters a–z.');
    const names = described.heads.map((head) => `layer${head.layer}.attn.head${head.head}.weights`);
    const { logits, trace } = await model.forward({ tokens: input.tokens, trace: names });
    const answer = rowArgmax(logits).slice(1).map((id) => described.vocabulary[id]!);
    const n = input.tokens.length - 1;

    this.results.hidden = false;
    const cells = (values: readonly string[]) => values.map((v) => h('td', { textContent: v }));
    this.answer.replaceChildren(
      h('tr', {}, h('th', { textContent: 'input' }), ...cells(input.labels.slice(1))),
      h('tr', 'out', h('th', { textContent: `${program} (argmax)` }), ...cells(answer)));
    let worst = 0;
    this.heads.replaceChildren(...described.heads.map((head, i) => {
      // the rows of the characters; the columns are [BOS] and the characters
      const weights = submatrix(trace![names[i]!]!, { rows: [1, n + 1], cols: [0, n + 1] });
      worst = Math.max(worst, largestDifference(weights.data, input.patterns[i]!.data));
      const map = new Heatmap({ xLabel: 'key', yLabel: 'query', tint: 'weights', width: 140, height: 140, legend: i === described.heads.length - 1 });
      map.configure({ rowLabels: input.labels.slice(1), colLabels: input.labels });
      map.draw(weights);
      const panel = h('div', { className: 'head', attrs: { tabindex: '0' } },
        h('h4', { textContent: `layer ${head.layer}, head ${head.head}: line ${head.line + 1}` }), map.element);
      const mark = (on: boolean) => this.listing.children[head.line]?.classList.toggle('active', on);
      for (const [type, on] of [['pointerenter', true], ['pointerleave', false], ['focus', true], ['blur', false]] as const)
        panel.addEventListener(type, () => mark(on));
      return panel;
    }));
    this.verdict.textContent = `Largest |attention − select matrix| over the ${described.heads.length} heads: ${formatSignificant(worst, 2)}.`;
    this.layoutLine.textContent = `Residual stream, ${described.layout.reduce((sum, s) => sum + s.width, 0)} dimensions: `
      + described.layout.map((s) => `${s.name} ${s.width}`).join(' · ');
  }

  /** the program's lines, each with where it runs in the model */
  private showProgram(described: ProgramDescription): void {
    this.listing.replaceChildren(...described.lines.map((line, i) =>
      h('li', {}, h('code', { textContent: line }), h('span', { className: 'where', textContent: placesOf(described, i) }))));
  }
}
