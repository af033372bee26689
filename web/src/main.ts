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

/** starts the engine and says in the About panel which build runs, with how many threads; a
 * failure to load it is said in the deck's bar, where it is seen */
function showEngineInfo(): void {
  const info = document.querySelector('#engine-info');
  const problem = document.querySelector<HTMLElement>('#engine-problem');
  pageEngine().then(
    async (engine) => {
      const { version, build, simd, threadsUsed } = await engine.info();
      if (info) info.textContent = `engine ${version} · ${build} · SIMD ${simd ? 'on' : 'off'} · ${threadsUsed} thread${threadsUsed === 1 ? '' : 's'}`;
    },
    (error: unknown) => {
      const message = `The engine could not be loaded: ${String(error)}`;
      if (info) info.textContent = message;
      if (problem) Object.assign(problem, { textContent: message, hidden: false });
    },
  );
}
