// The widget registry's loading: a widget whose code fails to load is tried again at the next call
// (a network hiccup must not leave the widget blank for the rest of the visit).
import { describe, expect, it, vi } from 'vitest';

const network = vi.hoisted(() => ({ failures: 1 }));
vi.mock('../../web/src/widgets/kv-cache', () => {
  if (network.failures-- > 0) throw new Error('network down');
  return { default: class {} };
});

describe('loadWidget', () => {
  it('forgets a failed load, so that the next call loads again', async () => {
    const defined = new Map<string, unknown>();
    vi.stubGlobal('customElements', { get: (tag: string) => defined.get(tag), define: (tag: string, c: unknown) => defined.set(tag, c) });
    const { loadWidget } = await import('../../web/src/runtime/registry');
    await expect(loadWidget('attn-kv-cache')).rejects.toThrow();
    expect(defined.has('attn-kv-cache')).toBe(false);
    await loadWidget('attn-kv-cache');
    expect(defined.has('attn-kv-cache')).toBe(true);
    // and once defined, it is not loaded again
    await loadWidget('attn-kv-cache');
    vi.unstubAllGlobals();
  });
});
