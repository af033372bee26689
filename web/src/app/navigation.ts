// What a key press means to the deck. DOM-free, so the key map is tested without a browser.

export type Command =
  | { kind: 'next' }
  | { kind: 'previous' }
  | { kind: 'first' }
  | { kind: 'last' }
  | { kind: 'goto'; slide: number }   // 0-based
  | { kind: 'overview' }
  | { kind: 'theme' }
  | { kind: 'glossary' };

export interface KeyPress {
  key: string;
  shiftKey?: boolean;
  altKey?: boolean;
  ctrlKey?: boolean;
  metaKey?: boolean;
}

/** Turns key presses into deck commands; remembers digits typed before Enter ("12 Enter" → slide 12). */
export class KeyMap {
  private digits = '';

  /** the command for this key, or undefined when the deck should leave the key alone */
  press(e: KeyPress, slideCount: number): Command | undefined {
    if (e.altKey || e.ctrlKey || e.metaKey) return undefined;
    if (/^[0-9]$/.test(e.key)) {
      this.digits = (this.digits + e.key).slice(-3);
      return undefined;
    }
    const typed = this.digits;
    this.digits = '';
    switch (e.key) {
      case 'Enter':
        if (!typed) return undefined;
        return { kind: 'goto', slide: Math.min(slideCount, Math.max(1, Number(typed))) - 1 };
      case 'ArrowRight': case 'ArrowDown': case 'PageDown': return { kind: 'next' };
      case 'ArrowLeft': case 'ArrowUp': case 'PageUp': return { kind: 'previous' };
      case ' ': return { kind: e.shiftKey ? 'previous' : 'next' };
      case 'Home': return { kind: 'first' };
      case 'End': return { kind: 'last' };
      case 'Escape': return { kind: 'overview' };
      case 't': case 'T': return { kind: 'theme' };
      case 'g': case 'G': return { kind: 'glossary' };
      default: return undefined;
    }
  }
}

/** The deck's scale: slides are designed at 1280×720 and scaled to fit the window; narrower than
 * 800 px they are stacked at their natural size instead (phones). */
export const SLIDE = { width: 1280, height: 720, stackBelow: 800 } as const;

export function slideScale(windowWidth: number, windowHeight: number): number | 'stacked' {
  if (windowWidth < SLIDE.stackBelow) return 'stacked';
  return Math.min(windowWidth / SLIDE.width, windowHeight / SLIDE.height);
}
