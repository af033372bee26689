// attnlab/reveal: the reveal.js plugin. Registering it defines every <attn-…> widget (it brings
// attnlab/widgets with it) and makes them good citizens of a reveal.js deck:
// - the keyboard stays the deck's: a pointer that used a widget's button or slider hands the focus
//   back, so → moves the slides; a field being typed into keeps its keys (← moves the caret);
// - an attnlab iframe (embed.html) in a slide passes the keys it does not use back to the deck;
// - `data-fragments` on a widget with stages makes each stage a fragment of its slide: → steps the
//   widget through them, then moves on, and ← steps back;
// - pictures are repainted at the deck's scale (Reveal.getScale()) when it changes; pointer
//   positions follow the scale by themselves;
// - `?print-pdf` renders every widget at once (a PDF page per fragment shows that stage).
// Widgets on slides the deck does not show are not drawn; one engine serves the whole deck.
import { fieldFor, formatValue, parseValue, type IntField } from './runtime/state';
import { revealAllWidgets } from './runtime/engine-element';
import { handFocusBackAfterPointer, isForwardedKey, replayForwardedKey } from './primitives/keys';
import { loadWidget, WIDGET_TAGS } from './runtime/registry';
// with the extension: the package's declarations keep these paths, and Node's resolution needs it
import './widgets/bundle.js';

export { engineInfo, useModelsFrom, widgets } from './widgets/bundle.js';

/** what the plugin uses of reveal.js's API (reveal.js 6) */
export interface RevealDeck {
  on(type: string, listener: (event: Event) => void): void;
  getRevealElement(): HTMLElement | null;
  getCurrentSlide(): HTMLElement | undefined;
}

export interface RevealPlugin {
  id: string;
  init(deck: RevealDeck): void;
}

const WIDGETS = WIDGET_TAGS.join(',');

/** the widget's setting that fragments step through, if it has stages */
function stepField(widget: Element): IntField | undefined {
  const field = fieldFor(widget.localName, 'step');
  return field?.type === 'int' ? field : undefined;
}

/** One fragment per stage after the first, in a holder right after the widget; `data-fragments="k"`
 * numbers them from data-fragment-index k on (to interleave with the slide's own fragments). */
function addStageFragments(deck: HTMLElement): void {
  for (const widget of deck.querySelectorAll<HTMLElement>(`:is(${WIDGETS})[data-fragments]`)) {
    const field = stepField(widget);
    if (!field) {
      console.warn(`attnlab/reveal: ${widget.localName} has no stages for data-fragments`);
      continue;
    }
    if (widget.nextElementSibling?.classList.contains('attn-stage-fragments')) continue;
    const first = Number.parseInt(widget.dataset.fragments ?? '', 10);
    const holder = document.createElement('span');
    holder.className = 'attn-stage-fragments';
    holder.setAttribute('aria-hidden', 'true');
    holder.style.cssText = 'position: absolute; width: 0; height: 0; overflow: hidden';
    for (let stage = field.min + 1; stage <= field.max; stage++) {
      const fragment = document.createElement('span');
      fragment.className = 'fragment';
      fragment.dataset.attnStage = String(stage);
      if (Number.isInteger(first)) fragment.dataset.fragmentIndex = String(first + stage - field.min - 1);
      holder.append(fragment);
    }
    widget.after(holder);
  }
}

/** sets each widget's stage to its last shown fragment (its first stage when none is shown) */
function showStages(scope: ParentNode): void {
  for (const widget of scope.querySelectorAll<HTMLElement>(WIDGETS)) {
    const holder = widget.nextElementSibling;
    const field = stepField(widget);
    if (!field || !holder?.classList.contains('attn-stage-fragments')) continue;
    const shown = [...holder.querySelectorAll<HTMLElement>('.fragment.visible')].map((f) => Number(f.dataset.attnStage));
    const stage = formatValue(field, parseValue(field, String(Math.max(field.min, ...shown))));
    if (widget.getAttribute('step') !== stage) widget.setAttribute('step', stage);
  }
}

/** The plugin: Reveal.initialize({ plugins: [AttnlabReveal] }). */
export default function AttnlabReveal(): RevealPlugin {
  return {
    id: 'attnlab',
    init(deck) {
      const root = deck.getRevealElement() ?? document.body;
      addStageFragments(root);
      const current = () => deck.getCurrentSlide();
      const follow = () => {
        const slide = current();
        if (slide) showStages(slide);
      };
      for (const type of ['ready', 'slidechanged', 'fragmentshown', 'fragmenthidden']) deck.on(type, follow);
      // a new scale, or a slide that was hidden: repaint pictures at the size they are shown at
      for (const type of ['resize', 'slidechanged', 'overviewhidden']) {
        deck.on(type, () => dispatchEvent(new Event('attn-redraw')));
      }
      // the PDF view: every page (one per fragment) at its stage, every widget drawn, in view or not
      deck.on('pdf-ready', () => {
        showStages(root);
        void Promise.all(WIDGET_TAGS.map(loadWidget)).then(revealAllWidgets);
      });
      handFocusBackAfterPointer(root);
      addEventListener('message', (e) => {
        if (!isForwardedKey(e.data)) return;
        const frame = [...root.querySelectorAll('iframe')].find((f) => f.contentWindow === e.source);
        if (frame) replayForwardedKey(frame, e.data);
      });
    },
  };
}
