/**
 * QR rendering for the operator: a terminal QR (ticket show, scanner setup,
 * scanner calibration), a PNG file (--png) and an SVG (the admin dashboard).
 *
 * Every code is drawn the way every decoder reads it (docs/issuer.md "QR
 * codes"): dark modules on a light ground, a quiet zone of 4 modules on each
 * side (ISO/IEC 18004 §6.3.8), and a whole number of pixels per module, so no
 * module is drawn one pixel wider than its neighbour.
 */
import fs from 'node:fs';
import path from 'node:path';
import QRCode from 'qrcode';
import { AdminError } from '../error-catalogue.js';

/** ISO/IEC 18004: the light margin around the symbol, in modules. */
export const QUIET_ZONE_MODULES = 4;
/** Medium error correction (15 %): what every code of the product uses. */
const ERROR_CORRECTION = 'M';
/** Pixels per module in PNG files: 6 keeps a version-17 ticket (93 modules with the quiet zone) near 560 px. */
export const PNG_PIXELS_PER_MODULE = 6;

/** The symbol's modules, row by row (true = dark), without the quiet zone. */
export interface QrModules {
  size: number;
  dark(row: number, column: number): boolean;
}

export function qrModules(text: string): QrModules {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: ERROR_CORRECTION });
  return { size: modules.size, dark: (row, column) => modules.get(row, column) !== 0 };
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

/** A PNG file with a 4-module quiet zone and 6 pixels per module: printed or shown at its natural size, every module is whole. */
export const writeQrPng = (file: string, text: string): Promise<void> =>
  QRCode.toFile(file, text, {
    type: 'png',
    errorCorrectionLevel: ERROR_CORRECTION,
    margin: QUIET_ZONE_MODULES,
    scale: PNG_PIXELS_PER_MODULE,
  });

/**
 * An SVG image as a data: URL, for the admin dashboard's setup code (shown large,
 * scanned from the screen). Its intrinsic size is one pixel per module, quiet zone
 * included, so the page can read the module count from the image (naturalWidth) and
 * show it at a whole number of device pixels per module (dashboard/actions.ts).
 */
export async function qrSvgDataUrl(text: string): Promise<string> {
  const side = qrSideModules(text);
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: ERROR_CORRECTION, margin: QUIET_ZONE_MODULES, width: side });
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}
