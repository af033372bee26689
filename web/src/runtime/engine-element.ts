// Base of every widget: a custom element with its own shadow root and styles that asks the shared
// engine (in its Worker) for numbers and draws them. It shows a loading bar until the engine is
// there, renders once per batch of attribute changes (the latest settings win, one render at a
// time), reads its settings through the page's field table (state.ts), and shows errors
// inside the widget instead of breaking the page. A widget first renders when it comes into view;
// the ones out of view (later slides, further down a page) render afterwards, one at a time while
// the page is idle, so that the first picture comes fast and a printout still shows every widget.
import { engineFraction, engineProgress, pageEngine, pageModel, type RemoteEngine, type RemoteModel, type ShippedModel } from './engine';
import { deckPageUrl, embedPageUrl, setModelsFolder } from './engine-files';
import { openModelDialog } from './model-dialog';
import { keptModels, loadedModelName, openedModel, openedModels, shippedAsOpened, type OpenedModel } from './opened-models';
import { isShippedModel, SHIPPED_MODELS } from './shipped-models';
import { formatBytes } from '../math/format';
import { encodeHash, fieldFor, fieldsOf, formatValue, limitsOf, parseValue, type Field, type Value } from './state';
import { canvasesPainted, paintEverywhere } from '../primitives/canvas';
import {
  choiceButtons, choiceSelect, h, numbered, slider, stepper, textField, toggle,
  type Choice, type ChoiceControl, type SliderControl, type SliderOptions, type StepperControl, type TextControl, type ToggleControl,
} from '../primitives/controls';
import { katexSheet } from '../primitives/equation';
import { download, fileStem, numbersCsv, picturesPng, svgText } from '../primitives/export';
import { enableGlossary } from '../primitives/glossary';
import { whenIdle } from '../primitives/idle';
import { keyBelongsToControl } from '../primitives/keys';
import { hasTables } from '../primitives/screen-reader-table';
import { baseStyles } from '../primitives/styles';

/** widgets connected but not yet shown, in document order of connection */
const waiting = new Set<EngineElement>();
/** a widget's box changed size: whether it is wider than the screen may have changed */
const resized = new ResizeObserver((entries) => {
  for (const entry of entries) (entry.target as EngineElement).showScrollCue();
});
const inView = new IntersectionObserver((entries) => {
  for (const entry of entries) if (entry.isIntersecting) (entry.target as EngineElement).reveal();
}, { rootMargin: '200px' });
let warming = false;
/** how long after the engine is there the widgets out of view start rendering: the reader's first
 * picture and first clicks have the engine and the cores to themselves */
const WARM_UP_AFTER_MS = 2000;

/** renders the widgets out of view, one per idle period, once nothing else is rendering */
function warmUp(): void {
  if (warming) return;
  warming = true;
  const next = () => {
    const widget = waiting.values().next().value as EngineElement | undefined;
    if (!widget) {
      warming = false;
      return;
    }
    widget.addEventListener('attn-rendered', () => whenIdle(next), { once: true });
    widget.reveal();
  };
  setTimeout(() => whenIdle(next), WARM_UP_AFTER_MS);
}

/** Renders every widget of the page now, in view or not, and paints all their pictures: for a
 * printout, where no widget may be left blank (a reveal.js deck's PDF view). */
export function revealAllWidgets(): void {
  paintEverywhere();
  for (const widget of [...waiting]) widget.reveal();
}

/** choices of a model's layers or heads: `upTo` offers as many as the model has and returns the setting within them */
export type NumberedControl = ChoiceControl<number> & { upTo(count: number): number };
/** a stepper whose last step is `upTo`'s (the setting within it is returned) */
export type BoundStepper = StepperControl & { upTo(last: number): number };
/** the model list: the widget's shipped model, the models this browser keeps, "Open a model…", and
 * a line saying what happens to the model chosen (loading, not found) */
export interface ModelListControl { readonly element: HTMLElement; readonly note: HTMLElement }

/** the model list's last entry, which opens the dialog instead of naming a model */
const OPEN_A_MODEL = '\u0000open';

export abstract class EngineElement extends HTMLElement {
  protected readonly root: ShadowRoot;
  /** the widget's picture and controls */
  protected readonly body: HTMLElement;
  private readonly scrollCue: HTMLElement;
  private readonly status: HTMLElement;
  private readonly hintLine: HTMLElement;
  private readonly controlsStyle = document.createElement('style');
  private engine?: RemoteEngine;
  private rendering = false;
  private dirty = false;
  /** a render asked for by updateSoon() and not started yet */
  private updateDue = false;
  /** in view once, or rendered in the background: from then on it renders on every change */
  private revealed = false;
  private laidOut = false;
  private readonly showProgress = () => this.showLoading();

  /** `models`: the shipped models the widget reads, downloaded as soon as it is on the page, while the engine starts */
  constructor(styles: string, hint: string, private readonly options: { models?: readonly ShippedModel[] } = {}) {
    super();
    this.root = this.attachShadow({ mode: 'open' });
    this.root.adoptedStyleSheets = [katexSheet()];
    // terms of the glossary in the widget's text (primitives/glossary.ts term()) open their definitions
    enableGlossary(this.root, { deckPage: deckPageUrl });
    const style = document.createElement('style');
    style.textContent = baseStyles + styles;
    const hintLine = (this.hintLine = document.createElement('p'));
    hintLine.className = 'hint';
    hintLine.textContent = hint;
    this.status = document.createElement('div');
    this.status.className = 'status';
    this.status.setAttribute('role', 'status');
    this.body = document.createElement('div');
    this.body.className = 'body';
    // on a phone a widget wider than the screen scrolls sideways in its own box (base styles): said
    // where the reader starts, while there is more to the right
    this.scrollCue = document.createElement('p');
    this.scrollCue.className = 'scroll-cue';
    this.scrollCue.hidden = true;
    this.scrollCue.setAttribute('aria-hidden', 'true');
    this.scrollCue.textContent = 'wider than the screen: scroll sideways →';
    this.addEventListener('scroll', () => this.showScrollCue(), { passive: true });
    const top = document.createElement('div');
    top.className = 'top';
    top.append(hintLine);
    top.append(this.shareControl());
    // keys meant for a field or a button of the widget never reach the page's deck, whoever's it is
    this.root.addEventListener('keydown', (e) => {
      if (keyBelongsToControl(e as KeyboardEvent)) e.stopPropagation();
    });
    this.root.append(style, this.controlsStyle, top, this.scrollCue, this.status, this.body);
  }

  /** shows the cue to scroll sideways while the widget's box has more to its right */
  showScrollCue(): void {
    this.scrollCue.hidden = this.scrollWidth - this.scrollLeft - this.clientWidth <= 2;
  }

  /** what to look for, when it depends on the settings */
  protected setHint(hint: string): void {
    this.hintLine.textContent = hint;
  }

  /** this widget's settings as an embed page's hash: "#explorer&xlayer=0" (defaults left out) */
  embedHash(): string {
    const values = new Map(fieldsOf(this.localName).map((f) => [f.key, parseValue(f, this.getAttribute(f.attribute))]));
    return encodeHash({ slide: this.localName.replace(/^attn-/, ''), values });
  }

  /** "Share": a link to this widget's view and the code of an iframe showing it (not in the offline
   * file), and downloads of its pictures and numbers ("Save" in the offline file) */
  private shareControl(): HTMLElement {
    const embeddable = embedPageUrl('') !== undefined;
    const details = document.createElement('details');
    details.className = 'share';
    details.dataset.control = 'share';
    const summary = document.createElement('summary');
    summary.textContent = embeddable ? 'Share' : 'Save';
    const panel = document.createElement('div');
    const text = document.createElement('input');
    text.type = 'text';
    text.readOnly = true;
    text.setAttribute('aria-label', 'the text to copy');
    const said = document.createElement('span');
    said.setAttribute('role', 'status');
    const copy = (label: string, make: () => string) => {
      const button = document.createElement('button');
      button.textContent = label;
      button.addEventListener('click', () => {
        text.value = make();
        text.select();
        navigator.clipboard?.writeText(text.value).then(
          () => { said.textContent = 'Copied.'; },
          () => { said.textContent = 'Selected: press Ctrl+C (⌘C) to copy.'; },
        ) ?? (said.textContent = 'Selected: press Ctrl+C (⌘C) to copy.');
      });
      return button;
    };
    const link = () => embedPageUrl(this.embedHash())!;
    const iframe = () => {
      // its height here (unscaled), and room for the embed page's margins
      const height = Math.max(200, this.offsetHeight + 40);
      return `<iframe src="${link()}" title="attnlab: ${this.localName}" width="100%" height="${height}" style="border:0" loading="lazy"></iframe>`;
    };
    const save = (label: string, make: () => Promise<void>) => {
      const button = document.createElement('button');
      button.textContent = label;
      button.addEventListener('click', () => make().then(
        () => { said.textContent = 'Saved.'; },
        (error: unknown) => { said.textContent = `Not saved: ${String(error)}`; },
      ));
      return button;
    };
    const stem = () => fileStem(this.embedHash());
    const png = save('Download PNG', async () => download(`${stem()}.png`, await picturesPng(this, this.root)));
    const csv = save('Download CSV', async () => {
      const numbers = numbersCsv(this.root);
      if (!numbers) throw new Error('this view has no table of numbers');
      download(`${stem()}.csv`, numbers);
    });
    const svg = save('Download SVG', async () => {
      const diagram = this.root.querySelector<SVGSVGElement>('svg:not(.katex svg)');
      if (!diagram) throw new Error('this view has no diagram');
      download(`${stem()}.svg`, svgText(diagram), 'image/svg+xml');
    });
    // each download only where the view has what it saves
    details.addEventListener('toggle', () => {
      csv.hidden = !hasTables(this.root);
      svg.hidden = !this.root.querySelector('svg:not(.katex svg)');
    });
    if (embeddable) panel.append(copy('Copy link to this view', link), copy('Copy embed code', iframe));
    panel.append(png, csv, svg, text, said);
    details.append(summary, panel);
    return details;
  }

  /** listeners on things outside the widget, held only while it is on a page */
  private readonly outside: [EventTarget, string, EventListener][] = [];

  /** Listens to `target` (a page-wide event source) while the widget is on a page. */
  protected listen(target: EventTarget, type: string, listener: (e: Event) => void): void {
    this.outside.push([target, type, listener]);
    if (this.isConnected) target.addEventListener(type, listener);
  }

  connectedCallback(): void {
    for (const [target, type, listener] of this.outside) target.addEventListener(type, listener);
    // a page may keep the shipped models elsewhere than beside the widget bundle
    const models = this.getAttribute('models');
    if (models) setModelsFolder(models);
    for (const name of this.options.models ?? []) pageModel(name).catch(() => undefined);
    if (!this.revealed) {
      waiting.add(this);
      inView.observe(this);
    }
    resized.observe(this);
    if (this.engine) return;
    this.showLoading();
    engineProgress.addEventListener('progress', this.showProgress);
    pageEngine().then(
      (engine) => {
        engineProgress.removeEventListener('progress', this.showProgress);
        this.engine = engine;
        this.status.replaceChildren();
        this.update();
        warmUp();
      },
      (error: unknown) => this.showError(`The engine could not be loaded: ${String(error)}`),
    );
  }

  disconnectedCallback(): void {
    for (const [target, type, listener] of this.outside) target.removeEventListener(type, listener);
    waiting.delete(this);
    inView.unobserve(this);
    resized.unobserve(this);
  }

  attributeChangedCallback(name: string): void {
    if (name === 'controls') this.showControls();
    else if (name === 'height') this.keepHeight();
    else this.updateSoon();
  }

  /** Renders in a task of its own, once for every setting changed in this one: the key press or
   * click that changed them returns at once, and the page paints before the new picture is made. */
  private updateSoon(): void {
    if (!this.engine || !this.revealed) return;
    if (this.rendering) {
      this.dirty = true;
      return;
    }
    if (this.updateDue) return;
    this.updateDue = true;
    // busy from now on (assistive technology, and tests, wait for the new picture)
    this.setAttribute('aria-busy', 'true');
    setTimeout(() => {
      if (this.updateDue) this.update();
    }, 0);
  }

  /** `height`: a fixed CSS height (e.g. "420px", "60vh"), the same while loading and once drawn,
   * scrolling inside when the picture is taller, so the page around never shifts */
  private keepHeight(): void {
    const value = this.getAttribute('height')?.trim() ?? '';
    const valid = /^\d+(\.\d+)?(px|em|rem|vh|%)$/.test(value);
    this.style.height = valid ? value : '';
    this.style.overflow = valid ? 'auto' : '';
  }

  /** `controls`: absent, every control; "none", none; else the names of the controls to keep (the
   * settings they change, e.g. "layer head", and "share"). Each control is marked data-control. */
  private showControls(): void {
    const value = this.getAttribute('controls');
    const kept = value === null ? undefined : value.trim() === 'none' ? [] : value.trim().split(/\s+/);
    this.controlsStyle.textContent = kept === undefined ? ''
      : `[data-control]${kept.map((name) => `:not([data-control~="${CSS.escape(name)}"])`).join('')} { display: none !important; }`;
  }

  /** the widget is on screen (or its background turn has come): render from now on */
  reveal(): void {
    waiting.delete(this);
    inView.unobserve(this);
    if (this.revealed) return;
    this.revealed = true;
    this.update();
  }

  /** Renders with the current attributes: now if idle, else once the running render is done. */
  protected update(): void {
    if (!this.engine || !this.revealed) return;
    if (this.rendering) {
      this.dirty = true;
      return;
    }
    this.rendering = true;
    this.dirty = false;
    this.updateDue = false;
    // busy until the new picture is painted (assistive technology, and tests, wait for it)
    this.setAttribute('aria-busy', 'true');
    this.layOutOnce()
      .then(() => {
        for (const show of this.showSettings) show();
        return this.render(this.engine!);
      })
      .then(() => canvasesPainted())
      .then(() => {
        this.status.replaceChildren();
        this.dataset.ready = 'true';
        this.showScrollCue();
      })
      .catch((error: unknown) => this.showError(error instanceof Error ? error.message : String(error)))
      .finally(() => {
        this.rendering = false;
        if (this.dirty) {
          this.update();
          return;
        }
        this.removeAttribute('aria-busy');
        this.dispatchEvent(new Event('attn-rendered'));
      });
  }

  /** the settings changed since this render began: a long render (a streamed generation) stops early */
  protected get superseded(): boolean {
    return this.dirty;
  }

  /** Draws the widget for its current attributes into this.body, asking the engine what it needs. */
  protected abstract render(engine: RemoteEngine): Promise<void>;

  /** The widget's view, made once before its first render and put in this.body; render() then
   * fills it in. (A widget that draws everything anew each time leaves this out.) */
  protected layout(): Node | Node[] | undefined {
    return undefined;
  }

  private async layOutOnce(): Promise<void> {
    if (this.laidOut) return;
    const view = this.layout();
    if (view) this.body.replaceChildren(...[view].flat());
    this.laidOut = true;
  }

  private field(attribute: string): Field {
    const field = fieldFor(this.localName, attribute);
    if (!field) throw new Error(`${this.localName} has no setting "${attribute}"`);
    return field;
  }

  /** settings at their defaults in the page's field table */
  protected defaults(...attributes: string[]): Record<string, Value> {
    return Object.fromEntries(attributes.map((attribute) => [attribute, this.field(attribute).default]));
  }

  /** a setting, read from its attribute through the page's field table (clamped, or its default) */
  protected value<T extends Value>(attribute: string): T {
    return parseValue(this.field(attribute), this.getAttribute(attribute)) as T;
  }

  /** the bound controls, each shown its setting's value before every render */
  private readonly showSettings: (() => void)[] = [];

  /** `control`, shown its setting's value by `show` before every render (a widget that narrows the
   * value, to a model's layers say, sets it again in render()) */
  private shows<C>(attribute: string, control: C, show: (control: C, value: Value) => void): C {
    this.showSettings.push(() => show(control, this.value(attribute)));
    return control;
  }

  /** what the reader picks sets the attribute, and `also`: the settings that go back with it */
  private setter<V extends Value>(attribute: string, also?: (value: V) => Record<string, Value>): (value: V) => void {
    return (value) => this.change({ [attribute]: value, ...also?.(value) });
  }

  private modelListControl?: ModelListControl & { shipped: ShippedModel; others: readonly ShippedModel[] };

  /** The model the widget shows: the one its `model` setting names — a model the reader opened
   * (kept in this browser), or another shipped model the widget offers — else its own shipped
   * model, `shipped` (then `opened` is undefined). A name the widget cannot show is said in the
   * model list's note, and its own model shown. */
  protected async modelInUse(shipped: ShippedModel): Promise<{ model: RemoteModel; opened?: OpenedModel }> {
    const name = this.value<string>('model');
    const note = this.modelListControl?.note;
    if (note) note.textContent = '';
    const others = this.modelListControl?.others ?? [];
    if (isShippedModel(name)) {
      if (name !== shipped && others.includes(name)) {
        const model = await pageModel(name);
        return { model, opened: await shippedAsOpened(name, model) };
      }
      if (name !== shipped && note) note.textContent = `The shipped ${name} model is not shown here: this is the ${shipped} model.`;
    } else if (name !== '') {
      const progress = (e: Event) => {
        const { name: loading, read, total } = (e as CustomEvent<{ name: string; read: number; total: number }>).detail;
        if (note && loading === name) note.textContent = `Loading ${name}: ${formatBytes(read)} of ${formatBytes(total)}…`;
      };
      openedModels.addEventListener('progress', progress);
      try {
        const opened = await openedModel(name);
        return { model: opened.model, opened };
      } catch (error) {
        if (note) note.textContent = `${error instanceof Error ? error.message : String(error)} Showing the shipped model.`;
      } finally {
        openedModels.removeEventListener('progress', progress);
        if (note?.textContent?.startsWith('Loading')) note.textContent = '';
      }
    }
    return { model: await pageModel(shipped) };
  }

  /** Controls bound to the widget's settings: their names, limits and lengths come from the field
   * table, and what the reader picks sets the attribute (and `also`, settings that change with it). */
  protected readonly bound = {
    /** the model list (the `model` setting): `shipped` names the widget's own model (`label`: what
     * the list calls it, when it shows more than one), `others` the other shipped models it can show
     * (as it shows a model the reader opened); `also`: settings that change with the choice ('' for
     * the widget's own model) */
    model: (shipped: ShippedModel, others: readonly ShippedModel[] = [], label: string = shipped,
      also?: (name: string) => Record<string, Value>): ModelListControl => {
      const chosen = () => this.value<string>('model');
      const list = choiceSelect<string>({
        name: 'model', control: 'model',
        onChoose: (name) => {
          if (name !== OPEN_A_MODEL) return this.change({ model: name, ...also?.(name) });
          // "Open a model…" names no model: the list shows the one in use until the dialog opens another
          list.set(chosen());
          void openModelDialog().then((opened) => { if (opened !== undefined) this.change({ model: opened }); });
        },
      });
      const offer = async () => {
        const names = new Set((await keptModels()).map((m) => m.name));
        for (const name of [loadedModelName(), chosen()]) if (name) names.add(name);
        for (const name of SHIPPED_MODELS) names.delete(name);
        list.offer([{ value: '', text: `${label} (shipped)` }, ...others.map((name) => ({ value: name, text: `${name} (shipped)` })),
          ...[...names].sort().map((name) => ({ value: name, text: name })), { value: OPEN_A_MODEL, text: 'Open a model…' }]);
        list.set(chosen());
      };
      this.listen(openedModels, 'change', () => void offer());
      this.shows('model', list, () => void offer());
      const note = h('span', { className: 'muted model-note', attrs: { role: 'status' } });
      this.modelListControl = { element: h('div', { className: 'model-list', data: { control: 'model' } }, list.element, note), note, shipped, others };
      return this.modelListControl;
    },
    /** buttons (or a drop-down, `select`) for a setting's choices: an enum's values by default */
    choices: <V extends Value>(attribute: string, options: {
      choices?: readonly Choice<V>[]; text?: (value: V) => string; select?: boolean; showName?: boolean; also?: (value: V) => Record<string, Value>;
    } = {}): ChoiceControl<V> => {
      const field = this.field(attribute);
      const text = options.text ?? String;
      const choices = options.choices ?? (field.type === 'enum' ? field.values.map((v) => ({ value: v as V, text: text(v as V) })) : []);
      const spec = { name: field.label ?? attribute, control: attribute, choices, onChoose: this.setter(attribute, options.also) };
      return this.shows(attribute, options.select ? choiceSelect(spec) : choiceButtons({ ...spec, showName: options.showName }),
        (control, value) => control.set(value as V));
    },
    /** choices for a setting that counts a model's layers or heads, from 0 as the engine's trace
     * names them (layer0.attn.head0) on every slide; `upTo(count)` offers 0 … count − 1 (the
     * model's own number) and returns the setting narrowed to them */
    numbered: (attribute: string, { select = false }: { select?: boolean } = {}): NumberedControl => {
      const control = this.bound.choices<number>(attribute, { select });
      const name = this.field(attribute).label ?? attribute;
      return Object.assign(control, {
        upTo: (count: number) => {
          // a drop-down is named already: its options are the numbers alone
          control.offer(numbered(count, name).map((c) => (select ? { value: c.value, text: c.text } : c)));
          const value = Math.min(this.value<number>(attribute), count - 1);
          control.set(value);
          return value;
        },
      });
    },
    /** a button that switches a yes/no setting */
    toggle: (attribute: string, text: string | ((on: boolean) => string)): ToggleControl =>
      this.shows(attribute, toggle({ text, control: attribute, onToggle: this.setter(attribute) }), (control, on) => control.set(on as boolean)),
    /** a slider over a number setting's range */
    slider: (attribute: string, options: Partial<Pick<SliderOptions, 'format' | 'scale' | 'step'>> & { also?: (value: number) => Record<string, Value> } = {}): SliderControl => {
      const field = this.field(attribute);
      return this.shows(attribute, slider({ label: field.label ?? attribute, control: attribute, ...limitsOf(this.localName, attribute), ...options,
        onInput: this.setter(attribute, options.also) }), (control, value) => control.set(value as number));
    },
    /** a text field as long as the setting allows */
    text: (attribute: string, options: { commit?: 'input' | 'change'; also?: (text: string) => Record<string, Value>; placeholder?: string } = {}): TextControl => {
      const field = this.field(attribute);
      if (field.type !== 'text') throw new Error(`${this.localName}'s setting "${attribute}" is not text`);
      return this.shows(attribute, textField({ label: field.label ?? attribute, control: attribute, maxLength: field.maxLength, commit: options.commit,
        props: options.placeholder ? { placeholder: options.placeholder } : {}, onText: this.setter(attribute, options.also) }), (control, text) => control.set(text as string));
    },
    /** a field to type a whole number in (a seed), within the setting's limits; committed on Enter or leaving */
    number: (attribute: string): TextControl => {
      const field = this.field(attribute);
      const { min, max } = limitsOf(this.localName, attribute);
      return this.shows(attribute, textField({ label: field.label ?? attribute, control: attribute, maxLength: String(max).length, commit: 'change',
        props: { type: 'number', min: String(min), max: String(max) }, onText: (text) => this.change({ [attribute]: Number(text) }) }),
      (control, value) => control.set(String(value)));
    },
    /** ◀ back, next ▶ and a slider over a setting that counts steps; `upTo(last)` stops them at `last`
     * (fewer steps than the setting allows) and returns the setting narrowed to it */
    stepper: (attribute: string, next: string, also?: (value: number) => Record<string, Value>): BoundStepper => {
      const field = this.field(attribute);
      const { max } = limitsOf(this.localName, attribute);
      const control = this.shows(attribute, stepper({ label: field.label ?? attribute, control: attribute, next, max, onStep: this.setter(attribute, also) }),
        (control, step) => control.set(step as number, max));
      return Object.assign(control, {
        upTo: (last: number) => {
          const step = Math.min(this.value<number>(attribute), last);
          control.set(step, last);
          return step;
        },
      });
    },
  };

  /** The steps the deck's → and ← go through before it moves to another slide: the setting they
   * move, and the last step now when it is not the setting's maximum. None: the keys move the deck. */
  protected readonly stepping?: { attribute: string; last?: () => number };

  /** the deck's →: a step on while there is one (false: the deck moves on) */
  stepForward(): boolean {
    return this.stepBy(1);
  }

  /** the deck's ←: a step back while there is one (false: the deck moves back) */
  stepBack(): boolean {
    return this.stepBy(-1);
  }

  private stepBy(delta: number): boolean {
    if (!this.stepping) return false;
    const { attribute, last } = this.stepping;
    const { min, max } = limitsOf(this.localName, attribute);
    const step = this.value<number>(attribute) + delta;
    if (step < min || step > (last?.() ?? max)) return false;
    this.change({ [attribute]: step });
    return true;
  }

  /** Shows another widget (`tag`) with these settings: the deck moves to its slide; elsewhere its
   * embed page opens in a new tab. */
  protected openWidget(tag: string, settings: Record<string, Value>): void {
    const asked = new CustomEvent('attn-open', { bubbles: true, composed: true, cancelable: true, detail: { tag, settings } });
    if (!this.dispatchEvent(asked)) return;
    const values = new Map<string, Value>();
    for (const [attribute, value] of Object.entries(settings)) {
      const field = fieldFor(tag, attribute);
      if (field) values.set(field.key, value);
    }
    const url = embedPageUrl(encodeHash({ slide: tag.replace(/^attn-/, ''), values }));
    if (url) window.open(url, '_blank', 'noopener');
  }

  /** The reader changed settings: set the attributes (which re-renders) and tell the page. */
  protected change(settings: Record<string, Value>): void {
    for (const [attribute, value] of Object.entries(settings)) {
      const field = fieldFor(this.localName, attribute);
      this.setAttribute(attribute, field ? formatValue(field, value) : String(value));
    }
    this.dispatchEvent(new CustomEvent('attn-change', { detail: settings, bubbles: true, composed: true }));
  }

  private showLoading(): void {
    const bar = document.createElement('progress');
    bar.max = 1;
    if (engineFraction > 0) bar.value = engineFraction;
    bar.setAttribute('aria-label', 'loading the engine');
    const text = document.createElement('span');
    text.textContent = engineFraction > 0 ? `Loading the engine… ${Math.round(100 * engineFraction)} %` : 'Loading the engine…';
    this.status.replaceChildren(bar, text);
  }

  protected showError(message: string): void {
    const p = document.createElement('p');
    p.className = 'error';
    p.setAttribute('role', 'alert');
    p.textContent = message;
    this.status.replaceChildren(p);
  }
}
