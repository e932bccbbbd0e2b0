/**
 * The HID part of `npm run bench:kiosk` (bench/kiosk-bench.ts section d):
 *  (d1) decode throughput: HID-POS scanned-data reports and keyboard boot
 *       reports through the kiosk's decoders, in reports per second;
 *  (d2) a long ticket over HID-POS, from its first report to its verdict on
 *       the kiosk offline: the ScannerManager reading a device, wired to
 *       KioskCore as main/host/kiosk-runtime.ts wires it, timed until the
 *       state carrying the verdict is pushed (what the screen waits for);
 *  (d3) calibration to diagnosis: the calibration code over HID-POS until the
 *       state carries the diagnosis.
 * There is no USB here: the device is a stand-in at node-hid's boundary that
 * emits the reports. Reports are handed over back to back, so the figures are
 * the kiosk's own time; on a real full-speed USB scanner the reports of a scan
 * also take about 1 ms each on the wire.
 */
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { CALIBRATION_CODE, decodeTicketCode } from '../protocol/index.js';
import type { KioskCore } from '../main/kiosk/kiosk-core.js';
import type { KioskState } from '../main/kiosk/kiosk-api.js';
import { HidPosDecoder } from '../main/kiosk/scanner/hid-pos-decoder.js';
import { KeyboardReportDecoder } from '../main/kiosk/scanner/keyboard-decoder.js';
import type { HidDeviceInfo, HidHandle, NodeHidApi } from '../main/kiosk/scanner/node-hid-boundary.js';
import { ScannerManager } from '../main/kiosk/scanner/scanner-manager.js';
import { usLayoutCharacter } from '../main/kiosk/scanner/us-keyboard-layout.js';
import { percentiles, type Percentiles } from './bench-kit.js';

/** The HID-POS layout of the Honeywell captures (HID POS Usage Tables 1.02; hid-pos-decoder.ts): 64 bytes, 56 of data. */
const POS_REPORT_LENGTH = 64;
const POS_DATA = 56;

export function honeywellReports(text: string): Uint8Array[] {
  const bytes = Buffer.from(text, 'utf8');
  const reports: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; offset += POS_DATA) {
    const chunk = bytes.subarray(offset, offset + POS_DATA);
    const report = new Uint8Array(POS_REPORT_LENGTH);
    report[0] = 0x02; // scanned-data report id
    report[1] = chunk.length;
    report.set(Buffer.from(']Q1'), 2);
    report.set(chunk, 5);
    report[63] = offset + POS_DATA < bytes.length ? 1 : 0; // continued
    reports.push(report);
  }
  return reports;
}

/** Keyboard boot reports for `text` and Enter: a press and a release per character (keyboard mode). */
export function bootReports(text: string): Uint8Array[] {
  const keyFor = new Map<string, [number, boolean]>();
  for (const shift of [false, true]) {
    for (let usage = 0x04; usage <= 0x38; usage++) {
      const character = usLayoutCharacter(usage, shift);
      if (character !== null && !keyFor.has(character)) keyFor.set(character, [usage, shift]);
    }
  }
  const report = (modifiers: number, key: number): Uint8Array => Uint8Array.from([modifiers, 0, key, 0, 0, 0, 0, 0]);
  const reports: Uint8Array[] = [];
  for (const character of text) {
    const [usage, shift] = keyFor.get(character)!;
    reports.push(report(shift ? 0x02 : 0, usage), report(0, 0));
  }
  reports.push(report(0, 0x28), report(0, 0));
  return reports;
}

/** (d1) Reports per second through each decoder, over `rounds` scans of `code`. */
export function decodeThroughput(code: string, rounds: number): { pos: number; keyboard: number; posScans: number; keyboardScans: number } {
  const pos = honeywellReports(code);
  const keys = bootReports(code);
  const time = (
    reports: Uint8Array[],
    decoder: { push(report: Uint8Array, atMs?: number): { kind: string }[] },
  ): { perSecond: number; scans: number } => {
    let scans = 0;
    for (let i = 0; i < Math.min(rounds, 100); i++) for (const report of reports) decoder.push(report, i); // warm-up
    const start = performance.now();
    for (let i = 0; i < rounds; i++)
      for (const report of reports) scans += decoder.push(report, i).filter((event) => event.kind === 'scan').length;
    return { perSecond: (rounds * reports.length) / ((performance.now() - start) / 1000), scans };
  };
  const posRun = time(pos, new HidPosDecoder());
  const keyboardRun = time(keys, new KeyboardReportDecoder());
  return { pos: posRun.perSecond, keyboard: keyboardRun.perSecond, posScans: posRun.scans, keyboardScans: keyboardRun.scans };
}

/** One HID-POS scanner at node-hid's boundary: the reports a test hands it come out as 'data'. */
class BenchScanner extends EventEmitter implements HidHandle {
  close(): void {
    this.removeAllListeners();
  }
}

function oneScannerHid(handle: BenchScanner): NodeHidApi {
  const device: HidDeviceInfo = {
    vendorId: 0x0c2e,
    productId: 0x0ce4,
    path: 'bench-scanner',
    usagePage: 0x8c,
    usage: 0x02,
    interface: 0,
    product: 'Bench HID-POS scanner',
  };
  return {
    devices: () => [device],
    HID: class {
      constructor() {
        return handle;
      }
    } as unknown as NodeHidApi['HID'],
  };
}

/** Resolves with the time of the first state pushed that `done` accepts. */
function stateWhere(core: KioskCore, done: (state: KioskState) => boolean): Promise<number> {
  return new Promise((resolve) => {
    const stop = core.onStateChange((state) => {
      if (!done(state)) return;
      stop();
      resolve(performance.now());
    });
  });
}

export interface HidToVerdict {
  firstReportToVerdict: Percentiles;
  calibration: Percentiles;
  kinds: Map<string, number>;
  reportsPerScan: number;
}

/** (d2) and (d3), on an enrolled core that already knows it is offline. */
export async function hidToVerdict(core: KioskCore, codes: string[], calibrations: number): Promise<HidToVerdict> {
  const handle = new BenchScanner();
  const manager = new ScannerManager({
    hid: oneScannerHid(handle),
    // As main/host/kiosk-runtime.ts wires it.
    onScan: (scan) => void core.scanFrom(scan.source, scan.text, scan.read, scan.symbologyId),
  });
  await manager.start();
  try {
    const samples: number[] = [];
    const kinds = new Map<string, number>();
    let reportsPerScan = 0;
    for (const code of codes) {
      const tid = decodeTicketCode(code).payload.tid;
      const reports = honeywellReports(code);
      reportsPerScan = reports.length;
      const shown = stateWhere(core, (state) => state.last_verdicts[0]?.ticket?.tid === tid);
      const start = performance.now();
      for (const report of reports) handle.emit('data', report);
      samples.push((await shown) - start);
      const verdict = (await core.getState()).last_verdicts[0]!;
      const kind = `${verdict.kind}${verdict.offline ? ' (offline)' : ''}`;
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    const calibrationSamples: number[] = [];
    for (let i = 0; i < calibrations; i++) {
      const before = (await core.getState()).calibration?.diagnosis.calibrated_at ?? null;
      // A calibrated_at in the same millisecond as the last one would not be told apart.
      await new Promise((resolve) => setTimeout(resolve, 2));
      const diagnosed = stateWhere(core, (state) => (state.calibration?.diagnosis.calibrated_at ?? null) !== before);
      const start = performance.now();
      for (const report of honeywellReports(CALIBRATION_CODE)) handle.emit('data', report);
      calibrationSamples.push((await diagnosed) - start);
    }
    return { firstReportToVerdict: percentiles(samples), calibration: percentiles(calibrationSamples), kinds, reportsPerScan };
  } finally {
    await manager.stop();
  }
}
