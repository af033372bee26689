// A widget's downloads: its pictures as one PNG (at 2×, each canvas and diagram where it sits),
// a vector diagram as SVG with its styles written in, and the numbers behind it as CSV (from its
// screen-reader tables, exact). File names say what and which settings.
import { toCsv } from '../math/csv';
import { tablesIn } from './screen-reader-table';

/** the pictures under `root`, composed as the widget `host` shows them, `scale` times its size */
export async function picturesPng(host: HTMLElement, root: ParentNode, scale = 2): Promise<Blob> {
  const box = host.getBoundingClientRect();
  const shrink = host.offsetWidth > 0 ? box.width / host.offsetWidth : 1;  // the page's own scaling
  const out = document.createElement('canvas');
  out.width = Math.round(host.offsetWidth * scale);
  out.height = Math.round(host.offsetHeight * scale);
  const g = out.getContext('2d')!;
  g.fillStyle = getComputedStyle(host).getPropertyValue('--bg').trim() || '#fff';
  g.fillRect(0, 0, out.width, out.height);
  const place = (r: DOMRect) => [(r.left - box.left) / shrink, (r.top - box.top) / shrink, r.width / shrink, r.height / shrink].map((v) => v * scale);
  for (const picture of root.querySelectorAll<HTMLCanvasElement | SVGSVGElement>('canvas, svg:not(.katex svg)')) {
    if (!picture.checkVisibility() || picture.closest('.sr-only')) continue;
    const [x, y, w, h] = place(picture.getBoundingClientRect());
    if (w <= 0 || h <= 0) continue;
    if (picture instanceof HTMLCanvasElement) g.drawImage(picture, x, y, w, h);
    else g.drawImage(await svgImage(picture), x, y, w, h);
  }
  return new Promise((resolve, reject) => out.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('the picture could not be encoded'))), 'image/png'));
}

const STYLED = ['fill', 'stroke', 'stroke-width', 'stroke-dasharray', 'stroke-linejoin', 'paint-order', 'opacity',
  'font-family', 'font-size', 'font-weight', 'font-variant-numeric', 'text-anchor', 'marker-end'];

/** the diagram as a standalone SVG file: every element's computed style written on it */
export function svgText(svg: SVGSVGElement): string {
  const copy = svg.cloneNode(true) as SVGSVGElement;
  const originals = [svg, ...svg.querySelectorAll('*')];
  const copies = [copy, ...copy.querySelectorAll('*')];
  originals.forEach((element, i) => {
    const style = getComputedStyle(element);
    (copies[i] as SVGElement).setAttribute('style', STYLED.map((p) => `${p}:${style.getPropertyValue(p)}`).join(';'));
  });
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  const { width, height } = svg.getBoundingClientRect();
  copy.setAttribute('width', String(Math.round(width)));
  copy.setAttribute('height', String(Math.round(height)));
  return new XMLSerializer().serializeToString(copy);
}

async function svgImage(svg: SVGSVGElement): Promise<HTMLImageElement> {
  const image = new Image();
  image.src = URL.createObjectURL(new Blob([svgText(svg)], { type: 'image/svg+xml' }));
  await image.decode();
  return image;
}

/** the numbers behind the pictures under `root`, or undefined when it has none */
export function numbersCsv(root: ParentNode): string | undefined {
  const tables = tablesIn(root);
  return tables.length ? toCsv(tables) : undefined;
}

/** saves `data` as a file named `name` */
export function download(name: string, data: Blob | string, type = 'text/csv'): void {
  const url = URL.createObjectURL(typeof data === 'string' ? new Blob([data], { type }) : data);
  const link = Object.assign(document.createElement('a'), { href: url, download: name });
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/** "#explorer&xlayer=0" → "attnlab-explorer_xlayer-0" */
export function fileStem(hash: string): string {
  return `attnlab-${hash.replace(/^#/, '').replace(/=/g, '-').replace(/&/g, '_').replace(/[^\w.-]+/g, '')}`;
}
