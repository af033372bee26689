// Controls for walking a process step by step (◀ back, next ▶ and a slider over the steps), and a
// list of numbered choices (layer 1 … L, head 1 … h); shared by the widgets that decode token by token.
import { slider } from './slider';

export interface Stepper {
  /** the two buttons and the slider, marked as the `step` control */
  elements: HTMLElement[];
  /** shows `value` of at most `max` steps; the buttons stop at the ends */
  set(value: number, max: number): void;
}

/** `next`: the forward button's label ("next token ▶"); onStep gets the step asked for (≥ 0) */
export function stepper(options: { label: string; next: string; max: number; onStep: (value: number) => void }): Stepper {
  let current = 0;
  const button = (text: string, delta: number) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = text;
    b.addEventListener('click', () => options.onStep(Math.max(0, current + delta)));
    return b;
  };
  const back = button('◀ back', -1);
  const next = button(options.next, +1);
  const range = slider({ label: options.label, min: 0, max: options.max, step: 1, value: 0, onInput: options.onStep });
  const input = range.element.querySelector('input')!;
  back.dataset.control = next.dataset.control = range.element.dataset.control = 'step';
  return {
    elements: [back, next, range.element],
    set(value, max) {
      current = value;
      input.max = String(max);
      range.set(value);
      back.disabled = value === 0;
      next.disabled = value >= max;
    },
  };
}

export interface NumberedSelect {
  element: HTMLSelectElement;
  /** offers `name 1` … `name count` (values 0 … count − 1) with `value` chosen */
  set(count: number, value: number): void;
}

/** a select of numbered things, marked as the control of setting `control` */
export function numberedSelect(name: string, control: string, onChange: (value: number) => void): NumberedSelect {
  const element = document.createElement('select');
  element.setAttribute('aria-label', name);
  element.dataset.control = control;
  element.addEventListener('change', () => onChange(Number(element.value)));
  return {
    element,
    set(count, value) {
      element.replaceChildren(...Array.from({ length: count }, (_, i) => new Option(`${name} ${i + 1}`, String(i))));
      element.value = String(value);
    },
  };
}
