// Keys that belong to a control: typing into a field (arrows move the caret or a slider), Space and
// Enter pressing a button. A deck, ours or a host's (reveal.js, any page), must not act on them;
// Escape stays the deck's, so a reader can always leave.
function isEditable(target: EventTarget): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  return target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement;
}

export function keyBelongsToControl(e: KeyboardEvent): boolean {
  if (e.key === 'Escape') return false;
  const origin = e.composedPath()[0] ?? e.target;
  if (!origin) return false;
  return isEditable(origin) || ((e.key === ' ' || e.key === 'Enter') && origin instanceof HTMLButtonElement);
}
