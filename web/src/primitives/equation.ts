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
const typeset = new Map<string, string>();
const TYPESET_KEPT = 256;

export function equation(tex: string, { display = false } = {}): HTMLElement {
  const element = document.createElement(display ? 'div' : 'span');
  element.className = 'eq';
  const key = `${display ? 'D' : 'I'}${tex}`;
  let html = typeset.get(key);
  if (html === undefined) {
    if (!katex) throw new Error('equation() before loadTypesetting()');
    html = katex.renderToString(tex, { displayMode: display, throwOnError: false, output: 'htmlAndMathml' });
    if (typeset.size >= TYPESET_KEPT) typeset.delete(typeset.keys().next().value!);
    typeset.set(key, html);
  }
  element.innerHTML = html;
  return element;
}
