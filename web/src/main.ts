// The seminar page: registers the widgets, restores the shared state from the URL and keeps the
// URL in step with what the reader changes.
import { decodeState, encodeState, type AppState } from './app/state';
import { pageEngine } from './app/engine';
import './widgets/attention-steps';
import './widgets/coreference';
import './widgets/positional-encoding';

let state: AppState = decodeState(location.hash);

function applyState(s: AppState): void {
  const steps = document.querySelector('attn-attention-steps');
  steps?.toggleAttribute('causal', s.attention.causal);
  steps?.toggleAttribute('unscaled', !s.attention.scaled);
  steps?.setAttribute('query', String(s.attention.query));
  const pe = document.querySelector('attn-positional-encoding');
  pe?.setAttribute('n', String(s.positional.n));
  pe?.setAttribute('d', String(s.positional.d));
  pe?.setAttribute('base', String(s.positional.base));
  pe?.setAttribute('kind', s.positional.kind);
  pe?.setAttribute('head', String(s.positional.head));
  const coreference = document.querySelector('attn-coreference');
  coreference?.setAttribute('sentence', s.coreference.sentence);
  coreference?.setAttribute('token', String(s.coreference.token));
}

document.addEventListener('attn-change', (event) => {
  const detail = (event as CustomEvent<Record<string, number | boolean | string>>).detail;
  const target = event.target as Element;
  if (target.localName === 'attn-attention-steps') state = { ...state, attention: { ...state.attention, ...detail } };
  if (target.localName === 'attn-positional-encoding') state = { ...state, positional: { ...state.positional, ...detail } };
  if (target.localName === 'attn-coreference') state = { ...state, coreference: { ...state.coreference, ...detail } };
  history.replaceState(null, '', encodeState(state) || location.pathname + location.search);
});

window.addEventListener('hashchange', () => {
  state = decodeState(location.hash);
  applyState(state);
});

applyState(state);

pageEngine().then(
  (engine) => {
    const info = engine.info;
    const footer = document.querySelector('#engine-info');
    if (footer) {
      footer.textContent = `Engine ${info.version}, WebAssembly build "${info.build}", SIMD ${info.simd ? 'on' : 'off'}, ` +
        `${info.threadsUsed} thread${info.threadsUsed === 1 ? '' : 's'}.`;
    }
  },
  () => undefined, // each widget reports a load failure itself
);
