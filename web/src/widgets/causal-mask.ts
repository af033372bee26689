// <attn-causal-mask>: the causal mask of the shipped sorting model (a decoder) and what it
// guarantees. The reader changes one token; the engine runs the model on the letters before and
// after the change, and the widget compares the two outputs position by position: with the mask,
// every position before the change is bit-for-bit the same; without it, they all move.
// Settings: text (letters a–z), mask (on/off), position (0-based) and letter of the change.
import { pageModel, type RemoteEngine } from '../runtime/engine';
import { LETTERS } from '../runtime/registry';
import type { MatrixData } from '../engine/index';
import { formatNumber, formatSignificant } from '../math/format';
import { at, largestDifference, row } from '../math/matrix';
import { CANVAS_FONT, foreground, sharpCanvas, themeColours } from '../primitives/canvas';
import { css, MASK_OPEN, textOn } from '../math/colormap';
import { h } from '../primitives/controls';
import { term } from '../primitives/glossary';
import { EngineElement } from '../runtime/engine-element';
import { ScreenReaderTable } from '../primitives/screen-reader-table';

const styles = `
.toolbar input[type="text"] { width: 11em; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
.main { display: flex; flex-wrap: wrap; gap: 22px; align-items: flex-start; }
.main h4 { margin: 0 0 4px; font-size: 14px; font-weight: 600; }
table.positions { border-collapse: collapse; font-size: 14px; line-height: 1.35; font-variant-numeric: tabular-nums; }
table.positions th, table.positions td { padding: 1px 8px; text-align: right; border-bottom: 1px solid var(--border); white-space: nowrap; }
table.positions td.token { text-align: center; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
table.positions tr.earlier td { background: var(--panel); }
table.positions tr.edited td { font-weight: 700; }
.same { color: var(--good); font-weight: 600; }
.moved { color: var(--bad); font-weight: 600; }
.caption { margin: 4px 0 0; max-width: 300px; }
.verdict { margin: 0 0 10px; font-size: 16px; font-weight: 600; min-height: 1.45em; }
`;

/** the trace entry holding the first head's scores after the mask */
const MASKED = 'layer0.attn.head0.masked';

export default class CausalMask extends EngineElement {
  private readonly maskPicture = sharpCanvas('the causal mask M: 0 where a query may look, −∞ where it may not');
  private readonly text = this.bound.text('text');
  private readonly mask = this.bound.toggle('mask', (on) => `causal mask: ${on ? 'on' : 'off'}`);
  private readonly position = this.bound.choices<number>('position', { select: true });
  private readonly letter = this.bound.choices<string>('letter', { select: true });
  private readonly maskTable = new ScreenReaderTable();
  private readonly rows = h('tbody');
  private readonly verdict = h('p', { className: 'verdict', attrs: { 'aria-live': 'polite' } });

  constructor() {
    super(styles, 'with the mask, each position before the change stays identical (max |Δ| = 0); without, they move.');
  }

  protected async render(_engine: RemoteEngine): Promise<void> {
    const model = await pageModel('sort');
    const letters = [...this.value<string>('text').toLowerCase()].filter((c) => LETTERS.includes(c));
    if (letters.length < 2) throw new Error('Type two or more letters a–z.');
    const masked = this.value<boolean>('mask');
    const position = Math.min(this.value<number>('position'), letters.length - 1);
    const letter = this.value<string>('letter');
    const edited = letters.map((c, i) => (i === position ? letter : c));
    // the letters as read, and only the positions they have
    this.text.set(letters.join(''));
    this.position.offer(letters.map((c, i) => ({ value: i, text: `${i + 1}: ${c}` })));
    this.position.set(position);

    const [before, after] = await Promise.all([letters, edited].map(async (text) => (await model.tokenize(text.join(''))).ids));
    const [old, changed] = await Promise.all([
      model.forward({ tokens: before, causal: masked }),
      model.forward({ tokens: after, causal: masked, trace: [MASKED] }),
    ]);
    this.drawMask(changed.trace![MASKED], edited, position);

    // the largest change of any logit at each position
    const shift = letters.map((_, i) => largestDifference(row(changed.logits, i), row(old.logits, i)));
    this.rows.replaceChildren(...letters.map((c, i) => {
      const same = shift[i] === 0;
      return h('tr', i < position ? 'earlier' : i === position ? 'edited' : '',
        h('td', { textContent: String(i + 1) }),
        h('td', { className: 'token', textContent: c === edited[i] ? c : `${c} → ${edited[i]}` }),
        h('td', { textContent: same ? '0' : formatSignificant(shift[i], 3) }),
        h('td', { className: same ? 'same' : 'moved', textContent: same ? 'identical' : 'changed' }));
    }));
    const largest = Math.max(0, ...shift.slice(0, position));
    const span = position === 1 ? 'Position 1' : `Positions 1–${position}`;
    this.verdict.className = position === 0 ? 'verdict' : `verdict ${largest === 0 ? 'same' : 'moved'}`;
    this.verdict.textContent = position === 0 ? 'The first position has no earlier positions: change a later one.'
      : largest === 0 ? `${span}, before the change: identical, max |Δ| = 0 exactly.`
        : `${span}, before the change: changed, max |Δ| = ${formatSignificant(largest, 3)}. They saw the future.`;
  }

  /** M as the engine applied it: −∞ where the first head's masked scores are −∞, else 0 */
  private drawMask(maskedScores: MatrixData, tokens: string[], position: number): void {
    const n = tokens.length;
    const label = 18;
    const cell = Math.min(40, Math.floor(300 / n));
    const size = label + n * cell;
    const isMasked = (i: number, j: number) => at(maskedScores, i, j) === -Infinity;
    const canvas = this.maskPicture.canvas;
    this.maskPicture.draw(size + 2, size + 2, (g) => {
      const style = getComputedStyle(canvas);
      const fg = foreground(canvas);
      const accent = style.getPropertyValue('--accent').trim() || fg;
      const muted = style.getPropertyValue('--muted').trim() || fg;
      const colours = themeColours(canvas);
      const open = colours.sequential(MASK_OPEN);
      g.font = CANVAS_FONT;
      g.textAlign = 'center';
      g.textBaseline = 'middle';
      for (let i = 0; i < n; i++) {
        g.fillStyle = fg;
        g.fillText(tokens[i], label + (i + 0.5) * cell, label / 2);
        g.fillText(tokens[i], label / 2, label + (i + 0.5) * cell);
        for (let j = 0; j < n; j++) {
          const x = label + j * cell;
          const y = label + i * cell;
          const hidden = isMasked(i, j);
          // every mask's colours: an open cell as attention that may flow, a closed one the background it gets
          g.fillStyle = css(hidden ? colours.sequential(0) : open);
          g.fillRect(x + 0.5, y + 0.5, cell - 1, cell - 1);
          // small cells hold no text: the colour and the caption say it
          if (cell < 22) continue;
          g.fillStyle = hidden ? muted : textOn(open);
          g.fillText(hidden ? '−∞' : '0', x + cell / 2, y + cell / 2 + 0.5);
        }
      }
      // the changed token's column: the positions above the diagonal cannot see it
      g.strokeStyle = accent;
      g.lineWidth = 2;
      g.strokeRect(label + position * cell + 1, label + 1, cell - 2, n * cell - 2);
    });
    this.maskTable.fill({
      head: ['query \\ key', ...tokens],
      rows: tokens.map((token, i) => [token, ...tokens.map((_, j) => (isMasked(i, j) ? '−∞' : 0))] as [string, ...(string | number)[]]),
      format: (v) => formatNumber(v, 0),
    });
  }

  protected override layout(): HTMLElement[] {
    const th = (text: string) => h('th', { textContent: text });
    return [
      h('div', 'toolbar', this.text.element, this.mask.element, this.position.element, this.letter.element),
      this.verdict,
      h('div', 'main',
        h('div', {}, h('h4', { textContent: 'M in the model (rows: queries, columns: keys)' }), this.maskPicture.canvas,
          h('p', 'muted caption', 'Blue cells: 0, the ', term('query', 'query'), ' may see that ', term('key', 'key'),
            '; empty cells: −∞, it cannot (its weight is 0). Outlined: the changed ', term('token', 'token'), '’s column.'),
          this.maskTable.element),
        h('div', {}, h('h4', { textContent: 'Each position’s logits, after vs before the change' }),
          h('table', 'positions', h('thead', {}, h('tr', {}, th('position'), th('token'), th('max |Δ logit|'), th(''))), this.rows))),
    ];
  }
}
