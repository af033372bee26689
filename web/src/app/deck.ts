// The deck: one slide at a time, scaled to the window, driven by the keyboard (app/navigation.ts)
// and the URL hash (runtime/state.ts). Widgets that have steps of their own (fragments) implement
// Stepper; → and ← go through a slide's steps before leaving it. Only the shown slide is rendered
// (deck.css).
import { keyBelongsToControl } from '../primitives/keys';
import { KeyMap, slideScale, SLIDE, type Command } from './navigation';
import { openModelDialog } from '../runtime/model-dialog';
import { MODEL_FIELD } from '../runtime/registry';
import { attributesFor, decodeHash, encodeHash, fieldFor, FIELDS, followLink, linkTo, withValue, type PageState, type Value } from '../runtime/state';

/** A widget whose picture advances in steps, like a slide's fragments. */
export interface Stepper extends Element {
  /** shows the next step; false when it is already at its last one */
  stepForward(): boolean;
  /** shows the previous step; false when it is already at its first one */
  stepBack(): boolean;
}

/** the slide listing every term of the glossary */
const GLOSSARY_SLIDE = 'glossary';

function isStepper(element: Element): element is Stepper {
  return typeof (element as Partial<Stepper>).stepForward === 'function';
}

/** entries of a long list (data-arrives-late) shown per frame: about a screenful of the glossary */
const LATE_PER_FRAME = 12;

export class Deck {
  readonly slides: HTMLElement[];
  private current = -1;
  private state: PageState;
  /** a change of the URL waiting for the next frame (see writeUrl) */
  private urlWrite?: 'push' | 'replace';
  private readonly keys = new KeyMap();
  /** the slide the glossary was opened from, which G takes the reader back to */
  private beforeGlossary?: number;

  constructor(private readonly root: HTMLElement, private readonly stage: HTMLElement) {
    this.slides = [...root.querySelectorAll<HTMLElement>('section.slide')];
    this.state = decodeHash(location.hash);
    this.applySettings();
    this.show(this.indexOf(this.state.slide), 'replace');

    addEventListener('resize', () => this.fit());
    addEventListener('popstate', () => this.restore());
    addEventListener('hashchange', () => this.restore());
    addEventListener('keydown', (e) => this.onKey(e));
    root.addEventListener('attn-change', (e) => this.onWidgetChange(e as CustomEvent<Record<string, Value>>));
    root.addEventListener('attn-open', (e) => this.openWidget(e as CustomEvent<{ tag: string; settings: Record<string, Value> }>));
    document.querySelector('#previous-slide')?.addEventListener('click', () => this.run({ kind: 'previous' }));
    document.querySelector('#next-slide')?.addEventListener('click', () => this.run({ kind: 'next' }));
    document.querySelector('#overview-toggle')?.addEventListener('click', () => this.run({ kind: 'overview' }));
    document.querySelector('#theme-toggle')?.addEventListener('click', () => this.run({ kind: 'theme' }));
    document.querySelector('#glossary-toggle')?.addEventListener('click', () => this.run({ kind: 'glossary' }));
    const about = document.querySelector<HTMLDialogElement>('#about');
    document.querySelector('#about-toggle')?.addEventListener('click', () => about?.showModal());
    // the dialog is modal: keys pressed in it are not the deck's (Escape closes it, and only it)
    about?.addEventListener('keydown', (e) => e.stopPropagation());
    document.querySelector('#open-model')?.addEventListener('click', () => void openModelDialog().then((name) => name !== undefined && this.useModel(name)));
    root.addEventListener('click', (e) => {
      // links to another slide ("#causal-mask") move within the deck
      const origin = e.composedPath()[0];
      const link = origin instanceof Element ? origin.closest('a[href^="#"]') : null;
      if (!link) return;
      e.preventDefault();
      this.show(this.indexOf((link.getAttribute('href') ?? '').slice(1)), 'push');
    });
    // a list scrolled within its slide fades out at its foot while more of it lies below
    for (const list of root.querySelectorAll<HTMLElement>('.glossary-scroll')) {
      const atEnd = () => list.classList.toggle('at-end', list.scrollTop + list.clientHeight >= list.scrollHeight - 2);
      list.addEventListener('scroll', atEnd, { passive: true });
      // its box, and what it holds (entries arrive a few at a frame)
      const resized = new ResizeObserver(atEnd);
      for (const box of [list, ...list.children]) resized.observe(box);
    }
    this.fit();
    this.followScrolling();
  }

  get index(): number {
    return this.current;
  }

  /** slide by id or 1-based number ("7"); the first when unknown */
  indexOf(id: string): number {
    const byId = this.slides.findIndex((s) => s.id === id);
    if (byId >= 0) return byId;
    const number = Number(id);
    return Number.isInteger(number) && number >= 1 && number <= this.slides.length ? number - 1 : 0;
  }

  run(command: Command): void {
    const last = this.slides.length - 1;
    switch (command.kind) {
      case 'next':
        if (!this.stepWidgets('forward')) this.show(Math.min(last, this.current + 1), 'push');
        break;
      case 'previous':
        if (!this.stepWidgets('back')) this.show(Math.max(0, this.current - 1), 'push');
        break;
      case 'first': this.show(0, 'push'); break;
      case 'last': this.show(last, 'push'); break;
      case 'goto': this.show(command.slide, 'push'); break;
      case 'overview': this.toggleOverview(); break;
      case 'theme': this.toggleTheme(); break;
      case 'glossary': this.toggleGlossary(); break;
    }
  }

  show(index: number, history: 'push' | 'replace' | 'none'): void {
    this.closeOverview();
    const changed = index !== this.current;
    this.markCurrent(index);
    const slide = this.slides[index];
    if (history === 'push' && changed) this.writeUrl('push');
    else if (history !== 'none') this.writeUrl('replace');
    if (this.stacked()) {
      if (changed && history !== 'replace') slide.scrollIntoView({ block: 'start' });
    }
    if (changed) this.arrive(slide);
  }

  /** the slide the counter, the title, the URL and the keys start from */
  private markCurrent(index: number): void {
    this.current = index;
    this.slides.forEach((slide, i) => slide.classList.toggle('active', i === index));
    this.hideOthers();
    const slide = this.slides[index];
    this.state = { ...this.state, slide: slide.id };
    const counter = document.querySelector('#slide-counter');
    if (counter) counter.textContent = `${index + 1} / ${this.slides.length}`;
    document.title = `${slide.dataset.title ?? ''} — attnlab`;
  }

  /** Stacked (a phone), the reader scrolls through the slides: the one at the top of the screen
   * becomes the current one (its number in the bar, its link in the URL), without being drawn
   * again, since every stacked slide is already shown. Read once a frame while scrolling. */
  private followScrolling(): void {
    let scheduled = false;
    this.stage.addEventListener('scroll', () => {
      if (scheduled || !this.stacked()) return;
      scheduled = true;
      requestAnimationFrame(() => {
        scheduled = false;
        const index = this.slideAtTop();
        if (index === this.current) return;
        this.markCurrent(index);
        this.writeUrl('replace');
      });
    }, { passive: true });
  }

  /** the last slide whose top has reached the upper tenth of the scrolling box; the last slide once
   * the box is scrolled to its end (a slide near the end may never reach the top) */
  private slideAtTop(): number {
    const stage = this.stage;
    if (stage.scrollTop + stage.clientHeight >= stage.scrollHeight - 2) return this.slides.length - 1;
    const box = stage.getBoundingClientRect();
    const line = box.top + 0.1 * box.height;
    let index = 0;
    this.slides.forEach((slide, i) => {
      if (slide.getBoundingClientRect().top <= line) index = i;
    });
    return index;
  }

  /** A slide just shown is drawn in two frames, each half the work: first its own text and
   * formulas, then its widgets (until then their boxes are left empty, content-visibility); then
   * the page is told to redraw, with every widget at its size. Long lists marked data-arrives-late
   * (the glossary's entries) then arrive a few at a frame, the first ones first. */
  private arrive(slide: HTMLElement): void {
    const widgets = [...slide.querySelectorAll<HTMLElement>('*')].filter((e) => e.localName.startsWith('attn-'));
    const late = [...slide.querySelectorAll<HTMLElement>('[data-arrives-late]')];
    for (const element of [...widgets, ...late]) element.classList.add('arriving');
    requestAnimationFrame(() => requestAnimationFrame(() => {
      for (const widget of widgets) widget.classList.remove('arriving');
      dispatchEvent(new Event('attn-redraw'));
      const next = () => {
        for (const element of late.splice(0, LATE_PER_FRAME)) element.classList.remove('arriving');
        if (late.length) requestAnimationFrame(next);
      };
      next();
    }));
  }

  /** Puts the page state into the URL (a new history entry, or in place of the current one) once
   * the next frame is drawn: writing the URL makes the browser lay the page out there and then, so
   * the key press that showed a slide would wait for its layout. Later writes before then join it. */
  private writeUrl(how: 'push' | 'replace'): void {
    const scheduled = this.urlWrite !== undefined;
    if (this.urlWrite !== 'push') this.urlWrite = how;
    if (scheduled) return;
    requestAnimationFrame(() => setTimeout(() => {
      const write = this.urlWrite;
      this.urlWrite = undefined;
      const hash = encodeHash(linkTo(this.state, this.settingsOn(this.slides[this.current])));
      if (write === undefined || hash === location.hash) return;
      if (write === 'push') window.history.pushState(null, '', hash);
      else window.history.replaceState(null, '', hash);
    }, 0));
  }

  /** the tags of the widgets on a slide that take part in the page state */
  private settingsOn(slide: HTMLElement | undefined): string[] {
    return slide ? [...new Set([...slide.querySelectorAll('[data-state]')].map((widget) => widget.localName))] : [];
  }

  private stacked(): boolean {
    return document.documentElement.classList.contains('stacked');
  }

  /** the slides not shown are hidden from assistive technology too; stacked, every slide is shown */
  private hideOthers(): void {
    const stacked = this.stacked();
    this.slides.forEach((slide, i) => slide.setAttribute('aria-hidden', String(!stacked && i !== this.current)));
  }

  private fit(): void {
    const scale = slideScale(innerWidth, innerHeight);
    document.documentElement.classList.toggle('stacked', scale === 'stacked');
    this.hideOthers();
    if (scale === 'stacked') {
      this.root.style.transform = '';
      this.stage.style.height = '';
    } else {
      const left = (innerWidth - SLIDE.width * scale) / 2;
      const top = (innerHeight - SLIDE.height * scale) / 2;
      this.root.style.transform = `translate(${left}px, ${top}px) scale(${scale})`;
    }
    dispatchEvent(new Event('attn-redraw'));
  }

  private onKey(e: KeyboardEvent): void {
    if (e.defaultPrevented) return;
    if (keyBelongsToControl(e)) return;
    const overview = document.querySelector<HTMLElement>('#overview');
    if (overview && !overview.hidden && e.key !== 'Escape') return;
    const command = this.keys.press(e, this.slides.length);
    if (!command) return;
    e.preventDefault();
    this.run(command);
  }

  private stepWidgets(direction: 'forward' | 'back'): boolean {
    const slide = this.slides[this.current];
    for (const widget of slide.querySelectorAll('*')) {
      if (!isStepper(widget)) continue;
      if (direction === 'forward' ? widget.stepForward() : widget.stepBack()) return true;
    }
    return false;
  }

  private restore(): void {
    // the URL is the reader's now (back, forward, a link): a write still waiting would undo it
    this.urlWrite = undefined;
    const link = decodeHash(location.hash);
    const index = this.indexOf(link.slide);
    this.state = followLink(this.state, link, this.settingsOn(this.slides[index]));
    this.applySettings();
    this.show(index, 'none');
  }

  /** every widget taking part in the page state gets its settings as attributes */
  private applySettings(): void {
    for (const widget of this.root.querySelectorAll<HTMLElement>('[data-state]')) {
      for (const [name, text] of attributesFor(widget.localName, this.state)) {
        if (text === null) {
          if (widget.hasAttribute(name)) widget.removeAttribute(name);
        } else if (widget.getAttribute(name) !== text) {
          widget.setAttribute(name, text);
        }
      }
    }
  }

  private onWidgetChange(e: CustomEvent<Record<string, Value>>): void {
    const widget = e.target as HTMLElement;
    if (!widget.hasAttribute('data-state')) return;
    for (const [attribute, value] of Object.entries(e.detail)) {
      const field = fieldFor(widget.localName, attribute);
      if (field) this.state = withValue(this.state, field, value);
    }
    // a setting several widgets share (the model in use) reaches the others
    if (MODEL_FIELD.attribute in e.detail) this.applySettings();
    this.writeUrl('replace');
  }

  /** a widget asked to show another (the head finder, a head in the explorer): its slide, with those settings */
  private openWidget(e: CustomEvent<{ tag: string; settings: Record<string, Value> }>): void {
    const { tag, settings } = e.detail;
    const slide = this.slides.findIndex((s) => s.querySelector(`${CSS.escape(tag)}[data-state]`));
    if (slide < 0) return;
    e.preventDefault();
    for (const [attribute, value] of Object.entries(settings)) {
      const field = fieldFor(tag, attribute);
      if (field) this.state = withValue(this.state, field, value);
    }
    this.applySettings();
    this.show(slide, 'push');
  }

  /** every model widget of the deck shows the model named (opened by the reader) */
  useModel(name: string): void {
    this.state = withValue(this.state, FIELDS.find((f) => f.key === MODEL_FIELD.key)!, name);
    this.applySettings();
    this.writeUrl('replace');
  }

  /** the overview's list of slides, made when it is first opened (the page's first task stays short) */
  private buildOverview(): void {
    const list = document.querySelector('#overview ol');
    if (!list || list.childElementCount > 0) return;
    const span = (className: string, text: string) => Object.assign(document.createElement('span'), { className, textContent: text });
    list.replaceChildren(...this.slides.map((slide, i) => {
      const item = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset.slide = String(i);
      button.append(span('number', String(i + 1)), span('name', slide.dataset.title ?? slide.id));
      button.addEventListener('click', () => this.show(i, 'push'));
      item.append(button);
      return item;
    }));
  }

  private toggleOverview(): void {
    const overview = document.querySelector<HTMLElement>('#overview');
    if (!overview) return;
    if (!overview.hidden) {
      this.closeOverview();
      return;
    }
    this.buildOverview();
    overview.hidden = false;
    overview.querySelector<HTMLButtonElement>(`button[data-slide="${this.current}"]`)?.focus();
  }

  private closeOverview(): void {
    const overview = document.querySelector<HTMLElement>('#overview');
    if (overview && !overview.hidden) overview.hidden = true;
  }

  /** the glossary slide, or back from it to the slide it was opened from */
  private toggleGlossary(): void {
    const glossary = this.slides.findIndex((s) => s.id === GLOSSARY_SLIDE);
    if (glossary < 0) return;
    if (this.current !== glossary) {
      this.beforeGlossary = this.current;
      this.show(glossary, 'push');
    } else if (this.beforeGlossary !== undefined) {
      this.show(this.beforeGlossary, 'push');
    }
  }

  private toggleTheme(): void {
    const html = document.documentElement;
    const dark = html.dataset.theme ? html.dataset.theme === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches;
    html.dataset.theme = dark ? 'light' : 'dark';
    try {
      localStorage.setItem('attnlab-theme', html.dataset.theme);
    } catch {
      // private mode: the choice lasts for this visit
    }
    dispatchEvent(new CustomEvent('attn-redraw', { detail: { restyle: true } }));
  }
}
