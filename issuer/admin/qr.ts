/**
 * QR rendering for the operator: a terminal QR (ticket show, scanner setup,
 * scanner calibration), a PNG file (--png) and an SVG (the admin dashboard).
 *
 * Every code is drawn the way every decoder reads it (docs/issuer.md "QR
 * codes"): dark modules on a light ground, a quiet zone of 4 modules on each
 * side (ISO/IEC 18004 §6.3.8), and a whole number of pixels per module, so no
 * module is drawn one pixel wider than its neighbour.
 *
 * One encoder for every code: `qr` (level M, one byte-mode segment), here and
 * in the ticket PDF (ticket-pdf.ts), so a ticket's PNG, PDF page and terminal
 * code are the same symbol.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import encodeQR from 'qr';
import { AdminError } from '../error-catalogue.js';
import { writePrivateFile } from './private-files.js';

/** ISO/IEC 18004: the light margin around the symbol, in modules. */
export const QUIET_ZONE_MODULES = 4;
/** Medium error correction (15 %): what every code of the product uses. */
const ERROR_CORRECTION = 'medium';
/** Pixels per module in PNG files: 6 keeps a version-17 ticket (93 modules with the quiet zone) near 560 px. */
export const PNG_PIXELS_PER_MODULE = 6;

/** The symbol's modules, row by row (true = dark), without the quiet zone. */
export interface QrModules {
  size: number;
  dark(row: number, column: number): boolean;
}

/**
 * The symbol's rows of modules with `border` light modules around it (true = dark). One byte-mode segment:
 * the product's codes (tickets, setup codes) are base64url and dots, which a mixed-mode encoding would put
 * in byte mode anyway; text beyond ASCII goes in as UTF-8.
 */
export function qrRows(text: string, border: number): boolean[][] {
  return encodeQR(text, 'raw', { ecc: ERROR_CORRECTION, encoding: 'byte', border });
}

export function qrModules(text: string): QrModules {
  // `qr` draws at least one module of border (it refuses 0): the symbol is what lies inside the quiet zone.
  const rows = qrRows(text, QUIET_ZONE_MODULES);
  const inside = (index: number): number => index + QUIET_ZONE_MODULES;
  return { size: rows.length - 2 * QUIET_ZONE_MODULES, dark: (row, column) => rows[inside(row)]![inside(column)]! };
}

/** The width (and height) of the code with its quiet zone, in modules: the unit a display size must be a whole multiple of. */
export const qrSideModules = (text: string): number => qrModules(text).size + 2 * QUIET_ZONE_MODULES;

// Explicit colours from the 256-colour palette (16 is #000000, 231 is #ffffff): unlike
// the 16 basic colours they are not restyled by terminal themes, so the code is dark on
// light even in a dark terminal, where text-coloured blocks would draw it inverted.
const DARK_ON_LIGHT = '\x1b[38;5;16;48;5;231m';
const RESET = '\x1b[0m';

/**
 * The code in half-block characters: one character cell is one module wide and two
 * modules high (cells are about twice as high as wide, so modules come out square).
 * The quiet zone is 4 modules on every side (5 at the bottom when the rows do not
 * pair up). Each line sets its colours and resets them at its end, so a line cut by
 * a narrow terminal never bleeds colour into what follows.
 */
export function terminalQrText(text: string): string {
  const { size, dark } = qrModules(text);
  const side = size + 2 * QUIET_ZONE_MODULES;
  const isDark = (row: number, column: number): boolean => {
    const r = row - QUIET_ZONE_MODULES;
    const c = column - QUIET_ZONE_MODULES;
    return r >= 0 && c >= 0 && r < size && c < size && dark(r, c);
  };
  const lines: string[] = [];
  for (let row = 0; row < side; row += 2) {
    let line = '';
    for (let column = 0; column < side; column++) {
      const top = isDark(row, column);
      const bottom = isDark(row + 1, column);
      line += top ? (bottom ? '█' : '▀') : bottom ? '▄' : ' ';
    }
    lines.push(`${DARK_ON_LIGHT}${line}${RESET}`);
  }
  return lines.join('\n');
}

export const terminalQr = (text: string): Promise<string> => Promise.resolve(terminalQrText(text));

/** Fails before anything is made when --png names a file in a folder that does not exist. */
export function checkPngTarget(file: string, flag = '--png'): void {
  const folder = path.dirname(path.resolve(file));
  if (!fs.statSync(folder, { throwIfNoEntry: false })?.isDirectory())
    throw new AdminError('INVALID_ARGUMENT', `${flag}: the folder ${folder} does not exist`);
}

/**
 * A PNG file with a 4-module quiet zone and 6 pixels per module: printed or shown at its natural size, every module
 * is whole. Owner only: a ticket, setup or badge code is a bearer credential (docs/issuer.md "Files the CLI writes").
 */
export const writeQrPng = (file: string, text: string): Promise<void> => {
  writePrivateFile(file, qrPng(text, PNG_PIXELS_PER_MODULE, 'deflate').png);
  return Promise.resolve();
};

/**
 * The code as a 1-bit greyscale PNG, quiet zone included, `scale` pixels per module; `side` is its width in
 * pixels. `stored` leaves the image data uncompressed: the ticket PDF embeds one per page, and a deflate
 * stream per page held a few hundred kilobytes of native memory each until the garbage collector got to it,
 * which made a large export grow with its pages; a 1-pixel-per-module code is about a kilobyte anyway.
 */
export function qrPng(text: string, scale: number, data: 'deflate' | 'stored'): { png: Buffer; side: number } {
  const rows = qrRows(text, QUIET_ZONE_MODULES);
  const side = rows.length * scale;
  const rowBytes = Math.ceil(side / 8);
  // Each pixel row: filter byte 0, then 1 bit per pixel, 1 = white (the quiet zone and light modules).
  const raw = Buffer.alloc((rowBytes + 1) * side, 0xff);
  for (let y = 0; y < side; y++) {
    const start = y * (rowBytes + 1);
    raw[start] = 0;
    const modules = rows[Math.floor(y / scale)]!;
    for (let x = 0; x < side; x++) {
      if (modules[Math.floor(x / scale)]) raw[start + 1 + (x >> 3)]! &= ~(0x80 >> (x & 7));
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header.set([1, 0, 0, 0, 0], 8); // bit depth 1, greyscale, deflate, adaptive filtering, no interlace
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', data === 'deflate' ? zlib.deflateSync(raw, { level: 9 }) : storedZlib(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
  return { png, side };
}

/** `data` in the zlib format without compression (stored blocks of at most 65,535 bytes). */
function storedZlib(data: Buffer): Buffer {
  const blocks: Buffer[] = [Buffer.from([0x78, 0x01])];
  for (let start = 0; start === 0 || start < data.length; start += 0xffff) {
    const block = data.subarray(start, start + 0xffff);
    const head = Buffer.alloc(5);
    head[0] = start + 0xffff >= data.length ? 1 : 0; // BFINAL, BTYPE 00 (stored)
    head.writeUInt16LE(block.length, 1);
    head.writeUInt16LE(~block.length & 0xffff, 3);
    blocks.push(head, block);
  }
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(adler32(data), 0);
  blocks.push(adler);
  return Buffer.concat(blocks);
}

function adler32(data: Buffer): number {
  let a = 1;
  let b = 0;
  for (const byte of data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(data, zlib.crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * An SVG image as a data: URL, for the admin dashboard's setup code (shown large,
 * scanned from the screen). Its intrinsic size is one pixel per module, quiet zone
 * included, so the page can read the module count from the image (naturalWidth) and
 * show it at a whole number of device pixels per module (dashboard/actions.ts).
 */
export function qrSvgDataUrl(text: string): Promise<string> {
  const rows = qrRows(text, QUIET_ZONE_MODULES);
  const side = rows.length;
  // One path of unit squares, one per dark module; crispEdges keeps their borders on whole pixels.
  let squares = '';
  rows.forEach((row, y) => row.forEach((dark, x) => dark && (squares += `M${x} ${y}h1v1h-1z`)));
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${side}" viewBox="0 0 ${side} ${side}" shape-rendering="crispEdges">` +
    `<rect width="${side}" height="${side}" fill="#fff"/><path fill="#000" d="${squares}"/></svg>`;
  return Promise.resolve(`data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`);
}
