// Base of every widget: a custom element with its own shadow root and styles that loads the
// shared engine, renders, and re-renders when an observed attribute changes. Errors from the
// engine are shown inside the widget instead of breaking the page.
import { pageEngine } from '../app/engine';
import type { Engine } from '../engine/index';
import { baseStyles } from './styles';

export abstract class EngineElement extends HTMLElement {
  protected readonly root: ShadowRoot;
  private readonly body: HTMLElement;
  private engine?: Engine;
  private scheduled = false;

  constructor(styles: string) {
    super();
    this.root = this.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    style.textContent = baseStyles + styles;
    this.body = document.createElement('div');
    this.body.className = 'body';
    this.body.textContent = 'Loading the engine…';
    this.root.append(style, this.body);
  }

  connectedCallback(): void {
    pageEngine().then(
      (engine) => {
        this.engine = engine;
        this.update();
      },
      (error: unknown) => this.showError(`The engine could not be loaded: ${String(error)}`),
    );
  }

  attributeChangedCallback(): void {
    this.update();
  }

  /** Schedules one render for the next frame, however many attributes changed. */
  protected update(): void {
    if (!this.engine || this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => {
      this.scheduled = false;
      if (!this.engine) return;
      try {
        const view = this.render(this.engine);
        // a widget may return the view it already shows (keeping a slider mid-drag in place)
        if (view !== this.body.firstChild || this.body.childNodes.length !== 1) this.body.replaceChildren(view);
        this.dataset.ready = 'true';
      } catch (error) {
        this.showError(error instanceof Error ? error.message : String(error));
      }
    });
  }

  /** Builds (or updates and returns) the widget's view from its current attributes. */
  protected abstract render(engine: Engine): Node;

  /** Tells the page (and anything embedding the widget) that the user changed a setting. */
  protected announce(detail: Record<string, unknown>): void {
    this.dispatchEvent(new CustomEvent('attn-change', { detail, bubbles: true, composed: true }));
  }

  protected intAttribute(name: string, fallback: number, min: number, max: number): number {
    const value = Number(this.getAttribute(name));
    if (this.getAttribute(name) === null || !Number.isFinite(value)) return fallback;
    return Math.min(max, Math.max(min, Math.round(value)));
  }

  private showError(message: string): void {
    const p = document.createElement('p');
    p.className = 'error';
    p.setAttribute('role', 'alert');
    p.textContent = message;
    this.body.replaceChildren(p);
  }
}
