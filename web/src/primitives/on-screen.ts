// Whether a widget is on screen: the one definition that canvases, screen-reader tables and
// background jobs share. On screen means near the viewport (an IntersectionObserver's word, within
// 200 px, which costs no layout), on the slide shown, in a visible tab. A deck that hides its other
// slides with display: none is seen by the observer alone; one that hides them with visibility is
// not, so the widgets near the viewport are looked at again whenever the page says a slide was
// shown ("attn-redraw") and when the tab is shown or hidden. Only those few are asked
// (checkVisibility): asking the widgets of hidden slides would make the browser work out their
// styles and layout. (aria-hidden is no sign: on a phone the deck shows its slides one under
// another, all but one aria-hidden.) A part of a widget (a canvas, a screen-reader table) counts as
// on screen when its widget does: a part clipped by a scrolling box of the widget is still drawn,
// ready for the moment it is scrolled to.

/** the widgets the observer last reported near the viewport */
const near = new Set<Element>();
/** the widgets on screen */
const shown = new WeakSet<Element>();
/** the widgets the observer has spoken of at least once */
const seen = new WeakSet<Element>();
const listeners = new Set<(left: readonly Element[]) => void>();
const watchers = new WeakMap<Element, Set<(onScreen: boolean) => void>>();

/** near the viewport and neither on a hidden slide nor in a hidden tab */
function showing(widget: Element): boolean {
  return near.has(widget) && widget.isConnected && document.visibilityState === 'visible'
    && (widget.checkVisibility?.({ visibilityProperty: true }) ?? true);
}

/** Looks at `widgets` again and tells of those that came or left; `reported`: the observer spoke
 * (the listeners hear of it even when nothing changed: a widget seen for the first time settles) */
function review(widgets: Iterable<Element>, reported = false): void {
  const left: Element[] = [];
  const changed: Element[] = [];
  for (const widget of widgets) {
    const now = showing(widget);
    if (now === shown.has(widget)) continue;
    changed.push(widget);
    if (now) shown.add(widget);
    else {
      shown.delete(widget);
      left.push(widget);
    }
  }
  if (!reported && changed.length === 0) return;
  for (const listener of listeners) listener(left);
  for (const widget of changed) for (const watch of watchers.get(widget) ?? []) watch(shown.has(widget));
}

const observer = typeof IntersectionObserver === 'undefined' ? undefined : new IntersectionObserver((entries) => {
  for (const entry of entries) {
    seen.add(entry.target);
    if (entry.isIntersecting) near.add(entry.target);
    else near.delete(entry.target);
  }
  review(entries.map((entry) => entry.target), true);
  // the page's own viewport: a page in an iframe (an embedded widget) draws wherever the host scrolls it
}, { root: document, rootMargin: '200px' });

if (observer) {
  // a slide shown (or the page resized), and a tab shown or hidden: nothing the observer reports
  addEventListener('attn-redraw', () => review([...near]));
  document.addEventListener('visibilitychange', () => review([...near]));
}

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

/** calls `listener` whenever the observer reports or a widget comes or leaves, with the widgets that left */
export function whenScreenChanges(listener: (left: readonly Element[]) => void): void {
  listeners.add(listener);
}

/** Calls `watch` whenever `widget` comes on screen (true) or leaves it (false), until the returned
 * function is called. */
export function watchScreen(widget: Element, watch: (onScreen: boolean) => void): () => void {
  observer?.observe(widget);
  const set = watchers.get(widget) ?? new Set();
  watchers.set(widget, set.add(watch));
  return () => set.delete(watch);
}
