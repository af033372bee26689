import { describe, expect, it } from 'vitest';
import { decodeState, defaultState, encodeState } from '../../web/src/app/state';

describe('app state in the URL', () => {
  it('round-trips every field', () => {
    const state = {
      attention: { causal: true, scaled: false, query: 2 },
      positional: { kind: 'rope' as const, n: 64, d: 16, base: 100, head: 5 },
      coreference: { sentence: 'the dog chased the ball because it was fast & <b>', token: 3 },
    };
    expect(decodeState(encodeState(state))).toEqual(state);
  });
  it('writes nothing for the defaults', () => {
    expect(encodeState(defaultState())).toBe('');
    expect(decodeState('')).toEqual(defaultState());
  });
  it('clamps or ignores hostile values instead of failing', () => {
    const s = decodeState('#n=1e99&d=abc&base=-5&q=<script>&causal=maybe&pe=fourier&head=-9&unknown=1');
    expect(s.positional).toEqual({ kind: 'sinusoidal', n: 128, d: 32, base: 10, head: 0 });
    expect(s.attention).toEqual(defaultState().attention);
    const long = decodeState(`#it=${'x'.repeat(5000)}&tok=99`).coreference;
    expect(long.sentence.length).toBe(200);
    expect(long.token).toBe(15);
  });
  it('keeps the width even', () => {
    expect(decodeState('#d=7').positional.d % 2).toBe(0);
  });
});
