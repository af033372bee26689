import { describe, expect, it } from 'vitest';
import { KeyMap, slideScale } from '../../web/src/app/navigation';

describe('deck keys', () => {
  const press = (keys: KeyMap, key: string, shiftKey = false) => keys.press({ key, shiftKey }, 11);

  it('moves with arrows, Space, Page keys, Home and End', () => {
    const keys = new KeyMap();
    for (const key of ['ArrowRight', 'ArrowDown', 'PageDown', ' ']) expect(press(keys, key)).toEqual({ kind: 'next' });
    for (const key of ['ArrowLeft', 'ArrowUp', 'PageUp']) expect(press(keys, key)).toEqual({ kind: 'previous' });
    expect(press(keys, ' ', true)).toEqual({ kind: 'previous' });
    expect(press(keys, 'Home')).toEqual({ kind: 'first' });
    expect(press(keys, 'End')).toEqual({ kind: 'last' });
    expect(press(keys, 'Escape')).toEqual({ kind: 'overview' });
  });

  it('opens the glossary on G and switches the theme on T, either case', () => {
    const keys = new KeyMap();
    for (const key of ['g', 'G']) expect(press(keys, key)).toEqual({ kind: 'glossary' });
    for (const key of ['t', 'T']) expect(press(keys, key)).toEqual({ kind: 'theme' });
    expect(new KeyMap().press({ key: 'g', ctrlKey: true }, 11)).toBeUndefined();
  });

  it('jumps to a typed slide number on Enter, within the deck', () => {
    const keys = new KeyMap();
    expect(press(keys, '1')).toBeUndefined();
    expect(press(keys, '0')).toBeUndefined();
    expect(press(keys, 'Enter')).toEqual({ kind: 'goto', slide: 9 });
    press(keys, '9');
    press(keys, '9');
    expect(press(keys, 'Enter')).toEqual({ kind: 'goto', slide: 10 });
    expect(press(keys, 'Enter')).toBeUndefined();
    press(keys, '4');
    press(keys, 'ArrowRight');  // another key forgets the digits
    expect(press(keys, 'Enter')).toBeUndefined();
  });

  it('leaves keys with modifiers to the browser', () => {
    expect(new KeyMap().press({ key: 'ArrowRight', altKey: true }, 11)).toBeUndefined();
    expect(new KeyMap().press({ key: 't', ctrlKey: true }, 11)).toBeUndefined();
  });

  it('scales 16:9 slides to the window and stacks them on narrow screens', () => {
    expect(slideScale(1280, 720)).toBe(1);
    expect(slideScale(1920, 1080)).toBe(1.5);
    expect(slideScale(1920, 720)).toBe(1);
    expect(slideScale(700, 900)).toBe('stacked');
  });
});
