// A labelled one-line text input for a sentence; `onCommit` gets the text (lone surrogates
// replaced) when the reader presses Enter or leaves the field.
import { wellFormed } from '../math/text';

export function sentenceInput(onCommit: (text: string) => void): { label: HTMLLabelElement; input: HTMLInputElement } {
  const label = document.createElement('label');
  label.className = 'control';
  label.textContent = 'sentence';
  const input = document.createElement('input');
  input.type = 'text';
  input.maxLength = 200;
  input.spellcheck = false;
  input.addEventListener('change', () => onCommit(wellFormed(input.value)));
  label.append(input);
  return { label, input };
}
