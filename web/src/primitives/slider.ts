// A labelled range slider that shows its value; the one slider every widget uses.

export interface SliderOptions {
  label: string;
  min: number;
  max: number;
  step: number;
  value: number;
  format?: (value: number) => string;
  onInput: (value: number) => void;
}

export function slider(options: SliderOptions): { element: HTMLLabelElement; set(value: number): void } {
  const element = document.createElement('label');
  element.className = 'control';
  const name = document.createElement('span');
  name.textContent = options.label;
  const input = document.createElement('input');
  input.type = 'range';
  input.min = String(options.min);
  input.max = String(options.max);
  input.step = String(options.step);
  input.value = String(options.value);
  input.setAttribute('aria-label', options.label);
  const shown = document.createElement('output');
  const format = options.format ?? String;
  shown.textContent = format(options.value);
  input.addEventListener('input', () => {
    const value = Number(input.value);
    shown.textContent = format(value);
    options.onInput(value);
  });
  element.append(name, input, shown);
  return {
    element,
    set(value: number) {
      input.value = String(value);
      shown.textContent = format(value);
    },
  };
}
