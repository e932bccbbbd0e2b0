import { afterEach, describe, expect, it } from 'vitest';
import { chooseScanner } from '../../../main/kiosk/scanner/device-selection.js';
import type { DecodeProblem, ScannedCode } from '../../../main/kiosk/scanner/scan-event.js';
import { ScannerManager, type ScannerManagerOptions, type ScannerStatus } from '../../../main/kiosk/scanner/scanner-manager.js';
import { FakeNodeHid, attendantKeyboard, keyboardScanner, posScanner, snapiScanner, waitFor } from '../../support/unit/fake-node-hid.js';
import { code, descriptor, keyboardFixtures, posFixtures, reports } from '../../support/unit/scanner-reports.js';
import { STANDARD_LAYOUT } from '../../../main/kiosk/scanner/hid-pos-layouts.js';

const NO_SCANNER =
  'No scanner connected: no HID-POS scanner (usage page 0x8C) or listed scanner found. A scanner in a serial (COM port) mode does not show here: scan its USB HID POS or keyboard programming code.';

const ticket = code(posFixtures, 'ticket');

/** A manager on the fake, recording everything it reports. */
function harness(fake: FakeNodeHid, options: Partial<ScannerManagerOptions> = {}, api = fake.api()) {
  const scans: ScannedCode[] = [];
  const problems: DecodeProblem[] = [];
  const statuses: ScannerStatus[] = [];
  const manager = new ScannerManager({
    hid: api,
    pollIntervalMs: 20,
    scanPauseMs: 50,
    onScan: (scan) => scans.push(scan),
    onProblem: (problem) => problems.push(problem),
    onStatus: (status) => statuses.push(status),
    ...options,
  });
  managers.push(manager);
  return { manager, scans, problems, statuses };
}

const managers: ScannerManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.stop()));
});

const states = (statuses: ScannerStatus[]) => statuses.map((s) => (s.state === 'connected' ? 'connected' : s.reason));

describe('chooseScanner', () => {
  it('takes a HID-POS interface without configuration', () => {
    expect(chooseScanner([attendantKeyboard, posScanner], [])).toEqual({ device: posScanner, mode: 'hid-pos' });
  });

  it('never reads an unlisted keyboard, and reads a listed one in keyboard mode', () => {
    expect(chooseScanner([attendantKeyboard, keyboardScanner], [])).toBeNull();
    const listed = [{ vendorId: 0x05e0, productId: 0x1200 }];
    expect(chooseScanner([attendantKeyboard, keyboardScanner], listed)).toEqual({ device: keyboardScanner, mode: 'keyboard' });
  });

  it('prefers HID-POS over a listed keyboard-mode scanner', () => {
    const listed = [{ vendorId: 0x05e0, productId: 0x1200 }];
    expect(chooseScanner([keyboardScanner, posScanner], listed)?.mode).toBe('hid-pos');
  });

  it('uses the listed mode when the backend reports no usage page, and skips other interfaces of a listed device', () => {
    const noUsagePage = { ...keyboardScanner, usagePage: undefined, usage: undefined };
    const vendorInterface = { ...keyboardScanner, path: '/dev/hidraw6', usagePage: 0xff00, usage: 0x01 };
    expect(chooseScanner([vendorInterface, noUsagePage], [{ vendorId: 0x05e0, productId: 0x1200, mode: 'keyboard' }])).toEqual({
      device: noUsagePage,
      mode: 'keyboard',
    });
    expect(chooseScanner([vendorInterface], [{ vendorId: 0x05e0, productId: 0x1200, mode: 'keyboard' }])).toBeNull();
  });

  it('skips interfaces without a path', () => {
    expect(chooseScanner([{ ...posScanner, path: undefined }], [])).toBeNull();
  });
});

describe('ScannerManager with a HID-POS scanner', () => {
  it('opens the scanner on start and turns its reports into one scan', async () => {
    const fake = new FakeNodeHid();
    fake.plug(posScanner);
    const { manager, scans, problems, statuses } = harness(fake);

    const status = await manager.start();
    expect(status).toEqual({
      state: 'connected',
      scanner: {
        mode: 'hid-pos',
        label: 'Honeywell Voyager 1470g (0c2e:0b87)',
        vendorId: 0x0c2e,
        productId: 0x0b87,
        path: '/dev/hidraw3',
        serialNumber: null,
      },
      message: 'Scanner connected: Honeywell Voyager 1470g (0c2e:0b87), hid-pos mode.',
    });
    const ticketReports = reports(posFixtures, 'ticket');
    for (const report of ticketReports) fake.lastHandle().sendReport(report);

    expect(scans).toEqual([
      {
        kind: 'scan',
        source: 'hid-pos',
        text: ticket,
        symbologyId: ']Q1',
        read: {
          terminator: 'report_end',
          prefixKeys: [],
          suffixKeys: [],
          units: ticketReports.length,
          durationMs: expect.any(Number),
          layout: STANDARD_LAYOUT.name,
        },
        // Which device read it: lanes are mapped by device (docs/kiosk.md "Several scanners").
        device: expect.objectContaining({ path: '/dev/hidraw3', vendorId: 0x0c2e, productId: 0x0b87, serialNumber: null }),
      },
    ]);
    expect(problems).toEqual([]);
    expect(states(statuses)).toEqual(['connected']);
  });

  it('reports "no scanner" cleanly, keeps polling, and connects when one is plugged in', async () => {
    const fake = new FakeNodeHid();
    const { manager, statuses } = harness(fake);

    expect(await manager.start()).toEqual({
      state: 'disconnected',
      reason: 'no_scanner',
      message: NO_SCANNER,
    });
    await waitFor('a few polls', () => fake.enumerations >= 3);
    expect(states(statuses)).toEqual(['no_scanner']); // repeated polls do not repeat the status

    fake.plug(posScanner);
    await waitFor('connected', () => manager.status.state === 'connected');
    expect(states(statuses)).toEqual(['no_scanner', 'connected']);
  });

  it('after unplug: drops the half-read scan, reports it, reconnects, and scans again', async () => {
    const fake = new FakeNodeHid();
    fake.plug(posScanner);
    const { manager, scans, problems, statuses } = harness(fake, { scanPauseMs: 10_000 });
    await manager.start();
    const firstHandle = fake.lastHandle();
    const ticketReports = reports(posFixtures, 'ticket');
    firstHandle.sendReport(ticketReports[0]!);
    firstHandle.sendReport(ticketReports[1]!);

    fake.unplug(posScanner.path!);
    await waitFor('unplugged status', () => manager.status.state === 'disconnected');
    expect(manager.status).toMatchObject({ reason: 'unplugged' });
    expect(manager.status.message).toContain('could not read from HID device');
    expect(problems).toEqual([
      {
        kind: 'problem',
        source: 'hid-pos',
        code: 'incomplete_scan',
        message: 'discarded 112 bytes of a scan whose last report never arrived',
      },
    ]);
    await waitFor('old handle closed', () => firstHandle.closed);

    await waitFor('polling while unplugged', () => fake.enumerations >= 3);
    fake.plug(posScanner);
    await waitFor('reconnected', () => manager.status.state === 'connected');
    const secondHandle = fake.lastHandle();
    expect(secondHandle).not.toBe(firstHandle);

    for (const report of ticketReports) secondHandle.sendReport(report);
    expect(scans.map((scan) => scan.text)).toEqual([ticket]);
    expect(states(statuses)).toEqual(['connected', 'unplugged', 'no_scanner', 'connected']);
  });

  it('drops a scan whose last report never comes, then reads the next scan cleanly', async () => {
    const fake = new FakeNodeHid();
    fake.plug(posScanner);
    const { manager, scans, problems } = harness(fake, { scanPauseMs: 30 });
    await manager.start();
    const prefix = reports(posFixtures, 'lostLastReportSameSymbology', 'firstScanPrefix');
    for (const report of prefix) fake.lastHandle().sendReport(report);

    await waitFor('incomplete scan reported', () => problems.length === 1);
    expect(problems[0]).toMatchObject({ code: 'incomplete_scan' });

    for (const report of reports(posFixtures, 'lostLastReportSameSymbology', 'nextScan')) fake.lastHandle().sendReport(report);
    expect(scans.map((scan) => scan.text)).toEqual([code(posFixtures, 'setup')]);
  });

  it('reports an open failure (e.g. hidraw permission) and retries until the device opens', async () => {
    const fake = new FakeNodeHid();
    fake.plug(posScanner);
    fake.unopenable.add(posScanner.path!);
    const { manager } = harness(fake);

    const status = await manager.start();
    expect(status).toMatchObject({ state: 'disconnected', reason: 'open_failed' });
    expect(status.message).toContain('Cannot open scanner Honeywell Voyager 1470g (0c2e:0b87): cannot open device with path /dev/hidraw3');

    fake.unopenable.clear();
    await waitFor('connected after retry', () => manager.status.state === 'connected');
  });

  it('stop() closes the device and stops polling', async () => {
    const fake = new FakeNodeHid();
    fake.plug(posScanner);
    const { manager, statuses } = harness(fake);
    await manager.start();
    await manager.stop();

    expect(fake.lastHandle().closed).toBe(true);
    expect(manager.status).toMatchObject({ state: 'disconnected', reason: 'stopped' });
    const enumerations = fake.enumerations;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fake.enumerations).toBe(enumerations);
    expect(states(statuses)).toEqual(['connected', 'stopped']);
  });

  it('keeps the scanner open when a scan listener throws', async () => {
    const fake = new FakeNodeHid();
    fake.plug(posScanner);
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.prependListener('uncaughtException', onUncaught);
    try {
      const { manager } = harness(fake, {
        onScan: () => {
          throw new Error('listener bug');
        },
      });
      await manager.start();
      for (const report of reports(posFixtures, 'ean13')) fake.lastHandle().sendReport(report);
      await waitFor('listener error surfaced', () => uncaught.length === 1);
      expect(manager.status.state).toBe('connected');
    } finally {
      process.removeListener('uncaughtException', onUncaught);
    }
  });
});

describe('ScannerManager with a keyboard-mode scanner', () => {
  it('reads a listed keyboard-mode scanner through the sync HID API when HIDAsync is missing', async () => {
    const fake = new FakeNodeHid();
    fake.plug(attendantKeyboard);
    fake.plug(keyboardScanner);
    const { manager, scans } = harness(fake, { knownScanners: [{ vendorId: 0x05e0, productId: 0x1200 }] }, fake.api({ withAsync: false }));

    expect(await manager.start()).toMatchObject({ state: 'connected', scanner: { mode: 'keyboard', path: '/dev/hidraw5' } });
    for (const report of reports(keyboardFixtures, 'ticketPressReleaseEnter')) fake.lastHandle().sendReport(report);
    expect(scans).toMatchObject([
      { kind: 'scan', source: 'hid-keyboard', text: code(keyboardFixtures, 'ticket'), symbologyId: null, read: { terminator: 'cr' } },
    ]);
  });

  it('a scanner with no terminator: the pause delivers the scan, and the next scan is separate', async () => {
    const fake = new FakeNodeHid();
    fake.plug(keyboardScanner);
    const { manager, scans, problems } = harness(fake, { knownScanners: [{ vendorId: 0x05e0, productId: 0x1200 }], scanPauseMs: 40 });
    await manager.start();
    for (const report of reports(keyboardFixtures, 'noTerminator')) fake.lastHandle().sendReport(report);
    expect(scans).toEqual([]);
    await waitFor('the pause ends the scan', () => scans.length === 1);
    expect(scans[0]).toMatchObject({ text: 'pause-scan', read: { terminator: 'pause', units: 10 } });
    for (const report of reports(keyboardFixtures, 'issue323CrThenCtrlShiftJ')) fake.lastHandle().sendReport(report);
    expect(scans.map((scan) => scan.text)).toEqual(['pause-scan', '4006381333931', '5901234123457']);
    expect(problems).toEqual([]);
  });
});

describe('ScannerManager and report layouts', () => {
  it("reads the layout from the device's report descriptor and says so", async () => {
    const fake = new FakeNodeHid();
    fake.plug(posScanner);
    fake.descriptors.set(posScanner.path!, descriptor('generic'));
    const { manager, scans } = harness(fake);
    const status = await manager.start();
    expect(status.message).toMatch(
      /^Scanner connected: Honeywell Voyager 1470g \(0c2e:0b87\), hid-pos mode\. Report layout from the device's report descriptor \(report 1, 66 bytes, 60 data bytes from byte 2\)\.$/,
    );
    for (const report of reports(posFixtures, 'longTicketGeneric')) fake.lastHandle().sendReport(report);
    expect(scans.map((scan) => scan.text)).toEqual([code(posFixtures, 'longTicket')]);
  });

  it('without a descriptor, reads each vendor layout from its reports', async () => {
    const fake = new FakeNodeHid();
    fake.plug(posScanner);
    const { manager, scans } = harness(fake);
    await manager.start();
    for (const fixture of ['longTicketNewland', 'longTicketVendorByte', 'longTicketStandard']) {
      for (const report of reports(posFixtures, fixture)) fake.lastHandle().sendReport(report);
    }
    expect(scans.map((scan) => [scan.text.length, scan.read?.layout])).toEqual([
      [490, 'Newland HID-POS (data from byte 2, symbology id at byte 62)'],
      [490, 'HID-POS with a vendor byte before the AIM id (AIM id in bytes 3-5, data from byte 6)'],
      [490, STANDARD_LAYOUT.name],
    ]);
  });
});

describe('ScannerManager with a scanner in a mode it cannot read', () => {
  const SNAPI_MESSAGE =
    "Scanner Zebra Technologies DS2208 (05e0:1900) is in SNAPI mode: scan the 'USB HID POS' programming code from its manual, or use keyboard mode.";

  it('names a Zebra scanner in SNAPI mode, with the fix, and connects once it is switched', async () => {
    const fake = new FakeNodeHid();
    fake.plug(attendantKeyboard);
    fake.plug(snapiScanner);
    const { manager, statuses } = harness(fake);
    expect(await manager.start()).toEqual({ state: 'disconnected', reason: 'unreadable_mode', message: SNAPI_MESSAGE });

    // Scanning the programming code re-enumerates the scanner as HID-POS.
    fake.unplug(snapiScanner.path!);
    fake.plug({ ...posScanner, vendorId: 0x05e0, productId: 0x1300, manufacturer: 'Zebra Technologies', product: 'DS2208' });
    await waitFor('connected', () => manager.status.state === 'connected');
    expect(states(statuses)).toEqual(['unreadable_mode', 'connected']);
  });

  it('a listed device that turns out to send SNAPI reports is named too, once', async () => {
    const fake = new FakeNodeHid();
    const listedWithoutUsagePage = { ...snapiScanner, usagePage: undefined, usage: undefined };
    fake.plug(listedWithoutUsagePage);
    const { manager, problems } = harness(fake, { knownScanners: [{ vendorId: 0x05e0, productId: 0x1900, mode: 'hid-pos' }] });
    expect((await manager.start()).state).toBe('connected');
    for (const report of reports(posFixtures, 'snapiReports')) fake.lastHandle().sendReport(report);
    expect(manager.status).toEqual({ state: 'disconnected', reason: 'unreadable_mode', message: SNAPI_MESSAGE });
    expect(problems.map((problem) => problem.code)).toEqual(['unreadable_mode']);
  });
});

describe('ScannerManager with several scanners (allScanners)', () => {
  it('opens every scanner, keeps their report streams apart, and finds one plugged in later', async () => {
    const fake = new FakeNodeHid();
    const second = { ...posScanner, path: '/dev/hidraw8', serialNumber: 'B-2' };
    fake.plug(posScanner);
    const devices: string[][] = [];
    const { manager, scans } = harness(fake, { allScanners: true, onDevices: (open) => devices.push(open.map((d) => d.path)) });
    await manager.start();
    expect(manager.connected.map((d) => d.path)).toEqual(['/dev/hidraw3']);
    fake.plug(second);
    await waitFor('the second scanner', () => manager.connected.length === 2);
    const ticketReports = reports(posFixtures, 'ticket');
    const [first, other] = [fake.opened[0]!, fake.opened[1]!];
    // Report by report, alternately: neither scan may take the other's reports.
    for (let i = 0; i < ticketReports.length; i++) {
      first.sendReport(ticketReports[i]!);
      other.sendReport(ticketReports[i]!);
    }
    expect(scans.map((scan) => [scan.text === ticket, scan.device?.path, scan.device?.serialNumber])).toEqual([
      [true, '/dev/hidraw3', null],
      [true, '/dev/hidraw8', 'B-2'],
    ]);
    fake.unplug('/dev/hidraw3');
    await waitFor('one left', () => manager.connected.length === 1);
    expect(devices.at(-1)).toEqual(['/dev/hidraw8']);
  });
});
