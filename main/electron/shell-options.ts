/**
 * Command-line options of the Electron shell. Pure, Electron-free.
 *   --kiosk                 full screen kiosk mode (also TICKET_KIOSK_FULLSCREEN=1)
 *   --issuer-ca FILE        trust this CA for the issuer's HTTPS (on-site issuer)
 *   --scanner VID:PID[:MODE] allow a keyboard-mode HID scanner (repeatable)
 *   --no-hid                do not read HID scanners (keyboard-wedge input still works)
 * Unknown arguments are ignored: Electron and Chromium add switches of their own.
 */
import type { KnownScanner } from '../kiosk/scanner/index.js';
import { parseKnownScanner } from './kiosk-runtime.js';

export interface ShellOptions {
  kiosk: boolean;
  issuerCaFile: string | null;
  knownScanners: KnownScanner[];
  hidScanners: boolean;
}

export function parseShellOptions(argv: readonly string[], env: NodeJS.ProcessEnv = {}): ShellOptions {
  const options: ShellOptions = {
    kiosk: env['TICKET_KIOSK_FULLSCREEN'] === '1',
    issuerCaFile: null,
    knownScanners: [],
    hidScanners: true,
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inlineValue] = splitFlag(argv[i]!);
    const value = (): string => {
      const next = inlineValue ?? argv[++i];
      if (next === undefined || next.startsWith('--')) throw new Error(`${flag} needs a value`);
      return next;
    };
    if (flag === '--kiosk') options.kiosk = true;
    else if (flag === '--no-hid') options.hidScanners = false;
    else if (flag === '--issuer-ca') options.issuerCaFile = value();
    else if (flag === '--scanner') options.knownScanners.push(parseKnownScanner(value()));
  }
  return options;
}

function splitFlag(arg: string): [string, string | undefined] {
  const equals = arg.indexOf('=');
  return arg.startsWith('--') && equals > 0 ? [arg.slice(0, equals), arg.slice(equals + 1)] : [arg, undefined];
}
