// The widgets' controls, and a small element builder. Each control carries data-control, the name
// the `controls` attribute and the reveal.js plugin know it by, and reports the reader's choice to
// one callback. Widgets bind them to their rows of the field table (the widget base class), so a
// label, a limit or a length is written once, in the table; nothing here knows the table.
import { wellFormed } from '../math/text';

type Child = Node | string | null | undefined | false;

/** what `h` sets on an element besides its children: any writable property (className, type,
 * textContent, title, hidden, value, onclick …), and attributes and data-* by name */
export type Props<E extends HTMLElement> = Partial<Omit<E, 'dataset' | 'style'>> & {
  attrs?: Record<string, string>;
  data?: Record<string, string>;
};

/** h('div', { className: 'bar' }, child, 'text') — an element with its properties and children;
 * a string for props is the class name */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K, props: Props<HTMLElementTagNameMap[K]> | string = {}, ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  const { attrs, data, ...properties } = typeof props === 'string' ? { className: props } as Props<HTMLElementTagNameMap[K]> : props;
  Object.assign(element, properties);
  for (const [name, value] of Object.entries(attrs ?? {})) element.setAttribute(name, value);
  Object.assign(element.dataset, data);
  element.append(...children.filter((c): c is Node | string => c !== null && c !== undefined && c !== false));
  return element;
}

/** a button that does `onClick` (type=button: never submits a form it may sit in) */
export function button(text: string, onClick: () => void, props: Props<HTMLButtonElement> = {}): HTMLButtonElement {
  return h('button', { type: 'button', textContent: text, onclick: onClick, ...props });
}

/** Shows the buttons marked true and hides the others; when the button the keyboard is on is
 * hidden, the first one shown takes the focus (Cancel hands it to Continue, Measure again to Cancel). */
export function showButtons(buttons: readonly (readonly [HTMLButtonElement, boolean])[]): void {
  const focused = (buttons[0]?.[0].getRootNode() as unknown as DocumentOrShadowRoot | undefined)?.activeElement;
  for (const [b, shown] of buttons) b.hidden = !shown;
  if (focused instanceof HTMLButtonElement && focused.hidden) buttons.find(([, shown]) => shown)?.[0].focus();
}

export interface Choice<V> {
  value: V;
  /** what the button or option shows */
  text: string;
  /** its accessible name, when the text alone does not say it ("layer 1" for "1") */
  label?: string;
}

/** choices 0 … count − 1 shown as numbers, each named "`name` i" */
export function numbered(count: number, name: string): Choice<number>[] {
  return Array.from({ length: count }, (_, i) => ({ value: i, text: String(i), label: `${name} ${i}` }));
}

/** A set of exclusive choices: its element, the choices it offers (rebuilt only when they change,
 * so a re-render keeps the focus) and the one marked chosen. */
export interface ChoiceControl<V> {
  readonly element: HTMLElement;
  offer(choices: readonly Choice<V>[]): void;
  set(value: V): void;
}

interface ChoiceOptions<V> {
  /** the group's name, shown before it and read by assistive technology */
  name: string;
  /** its data-control name */
  control: string;
  choices?: readonly Choice<V>[];
  onChoose: (value: V) => void;
}

const sameChoices = <V>(a: readonly Choice<V>[], b: readonly Choice<V>[]) =>
  a.length === b.length && a.every((c, i) => c.value === b[i].value && c.text === b[i].text && c.label === b[i].label);

/** a row of toggle buttons (role=group, aria-pressed on the chosen one) */
export function choiceButtons<V>({ name, control, choices = [], onChoose, showName = true }: ChoiceOptions<V> & { showName?: boolean }): ChoiceControl<V> {
  const element = h('div', { className: 'group', attrs: { role: 'group', 'aria-label': name }, data: { control } },
    showName && h('span', { className: 'name', textContent: name }));
  let offered: readonly Choice<V>[] = [];
  let buttons: HTMLButtonElement[] = [];
  let chosen: V | undefined;
  const control_: ChoiceControl<V> = {
    element,
    offer(next) {
      if (sameChoices(offered, next)) return;
      offered = next;
      buttons.forEach((b) => b.remove());
      buttons = next.map((c) => button(c.text, () => onChoose(c.value), c.label ? { attrs: { 'aria-label': c.label } } : {}));
      element.append(...buttons);
      if (chosen !== undefined) control_.set(chosen);
    },
    set(value) {
      chosen = value;
      buttons.forEach((b, i) => b.setAttribute('aria-pressed', String(offered[i].value === value)));
    },
  };
  control_.offer(choices);
  return control_;
}

/** a labelled drop-down of the same choices */
export function choiceSelect<V>({ name, control, choices = [], onChoose }: ChoiceOptions<V>): ChoiceControl<V> {
  const select = h('select', { attrs: { 'aria-label': name } });
  const element = h('label', { className: 'control', data: { control } }, h('span', { textContent: name }), select);
  let offered: readonly Choice<V>[] = [];
  let chosen: V | undefined;
  select.addEventListener('change', () => onChoose(offered[select.selectedIndex].value));
  const control_: ChoiceControl<V> = {
    element,
    offer(next) {
      if (sameChoices(offered, next)) return;
      offered = next;
      select.replaceChildren(...next.map((c) => h('option', { value: String(c.value), textContent: c.text, ...(c.label ? { label: c.label } : {}) })));
      if (chosen !== undefined) control_.set(chosen);
    },
    set(value) {
      chosen = value;
      select.selectedIndex = offered.findIndex((c) => c.value === value);
    },
  };
  control_.offer(choices);
  return control_;
}

export interface ToggleControl {
  readonly element: HTMLButtonElement;
  set(on: boolean): void;
}

/** a button that is pressed or not (aria-pressed); its text may follow its state */
export function toggle({ text, control, onToggle }: { text: string | ((on: boolean) => string); control: string; onToggle: (on: boolean) => void }): ToggleControl {
  let on = false;
  const element = button('', () => onToggle(!on), { data: { control } });
  const label = typeof text === 'function' ? text : () => text;
  const result = {
    element,
    set(value: boolean) {
      on = value;
      element.textContent = label(on);
      element.setAttribute('aria-pressed', String(on));
    },
  };
  result.set(false);
  return result;
}

export interface SliderControl {
  readonly element: HTMLLabelElement;
  /** the range input, for widgets that move it in steps of their own */
  readonly input: HTMLInputElement;
  set(value: number, max?: number): void;
}

export interface SliderOptions {
  label: string;
  control: string;
  min: number;
  max: number;
  step: number;
  /** how the value is shown beside the slider */
  format?: (value: number) => string;
  /** 'log2' / 'log10': the slider moves the exponent, in whole steps (the value is a power) */
  scale?: 'linear' | 'log2' | 'log10';
  onInput: (value: number) => void;
}

/** a labelled range slider that shows its value */
export function slider(options: SliderOptions): SliderControl {
  const base = options.scale === 'log2' ? 2 : options.scale === 'log10' ? 10 : undefined;
  const toSlider = (v: number) => (base ? Math.log(v) / Math.log(base) : v);
  const fromSlider = (s: number) => (base ? Number((base ** s).toPrecision(12)) : s);
  const format = options.format ?? String;
  const input = h('input', {
    type: 'range', min: String(toSlider(options.min)), max: String(toSlider(options.max)),
    step: String(base ? 1 : options.step), attrs: { 'aria-label': options.label },
  });
  const shown = h('output');
  input.addEventListener('input', () => {
    const value = fromSlider(Number(input.value));
    shown.textContent = format(value);
    options.onInput(value);
  });
  const element = h('label', { className: 'control', data: { control: options.control } }, h('span', { textContent: options.label }), input, shown);
  return {
    element,
    input,
    set(value, max) {
      if (max !== undefined) input.max = String(toSlider(max));
      input.value = String(toSlider(value));
      shown.textContent = format(value);
    },
  };
}

export interface TextControl {
  readonly element: HTMLLabelElement;
  readonly input: HTMLInputElement;
  /** shows `value` unless the reader is typing in the field */
  set(value: string): void;
}

/** a labelled one-line text field; `commit: 'input'` reports every key, 'change' on Enter or leaving;
 * what it reports is well formed (a lone surrogate, which no URL can hold, becomes U+FFFD) */
export function textField({ label, control, maxLength, commit = 'input', onText, props = {} }: {
  label: string; control: string; maxLength: number; commit?: 'input' | 'change'; onText: (text: string) => void; props?: Props<HTMLInputElement>;
}): TextControl {
  const input = h('input', { type: 'text', maxLength, spellcheck: false, attrs: { 'aria-label': label }, ...props });
  input.addEventListener(commit, () => onText(wellFormed(input.value)));
  const element = h('label', { className: 'control', data: { control } }, h('span', { textContent: label }), input);
  return {
    element,
    input,
    set(value) {
      // never under the reader's cursor: what they type may be clamped or cut on its way back
      if ((input.getRootNode() as unknown as DocumentOrShadowRoot).activeElement !== input) input.value = value;
    },
  };
}

export interface StepperControl {
  /** ◀ back, next ▶ and a slider over the steps, all marked as the same control */
  readonly elements: HTMLElement[];
  /** shows step `value` of at most `max`; the buttons stop at the ends */
  set(value: number, max: number): void;
}

/** controls to walk a process step by step; `next` labels the forward button ("next token ▶") */
export function stepper({ label, control, next, max, onStep }: {
  label: string; control: string; next: string; max: number; onStep: (value: number) => void;
}): StepperControl {
  let current = 0;
  const back = button('◀ back', () => onStep(Math.max(0, current - 1)), { data: { control } });
  const forward = button(next, () => onStep(current + 1), { data: { control } });
  const range = slider({ label, control, min: 0, max, step: 1, onInput: onStep });
  return {
    elements: [back, forward, range.element],
    set(value, most) {
      current = value;
      range.set(value, most);
      back.disabled = value === 0;
      forward.disabled = value >= most;
    },
  };
}
