/**
 * The product's QR codes (issuer/admin/qr.ts, encoded by `qr`): the PDF's (ticket-pdf.ts qrBitmapPng) have
 * the symbol size and error correction an independent encoder (`qrcode`) chooses for the same text, a
 * 4-module quiet zone, one pixel per module, and read back by zxing-cpp as the exact text; a ticket's PNG
 * file is the same symbol. (The two encoders may choose different masks, which every reader undoes.)
 */
import { randomBytes } from 'node:crypto';
import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { PNG_PIXELS_PER_MODULE, QUIET_ZONE_MODULES, qrPng } from '../../../issuer/admin/qr.js';
import { qrBitmapPng } from '../../../issuer/admin/ticket-pdf.js';
import { pngPixels, qrVersion, zxingResults, type Pixels } from '../../support/qr-decoders.js';

/** Each module `scale` pixels wide: zxing-cpp wants more than one pixel per module. */
function enlarge(pixels: Pixels, scale: number): Pixels {
  const width = pixels.width * scale;
  const height = pixels.height * scale;
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const from = (Math.floor(y / scale) * pixels.width + Math.floor(x / scale)) * 4;
      data.set(pixels.data.subarray(from, from + 4), (y * width + x) * 4);
    }
  }
  return { data, width, height };
}

/** Ticket-like texts (base64url with dots) of lengths around a real ticket's 459 characters, and a short and a non-ASCII one. */
const TEXTS = [
  ...[120, 300, 459, 460, 490, 600].map((length) => {
    const text = randomBytes(length).toString('base64url').slice(0, length);
    return `${text.slice(0, 40)}.${text.slice(41)}`;
  }),
  'a',
  'Zoë 王小明 🎉',
];

describe('one symbol per code', () => {
  it.each(TEXTS.map((text) => [text.length, text]))(
    '%i characters: the PNG file (6 px a module, deflated) is the PDF page’s symbol, module for module',
    (_, text) => {
      const page = pngPixels(qrBitmapPng(text).png);
      const file = pngPixels(qrPng(text, PNG_PIXELS_PER_MODULE, 'deflate').png);
      expect(file.width).toBe(page.width * PNG_PIXELS_PER_MODULE);
      for (let row = 0; row < page.height; row++) {
        for (let column = 0; column < page.width; column++) {
          const centre = ((row * PNG_PIXELS_PER_MODULE + 3) * file.width + column * PNG_PIXELS_PER_MODULE + 3) * 4;
          expect(file.data[centre], `module ${row},${column}`).toBe(page.data[(row * page.width + column) * 4]);
        }
      }
    },
  );
});

describe('ticket PDF QR code', () => {
  it.each(TEXTS.map((text) => [text.length, text]))(
    '%i characters: same version and level M as qrcode, decodes to the exact text',
    async (_, text) => {
      const { png, side } = qrBitmapPng(text);
      const expected = QRCode.create([{ data: Buffer.from(text, 'utf8'), mode: 'byte' }], { errorCorrectionLevel: 'M' });
      expect(side).toBe(expected.modules.size + 2 * QUIET_ZONE_MODULES);
      const pixels = pngPixels(png);
      expect([pixels.width, pixels.height]).toEqual([side, side]);
      const results = await zxingResults(enlarge(pixels, 4));
      expect(results.map((result) => result.text)).toEqual([text]);
      expect(qrVersion(results[0]!)).toBe(expected.version);
      expect(JSON.parse(results[0]!.extra)).toMatchObject({ ECLevel: 'M' });
      // The quiet zone: the first and last 4 rows and columns are light.
      for (let i = 0; i < side; i++) {
        for (const j of [0, 1, 2, 3, side - 4, side - 3, side - 2, side - 1]) {
          expect(pixels.data[(j * side + i) * 4], `row ${j}, column ${i}`).toBe(255);
          expect(pixels.data[(i * side + j) * 4], `row ${i}, column ${j}`).toBe(255);
        }
      }
    },
  );
});
