// Keys that belong to a control: typing into a field (arrows move the caret or a slider), Space and
// Enter pressing a button. A deck, ours or a host's (reveal.js, any page), must not act on them;
// Escape stays the deck's, so a reader can always leave. A pointer that has used a control hands the
// keyboard back to the page, and a widget inside an iframe passes the keys it does not use to the
// page around it: in a lecturer's deck the arrow keys always move the slides.
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

/** input types a reader types into (the rest are picked with the pointer: sliders, boxes, buttons) */
const PICKED = new Set(['range', 'checkbox', 'radio', 'button', 'submit', 'reset', 'color', 'file', 'image']);

function takesTyping(element: Element): boolean {
  if (element instanceof HTMLElement && element.isContentEditable) return true;
  if (element instanceof HTMLTextAreaElement) return true;
  return element instanceof HTMLInputElement && !PICKED.has(element.type);
}

/** the focused element, inside shadow roots too */
function deepActiveElement(): Element | null {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}

const isWidget = (target: EventTarget) => target instanceof HTMLElement && target.localName.startsWith('attn-');

/** After the pointer used a control of a widget that takes no typing (a button, a slider, a box, an
 * option picked from a list), the focus leaves it, so the page's keys (a deck's arrows, Space) work
 * again at once. A field being typed into keeps the focus and its keys; the keyboard alone (Tab, then
 * arrows on a slider) is never interrupted. */
export function handFocusBackAfterPointer(scope: EventTarget = document): void {
  const release = (e: Event) => {
    if (!e.composedPath().some(isWidget)) return;
    // after the click or change this pointer makes
    setTimeout(() => {
      const focused = deepActiveElement();
      if (!(focused instanceof HTMLElement) || takesTyping(focused)) return;
      // a list opened by the pointer stays open until an option is picked ("input" below)
      if (focused instanceof HTMLSelectElement && e.type === 'pointerup') return;
      focused.blur();
    });
  };
  scope.addEventListener('pointerup', release);
  // "input" crosses shadow roots ("change" does not): an option picked from a list
  scope.addEventListener('input', (e) => {
    if (e.composedPath()[0] instanceof HTMLSelectElement) release(e);
  });
}

/** what an embedded page tells the page around it about a key it did not use */
export interface ForwardedKey {
  type: 'attnlab:keydown';
  key: string;
  code: string;
  keyCode: number;
  shiftKey: boolean;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
}

export function isForwardedKey(data: unknown): data is ForwardedKey {
  const d = data as Partial<ForwardedKey> | null;
  return typeof d === 'object' && d !== null && d.type === 'attnlab:keydown' && typeof d.key === 'string'
    && typeof d.code === 'string' && Number.isInteger(d.keyCode);
}

/** In an iframe, the keys no control of this page uses are posted to the page around it (which a
 * reveal.js deck with attnlab/reveal turns into its own key presses). */
export function forwardKeysToHost(): void {
  if (window.parent === window) return;
  addEventListener('keydown', (e) => {
    if (e.defaultPrevented || keyBelongsToControl(e)) return;
    const { key, code, keyCode, shiftKey, altKey, ctrlKey, metaKey } = e;
    const message: ForwardedKey = { type: 'attnlab:keydown', key, code, keyCode, shiftKey, altKey, ctrlKey, metaKey };
    window.parent.postMessage(message, '*');
  });
}

/** the key an embedded page forwarded, as a keydown event at its iframe, which bubbles to the page's
 * own key handlers (keyCode too, which reveal.js reads) */
export function replayForwardedKey(frame: HTMLIFrameElement, key: ForwardedKey): void {
  const { type: _, keyCode, ...init } = key;
  const event = new KeyboardEvent('keydown', { ...init, bubbles: true, cancelable: true, composed: true });
  Object.defineProperty(event, 'keyCode', { value: keyCode });
  Object.defineProperty(event, 'which', { value: keyCode });
  frame.dispatchEvent(event);
}
