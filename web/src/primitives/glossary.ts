// Terms of the glossary (math/glossary.ts) marked in the deck or in a widget: any element with
// data-term="key" (a <dfn> where the text defines the term, a <span> elsewhere; term() makes one for
// a widget). Hover, a tap or keyboard focus opens a popup with the term, its definition and a link
// to the slide that shows it; Escape, a tap elsewhere or leaving it closes it. Each page and each
// widget's shadow root has its own popup (so a screen reader's references stay within one tree),
// shown in the top layer (the Popover API): neither the deck's scaling nor a slide's clipping
// reaches it. The arrow keys stay the deck's; Enter and Space on a focused term open or close it.
import { definitionParts, glossaryEntry } from '../math/glossary';
import { equation, loadTypesetting } from './equation';

export interface GlossaryOptions {
  /** the deck page at a slide's hash ("#rope"), for terms on a page without the deck (embed.html,
   * someone's page with the widget bundle); undefined there: the popup has no link */
  deckPage?: (hash: string) => string | undefined;
}

// the colours follow the page's --attn-* variables (the deck's theme), else the reader's preference
const STYLES = `
[data-term] { text-decoration: underline dotted color-mix(in srgb, currentColor 55%, transparent); text-underline-offset: 0.18em; cursor: help; }
[data-term]:hover, [data-term][aria-expanded="true"] { text-decoration-color: var(--attn-accent, #1f5fbf); }
dfn[data-term] { font-style: normal; }
.attn-term-popup {
  --term-fg: var(--attn-fg, #1d2330); --term-muted: var(--attn-muted, #4f586b); --term-panel: var(--attn-panel, #f4f6fa);
  --term-border: var(--attn-border, #c9d0dc); --term-accent: var(--attn-accent, #1f5fbf);
  position: fixed; inset: auto; margin: 0; box-sizing: border-box;
  width: max-content; max-width: min(calc(23em * var(--term-scale, 1)), calc(100vw - 16px)); overflow: auto;
  padding: 0.6em 0.85em 0.65em; border: 1px solid var(--term-border); border-radius: 8px;
  background: var(--term-panel); color: var(--term-fg); box-shadow: 0 6px 22px rgb(0 0 0 / 0.22);
  font: normal 400 calc(15px * var(--term-scale, 1))/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif;
  text-align: left; white-space: normal; letter-spacing: normal; text-transform: none; text-indent: 0;
}
@media (prefers-color-scheme: dark) {
  .attn-term-popup {
    --term-fg: var(--attn-fg, #e6e9ef); --term-muted: var(--attn-muted, #a9b2c3); --term-panel: var(--attn-panel, #1b1f29);
    --term-border: var(--attn-border, #3a4152); --term-accent: var(--attn-accent, #8ab8ff);
  }
}
.attn-term-popup p { margin: 0; }
.attn-term-popup .popup-term { margin-bottom: 0.25em; font-weight: 650; }
.attn-term-popup .popup-term dfn { font-style: normal; }
.attn-term-popup .popup-link { display: inline-block; margin-top: 0.4em; color: var(--term-accent); font-weight: 600; }
.attn-term-popup .katex { font-size: 1.05em; }
@media print { .attn-term-popup { display: none; } }
`;

let sheet: CSSStyleSheet | undefined;
function glossarySheet(): CSSStyleSheet {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLES);
  }
  return sheet;
}

/** makes a marked element a term the keyboard and assistive technology reach */
function prepare(element: HTMLElement): void {
  element.tabIndex = 0;
  element.setAttribute('role', 'button');
  element.setAttribute('aria-expanded', 'false');
}

/** a term whose popup closed, or went to another term */
function release(element: HTMLElement): void {
  element.setAttribute('aria-expanded', 'false');
  element.removeAttribute('aria-controls');
  element.removeAttribute('aria-describedby');
}

/** a term of the glossary in a widget's text: `key` is its entry, `text` what the sentence says */
export function term(key: string, text: string): HTMLElement {
  const element = document.createElement('span');
  element.dataset.term = key;
  element.textContent = text;
  prepare(element);
  return element;
}

/** how long the pointer may be off both the term and its popup before the popup closes */
const HOVER_GRACE_MS = 200;
const EDGE = 8;
const GAP = 6;

/** the popup open now, whichever page or widget it is in */
let openPopup: TermPopup | undefined;

class TermPopup {
  private element?: HTMLElement;
  private current?: HTMLElement;
  /** places the popup again when it changes size after opening (a formula's fonts arriving), or when
   * what holds its term does (a widget drawing above its caption moves the term) */
  private readonly resizes = new ResizeObserver(() => this.place());
  /** what holds the open popup's term: its widget, or the page */
  private holder?: Element;
  /** opened by a click or tap (or Enter): stays until closed, whatever the pointer does */
  private pinned = false;
  private hovered = false;
  private closing?: ReturnType<typeof setTimeout>;
  /** the focus is being handed back to the term after Escape: that focus opens nothing */
  private refocusing = false;

  constructor(private readonly root: Document | ShadowRoot, private readonly options: GlossaryOptions) {}

  get term(): HTMLElement | undefined {
    return this.current;
  }

  contains(node: Node | null): boolean {
    return node !== null && Boolean(this.current?.contains(node) || this.element?.contains(node));
  }

  /** shows the definition of `term` beside it */
  async show(term: HTMLElement, how: { pinned?: boolean; hovered?: boolean }): Promise<void> {
    if (this.refocusing) return;
    this.cancelClose();
    if (this.current !== term) {
      this.pinned = false;
      this.hovered = false;
    }
    if (how.pinned) this.pinned = true;
    if (how.hovered) this.hovered = true;
    if (this.current === term && this.element?.matches(':popover-open')) return;
    const entry = glossaryEntry(term.dataset.term ?? '');
    if (!entry) return;
    if (openPopup && openPopup !== this) openPopup.close();
    if (this.current) release(this.current);
    this.current = term;
    openPopup = this;
    await loadTypesetting();
    if (this.current !== term) return;
    const popup = this.popup();
    const [name, definition, link] = popup.children as unknown as [HTMLElement, HTMLElement, HTMLAnchorElement];
    name.firstElementChild!.textContent = entry.term;
    definition.replaceChildren(...definitionParts(entry.definition).map(({ text, tex }) => (tex ? equation(text) : text)));
    const target = this.liveLink(entry.slide);
    link.hidden = !target;
    if (target) {
      link.href = target.href;
      if (target.inDeck) link.removeAttribute('target');
      else Object.assign(link, { target: '_blank', rel: 'noopener' });
    }
    // right after the term: Tab goes from the term to the link, and a click on it is the deck's
    term.after(popup);
    term.setAttribute('aria-expanded', 'true');
    term.setAttribute('aria-controls', popup.id);
    term.setAttribute('aria-describedby', definition.id);
    if (!popup.matches(':popover-open')) popup.showPopover();
    this.watchHolder(term);
    this.place();
  }

  private watchHolder(term: HTMLElement | undefined): void {
    const root = term?.getRootNode();
    const holder = !term ? undefined : root instanceof ShadowRoot ? root.host : document.body;
    if (holder === this.holder) return;
    if (this.holder) this.resizes.unobserve(this.holder);
    this.holder = holder;
    if (holder) this.resizes.observe(holder);
  }

  close(): void {
    this.cancelClose();
    this.pinned = false;
    this.hovered = false;
    if (openPopup === this) openPopup = undefined;
    if (this.current) release(this.current);
    this.current = undefined;
    this.watchHolder(undefined);
    if (this.element?.matches(':popover-open')) this.element.hidePopover();
  }

  /** a click or tap: opens the term's popup to stay, or closes it when it already stays */
  togglePinned(term: HTMLElement): void {
    if (this.current === term && this.pinned) this.close();
    else void this.show(term, { pinned: true });
  }

  /** Enter or Space on the focused term: closes its popup when open, else opens it to stay */
  toggle(term: HTMLElement): void {
    if (this.current === term) this.close();
    else void this.show(term, { pinned: true });
  }

  /** closes, and gives the focus back to the term when it was in the popup (Escape) */
  dismiss(focusWasInside: boolean): void {
    const term = this.current;
    this.close();
    if (!focusWasInside || !term) return;
    this.refocusing = true;
    term.focus({ preventScroll: true });
    this.refocusing = false;
  }

  /** the pointer left the term and the popup: closes soon, unless it was pinned or has the focus */
  leave(): void {
    this.hovered = false;
    if (this.pinned || this.closing) return;
    this.closing = setTimeout(() => {
      this.closing = undefined;
      if (!this.pinned && !this.hovered && !this.contains(this.root.activeElement)) this.close();
    }, HOVER_GRACE_MS);
  }

  enter(): void {
    this.hovered = true;
    this.cancelClose();
  }

  /** the focus moved to `next`: away from both the term and the popup closes it, unless pinned or hovered */
  focusMoved(next: Node | null): void {
    if (!this.contains(next) && !this.pinned && !this.hovered) this.close();
  }

  /** Below the term, or above it when there is more room there; within the window, never over the
   * term. Its font follows the deck's scale (the term's size on screen over its size in layout). */
  place(): void {
    const term = this.current;
    const popup = this.element;
    if (!term || !popup) return;
    if (!term.isConnected || !term.checkVisibility()) {
      this.close();
      return;
    }
    const box = term.getClientRects()[0] ?? term.getBoundingClientRect();
    const scale = Math.min(2, Math.max(1, box.height / (term.offsetHeight || box.height)));
    popup.style.setProperty('--term-scale', scale.toFixed(3));
    popup.style.maxHeight = '';
    const below = innerHeight - box.bottom - GAP - EDGE;
    const above = box.top - GAP - EDGE;
    const height = popup.offsetHeight;
    const downwards = height <= below || below >= above;
    if (height > Math.max(below, above)) popup.style.maxHeight = `${Math.max(below, above)}px`;
    const top = downwards ? box.bottom + GAP : box.top - GAP - Math.min(height, above);
    const left = Math.min(Math.max(EDGE, box.left), innerWidth - EDGE - popup.offsetWidth);
    popup.style.left = `${Math.max(EDGE, left)}px`;
    popup.style.top = `${top}px`;
  }

  /** where "see it live →" goes: the slide's hash in the deck, else the deck page (none when unknown) */
  private liveLink(slide: string): { href: string; inDeck: boolean } | undefined {
    const deck = document.getElementById('deck');
    if (deck) return deck.querySelector(`section.slide#${CSS.escape(slide)}`) ? { href: `#${slide}`, inDeck: true } : undefined;
    const page = this.options.deckPage?.(`#${slide}`);
    return page ? { href: page, inDeck: false } : undefined;
  }

  private cancelClose(): void {
    clearTimeout(this.closing);
    this.closing = undefined;
  }

  private popup(): HTMLElement {
    if (this.element) return this.element;
    const make = <K extends keyof HTMLElementTagNameMap>(tag: K, className: string, id?: string) =>
      Object.assign(document.createElement(tag), { className, ...(id ? { id } : {}) });
    const popup = make('div', 'attn-term-popup', 'attn-term-popup');
    popup.popover = 'manual';
    popup.setAttribute('role', 'dialog');
    popup.setAttribute('aria-labelledby', 'attn-term-popup-name');
    const name = make('p', 'popup-term');
    name.append(make('dfn', '', 'attn-term-popup-name'));
    const link = make('a', 'popup-link');
    link.textContent = 'see it live →';
    // the deck moves to the slide (its own click handler): the popup's work is done
    link.addEventListener('click', () => setTimeout(() => this.close()));
    popup.append(name, make('p', 'popup-definition', 'attn-term-popup-definition'), link);
    popup.addEventListener('pointerover', () => this.enter());
    popup.addEventListener('pointerout', (e) => {
      if (e.pointerType !== 'touch' && !this.contains(e.relatedTarget as Node | null)) this.leave();
    });
    this.resizes.observe(popup);
    this.element = popup;
    return popup;
  }
}

const termOf = (target: EventTarget | null) =>
  (target instanceof Element ? target.closest<HTMLElement>('[data-term]') : null);

let pageListening = false;
/** Escape, a pointer elsewhere, scrolling and the deck's redraws reach the open popup from anywhere */
function listenToPage(): void {
  if (pageListening) return;
  pageListening = true;
  // before the deck's own keys (Escape there opens the overview) and any host page's
  addEventListener('keydown', (e) => {
    if (e.key !== 'Escape' || !openPopup) return;
    const popup = openPopup;
    const term = popup.term;
    popup.dismiss(e.composedPath().some((node) => node instanceof Node && popup.contains(node) && node !== term));
    e.preventDefault();
    e.stopPropagation();
  }, { capture: true });
  addEventListener('pointerdown', (e) => {
    if (openPopup && !e.composedPath().some((node) => node instanceof Node && openPopup!.contains(node))) openPopup.close();
  }, { capture: true });
  const place = () => openPopup?.place();
  addEventListener('scroll', place, { capture: true, passive: true });
  addEventListener('resize', place);
  addEventListener('attn-redraw', () => requestAnimationFrame(place));
}

/** Marks of `root` (the page, or a widget's shadow root) open their definitions; terms added later
 * (by a widget's render, with term()) too. */
export function enableGlossary(root: Document | ShadowRoot, options: GlossaryOptions = {}): void {
  root.adoptedStyleSheets = [...root.adoptedStyleSheets, glossarySheet()];
  for (const element of root.querySelectorAll<HTMLElement>('[data-term]')) prepare(element);
  listenToPage();
  const popup = new TermPopup(root, options);
  root.addEventListener('pointerover', (e) => {
    const { pointerType, target } = e as PointerEvent;
    const term = termOf(target);
    if (pointerType === 'touch' || !term) return;
    if (popup.term === term) popup.enter();
    else void popup.show(term, { hovered: true });
  });
  root.addEventListener('pointerout', (e) => {
    const { pointerType, target, relatedTarget } = e as PointerEvent;
    if (pointerType !== 'touch' && termOf(target) === popup.term && !popup.contains(relatedTarget as Node | null)) popup.leave();
  });
  // a term takes the focus from the keyboard only: a click or tap opens it without taking the
  // deck's keys (Space would then be the term's)
  root.addEventListener('mousedown', (e) => {
    if (termOf(e.target)) e.preventDefault();
  });
  root.addEventListener('click', (e) => {
    const term = termOf(e.target);
    if (term) popup.togglePinned(term);
  });
  root.addEventListener('focusin', (e) => {
    const term = termOf(e.target);
    if (term) void popup.show(term, {});
  });
  root.addEventListener('focusout', (e) => {
    if (popup.term) popup.focusMoved((e as FocusEvent).relatedTarget as Node | null);
  });
  root.addEventListener('keydown', (e) => {
    const { key } = e as KeyboardEvent;
    const term = termOf(e.target);
    if (!term || (key !== 'Enter' && key !== ' ')) return;
    e.preventDefault();
    popup.toggle(term);
  });
}
