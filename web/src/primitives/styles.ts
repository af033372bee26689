// Styles every widget adopts inside its shadow root, so a widget looks the same in the deck and
// inside someone else's slides. Colours come from the host page's --attn-* variables when it sets
// them (the deck's theme toggle), else from the reader's light/dark preference.
export const baseStyles = `
:host {
  display: block;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif;
  --fg: var(--attn-fg, #1d2330);
  --muted: var(--attn-muted, #4f586b);
  --border: var(--attn-border, #c9d0dc);
  --accent: var(--attn-accent, #1f5fbf);
  --panel: var(--attn-panel, #f4f6fa);
  --good: var(--attn-good, #1b7a3a);
  --bad: var(--attn-bad, #b3261e);
  --bg: var(--attn-page, #fff);
  color: var(--fg);
}
@media (prefers-color-scheme: dark) {
  :host { --fg: var(--attn-fg, #e6e9ef); --muted: var(--attn-muted, #a9b2c3); --border: var(--attn-border, #3a4152);
          --accent: var(--attn-accent, #8ab8ff); --panel: var(--attn-panel, #1b1f29);
          --good: var(--attn-good, #6fd08c); --bad: var(--attn-bad, #ff8a80); --bg: var(--attn-page, #12151c); }
}
.panel { background: var(--panel); border: 1px solid var(--border); border-radius: 8px; padding: 12px 14px; }
.row { display: flex; flex-wrap: wrap; gap: 18px; align-items: flex-start; }
.muted { color: var(--muted); font-size: 14px; }
.top { display: flex; gap: 12px; align-items: flex-start; }
.top .hint { flex: 1; }
.hint { margin: 0 0 8px; color: var(--muted); font-size: 14px; }
.share { position: relative; font-size: 14px; }
.share summary { cursor: pointer; color: var(--muted); list-style: none; border: 1px solid var(--border); border-radius: 6px; padding: 1px 8px; }
.share summary::-webkit-details-marker { display: none; }
.share > div { position: absolute; right: 0; top: calc(100% + 4px); z-index: 5; width: 26em; display: flex; flex-wrap: wrap; gap: 6px;
  background: var(--panel); border: 1px solid var(--border); border-radius: 8px; padding: 8px; box-shadow: 0 4px 14px rgb(0 0 0 / 0.15); }
.share input { flex: 1 1 100%; font-size: 14px; }
@media print { .share { display: none; } }
.hint::before { content: "Look for: "; font-weight: 600; }
.status:empty { display: none; }
.status { display: flex; gap: 10px; align-items: center; margin: 6px 0; font-size: 14px; color: var(--muted); }
.error { color: var(--bad); font-weight: 600; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
/* a screen-reader table's rows as lines of bare text (its cells keep their roles): table layout
   would size every column from every cell, and a box per cell makes a long row slow to lay out */
.sr-table table, .sr-table caption, .sr-table tr { display: block; }
.sr-table th, .sr-table td { display: contents; }
[hidden] { display: none !important; }
/* a phone: pictures lay themselves out for the screen's width, their text the same size (canvas.ts's
   fit, the architecture's narrow layout); what still cannot fit scrolls sideways inside the widget's
   own box, as a formula or a wide table does inside its own, and the scroll cue says so */
@media (max-width: 799px) { :host { overflow-x: auto; } .katex-display { overflow: auto hidden; } }
.scroll-cue { position: sticky; left: 0; width: max-content; max-width: 100%; margin: 0 0 6px; font-size: 14px; color: var(--muted); }
@media (min-width: 800px) { .scroll-cue { display: none !important; } }
button, select, input { font: inherit; color: inherit; }
button { border: 1px solid var(--border); background: transparent; border-radius: 6px; padding: 4px 10px; cursor: pointer; }
button:disabled { opacity: 0.5; cursor: default; }
button[aria-pressed="true"], button.active { background: var(--accent); border-color: var(--accent); color: var(--attn-on-accent, #fff); }
@media (prefers-color-scheme: dark) { button[aria-pressed="true"], button.active { color: var(--attn-on-accent, #0b1220); } }
:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
select, input[type="text"], input[type="number"] { background: transparent; border: 1px solid var(--border); border-radius: 6px; padding: 3px 6px; }
select option { background: var(--panel); }
/* a row of controls, and a named group of choices in it */
.toolbar { display: flex; flex-wrap: wrap; gap: 6px 16px; align-items: center; margin: 0 0 8px; font-size: 14px; }
.group { display: inline-flex; flex-wrap: wrap; gap: 4px; align-items: center; font-size: 14px; }
.group .name { color: var(--muted); margin-right: 2px; }
.group button { padding: 1px 9px; font-size: 14px; }
.model-list { display: inline-flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.model-note:empty { display: none; }
label.control { display: inline-flex; gap: 8px; align-items: center; font-size: 14px; max-width: 100%; }
label.control input[type="text"] { min-width: 0; max-width: 100%; }
output { font-variant-numeric: tabular-nums; }
.eq { font-size: 17px; }
`;
