// Whether a widget is on screen (its slide shown, the page scrolled near it), as an
// IntersectionObserver last said. Asking an element itself (checkVisibility, its box) would make
// the browser work out the styles and layout of the hidden slides the page holds. A part of a
// widget (a canvas, a screen-reader table) counts as on screen when its widget does: a part
// clipped by a scrolling box of the widget is still drawn, ready for the moment it is scrolled to.

/** the widgets on screen or near it */
const shown = new WeakSet<Element>();
/** the widgets the observer has spoken of at least once */
const seen = new WeakSet<Element>();
const listeners = new Set<(left: readonly Element[]) => void>();

const observer = typeof IntersectionObserver === 'undefined' ? undefined : new IntersectionObserver((entries) => {
  const left: Element[] = [];
  for (const entry of entries) {
    seen.add(entry.target);
    if (entry.isIntersecting) shown.add(entry.target);
    else {
      shown.delete(entry.target);
      left.push(entry.target);
    }
  }
  for (const listener of listeners) listener(left);
  // the page's own viewport: a page in an iframe (an embedded widget) draws wherever the host scrolls it
}, { root: document, rootMargin: '200px' });

/** the widget a part belongs to (the host of its shadow root), or the part itself outside one */
export function widgetOf(part: Element): Element {
  const root = part.getRootNode();
  return root instanceof ShadowRoot ? root.host : part;
}

/** Whether the part's widget is on screen: undefined until the observer has said (it is asked to
 * watch the widget from now on). Without an observer (an old browser), every part is. */
export function onScreen(part: Element): boolean | undefined {
  if (!observer) return true;
  const widget = widgetOf(part);
  observer.observe(widget);
  return seen.has(widget) ? shown.has(widget) : undefined;
}

/** calls `listener` whenever the observer reports, with the widgets that are off screen now */
export function whenScreenChanges(listener: (left: readonly Element[]) => void): void {
  listeners.add(listener);
}
