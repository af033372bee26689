// embed.html: one widget, full frame, for an iframe in someone's slides or page. The hash names
// the widget and its settings the way the deck's links do: "#explorer&xlayer=0&tok=2" shows
// <attn-explorer layer="0" token="2">. The hash follows the reader's changes (a link to this view),
// and a change of hash (the host moving the iframe to another view) sets the widget again. Keys the
// widget does not use go to the page around the iframe, so that a deck keeps its arrow keys.
import 'katex/dist/katex.min.css';
import './app/theme.css';
import { forwardKeysToHost, handFocusBackAfterPointer } from './primitives/keys';
import { attributesFor, decodeHash, encodeHash, fieldFor, withValue, type PageState, type Value } from './runtime/state';
import { loadWidget, WIDGET_TAGS } from './runtime/registry';

const holder = document.querySelector<HTMLElement>('#embed')!;
document.documentElement.style.cssText = 'background: var(--attn-page); color: var(--attn-fg); font: 16px/1.45 system-ui, sans-serif';
document.body.style.cssText = 'margin: 0; padding: 12px 16px';

let state: PageState = decodeHash(location.hash);
let widget: HTMLElement | undefined;

function show(): void {
  state = decodeHash(location.hash);
  const tag = `attn-${state.slide}`;
  if (!WIDGET_TAGS.includes(tag)) {
    widget = undefined;
    const list = WIDGET_TAGS.map((t) => `#${t.replace(/^attn-/, '')}`).join(', ');
    holder.replaceChildren(Object.assign(document.createElement('p'), {
      textContent: `This page shows one attnlab widget, named after “#” in its address: ${list}.`,
    }));
    return;
  }
  if (widget?.localName !== tag) {
    widget = document.createElement(tag);
    widget.addEventListener('attn-change', (e) => remember(tag, (e as CustomEvent<Record<string, Value>>).detail));
    holder.replaceChildren(widget);
    void loadWidget(tag);
  }
  for (const [attribute, value] of attributesFor(tag, state)) {
    if (value === null) widget.removeAttribute(attribute);
    else widget.setAttribute(attribute, value);
  }
}

function remember(tag: string, settings: Record<string, Value>): void {
  for (const [attribute, value] of Object.entries(settings)) {
    const field = fieldFor(tag, attribute);
    if (field) state = withValue(state, field, value);
  }
  history.replaceState(null, '', encodeHash(state));
}

addEventListener('hashchange', show);
show();
// in someone's slides, the keys the widget does not use are the deck's (see attnlab/reveal)
forwardKeysToHost();
handFocusBackAfterPointer();
