/**
 * Command-line options of the Electron shell. Pure, Electron-free: it lives
 * in main/host/ because only files that import electron belong in
 * main/electron/ (docs/architecture.md "Folders"), and this one is tested
 * without Electron.
 *   --kiosk                 full screen kiosk mode (also TICKET_KIOSK_FULLSCREEN=1)
 *   --issuer-ca FILE        trust this CA for the issuer's HTTPS (on-site issuer)
 *   --scanner VID:PID[:MODE] allow a keyboard-mode HID scanner (repeatable)
 *   --no-hid                do not read HID scanners (keyboard-wedge input still works)
 *   --no-lan                no LAN warnings between kiosks (also TICKET_KIOSK_LAN=off; docs/kiosk.md "Kiosks on one LAN")
 *   --onsite-issuer         start the bundled issuer at launch (main/onsite-issuer), on <userData>/issuer-data
 *   --issuer-name NAME      with --onsite-issuer: initialise that issuer first if it has no identity yet
 *   --issuer-base-url URL   ... with this base URL (default https://<first LAN address>:8443)
 *   --repeat-read-window MS a read of the same code within MS of its first read is the same scan (default 3000)
 * Unknown arguments are ignored: Electron and Chromium add switches of their own.
 */
import type { KnownScanner } from '../kiosk/scanner/index.js';
import { lanWanted, parseKnownScanner, parseRepeatReadWindow } from '../host/kiosk-runtime.js';

export interface ShellOptions {
  kiosk: boolean;
  issuerCaFile: string | null;
  knownScanners: KnownScanner[];
  hidScanners: boolean;
  /** Kiosks on one LAN warn each other (docs/kiosk.md "Kiosks on one LAN"): on unless --no-lan or TICKET_KIOSK_LAN=off. */
  lan: boolean;
  /** Start the on-site issuer at launch. */
  onsiteIssuer: boolean;
  /** Name and base URL for initialising the on-site issuer, if it has no identity yet. */
  issuerName: string | null;
  issuerBaseUrl: string | null;
  /** docs/kiosk.md "Double reads"; null for the default. */
  repeatReadWindowMs: number | null;
}

export function parseShellOptions(argv: readonly string[], env: NodeJS.ProcessEnv = {}): ShellOptions {
  const options: ShellOptions = {
    kiosk: env['TICKET_KIOSK_FULLSCREEN'] === '1',
    issuerCaFile: null,
    knownScanners: [],
    hidScanners: true,
    lan: lanWanted(env),
    onsiteIssuer: false,
    issuerName: null,
    issuerBaseUrl: null,
    repeatReadWindowMs: null,
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
    else if (flag === '--no-lan') options.lan = false;
    else if (flag === '--issuer-ca') options.issuerCaFile = value();
    else if (flag === '--scanner') options.knownScanners.push(parseKnownScanner(value()));
    else if (flag === '--onsite-issuer') options.onsiteIssuer = true;
    else if (flag === '--issuer-name') options.issuerName = value();
    else if (flag === '--issuer-base-url') options.issuerBaseUrl = value();
    else if (flag === '--repeat-read-window') options.repeatReadWindowMs = parseRepeatReadWindow(value());
  }
  return options;
}

/**
 * Whether the page may call the on-site issuer (the Setup screen's "Set up this
 * laptop as the issuer" panel). Not on a door kiosk in kiosk mode, where door
 * staff should never be offered to turn it into an issuer, unless it was
 * started as one (--onsite-issuer). The Issuer menu is unaffected.
 */
export function pageMayUseOnsiteIssuer(options: Pick<ShellOptions, 'kiosk' | 'onsiteIssuer'>): boolean {
  return !options.kiosk || options.onsiteIssuer;
}

function splitFlag(arg: string): [string, string | undefined] {
  const equals = arg.indexOf('=');
  return arg.startsWith('--') && equals > 0 ? [arg.slice(0, equals), arg.slice(equals + 1)] : [arg, undefined];
}
