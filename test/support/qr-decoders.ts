/**
 * Two independent QR decoders for the tests of what the product draws
 * (docs/issuer.md "QR codes"): jsqr (a JavaScript port of ZXing's Java
 * decoder) and zxing-wasm (zxing-cpp compiled to WebAssembly, the decoder
 * that read only 3 of 9 codes of the old demo page). A code counts as
 * readable only when both read it.
 *
 * Neither is allowed to invert colours: the product draws dark modules on a
 * light ground, and a decoder that has to try the inverse is one that many
 * door scanners are not.
 *
 * Also: PNG bytes to pixels, the terminal QR rasterised from its half-block
 * text, and a check that an image is a code drawn with a whole number of
 * pixels per module and a 4-module quiet zone.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { prepareZXingModule, readBarcodes, type ReadResult } from 'zxing-wasm/reader';

// jsqr is CommonJS with an ES-style default export: under NodeNext the callable is on `.default` at the type level only.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

export interface Pixels {
  /** RGBA, 4 bytes per pixel, row by row. */
  data: Uint8ClampedArray;
  width: number;
  height: number;
}

export function pngPixels(png: Buffer | Uint8Array): Pixels {
  const image = PNG.sync.read(Buffer.from(png));
  return {
    data: new Uint8ClampedArray(image.data.buffer, image.data.byteOffset, image.data.byteLength),
    width: image.width,
    height: image.height,
  };
}

export function pixelsToPng(pixels: Pixels): Buffer {
  const png = new PNG({ width: pixels.width, height: pixels.height });
  png.data = Buffer.from(pixels.data.buffer, pixels.data.byteOffset, pixels.data.byteLength);
  return PNG.sync.write(png);
}

// The .wasm ships in the package; by default zxing-wasm would fetch it from a CDN.
// Handing it the bytes keeps the tests offline.
let zxingReady: Promise<unknown> | null = null;
function zxing(): Promise<unknown> {
  if (zxingReady === null) {
    const wasmFile = createRequire(import.meta.url).resolve('zxing-wasm/reader/zxing_reader.wasm');
    const bytes = readFileSync(wasmFile);
    const wasmBinary = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    zxingReady = prepareZXingModule({ overrides: { wasmBinary }, fireImmediately: true }) as Promise<unknown>;
  }
  return zxingReady;
}

/** zxing-cpp's results for every QR code in the image (any number), colours not inverted. */
export async function zxingResults(pixels: Pixels): Promise<ReadResult[]> {
  await zxing();
  const results = await readBarcodes(
    { data: pixels.data, width: pixels.width, height: pixels.height } as Parameters<typeof readBarcodes>[0],
    { formats: ['QRCode'], tryInvert: false, maxNumberOfSymbols: 255 },
  );
  return results.filter((result) => result.isValid);
}

/** The texts of every QR code zxing-cpp reads in the image. */
export async function zxingDecodeAll(pixels: Pixels): Promise<string[]> {
  return (await zxingResults(pixels)).map((result) => result.text);
}

/** The one QR code jsqr reads in the image, or null. */
export function jsqrDecode(pixels: Pixels): string | null {
  return jsQR(pixels.data, pixels.width, pixels.height, { inversionAttempts: 'dontInvert' })?.data ?? null;
}

/** Both decoders' readings of an image holding one code: [jsqr, zxing-cpp]. */
export async function decodeWithBoth(pixels: Pixels): Promise<[string | null, string[]]> {
  return [jsqrDecode(pixels), await zxingDecodeAll(pixels)];
}

/** The escape character that starts every terminal colour sequence. */
const ESC = '\u001b';
const ANSI_SGR = new RegExp(`${ESC}\\[([\\d;]*)m`, 'g');

/** The terminal QR's lines out of a command's human output: the ones that set colours. */
export const terminalQrLines = (stdout: string): string =>
  stdout
    .split('\n')
    .filter((line) => line.includes(`${ESC}[`))
    .join('\n');

/**
 * Draws a terminal QR (issuer/admin/qr.ts terminalQr) as a terminal would: each
 * character cell is one module wide and two high, '▀' paints its top half in the
 * foreground colour, '▄' its bottom half, '█' both, ' ' neither, on the cell's
 * background colour. Colours come from the text's own SGR escapes (256-colour
 * 38;5;N / 48;5;N, basic 30–37 / 40–47, 90–97 / 100–107, 0 = reset); where the
 * text sets none, the terminal's defaults apply, which are given here as a dark
 * terminal's (light text on black), the case where a code without its own
 * colours comes out inverted.
 */
export function rasteriseTerminalQr(text: string, pixelsPerModule = 4): Pixels {
  const DEFAULT_FG = 0xd0;
  const DEFAULT_BG = 0x10;
  type Cell = { top: number; bottom: number };
  const rows: Cell[][] = [];
  let fg = DEFAULT_FG;
  let bg = DEFAULT_BG;
  for (const line of text.split('\n')) {
    const cells: Cell[] = [];
    let at = 0;
    const paint = (plain: string): void => {
      for (const char of plain) {
        if (char === '\r') continue;
        const top = char === '▀' || char === '█' ? fg : bg;
        const bottom = char === '▄' || char === '█' ? fg : bg;
        if (!' ▀▄█'.includes(char)) throw new Error(`unexpected character ${JSON.stringify(char)} in the terminal QR`);
        cells.push({ top, bottom });
      }
    };
    for (const match of line.matchAll(ANSI_SGR)) {
      paint(line.slice(at, match.index));
      at = match.index + match[0].length;
      const codes = match[1] === '' ? [0] : match[1]!.split(';').map(Number);
      for (let i = 0; i < codes.length; i++) {
        const code = codes[i]!;
        if (code === 0) [fg, bg] = [DEFAULT_FG, DEFAULT_BG];
        else if (code === 38 || code === 48) {
          if (codes[i + 1] !== 5) throw new Error(`unsupported colour escape ${match[0]}`);
          const gray = xterm256Gray(codes[i + 2]!);
          if (code === 38) fg = gray;
          else bg = gray;
          i += 2;
        } else if ((code >= 30 && code <= 37) || (code >= 90 && code <= 97)) fg = basicGray(code % 10, code >= 90);
        else if ((code >= 40 && code <= 47) || (code >= 100 && code <= 107)) bg = basicGray(code % 10, code >= 100);
        else if (code === 39) fg = DEFAULT_FG;
        else if (code === 49) bg = DEFAULT_BG;
      }
    }
    paint(line.slice(at));
    if (cells.length > 0) rows.push(cells);
  }
  const columns = Math.max(...rows.map((row) => row.length));
  const width = columns * pixelsPerModule;
  const height = rows.length * 2 * pixelsPerModule;
  const data = new Uint8ClampedArray(width * height * 4);
  rows.forEach((cells, row) => {
    for (let column = 0; column < columns; column++) {
      const cell = cells[column] ?? { top: DEFAULT_BG, bottom: DEFAULT_BG };
      for (let y = 0; y < 2 * pixelsPerModule; y++) {
        const value = y < pixelsPerModule ? cell.top : cell.bottom;
        for (let x = 0; x < pixelsPerModule; x++) {
          const offset = ((row * 2 * pixelsPerModule + y) * width + column * pixelsPerModule + x) * 4;
          data.set([value, value, value, 255], offset);
        }
      }
    }
  });
  return { data, width, height };
}

/** Brightness of a 256-colour palette entry (xterm's standard values). */
function xterm256Gray(n: number): number {
  if (n < 16) return basicGray(n % 8, n >= 8);
  if (n >= 232) return 8 + (n - 232) * 10;
  const levels = [0, 95, 135, 175, 215, 255];
  const index = n - 16;
  const [r, g, b] = [levels[Math.floor(index / 36)]!, levels[Math.floor(index / 6) % 6]!, levels[index % 6]!];
  return Math.round(0.299 * r + 0.587 * g + 0.114 * b);
}

/** Brightness of the 16 basic colours, as xterm draws them by default. */
function basicGray(n: number, bright: boolean): number {
  const normal = [0, 0x4c, 0x8a, 0xa8, 0x25, 0x5e, 0x9b, 0xe5];
  const light = [0x7f, 0x9a, 0xd6, 0xf6, 0x6e, 0x86, 0xd4, 0xff];
  return (bright ? light : normal)[n]!;
}

/** The QR version zxing-cpp read (1–40). */
export function qrVersion(result: ReadResult): number {
  const extra = result.extra === '' ? {} : (JSON.parse(result.extra) as { Version?: string | number });
  const version = Number(extra.Version ?? result.version);
  if (!Number.isInteger(version) || version < 1 || version > 40) throw new Error(`no QR version in ${JSON.stringify(result.extra)}`);
  return version;
}

/** Side of a QR code of this version with its 4-module quiet zone, in modules (ISO/IEC 18004: 17 + 4 × version, plus 2 × 4). */
export const sideWithQuietZone = (version: number): number => 17 + 4 * version + 8;

/**
 * Checks that `pixels` is exactly one QR code of `side` modules (quiet zone
 * included) drawn with a whole number of pixels per module: the image is a
 * square whole multiple of `side`, every module's pixels are all dark or all
 * light (no module spills into its neighbour, no grey edge), and the 4 outer
 * rings of modules are light. Returns the pixels per module, or throws saying
 * what is wrong.
 */
export function checkModuleGrid(pixels: Pixels, side: number): number {
  const { width, height, data } = pixels;
  if (width !== height) throw new Error(`not square: ${width}×${height} px`);
  if (width % side !== 0)
    throw new Error(`${width} px is not a whole number of pixels per module for ${side} modules (${(width / side).toFixed(3)})`);
  const scale = width / side;
  const luminance = (x: number, y: number): number => {
    const i = (y * width + x) * 4;
    return 0.299 * data[i]! + 0.587 * data[i + 1]! + 0.114 * data[i + 2]!;
  };
  for (let row = 0; row < side; row++) {
    for (let column = 0; column < side; column++) {
      const first = luminance(column * scale, row * scale) < 128;
      for (let y = row * scale; y < (row + 1) * scale; y++) {
        for (let x = column * scale; x < (column + 1) * scale; x++) {
          const value = luminance(x, y);
          // Pure module colours only: anti-aliased edges or a module one pixel off show up as in-between values or mixed cells.
          if (value > 40 && value < 215) throw new Error(`grey pixel (${Math.round(value)}) at ${x},${y} in module ${column},${row}`);
          if (value < 128 !== first) throw new Error(`module ${column},${row} is not all one colour (pixel ${x},${y})`);
        }
      }
      const inQuietZone = row < 4 || column < 4 || row >= side - 4 || column >= side - 4;
      if (inQuietZone && first) throw new Error(`dark module ${column},${row} in the quiet zone`);
    }
  }
  return scale;
}

/** Crops a rectangle (in pixels) out of an image. */
export function crop(pixels: Pixels, x: number, y: number, width: number, height: number): Pixels {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let row = 0; row < height; row++) {
    const from = ((y + row) * pixels.width + x) * 4;
    data.set(pixels.data.subarray(from, from + width * 4), row * width * 4);
  }
  return { data, width, height };
}
