/**
 * The Electron shell's command-line options (main/electron/electron-shell-options.ts),
 * parsed without Electron.
 */
import { describe, expect, it } from 'vitest';
import { pageMayUseOnsiteIssuer, parseShellOptions } from '../../../main/electron/electron-shell-options.js';

describe('shell options', () => {
  it('reads --kiosk, --issuer-ca, --scanner and --no-hid and ignores Chromium switches', () => {
    expect(
      parseShellOptions([
        '/usr/bin/electron',
        'dist/main/electron/main.js',
        '--enable-logging',
        '--kiosk',
        '--issuer-ca=/etc/ca.pem',
        '--scanner',
        '05e0:1200:keyboard',
        '--no-hid',
      ]),
    ).toEqual({
      kiosk: true,
      issuerCaFile: '/etc/ca.pem',
      knownScanners: [{ vendorId: 0x05e0, productId: 0x1200, mode: 'keyboard' }],
      hidScanners: false,
      lan: true,
      onsiteIssuer: false,
      issuerName: null,
      issuerBaseUrl: null,
      repeatReadWindowMs: null,
    });
    expect(parseShellOptions([], { TICKET_KIOSK_FULLSCREEN: '1' }).kiosk).toBe(true);
    expect(parseShellOptions([]).kiosk).toBe(false);
    // Kiosks on one LAN warn each other unless told not to (docs/kiosk.md "Kiosks on one LAN").
    expect(parseShellOptions(['--no-lan']).lan).toBe(false);
    expect(parseShellOptions([], { TICKET_KIOSK_LAN: 'off' }).lan).toBe(false);
    expect(() => parseShellOptions(['--scanner', 'usb-scanner'])).toThrow(/not a scanner id/);
    expect(() => parseShellOptions(['--issuer-ca'])).toThrow(/needs a value/);
  });

  it('reads --repeat-read-window in whole milliseconds, and refuses anything else with the reason', () => {
    expect(parseShellOptions(['--repeat-read-window', '5000']).repeatReadWindowMs).toBe(5000);
    expect(parseShellOptions(['--repeat-read-window=0']).repeatReadWindowMs).toBe(0);
    expect(() => parseShellOptions(['--repeat-read-window'])).toThrow(/needs a value/);
    for (const bad of ['3s', '-1', '1.5', '600000', '']) {
      expect(() => parseShellOptions([`--repeat-read-window=${bad}`])).toThrow(
        /not a repeat-read window: expected whole milliseconds from 0 to 60000/,
      );
    }
  });

  it('offers the page the on-site issuer in a normal window, or in kiosk mode only when started as the issuer', () => {
    expect(pageMayUseOnsiteIssuer(parseShellOptions([]))).toBe(true);
    expect(pageMayUseOnsiteIssuer(parseShellOptions(['--kiosk']))).toBe(false);
    expect(pageMayUseOnsiteIssuer(parseShellOptions([], { TICKET_KIOSK_FULLSCREEN: '1' }))).toBe(false);
    expect(pageMayUseOnsiteIssuer(parseShellOptions(['--kiosk', '--onsite-issuer']))).toBe(true);
  });

  it('reads the on-site issuer switches: --onsite-issuer, --issuer-name, --issuer-base-url', () => {
    expect(
      parseShellOptions(['--onsite-issuer', '--issuer-name', 'Harbour Festival', '--issuer-base-url=https://192.168.1.20:8443']),
    ).toMatchObject({
      onsiteIssuer: true,
      issuerName: 'Harbour Festival',
      issuerBaseUrl: 'https://192.168.1.20:8443',
    });
    expect(parseShellOptions([])).toMatchObject({ onsiteIssuer: false, issuerName: null, issuerBaseUrl: null });
    expect(() => parseShellOptions(['--onsite-issuer', '--issuer-name'])).toThrow(/needs a value/);
  });
});
