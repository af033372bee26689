// A formula typeset by KaTeX (bundled; its fonts are served with the page). Widgets build the
// TeX from engine numbers and fixed symbols only: text a reader typed never goes into TeX.
import katex from 'katex';
import katexStyles from 'katex/dist/katex.min.css?inline';

let sheet: CSSStyleSheet | undefined;

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

export function equation(tex: string, { display = false } = {}): HTMLElement {
  const element = document.createElement(display ? 'div' : 'span');
  element.className = 'eq';
  element.innerHTML = katex.renderToString(tex, { displayMode: display, throwOnError: false, output: 'htmlAndMathml' });
  return element;
}
