// Styles every widget adopts inside its shadow root, so a widget looks the same on this page and
// inside someone else's slides. Colours follow the host's light/dark preference.
export const baseStyles = `
:host {
  display: block;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif;
  color: var(--attn-fg, #1d2330);
  --attn-muted: #5b6477;
  --attn-border: #d7dce5;
  --attn-accent: #1f5fbf;
  --attn-panel: #f6f8fb;
}
@media (prefers-color-scheme: dark) {
  :host { color: var(--attn-fg, #e6e9ef); --attn-muted: #a3acbd; --attn-border: #3a4152;
          --attn-accent: #7fb0ff; --attn-panel: #1b1f29; }
}
.panel { background: var(--attn-panel); border: 1px solid var(--attn-border); border-radius: 8px; padding: 12px 14px; }
.row { display: flex; flex-wrap: wrap; gap: 18px; align-items: flex-start; }
.muted { color: var(--attn-muted); font-size: 13px; }
.error { color: #b3261e; font-weight: 600; }
button, select, input { font: inherit; }
button { border: 1px solid var(--attn-border); background: transparent; color: inherit; border-radius: 6px; padding: 4px 10px; cursor: pointer; }
button[aria-pressed="true"], button.active { background: var(--attn-accent); border-color: var(--attn-accent); color: #fff; }
label.control { display: inline-flex; gap: 8px; align-items: center; font-size: 14px; }
.eq { font-family: "DejaVu Serif", "Cambria Math", Georgia, serif; font-size: 16px; }
`;
