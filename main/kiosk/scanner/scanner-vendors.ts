/**
 * Barcode scanner makers by USB vendor id, and what to tell staff when one of
 * their scanners is plugged in but in a mode the kiosk cannot read (docs/kiosk.md
 * "Scanner compatibility"). Pure data and one pure function.
 */
import type { HidDeviceInfo } from './node-hid-boundary.js';

export interface ScannerVendor {
  vendorId: number;
  name: string;
  /** What the maker calls its own USB protocol, when a scanner can be set to one (e.g. Zebra's SNAPI). */
  vendorMode: string | null;
}

export const SCANNER_VENDORS: readonly ScannerVendor[] = [
  { vendorId: 0x05e0, name: 'Zebra (Symbol)', vendorMode: 'SNAPI' },
  { vendorId: 0x0c2e, name: 'Honeywell', vendorMode: null },
  { vendorId: 0x0536, name: 'Honeywell (Hand Held Products)', vendorMode: null },
  { vendorId: 0x05f9, name: 'Datalogic', vendorMode: null },
  { vendorId: 0x1eab, name: 'Newland', vendorMode: null },
  { vendorId: 0x0db5, name: 'Access-IS', vendorMode: null },
];

/** Usage pages 0xFF00-0xFFFF are vendor-defined: a scanner's own protocol, not HID-POS or keyboard. */
const VENDOR_DEFINED_PAGE = 0xff00;

export interface UnreadableScanner {
  device: HidDeviceInfo;
  /** For the screen and the log: the device, its mode and the fix. */
  message: string;
}

/**
 * A scanner maker's device that shows only a vendor-defined interface: it is
 * plugged in, but in a mode the kiosk does not read. Null when there is none.
 */
export function findUnreadableScanner(
  devices: readonly HidDeviceInfo[],
  label: (device: HidDeviceInfo) => string,
): UnreadableScanner | null {
  for (const device of devices) {
    const vendor = SCANNER_VENDORS.find((known) => known.vendorId === device.vendorId);
    if (!vendor || device.usagePage === undefined || device.usagePage < VENDOR_DEFINED_PAGE) continue;
    return { device, message: unreadableModeMessage(label(device), vendor.vendorMode) };
  }
  return null;
}

/** "Scanner X is in SNAPI mode: scan the 'USB HID POS' programming code from its manual, or use keyboard mode." */
export function unreadableModeMessage(label: string, vendorMode: string | null): string {
  const mode = vendorMode ? `${vendorMode} mode` : 'a vendor-specific USB mode';
  return `Scanner ${label} is in ${mode}: scan the 'USB HID POS' programming code from its manual, or use keyboard mode.`;
}

export function vendorOf(vendorId: number): ScannerVendor | null {
  return SCANNER_VENDORS.find((known) => known.vendorId === vendorId) ?? null;
}
