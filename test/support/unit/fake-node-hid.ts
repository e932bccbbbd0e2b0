/**
 * A stand-in for the node-hid module at exactly the NodeHidApi boundary: a
 * list of plugged-in interfaces, and open handles that emit 'data' and
 * 'error' like node-hid's HIDAsync. Tests plug, unplug and send reports.
 */
import { EventEmitter } from 'node:events';
import type { HidDeviceInfo, HidHandle, NodeHidApi } from '../../../main/kiosk/scanner/node-hid-boundary.js';

export class FakeHidHandle extends EventEmitter implements HidHandle {
  closed = false;

  constructor(readonly path: string) {
    super();
  }

  sendReport(report: Uint8Array): void {
    this.emit('data', Buffer.from(report));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.removeAllListeners();
  }
}

export class FakeNodeHid {
  plugged: HidDeviceInfo[] = [];
  readonly opened: FakeHidHandle[] = [];
  /** Paths whose open fails, e.g. missing hidraw permission. */
  readonly unopenable = new Set<string>();
  enumerations = 0;
  /** Report descriptors by path, as readReportDescriptor returns them (none: null, like a platform without sysfs). */
  readonly descriptors = new Map<string, Uint8Array>();

  /** The module-shaped object handed to the manager; `withAsync: false` imitates node-hid before HIDAsync. */
  api({ withAsync = true } = {}): NodeHidApi {
    const openSync = (path: string): FakeHidHandle => {
      if (this.unopenable.has(path) || !this.plugged.some((device) => device.path === path)) {
        throw new Error(`cannot open device with path ${path}`);
      }
      const handle = new FakeHidHandle(path);
      this.opened.push(handle);
      return handle;
    };
    const devices = (): HidDeviceInfo[] => {
      this.enumerations += 1;
      return this.plugged.map((device) => ({ ...device }));
    };
    const api: NodeHidApi = {
      devices,
      readReportDescriptor: async (path: string) => this.descriptors.get(path) ?? null,
      HID: class {
        constructor(path: string) {
          return openSync(path);
        }
      } as unknown as NodeHidApi['HID'],
    };
    if (withAsync) {
      api.devicesAsync = async () => devices();
      api.HIDAsync = { open: async (path: string) => openSync(path) };
    }
    return api;
  }

  plug(device: HidDeviceInfo): void {
    this.plugged.push(device);
  }

  /** Unplugging makes node-hid's pending read fail: the handle emits 'error'. */
  unplug(path: string): void {
    this.plugged = this.plugged.filter((device) => device.path !== path);
    for (const handle of this.opened.filter((h) => h.path === path && !h.closed)) {
      handle.emit('error', new Error('could not read from HID device'));
    }
  }

  lastHandle(): FakeHidHandle {
    const handle = this.opened.at(-1);
    if (!handle) throw new Error('no device was opened');
    return handle;
  }
}

export const posScanner: HidDeviceInfo = {
  vendorId: 0x0c2e,
  productId: 0x0b87,
  path: '/dev/hidraw3',
  usagePage: 0x8c,
  usage: 0x02,
  interface: 0,
  manufacturer: 'Honeywell',
  product: 'Voyager 1470g',
};

/** A Zebra scanner switched to SNAPI: only its vendor-defined interface enumerates. */
export const snapiScanner: HidDeviceInfo = {
  vendorId: 0x05e0,
  productId: 0x1900,
  path: '/dev/hidraw7',
  usagePage: 0xff00,
  usage: 0x01,
  interface: 0,
  manufacturer: 'Zebra Technologies',
  product: 'DS2208',
};

export const keyboardScanner: HidDeviceInfo = {
  vendorId: 0x05e0,
  productId: 0x1200,
  path: '/dev/hidraw5',
  usagePage: 0x01,
  usage: 0x06,
  interface: 0,
  manufacturer: 'Symbol',
  product: 'Bar Code Scanner',
};

export const attendantKeyboard: HidDeviceInfo = {
  vendorId: 0x046d,
  productId: 0xc31c,
  path: '/dev/hidraw0',
  usagePage: 0x01,
  usage: 0x06,
  interface: 0,
  manufacturer: 'Logitech',
  product: 'USB Keyboard',
};

/** Resolves once `condition` holds; fails the test with `what` after `timeoutMs`. */
export async function waitFor(what: string, condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
