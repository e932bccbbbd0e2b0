/**
 * The one place the kiosk touches node-hid. The rest of the scanner code sees
 * only `NodeHidApi`, the small part of node-hid's module shape it uses, so the
 * device manager can run against the real module or against a fake in tests
 * (there is no USB hardware in CI).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A HID interface as node-hid enumerates it (node-hid `Device`). */
export interface HidDeviceInfo {
  vendorId: number;
  productId: number;
  path?: string | undefined;
  /** Top-level collection usage page, e.g. 0x8C for HID-POS; not reported by every backend. */
  usagePage?: number | undefined;
  usage?: number | undefined;
  interface: number;
  product?: string | undefined;
  manufacturer?: string | undefined;
  serialNumber?: string | undefined;
}

/** What node-hid's `HID` and `HIDAsync` instances share: input reports, errors, close. */
export interface HidHandle {
  on(event: 'data', listener: (report: Uint8Array) => void): unknown;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  close(): void | Promise<void>;
}

/** The part of the node-hid module the device manager uses. */
export interface NodeHidApi {
  /**
   * The device's HID report descriptor, or null where it cannot be read.
   * node-hid (3.x) has no call for it; `loadNodeHid` reads it from Linux's
   * sysfs for hidraw devices, which is where the kiosk runs at most doors.
   */
  readReportDescriptor?: (path: string) => Promise<Uint8Array | null>;
  devices(): HidDeviceInfo[];
  devicesAsync?: () => Promise<HidDeviceInfo[]>;
  /** node-hid 1/2 style: opens synchronously, throws on failure. */
  HID: new (path: string) => HidHandle;
  /** node-hid 3: opens on a worker thread. Preferred when present. */
  HIDAsync?: { open(path: string): Promise<HidHandle> };
}

/**
 * Load node-hid lazily, so a kiosk without the native module (or a build for
 * a platform without prebuilds) still starts and simply reports no scanner.
 */
export async function loadNodeHid(): Promise<NodeHidApi> {
  const imported = await import('node-hid');
  // node-hid is CommonJS: named exports come through Node's CJS interop, `default` is module.exports.
  const api: NodeHidApi = imported.default ?? imported;
  return {
    devices: api.devices,
    devicesAsync: api.devicesAsync,
    HID: api.HID,
    HIDAsync: api.HIDAsync,
    readReportDescriptor: (path) => readReportDescriptorFromSysfs(path),
  };
}

/**
 * Linux exposes each hidraw device's report descriptor as a file:
 * /sys/class/hidraw/hidrawN/device/report_descriptor. node-hid's path for a
 * hidraw device is /dev/hidrawN. Any other path (macOS, Windows, the libusb
 * backend) gives null: the decoder then reads the layout from the reports.
 */
export async function readReportDescriptorFromSysfs(path: string, sysfsRoot = '/sys'): Promise<Uint8Array | null> {
  const node = /^\/dev\/(hidraw\d+)$/.exec(path)?.[1];
  if (!node) return null;
  try {
    const bytes = await readFile(join(sysfsRoot, 'class', 'hidraw', node, 'device', 'report_descriptor'));
    return bytes.length > 0 ? new Uint8Array(bytes) : null;
  } catch {
    return null; // no sysfs, no permission, or the device went away: read the layout from the reports
  }
}
