/**
 * Which enumerated HID interface is the door scanner, and how to read it.
 * Pure: takes node-hid's enumeration, returns a choice.
 *
 * - Any interface whose top-level collection is on the Bar Code Scanner page
 *   (0x8C, HID Point of Sale Usage Tables section 3) is a HID-POS scanner: the
 *   page is unambiguous, so no configuration is needed.
 * - A keyboard interface (Generic Desktop 0x01, usage 0x06) is read only when
 *   its vendor/product id is listed: the kiosk must never read the
 *   attendant's real keyboard.
 * - Some backends (libusb) report no usage page; a listed device can then say
 *   its mode in the list.
 */
import { HID_POS_USAGE_PAGE } from './hid-pos-decoder.js';
import { GENERIC_DESKTOP_USAGE_PAGE, KEYBOARD_USAGE } from './keyboard-decoder.js';
import type { HidDeviceInfo } from './node-hid-boundary.js';

export type ScannerMode = 'hid-pos' | 'keyboard';

/** A scanner model the site allows, by USB vendor and product id (e.g. from `lsusb`). */
export interface KnownScanner {
  vendorId: number;
  productId: number;
  /** How to read it when the platform does not report the interface's usage page. */
  mode?: ScannerMode;
}

export interface ScannerChoice {
  device: HidDeviceInfo & { path: string };
  mode: ScannerMode;
}

export function chooseScanner(devices: readonly HidDeviceInfo[], knownScanners: readonly KnownScanner[]): ScannerChoice | null {
  return chooseScanners(devices, knownScanners)[0] ?? null;
}

/** Every scanner interface among `devices`, best first (several scanners on one kiosk, docs/kiosk.md "Several scanners"). */
export function chooseScanners(devices: readonly HidDeviceInfo[], knownScanners: readonly KnownScanner[]): ScannerChoice[] {
  const choices: Array<ScannerChoice & { listed: boolean }> = [];
  for (const device of devices) {
    if (!device.path) continue; // cannot be opened
    const listing = knownScanners.find((known) => known.vendorId === device.vendorId && known.productId === device.productId);
    const mode = modeOf(device, listing);
    if (mode) choices.push({ device: { ...device, path: device.path }, mode, listed: listing !== undefined });
  }
  // HID-POS first (no keystroke decoding, symbology ids), then listed devices, then enumeration order.
  const rank = (choice: { mode: ScannerMode; listed: boolean }) => (choice.mode === 'hid-pos' ? 0 : 2) + (choice.listed ? 0 : 1);
  return choices.sort((a, b) => rank(a) - rank(b)).map(({ device, mode }) => ({ device, mode }));
}

function modeOf(device: HidDeviceInfo, listing: KnownScanner | undefined): ScannerMode | null {
  if (device.usagePage === HID_POS_USAGE_PAGE) return 'hid-pos';
  if (!listing) return null;
  if (device.usagePage === GENERIC_DESKTOP_USAGE_PAGE && device.usage === KEYBOARD_USAGE) return 'keyboard';
  if (device.usagePage === undefined || device.usagePage === 0) return listing.mode ?? null;
  return null; // another interface of a listed device (vendor page, mouse, consumer keys)
}

/** A short label for status messages and logs: product name and ids, never serial numbers. */
export function describeDevice(device: HidDeviceInfo): string {
  const ids = `${hex4(device.vendorId)}:${hex4(device.productId)}`;
  const name = [device.manufacturer, device.product].filter(Boolean).join(' ').trim();
  return name ? `${name} (${ids})` : ids;
}

function hex4(value: number): string {
  return value.toString(16).padStart(4, '0');
}
