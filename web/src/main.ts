// The seminar deck: its styles (KaTeX's, bundled with its fonts), the widgets, the deck that shows
// one slide at a time and keeps the URL in step with the slide and every widget's settings, and the
// glossary's terms.
import 'katex/dist/katex.min.css';
import './app/theme.css';
import './app/deck.css';
import { Deck } from './app/deck';
import { enableGlossary } from './primitives/glossary';
import { pageEngine } from './runtime/engine';
import { defineWidgets } from './runtime/registry';

const root = document.querySelector<HTMLElement>('#deck');
const stage = document.querySelector<HTMLElement>('#stage');
if (root && stage) new Deck(root, stage);
// the terms the slides mark open their definitions
enableGlossary(document);
// the widgets and the engine start in a task of their own: the page's first layout, in this one,
// does not wait for them
setTimeout(() => {
  defineWidgets();
  showEngineInfo();
}, 0);

/** starts the engine and says in the deck's bar which build runs, with how many threads */
function showEngineInfo(): void {
  const footer = document.querySelector('#engine-info');
  pageEngine().then(
    async (engine) => {
      const info = await engine.info();
      if (footer) {
        footer.textContent = `engine ${info.version} · ${info.build} · SIMD ${info.simd ? 'on' : 'off'} · `
          + `${info.threadsUsed} thread${info.threadsUsed === 1 ? '' : 's'}`;
      }
    },
    (error: unknown) => {
      if (footer) footer.textContent = `The engine could not be loaded: ${String(error)}`;
    },
  );
}
