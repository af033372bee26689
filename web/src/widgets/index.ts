// Every widget of the deck, each in its own chunk of code. defineWidgets() loads a widget's code
// when an element of it comes near the screen, and the rest one at a time while the page is idle:
// the page shows its first slide without evaluating code for the other slides, and no single task
// evaluates all of it.
import { whenIdle } from '../primitives/idle';

const WIDGETS: Record<string, () => Promise<unknown>> = {
  'attn-attention-map': () => import('./attention-map'),
  'attn-rnn-gradients': () => import('./rnn-gradients'),
  'attn-architecture': () => import('./architecture'),
  'attn-components': () => import('./components'),
  'attn-four-steps': () => import('./four-steps'),
  'attn-attention-steps': () => import('./attention-steps'),
  'attn-scaling': () => import('./scaling'),
  'attn-multi-head': () => import('./multi-head'),
  'attn-explorer': () => import('./explorer'),
  'attn-causal-mask': () => import('./causal-mask'),
  'attn-positional-encoding': () => import('./positional-encoding'),
  'attn-sinusoidal-shift': () => import('./sinusoidal-shift'),
  'attn-permutation': () => import('./permutation'),
  'attn-rope': () => import('./rope'),
  'attn-kv-heads': () => import('./kv-heads'),
  'attn-norms': () => import('./norms'),
  'attn-depth-gradients': () => import('./depth-gradients'),
  'attn-ffn': () => import('./ffn'),
  'attn-patches': () => import('./patches'),
  'attn-kv-cache': () => import('./kv-cache'),
  'attn-generation': () => import('./generation'),
  'attn-families': () => import('./families'),
  'attn-complexity': () => import('./complexity'),
  'attn-flash': () => import('./flash'),
  'attn-training': () => import('./training'),
  'attn-scaling-laws': () => import('./scaling-laws'),
};

export const WIDGET_TAGS = Object.keys(WIDGETS);

const loading = new Map<string, Promise<unknown>>();
/** loads (once) the code that defines `tag` */
export function loadWidget(tag: string): Promise<unknown> {
  const load = WIDGETS[tag];
  if (!load) return Promise.resolve();
  let promise = loading.get(tag);
  if (!promise) loading.set(tag, (promise = load()));
  return promise;
}

/** defines the widgets found under `root`: the ones near the screen first, then the others when idle */
export function defineWidgets(root: ParentNode = document): void {
  const elements = WIDGET_TAGS.flatMap((tag) => [...root.querySelectorAll(tag)]);
  const near = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      near.unobserve(entry.target);
      void loadWidget(entry.target.localName);
    }
  }, { rootMargin: '200px' });
  for (const element of elements) near.observe(element);
  const rest = [...new Set(elements.map((e) => e.localName))];
  const next = () => {
    const tag = rest.shift();
    if (tag) void loadWidget(tag).then(() => whenIdle(next));
  };
  whenIdle(next);
}
