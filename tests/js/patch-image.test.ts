import { describe, expect, it } from 'vitest';
import {
  builtInPicture, centredPixels, decodePixels, encodePixels, ENCODED_LENGTH, invertImage, movePatch, paintStroke,
  patchAt, PIXELS, samePlace, SIDE, type BuiltInPicture,
} from '../../web/src/math/patch-image';

const PICTURES: BuiltInPicture[] = ['checkerboard', 'stripes', 'ring', 'letter'];
const pixel = (image: Float32Array, x: number, y: number) => image[y * SIDE + x];

describe('builtInPicture', () => {
  it('draws each picture in black and white, the same on every call, none blank', () => {
    for (const name of PICTURES) {
      const image = builtInPicture(name);
      expect(image.length).toBe(PIXELS);
      expect(image.every((v) => v === 0 || v === 1)).toBe(true);
      expect(Array.from(image)).toEqual(Array.from(builtInPicture(name)));
      const white = image.reduce((s, v) => s + v, 0);
      expect(white).toBeGreaterThan(100);
      expect(white).toBeLessThan(PIXELS - 100);
    }
  });
  it('cuts the checkerboard into 4-pixel squares, white at the top left', () => {
    const board = builtInPicture('checkerboard');
    expect([pixel(board, 0, 0), pixel(board, 3, 3), pixel(board, 4, 0), pixel(board, 4, 4), pixel(board, 31, 0)]).toEqual([1, 1, 0, 1, 0]);
  });
  it('leaves the ring black in its middle and corners, and the A open below its bar', () => {
    const ring = builtInPicture('ring');
    expect([pixel(ring, 16, 16), pixel(ring, 0, 0), pixel(ring, 16, 8)]).toEqual([0, 0, 1]);
    const a = builtInPicture('letter');
    expect([pixel(a, 16, 3), pixel(a, 16, 16), pixel(a, 16, 24), pixel(a, 5, 24)]).toEqual([1, 1, 0, 1]);
  });
});

describe('encodePixels and decodePixels', () => {
  it('round-trip every built-in picture and a seeded random drawing in 171 base64url characters', () => {
    let state = 7;
    const random = Float32Array.from({ length: PIXELS }, () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) >>> 16) & 1);
    for (const image of [...PICTURES.map(builtInPicture), random, new Float32Array(PIXELS), new Float32Array(PIXELS).fill(1)]) {
      const text = encodePixels(image);
      expect(text).toHaveLength(ENCODED_LENGTH);
      expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(Array.from(decodePixels(text))).toEqual(Array.from(image));
    }
    expect(ENCODED_LENGTH).toBe(171);
  });
  it('writes grey as black below one half and white from it', () => {
    const grey = new Float32Array(PIXELS);
    grey[0] = 0.49;
    grey[1] = 0.5;
    const back = decodePixels(encodePixels(grey));
    expect([back[0], back[1]]).toEqual([0, 1]);
  });
  it('reads bad text as black pixels, without throwing', () => {
    expect(decodePixels('').every((v) => v === 0)).toBe(true);
    expect(decodePixels('!!!!').every((v) => v === 0)).toBe(true);
    expect(decodePixels('\u{1F600}<script>').length).toBe(PIXELS);
    // '_' is 63: six white pixels; the rest, missing, black
    const short = decodePixels('_');
    expect(Array.from(short.slice(0, 7))).toEqual([1, 1, 1, 1, 1, 1, 0]);
    expect(short.slice(6).every((v) => v === 0)).toBe(true);
    // a bad character in the middle keeps the pixels after it in place
    const white = encodePixels(new Float32Array(PIXELS).fill(1));
    const spoilt = decodePixels(`${white.slice(0, 10)}*${white.slice(11)}`);
    expect(spoilt.slice(60, 66).every((v) => v === 0)).toBe(true);
    expect(spoilt[59]).toBe(1);
    expect(spoilt[66]).toBe(1);
    // too long: the extra characters are ignored
    expect(Array.from(decodePixels(`${white}AAAA`))).toEqual(Array.from(decodePixels(white)));
  });
});

describe('strokes, inversion and the model input', () => {
  it('paints the pixels near a segment only, and ignores what is not a stroke', () => {
    const image = new Float32Array(PIXELS);
    paintStroke(image, { x: 2.5, y: 10.5 }, { x: 20.5, y: 10.5 }, 1, 1);
    expect([pixel(image, 2, 10), pixel(image, 11, 10), pixel(image, 20, 10), pixel(image, 11, 11), pixel(image, 11, 9)]).toEqual([1, 1, 1, 1, 1]);
    expect([pixel(image, 11, 12), pixel(image, 11, 8), pixel(image, 22, 10), pixel(image, 0, 10)]).toEqual([0, 0, 0, 0]);
    const before = Array.from(image);
    paintStroke(image, { x: NaN, y: 3 }, { x: 4, y: 4 }, 1, 1);
    paintStroke(image, { x: 3, y: 3 }, { x: 4, y: 4 }, 0, 1);
    paintStroke(image, { x: -50, y: -50 }, { x: -40, y: -40 }, 1, 1);
    expect(Array.from(image)).toEqual(before);
    // a stroke running off the image paints its part on it
    paintStroke(image, { x: 30.5, y: 30.5 }, { x: 90, y: 30.5 }, 0.5, 1);
    expect(pixel(image, 31, 30)).toBe(1);
  });
  it('inverts and centres', () => {
    const board = builtInPicture('checkerboard');
    expect(Array.from(invertImage(invertImage(board)))).toEqual(Array.from(board));
    expect(invertImage(board)[0]).toBe(0);
    const centred = centredPixels(board);
    expect([centred[0], centred[4]]).toEqual([1, -1]);
  });
});

describe('the patch grid', () => {
  it('finds the patch under a point, in raster order', () => {
    expect(patchAt(0, 0, 4)).toBe(0);
    expect(patchAt(13, 14, 4)).toBe(3 * 8 + 3);
    expect(patchAt(31.9, 31.9, 2)).toBe(255);
    expect(patchAt(31.9, 31.9, 8)).toBe(15);
    expect(patchAt(-1, 3, 4)).toBeUndefined();
    expect(patchAt(32, 3, 4)).toBeUndefined();
    expect(patchAt(NaN, 3, 4)).toBeUndefined();
  });
  it('moves the query with the arrow keys, stopping at the edges', () => {
    expect(movePatch(27, 'ArrowRight', 4)).toBe(28);
    expect(movePatch(27, 'ArrowLeft', 4)).toBe(26);
    expect(movePatch(27, 'ArrowUp', 4)).toBe(19);
    expect(movePatch(27, 'ArrowDown', 4)).toBe(35);
    expect(movePatch(7, 'ArrowRight', 4)).toBe(7);
    expect(movePatch(0, 'ArrowUp', 4)).toBe(0);
    expect(movePatch(15, 'ArrowDown', 8)).toBe(15);
    expect(movePatch(27, 'Enter', 4)).toBeUndefined();
  });
  it('keeps the place on the image when the patch size changes', () => {
    expect(samePlace(27, 4, 2)).toBe(7 * 16 + 7);
    expect(samePlace(27, 4, 8)).toBe(1 * 4 + 1);
    expect(samePlace(samePlace(27, 4, 2), 2, 4)).toBe(27);
  });
});
