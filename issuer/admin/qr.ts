/** QR rendering for the operator: a terminal QR (ticket show, scanner setup), a PNG file (scanner setup --png) and an SVG (the admin dashboard). */
import QRCode from 'qrcode';

/** Half-height block characters: fits a setup code in a normal terminal window. */
export const terminalQr = (text: string): Promise<string> => QRCode.toString(text, { type: 'terminal', small: true, errorCorrectionLevel: 'M' });

export const writeQrPng = (file: string, text: string): Promise<void> => QRCode.toFile(file, text, { type: 'png', errorCorrectionLevel: 'M', margin: 4, scale: 6 });

/** An SVG image as a data: URL, for the admin dashboard's setup code (shown large, scanned from the screen). */
export async function qrSvgDataUrl(text: string): Promise<string> {
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}
