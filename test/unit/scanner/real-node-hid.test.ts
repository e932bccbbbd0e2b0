/**
 * Loads the real node-hid native module and enumerates real devices. This
 * machine has no USB scanner, so the manager must say "no scanner connected"
 * and keep running rather than crash. (Were a scanner plugged in, the
 * expectation follows from the same selection rule.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { chooseScanner } from '../../../main/kiosk/scanner/device-selection.js';
import { loadNodeHid } from '../../../main/kiosk/scanner/node-hid-boundary.js';
import { ScannerManager, type ScannerStatus } from '../../../main/kiosk/scanner/scanner-manager.js';

let manager: ScannerManager | null = null;
afterEach(async () => {
  await manager?.stop();
  manager = null;
});

describe('real node-hid', () => {
  it('loads and enumerates (an array, possibly empty)', async () => {
    const hid = await loadNodeHid();
    const devices = hid.devicesAsync ? await hid.devicesAsync() : hid.devices();
    expect(Array.isArray(devices)).toBe(true);
    for (const device of devices) expect(typeof device.vendorId).toBe('number');
    expect(typeof hid.HIDAsync?.open).toBe('function'); // node-hid 3: the async API the manager prefers
  });

  it('reports "no scanner connected" cleanly when none is plugged in', async () => {
    const hid = await loadNodeHid();
    const devices = hid.devicesAsync ? await hid.devicesAsync() : hid.devices();
    const statuses: ScannerStatus[] = [];
    manager = new ScannerManager({ hid, pollIntervalMs: 50, onStatus: (status) => statuses.push(status) });

    const status = await manager.start();
    if (chooseScanner(devices, []) === null) {
      expect(status).toEqual({
        state: 'disconnected',
        reason: 'no_scanner',
        message: 'No scanner connected: no HID-POS scanner (usage page 0x8C) or listed scanner found.',
      });
      // It keeps polling the real enumeration without failing or flapping.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(manager.status).toMatchObject({ state: 'disconnected', reason: 'no_scanner' });
      expect(statuses.map((s) => (s.state === 'connected' ? 'connected' : s.reason))).toEqual(['no_scanner']);
    } else {
      expect(['connected', 'disconnected']).toContain(status.state);
    }
  });
});
