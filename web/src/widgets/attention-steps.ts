// <attn-attention-steps>: the slide deck's worked example, computed by the engine one stage at a
// time. Attributes: causal, unscaled (booleans), query (highlighted row), step (0–5).
import { DECK_EXAMPLE } from '../app/seminar';
import type { Engine, MatrixData } from '../engine/index';
import { formatNumber } from '../math/format';
import { at } from '../math/matrix';
import { EngineElement } from '../primitives/engine-element';
import { matrixTable, matrixTableStyles } from '../primitives/matrix-table';

const STAGES = ['Project', 'Scores', 'Scale', 'Mask', 'Softmax', 'Mix'] as const;

const styles = `${matrixTableStyles}
.controls { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 8px 0 14px; }
.stages { display: inline-flex; gap: 4px; flex-wrap: wrap; }
.stage { margin: 14px 0 0; }
.stage h4 { margin: 0 0 6px; font-size: 14px; font-weight: 600; }
.summary { margin-top: 12px; }
`;

export class AttentionSteps extends EngineElement {
  static readonly observedAttributes = ['causal', 'unscaled', 'query', 'step'];

  constructor() {
    super(styles);
  }

  protected render(engine: Engine): Node {
    const ex = DECK_EXAMPLE;
    const causal = this.hasAttribute('causal');
    const scaled = !this.hasAttribute('unscaled');
    const query = this.intAttribute('query', 0, 0, ex.x.rows - 1);
    const step = this.intAttribute('step', STAGES.length - 1, 0, STAGES.length - 1);
    const result = engine.attention({
      x: ex.x.data, n: ex.x.rows, d: ex.x.cols,
      wQ: ex.wQ.data, wK: ex.wK.data, wV: ex.wV.data, dK: ex.wQ.cols, dV: ex.wV.cols,
      mask: causal ? 'causal' : 'none', scaled,
    });
    const head = result.heads[0] as Required<typeof result.heads[0]>;
    const t = { ...head, scale: result.scale } as Record<'q' | 'k' | 'v' | 'scores' | 'scaled' | 'masked' | 'weights' | 'output', MatrixData> & { scale: number };
    const tokens = ex.tokens;
    const selectQuery = (row: number) => {
      this.setAttribute('query', String(row));
      this.announce({ query: row });
    };

    const root = document.createElement('div');
    const equation = document.createElement('div');
    equation.className = 'eq';
    equation.textContent = `Attention(Q, K, V) = softmax(QKᵀ${scaled ? ' / √d_k' : ''}${causal ? ' + M' : ''}) · V`;
    root.append(equation, this.controls(causal, scaled, step));

    const inputs = document.createElement('div');
    inputs.className = 'row';
    inputs.append(
      matrixTable(ex.x, { label: 'X (tokens)', tint: 'plain', decimals: 0, rowLabels: tokens }),
      matrixTable(ex.wQ, { label: 'W_Q', tint: 'plain', decimals: 0 }),
      matrixTable(ex.wK, { label: 'W_K', tint: 'plain', decimals: 0 }),
      matrixTable(ex.wV, { label: 'W_V', tint: 'plain', decimals: 0 }),
    );
    root.append(inputs);

    const stage = (index: number, title: string, ...tables: HTMLElement[]) => {
      if (index > step) return;
      const section = document.createElement('section');
      section.className = 'stage';
      section.dataset.stage = STAGES[index].toLowerCase();
      const h = document.createElement('h4');
      h.textContent = `${index + 1}. ${title}`;
      const row = document.createElement('div');
      row.className = 'row';
      row.append(...tables);
      section.append(h, row);
      root.append(section);
    };
    const keys = { rowLabels: tokens, colLabels: tokens };
    stage(0, 'Project the tokens', matrixTable(t.q, { label: 'Q = X·W_Q', rowLabels: tokens }),
      matrixTable(t.k, { label: 'K = X·W_K', rowLabels: tokens }),
      matrixTable(t.v, { label: 'V = X·W_V', rowLabels: tokens }));
    stage(1, 'Compare every query with every key', matrixTable(t.scores, { label: 'QKᵀ', ...keys }));
    stage(2, scaled ? `Scale by 1/√d_k = ${formatNumber(t.scale, 4)}` : 'Scaling switched off (factor 1)',
      matrixTable(t.scaled, { label: scaled ? 'QKᵀ/√d_k' : 'QKᵀ', ...keys }));
    stage(3, causal ? 'Hide future keys (M = −∞ above the diagonal)' : 'No mask (M = 0)',
      matrixTable(t.masked, { label: causal ? 'scaled + M' : 'scaled', ...keys }));
    stage(4, 'Softmax each row: the attention weights',
      matrixTable(t.weights, { label: 'A (click a row)', tint: 'weights', decimals: 4, ...keys,
        highlightRow: query, onRowClick: selectQuery }));
    stage(5, 'Mix the values', matrixTable(t.output, { label: 'output = A·V', decimals: 4, rowLabels: tokens }));

    if (step >= 4) {
      const summary = document.createElement('p');
      summary.className = 'summary';
      summary.dataset.testid = 'summary';
      const parts = tokens.map((name, j) => `${formatNumber(100 * at(t.weights, query, j), 1)}% on ${name}`);
      summary.textContent = `Token ${tokens[query]} puts ${parts.join(', ')}.`;
      root.append(summary);
    }
    return root;
  }

  private controls(causal: boolean, scaled: boolean, step: number): HTMLElement {
    const bar = document.createElement('div');
    bar.className = 'controls';
    const toggle = (label: string, on: boolean, attribute: string, announceAs: string, invert = false) => {
      const b = document.createElement('button');
      b.textContent = label;
      b.setAttribute('aria-pressed', String(on));
      b.addEventListener('click', () => {
        this.toggleAttribute(attribute);
        const value = invert ? !this.hasAttribute(attribute) : this.hasAttribute(attribute);
        this.announce({ [announceAs]: value });
      });
      return b;
    };
    bar.append(toggle('causal mask', causal, 'causal', 'causal'),
      toggle('scale by 1/√d_k', scaled, 'unscaled', 'scaled', true));
    const stages = document.createElement('span');
    stages.className = 'stages';
    stages.setAttribute('role', 'group');
    stages.setAttribute('aria-label', 'show stages up to');
    STAGES.forEach((name, i) => {
      const b = document.createElement('button');
      b.textContent = `${i + 1} ${name}`;
      b.setAttribute('aria-pressed', String(i === step));
      b.addEventListener('click', () => this.setAttribute('step', String(i)));
      stages.append(b);
    });
    bar.append(stages);
    return bar;
  }
}

customElements.get('attn-attention-steps') ?? customElements.define('attn-attention-steps', AttentionSteps);
