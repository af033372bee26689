// The vision slide's 32×32 grey image: the built-in pictures, a drawing's bits in the URL, strokes
// of the pointer, and the grid of P×P patches over it. An image is SIDE² grey values in raster
// order, 0 black … 1 white. DOM-free; nothing here throws on what a link or a pointer gives it.

/** the image is SIDE × SIDE pixels */
export const SIDE = 32;
export const PIXELS = SIDE * SIDE;

export type BuiltInPicture = 'checkerboard' | 'stripes' | 'ring' | 'letter';

/** a blocky capital A, 6 × 7 cells of 4 × 4 pixels */
const LETTER_A = [
  '.####.',
  '##..##',
  '##..##',
  '######',
  '##..##',
  '##..##',
  '##..##',
];
const CELL = 4;

/** white (1) where `inside(x, y)` holds for the pixel's centre, black (0) elsewhere */
function picture(inside: (x: number, y: number) => boolean): Float32Array {
  const image = new Float32Array(PIXELS);
  for (let y = 0; y < SIDE; y++) for (let x = 0; x < SIDE; x++) image[y * SIDE + x] = inside(x + 0.5, y + 0.5) ? 1 : 0;
  return image;
}

/** A built-in picture, the same on every call: a checkerboard of 4-pixel squares (white at the top
 * left), diagonal stripes 6 pixels wide, a ring around the centre, or a blocky "A". */
export function builtInPicture(name: BuiltInPicture): Float32Array {
  switch (name) {
    case 'checkerboard':
      return picture((x, y) => ((Math.floor(x / 4) + Math.floor(y / 4)) & 1) === 0);
    case 'stripes':
      return picture((x, y) => Math.floor(x + y) % 12 < 6);
    case 'ring':
      return picture((x, y) => {
        const r = Math.hypot(x - SIDE / 2, y - SIDE / 2);
        return r > 4.5 && r < 12;
      });
    case 'letter': {
      const left = (SIDE - CELL * LETTER_A[0]!.length) / 2;
      const top = (SIDE - CELL * LETTER_A.length) / 2;
      return picture((x, y) => LETTER_A[Math.floor((y - top) / CELL)]?.[Math.floor((x - left) / CELL)] === '#');
    }
  }
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** characters of a drawing in the URL: ⌈1024 / 6⌉ */
export const ENCODED_LENGTH = Math.ceil(PIXELS / 6);

/** A drawing as text for the URL: one bit per pixel (white when ≥ 0.5), in raster order, six to a
 * base64url character, the first pixel in the highest bit: 171 characters. */
export function encodePixels(image: ArrayLike<number>): string {
  let text = '';
  for (let c = 0; c < ENCODED_LENGTH; c++) {
    let value = 0;
    for (let b = 0; b < 6; b++) {
      const k = 6 * c + b;
      value = (value << 1) | (k < PIXELS && (image[k] ?? 0) >= 0.5 ? 1 : 0);
    }
    text += ALPHABET[value];
  }
  return text;
}

/** The image encodePixels wrote. Never throws: a character outside base64url reads as six black
 * pixels, a short text leaves the rest black, characters past the 171st are ignored. */
export function decodePixels(text: string): Float32Array {
  const image = new Float32Array(PIXELS);
  const length = Math.min(text.length, ENCODED_LENGTH);
  for (let c = 0; c < length; c++) {
    const value = Math.max(0, ALPHABET.indexOf(text[c]!));
    for (let b = 0; b < 6; b++) {
      const k = 6 * c + b;
      if (k < PIXELS) image[k] = (value >> (5 - b)) & 1;
    }
  }
  return image;
}

/** White for black and black for white (1 − v). */
export function invertImage(image: ArrayLike<number>): Float32Array {
  return Float32Array.from({ length: PIXELS }, (_, k) => 1 - (image[k] ?? 0));
}

/** The pixels as the model reads them: 0 … 1 scaled to −1 … 1 (as ViT normalises its input), so a
 * black patch is the negative of a white one instead of a zero vector. */
export function centredPixels(image: ArrayLike<number>): Float32Array {
  return Float32Array.from({ length: PIXELS }, (_, k) => 2 * (image[k] ?? 0) - 1);
}

/** A stroke of the pen from `from` to `to` (in pixels: the image is 0 … 32 wide), `radius` pixels
 * thick on either side, painting `value` into `image` (changed in place) wherever a pixel's centre
 * lies within `radius` of the segment. Points off the image paint what of the stroke is on it. */
export function paintStroke(image: Float32Array, from: { x: number; y: number }, to: { x: number; y: number },
  radius: number, value: number): void {
  const finite = (p: { x: number; y: number }) => Number.isFinite(p.x) && Number.isFinite(p.y);
  if (!finite(from) || !finite(to) || !(radius > 0)) return;
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const length2 = dx * dx + dy * dy;
  const clampPixel = (v: number) => Math.min(SIDE - 1, Math.max(0, Math.floor(v)));
  const x0 = clampPixel(Math.min(from.x, to.x) - radius);
  const x1 = clampPixel(Math.max(from.x, to.x) + radius);
  const y0 = clampPixel(Math.min(from.y, to.y) - radius);
  const y1 = clampPixel(Math.max(from.y, to.y) + radius);
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const px = x + 0.5;
      const py = y + 0.5;
      // the nearest point of the segment to the pixel's centre
      const t = length2 > 0 ? Math.min(1, Math.max(0, ((px - from.x) * dx + (py - from.y) * dy) / length2)) : 0;
      if (Math.hypot(px - from.x - t * dx, py - from.y - t * dy) <= radius) image[y * SIDE + x] = value;
    }
  }
}

/** patches per row and column for patch side `patch` (2, 4 or 8: it divides 32) */
export const patchesPerSide = (patch: number) => Math.floor(SIDE / patch);

/** The patch, in raster order, that holds the point (x, y) in pixels, or undefined off the image. */
export function patchAt(x: number, y: number, patch: number): number | undefined {
  if (!(x >= 0 && y >= 0 && x < SIDE && y < SIDE)) return undefined;
  return Math.floor(y / patch) * patchesPerSide(patch) + Math.floor(x / patch);
}

/** The patch an arrow key moves `query` to, staying on the grid; undefined for any other key. */
export function movePatch(query: number, key: string, patch: number): number | undefined {
  const side = patchesPerSide(patch);
  const row = Math.floor(query / side);
  const col = query % side;
  const step: Record<string, [number, number]> = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
  const move = step[key];
  if (!move) return undefined;
  const clamp = (v: number) => Math.min(side - 1, Math.max(0, v));
  return clamp(row + move[0]) * side + clamp(col + move[1]);
}

/** The patch for patch side `to` that covers the centre of patch `query` of side `from`: the same
 * place on the image when the reader changes the patch size. */
export function samePlace(query: number, from: number, to: number): number {
  const side = patchesPerSide(from);
  const x = (query % side + 0.5) * from;
  const y = (Math.floor(query / side) + 0.5) * from;
  return patchAt(x, y, to) ?? 0;
}
