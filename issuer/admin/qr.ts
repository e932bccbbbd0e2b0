/** QR rendering for the operator: a terminal QR (ticket show, scanner setup) and a PNG file (scanner setup --png). */
import QRCode from 'qrcode';

/** Half-height block characters: fits a setup code in a normal terminal window. */
export const terminalQr = (text: string): Promise<string> => QRCode.toString(text, { type: 'terminal', small: true, errorCorrectionLevel: 'M' });

export const writeQrPng = (file: string, text: string): Promise<void> => QRCode.toFile(file, text, { type: 'png', errorCorrectionLevel: 'M', margin: 4, scale: 6 });
