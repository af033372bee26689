// A formula typeset by KaTeX (bundled; its fonts are served with the page). Widgets build the
// TeX from engine numbers and fixed symbols only: text a reader typed never goes into TeX.
// KaTeX's code is a quarter of a megabyte, loaded only by the widgets that typeset (the slides'
// own formulas are typeset when the page is built): they await loadTypesetting() first.
import katexStyles from 'katex/dist/katex.min.css?inline';

let katex: typeof import('katex').default | undefined;
let sheet: CSSStyleSheet | undefined;

export async function loadTypesetting(): Promise<void> {
  katex ??= (await import('katex')).default;
}

/** KaTeX's rules, shared by every shadow root that shows formulas */
export function katexSheet(): CSSStyleSheet {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    // @font-face rules are the document's business (the page loads katex.min.css); a shadow
    // root ignores them, so only the layout rules are kept here
    sheet.replaceSync(katexStyles.replace(/@font-face\s*{[^}]*}/g, ''));
  }
  return sheet;
}

/** typeset formulas by display mode and TeX: widgets show the same few again and again */
const typesetHtml = new Map<string, string>();
const TYPESET_KEPT = 256;

/** Formulas in a line of text, "a = b,\\quad c = d": each part kept whole, the line broken between
 * them where it is too narrow for both (a phone), never inside one (KaTeX would break after "="). */
const PARTS = ',\\quad ';

export function equation(tex: string, { display = false } = {}): HTMLElement {
  if (!display && tex.includes(PARTS)) {
    const element = document.createElement('span');
    element.className = 'eq';
    const parts = tex.split(PARTS);
    element.append(...parts.map((part, i) => {
      const whole = typeset(i < parts.length - 1 ? `${part},` : part, false);
      whole.style.cssText = `display:inline-block;white-space:nowrap${i < parts.length - 1 ? ';margin-right:1em' : ''}`;
      return whole;
    }));
    return element;
  }
  return typeset(tex, display);
}

function typeset(tex: string, display: boolean): HTMLElement {
  const element = document.createElement(display ? 'div' : 'span');
  element.className = 'eq';
  const key = `${display ? 'D' : 'I'}${tex}`;
  let html = typesetHtml.get(key);
  if (html === undefined) {
    if (!katex) throw new Error('equation() before loadTypesetting()');
    html = katex.renderToString(tex, { displayMode: display, throwOnError: false, output: 'htmlAndMathml' });
    if (typesetHtml.size >= TYPESET_KEPT) typesetHtml.delete(typesetHtml.keys().next().value!);
    typesetHtml.set(key, html);
  }
  element.innerHTML = html;
  return element;
}
