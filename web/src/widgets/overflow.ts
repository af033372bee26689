// <attn-overflow>: why the softmax subtracts the row's maximum. A row of logits, scaled by a
// factor, goes through softmax twice in float32, both times in the engine: naively,
// exp(zᵢ)/Σⱼ exp(zⱼ), which overflows to ∞ and then NaN once a logit passes ln(FLT_MAX) ≈ 88.72,
// and max-subtracted, as attention computes it, which stays exact. The logits are drawn on a line
// with float32's threshold (and float16's, ln 65504), so the largest can be seen crossing it.
// Settings: logits (numbers separated by spaces), scale (the factor on every logit).
import type { SoftmaxForms, SoftmaxTerms } from '../engine/index';
import type { RemoteEngine } from '../runtime/engine';
import { formatNumber, formatSignificant, subscript } from '../math/format';
import { formatMagnitude } from '../math/magnitude';
import { readVector } from '../math/norms';
import { niceTicks } from '../math/ticks';
import { CANVAS_FONT, foreground, sharpCanvas } from '../primitives/canvas';
import { h } from '../primitives/controls';
import { SERIES_COLOURS } from '../primitives/plot';
import { ScreenReaderTable } from '../primitives/screen-reader-table';
import { EngineElement } from '../runtime/engine-element';

const styles = `
.toolbar input[type="text"] { width: 12em; font-variant-numeric: tabular-nums; }
.toolbar input[type="range"] { width: 170px; }
.toolbar output { min-width: 2.4em; }
.verdict { margin: 0 0 4px; font-size: 15px; min-height: 2.9em; }
.verdict strong.over { color: var(--bad); }
.verdict strong.fits { color: var(--good); }
table.terms { border-collapse: collapse; font-size: 14px; font-variant-numeric: tabular-nums; margin: 6px 0 6px; }
.scroll { max-width: 100%; overflow-x: auto; }
table.terms th, table.terms td { padding: 2px 9px; text-align: right; border-bottom: 1px solid var(--border); white-space: nowrap; }
table.terms thead th { font-weight: 600; }
table.terms th.form { text-align: center; font-weight: 600; border-bottom: 2px solid var(--swatch); white-space: normal; }
table.terms th.form small { display: block; font-weight: 400; color: var(--muted); font-size: 14px; }
table.terms tr.sum td, table.terms tr.sum th { border-bottom: 0; color: var(--muted); }
table.terms td.bad { color: var(--bad); font-weight: 700; }
.note { margin: 2px 0 0; font-size: 14px; color: var(--muted); max-width: 44em; }
@media (max-width: 799px) { table.terms { font-size: 14px; } table.terms th, table.terms td { padding: 2px 3px; } table.terms th, table.terms td { white-space: normal; } }
`;

/** the two forms, as the table heads them */
const FORMS = [
  { key: 'naive', name: 'naive', formula: 'exp(zᵢ) / Σⱼ exp(zⱼ), never used by attention', colour: SERIES_COLOURS.vermillion },
  { key: 'maxSubtracted', name: 'max subtracted', formula: 'exp(zᵢ − m) / Σⱼ exp(zⱼ − m), as the engine computes it', colour: SERIES_COLOURS.blue },
] as const;
/** the number line's size: narrow enough to keep its 12 px labels at a phone's width */
const LINE = { width: 360, height: 78 };

/** whether a form's weights are wrong: its sum overflowed or underflowed, so none of them is right */
const broken = (t: SoftmaxTerms) => !Number.isFinite(t.sum) || t.sum === 0;

export default class Overflow extends EngineElement {
  private readonly logits = this.bound.text('logits', { commit: 'change' });
  private readonly scale = this.bound.slider('scale', { format: (s) => formatNumber(s, 1) });
  private readonly verdict = h('p', { className: 'verdict', attrs: { 'aria-live': 'polite' } });
  private readonly line = sharpCanvas('the logits on a number line, with the points past which exp overflows float32 and float16');
  private readonly terms = h('table', { className: 'terms', attrs: { 'aria-hidden': 'true' } });
  private readonly numbers = new ScreenReaderTable();
  private readonly note = h('p', 'note');
  private readonly results = h('div');

  constructor() {
    super(styles, 'the largest logit is past float32’s threshold: the naive column is ∞ and NaN, the engine’s is exact; lower the scale below it and the two agree.');
  }

  protected override layout(): HTMLElement {
    this.results.append(this.verdict, this.line.canvas, h('div', 'scroll', this.terms), this.numbers.element, this.note);
    return h('div', {}, h('div', 'toolbar', this.logits.element, this.scale.element), this.results);
  }

  protected async render(engine: RemoteEngine): Promise<void> {
    // the controls stay, to correct a row the widget refuses
    this.results.hidden = true;
    const scores = readVector(this.value<string>('logits'));
    const forms = await engine.softmaxForms({ scores, scale: this.value<number>('scale') });
    this.results.hidden = false;
    this.say(forms);
    this.drawLine(forms);
    this.fillTerms(forms);
    const { float16 } = forms.overflowAbove;
    this.note.textContent = `Half precision gives up far sooner: float16's largest number is ${formatSignificant(Math.exp(float16), 5)}, ` +
      `so its exp overflows past ln ${formatSignificant(Math.exp(float16), 5)} = ${formatNumber(float16, 2)}. ` +
      'Mixed-precision training keeps the softmax max-subtracted, often in float32.';
  }

  /** what happened to the naive form, in one sentence */
  private say({ logits, naive, overflowAbove }: SoftmaxForms): void {
    const largest = Math.max(...logits);
    const limit = `${formatNumber(overflowAbove.float32, 2)} = ln ${formatSignificant(Math.exp(overflowAbove.float32), 5)}, the largest float32`;
    const overflowed = naive.exps.findIndex((e) => e === Infinity);
    const [tone, headline, rest] = overflowed >= 0
      ? ['over', `exp(${formatNumber(logits[overflowed]!, 2)}) = ∞`,
        ` in float32: the logit is past ${limit}. The naive sum is ∞, so each overflowed weight is ∞/∞ = NaN and every other e/∞ = 0.`]
      : naive.sum === Infinity
        ? ['over', 'the sum overflows', ` although no exp does (each is below ${limit}): every naive weight is 0, wrong without a NaN to warn.`]
        : naive.sum === 0
          ? ['over', 'every exp underflows to 0', ': the naive weights are 0/0 = NaN.']
          : ['fits', `largest logit ${formatNumber(largest, 2)}`, ` ≤ ${limit}: no exp overflows.`];
    this.verdict.replaceChildren(h('strong', { className: tone, textContent: headline }), rest);
  }

  /** the logits on a line, with float32's and float16's thresholds */
  private drawLine({ logits, overflowAbove }: SoftmaxForms): void {
    const values = Array.from(logits);
    const ticks = niceTicks(Math.min(0, ...values), Math.max(100, ...values), false, 8);
    const [lo, hi] = [ticks[0]!, ticks[ticks.length - 1]!];
    const pad = { left: 14, right: 14 };
    const axis = 44;
    const thresholds = [
      { at: overflowAbove.float32, text: `float32: ${formatNumber(overflowAbove.float32, 2)}`, colour: SERIES_COLOURS.vermillion, dash: [] },
      { at: overflowAbove.float16, text: `float16: ${formatNumber(overflowAbove.float16, 2)}`, colour: SERIES_COLOURS.orange, dash: [4, 3] },
    ];
    this.line.draw(LINE.width, LINE.height, (g, width) => {
      const x = (v: number) => pad.left + ((v - lo) / (hi - lo)) * (width - pad.left - pad.right);
      const fg = foreground(this);
      g.font = CANVAS_FONT;
      g.strokeStyle = fg;
      g.fillStyle = fg;
      g.lineWidth = 1;
      g.beginPath();
      g.moveTo(x(lo), axis + 0.5);
      g.lineTo(x(hi), axis + 0.5);
      g.stroke();
      g.textAlign = 'center';
      g.textBaseline = 'top';
      for (const t of ticks) {
        g.fillRect(Math.round(x(t)), axis, 1, 4);
        g.fillText(formatNumber(t, 0), x(t), axis + 7);
      }
      // past a threshold, exp overflows that format: the lines, and their names above the axis on
      // rows of their own (a long axis brings them close)
      g.textBaseline = 'bottom';
      for (const [k, t] of thresholds.entries()) {
        const top = 13 + 13 * k;
        g.strokeStyle = t.colour;
        g.fillStyle = t.colour;
        g.setLineDash(t.dash);
        g.lineWidth = 2;
        g.beginPath();
        g.moveTo(x(t.at), top - 11);
        g.lineTo(x(t.at), axis + 4);
        g.stroke();
        g.setLineDash([]);
        // the name right of its line, or left of it where it would leave the picture
        const right = x(t.at) + 4 + g.measureText(t.text).width <= width;
        g.textAlign = right ? 'left' : 'right';
        g.fillText(t.text, x(t.at) + (right ? 4 : -4), top);
      }
      // the logits, red past float32's threshold
      for (const z of values) {
        g.fillStyle = z > overflowAbove.float32 ? SERIES_COLOURS.vermillion : SERIES_COLOURS.blue;
        g.beginPath();
        g.arc(x(z), axis - 9, 5, 0, 2 * Math.PI);
        g.fill();
      }
      g.fillStyle = fg;
      g.textAlign = 'right';
      g.textBaseline = 'top';
      g.fillText('logit z', width - pad.right, axis + 20);
    }, { min: 280 });
  }

  /** both forms' terms, ∞ and NaN as they came; the exact numbers in the screen-reader table */
  private fillTerms(forms: SoftmaxForms): void {
    const n = forms.logits.length;
    const cell = (v: number, bad: boolean) => h('td', { className: bad ? 'bad' : '', textContent: formatMagnitude(v, 3) });
    const heads = FORMS.map((f) => h('th', {
      className: 'form', attrs: { colspan: '2', style: `--swatch: ${f.colour}` },
    }, f.name, h('small', { textContent: f.formula })));
    const m = forms.maxSubtracted.shift;
    this.terms.replaceChildren(
      h('thead', {},
        h('tr', {}, h('th'), ...heads),
        h('tr', {}, ...['zᵢ', 'exp(zᵢ)', 'aᵢ', `exp(zᵢ − ${formatNumber(m, 2)})`, 'aᵢ'].map((text) => h('th', { textContent: text })))),
      h('tbody', {},
        ...Array.from({ length: n }, (_, i) => h('tr', {},
          h('th', { textContent: formatNumber(forms.logits[i]!, 2) }),
          ...FORMS.flatMap((f) => {
            const t = forms[f.key];
            return [cell(t.exps[i]!, !Number.isFinite(t.exps[i]!)), cell(t.weights[i]!, broken(t) || !Number.isFinite(t.weights[i]!))];
          }))),
        h('tr', { className: 'sum' }, h('th', { textContent: 'Σ' }),
          ...FORMS.flatMap((f) => [cell(forms[f.key].sum, broken(forms[f.key])), h('td')]))));
    this.numbers.fill({
      caption: `softmax of ${n} logits in float32, naive and max subtracted (m = ${formatNumber(m, 2)})`,
      head: ['', 'logit z', 'naive exp(z)', 'naive weight', 'exp(z − m)', 'max-subtracted weight'],
      rows: [
        ...Array.from({ length: n }, (_, i) => [`z${subscript(i + 1)}`, forms.logits[i]!,
          ...FORMS.flatMap((f) => [forms[f.key].exps[i]!, forms[f.key].weights[i]!])] as [string, ...number[]]),
        ['sum', '', forms.naive.sum, '', forms.maxSubtracted.sum, ''],
      ],
      // nine significant digits: a float32 read back exactly
      format: (v) => formatSignificant(v, 9),
    });
  }
}
