/**
 * Finds the door scanner among the HID devices, reads its reports, hands
 * whole scans to the kiosk, and gets the scanner back after it is unplugged.
 *
 * Life cycle: start() enumerates once and opens the best candidate
 * (device-selection.ts). While no scanner is open it enumerates again every
 * `pollIntervalMs`; hidapi has no portable hot-plug events, so polling is the
 * plug detection. An 'error' from the open device (node-hid's read fails when
 * the device goes away) closes it, drops any half-read scan, reports
 * "unplugged" and goes back to polling.
 *
 * The decoders are pure and timer-free; this manager owns the one timer that
 * matters to them: when a scan is under way and no report follows within
 * `scanPauseMs`, the decoder hears of the pause (`endOfInput`). A keyboard
 * scanner with no terminator ends its scan there; a HID-POS scan whose last
 * report was lost is dropped, so it cannot glue onto the next scan.
 *
 * With `allScanners` (the kiosk runtime: several scanners, one per lane,
 * docs/kiosk.md "Several scanners") every scanner interface is opened, each
 * with its own decoder and pause timer, and enumeration goes on every
 * `pollIntervalMs` while started, so a second scanner plugged in later (or a
 * lane's scanner re-plugged) is found too. Each scan names the device it came
 * from (`ScannedCode.device`), so the kiosk can tell the lanes apart.
 *
 * A HID-POS decoder gets the device's own report layout when its report
 * descriptor can be read (hid-pos-layouts.ts). A scanner maker's device in a
 * mode the kiosk cannot read (Zebra SNAPI and the like) is named in the
 * status with the fix (docs/kiosk.md "Scanner compatibility").
 */
import {
  chooseScanner,
  chooseScanners,
  describeDevice,
  type KnownScanner,
  type ScannerChoice,
  type ScannerMode,
} from './device-selection.js';
import { HidPosDecoder } from './hid-pos-decoder.js';
import { layoutFromDescriptor, type HidPosLayout } from './hid-pos-layouts.js';
import { KeyboardReportDecoder } from './keyboard-decoder.js';
import type { HidDeviceInfo, HidHandle, NodeHidApi } from './node-hid-boundary.js';
import type { DecodeProblem, ScanEvent, ScannedCode } from './scan-event.js';
import { findUnreadableScanner, unreadableModeMessage, vendorOf } from './scanner-vendors.js';

export type DisconnectReason =
  | 'not_started'
  | 'no_scanner'
  | 'enumeration_failed'
  | 'open_failed'
  | 'unplugged'
  /** A scanner is plugged in but in a mode the kiosk cannot read; the message says how to switch it. */
  | 'unreadable_mode'
  | 'stopped';

export interface ConnectedScanner {
  mode: ScannerMode;
  label: string;
  vendorId: number;
  productId: number;
  path: string;
  /** The USB serial number, when the device reports one (lanes match by it: it survives a re-plug into another port). */
  serialNumber: string | null;
}

export type ScannerStatus =
  { state: 'connected'; scanner: ConnectedScanner; message: string } | { state: 'disconnected'; reason: DisconnectReason; message: string };

export interface ScannerManagerOptions {
  /** node-hid, or a stand-in with the same shape (see node-hid-boundary.ts). */
  hid: NodeHidApi;
  /** Scanner models allowed by vendor/product id; required for keyboard-mode scanners. */
  knownScanners?: readonly KnownScanner[];
  /** How often to look for a scanner while none is open. */
  pollIntervalMs?: number;
  /**
   * A scan under way with no report for this long has ended (keyboard
   * scanners without a terminator) or lost its last report (HID-POS).
   * Scanners send one scan's reports milliseconds apart.
   */
  scanPauseMs?: number;
  /**
   * Open every scanner interface found, not only the best one, and keep
   * looking for more while started (several scanners on one kiosk). Default
   * false: one scanner, HID-POS first.
   */
  allScanners?: boolean;
  /** The clock reports are stamped with, for the read details (default performance.now). */
  now?: () => number;
  onScan?: (scan: ScannedCode) => void;
  onProblem?: (problem: DecodeProblem) => void;
  onStatus?: (status: ScannerStatus) => void;
  /** The scanners open now, after each change (a device opened or lost). */
  onDevices?: (scanners: ConnectedScanner[]) => void;
}

interface OpenScanner {
  handle: HidHandle;
  decoder: HidPosDecoder | KeyboardReportDecoder;
  scanner: ConnectedScanner;
  /** A scan under way with no report for scanPauseMs has ended (see above). */
  pauseTimer: NodeJS.Timeout | null;
}

const DEFAULT_POLL_INTERVAL_MS = 2000;
export const DEFAULT_SCAN_PAUSE_MS = 300;

export class ScannerManager {
  private readonly hid: NodeHidApi;
  private readonly knownScanners: readonly KnownScanner[];
  private readonly pollIntervalMs: number;
  private readonly scanPauseMs: number;
  private readonly now: () => number;
  private readonly listeners: Pick<ScannerManagerOptions, 'onScan' | 'onProblem' | 'onStatus' | 'onDevices'>;
  private readonly allScanners: boolean;

  private started = false;
  private connecting = false;
  /** The open scanners by path (at most one unless allScanners). */
  private readonly opened = new Map<string, OpenScanner>();
  private pollTimer: NodeJS.Timeout | null = null;
  private currentStatus: ScannerStatus = { state: 'disconnected', reason: 'not_started', message: 'Scanner input not started.' };

  constructor(options: ScannerManagerOptions) {
    this.hid = options.hid;
    this.knownScanners = options.knownScanners ?? [];
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    this.scanPauseMs = options.scanPauseMs ?? DEFAULT_SCAN_PAUSE_MS;
    this.now = options.now ?? (() => performance.now());
    this.allScanners = options.allScanners ?? false;
    this.listeners = { onScan: options.onScan, onProblem: options.onProblem, onStatus: options.onStatus, onDevices: options.onDevices };
  }

  get status(): ScannerStatus {
    return this.currentStatus;
  }

  /** The scanners open now, in the order they were opened. */
  get connected(): ConnectedScanner[] {
    return [...this.opened.values()].map((open) => open.scanner);
  }

  /** Looks for a scanner now and keeps looking while none is connected. Never rejects. */
  async start(): Promise<ScannerStatus> {
    if (!this.started) {
      this.started = true;
      await this.connect();
    }
    return this.currentStatus;
  }

  /** Closes the scanner and stops looking. */
  async stop(): Promise<void> {
    this.started = false;
    this.clearPoll();
    const open = [...this.opened.values()];
    this.opened.clear();
    for (const each of open) {
      clearPause(each);
      await closeQuietly(each.handle);
    }
    if (open.length > 0) this.devicesChanged();
    this.setStatus({ state: 'disconnected', reason: 'stopped', message: 'Scanner input stopped.' });
  }

  private async connect(): Promise<void> {
    if (!this.started || this.connecting || (this.opened.size > 0 && !this.allScanners)) return;
    this.connecting = true;
    try {
      await this.tryOpen();
    } finally {
      this.connecting = false;
    }
    if (this.opened.size === 0 || this.allScanners) this.schedulePoll();
  }

  private async tryOpen(): Promise<void> {
    let devices: HidDeviceInfo[];
    try {
      devices = this.hid.devicesAsync ? await this.hid.devicesAsync() : this.hid.devices();
    } catch (error) {
      this.setStatus({ state: 'disconnected', reason: 'enumeration_failed', message: `Cannot list HID devices: ${errorText(error)}` });
      return;
    }
    if (this.allScanners) {
      await this.openAll(devices);
      return;
    }
    const choice = chooseScanner(devices, this.knownScanners);
    if (!choice) {
      this.setStatus(noScannerStatus(devices));
      return;
    }

    await this.openChoice(choice);
  }

  /** allScanners: opens every scanner interface not open yet; the status says what is connected. */
  private async openAll(devices: HidDeviceInfo[]): Promise<void> {
    const choices = chooseScanners(devices, this.knownScanners).filter((choice) => !this.opened.has(choice.device.path));
    for (const choice of choices) await this.openChoice(choice);
    if (this.opened.size > 0 || choices.length > 0) return; // connected, or an open failure said why
    this.setStatus(noScannerStatus(devices));
  }

  private async openChoice(choice: ScannerChoice): Promise<void> {
    let handle: HidHandle;
    try {
      handle = await this.openDevice(choice.device.path);
    } catch (error) {
      this.setStatus({
        state: 'disconnected',
        reason: 'open_failed',
        message: `Cannot open scanner ${describeDevice(choice.device)}: ${errorText(error)}. On Linux the kiosk user needs read access to its /dev/hidraw node (udev rule).`,
      });
      return;
    }
    const layout = choice.mode === 'hid-pos' ? await this.readLayout(choice.device.path) : null;
    if (!this.started) {
      await closeQuietly(handle); // stop() ran while the device was opening
      return;
    }
    this.attach(handle, choice, layout);
  }

  private async openDevice(path: string): Promise<HidHandle> {
    if (this.hid.HIDAsync) return this.hid.HIDAsync.open(path);
    return new this.hid.HID(path);
  }

  /** The scanned-data layout the device declares, or null (then each scan's first report tells it). */
  private async readLayout(path: string): Promise<HidPosLayout | null> {
    try {
      const descriptor = await this.hid.readReportDescriptor?.(path);
      return descriptor ? layoutFromDescriptor(descriptor) : null;
    } catch {
      return null;
    }
  }

  private attach(handle: HidHandle, choice: ScannerChoice, layout: HidPosLayout | null): void {
    const scanner: ConnectedScanner = {
      mode: choice.mode,
      label: describeDevice(choice.device),
      vendorId: choice.device.vendorId,
      productId: choice.device.productId,
      path: choice.device.path,
      serialNumber: choice.device.serialNumber ? choice.device.serialNumber : null,
    };
    const open: OpenScanner = {
      handle,
      scanner,
      decoder: choice.mode === 'hid-pos' ? new HidPosDecoder({ layout, vendorId: choice.device.vendorId }) : new KeyboardReportDecoder(),
      pauseTimer: null,
    };
    this.opened.set(scanner.path, open);
    handle.on('data', (report) => this.onReport(open, report));
    handle.on('error', (error) => void this.onDeviceError(open, error));
    const layoutNote = layout ? ` Report layout ${layout.name}.` : '';
    this.devicesChanged();
    this.setStatus({ state: 'connected', scanner, message: `Scanner connected: ${scanner.label}, ${scanner.mode} mode.${layoutNote}` });
  }

  private isOpen(open: OpenScanner): boolean {
    return this.opened.get(open.scanner.path) === open;
  }

  private onReport(open: OpenScanner, report: Uint8Array): void {
    if (!this.isOpen(open)) return; // a late report from a device already closed
    clearPause(open);
    for (const event of open.decoder.push(report, this.now())) this.deliver(event, open);
    if (open.decoder.isAssembling) {
      open.pauseTimer = setTimeout(() => {
        open.pauseTimer = null;
        if (!this.isOpen(open)) return;
        for (const event of open.decoder.endOfInput(this.now())) this.deliver(event, open);
      }, this.scanPauseMs);
    }
  }

  private async onDeviceError(open: OpenScanner, error: unknown): Promise<void> {
    if (!this.isOpen(open)) return;
    this.opened.delete(open.scanner.path);
    clearPause(open);
    const problem = open.decoder.reset();
    if (problem) this.deliver(problem, open);
    this.devicesChanged();
    this.setStatus({
      state: 'disconnected',
      reason: 'unplugged',
      message: `Scanner disconnected: ${open.scanner.label} (${errorText(error)}). Waiting for it to come back.`,
    });
    await closeQuietly(open.handle);
    this.schedulePoll();
  }

  private schedulePoll(): void {
    if (!this.started || this.pollTimer) return;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = null;
      void this.connect();
    }, this.pollIntervalMs);
  }

  private clearPoll(): void {
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.pollTimer = null;
  }

  private devicesChanged(): void {
    const scanners = this.connected;
    this.notify(() => this.listeners.onDevices?.(scanners));
  }

  private setStatus(status: ScannerStatus): void {
    const previous = this.currentStatus;
    this.currentStatus = status;
    // Polling repeats "no scanner" every interval: tell listeners about changes only.
    if (previous.state === status.state && previous.message === status.message) return;
    this.notify(() => this.listeners.onStatus?.(status));
  }

  private deliver(event: ScanEvent, open: OpenScanner): void {
    // Which device read it: the kiosk maps devices to lanes (docs/kiosk.md "Several scanners").
    if (event.kind === 'scan') this.notify(() => this.listeners.onScan?.({ ...event, device: open.scanner }));
    else this.notify(() => this.listeners.onProblem?.(event));
    if (event.kind === 'problem' && event.code === 'unreadable_mode') {
      // The device stays open: switching its mode re-plugs it, and polling finds it again.
      const message = unreadableModeMessage(open.scanner.label, vendorOf(open.scanner.vendorId)?.vendorMode ?? null);
      this.setStatus({ state: 'disconnected', reason: 'unreadable_mode', message });
    }
  }

  /**
   * Listener code runs inside node-hid's 'data' emit; if it threw there,
   * node-hid would report a device error and the scanner would be dropped.
   * Rethrow outside instead, so the bug stays loud and the scanner stays open.
   */
  private notify(call: () => void): void {
    try {
      call();
    } catch (error) {
      queueMicrotask(() => {
        throw error;
      });
    }
  }
}

function clearPause(open: OpenScanner): void {
  if (open.pauseTimer) clearTimeout(open.pauseTimer);
  open.pauseTimer = null;
}

async function closeQuietly(handle: HidHandle): Promise<void> {
  try {
    await handle.close();
  } catch {
    // Closing a device that is already gone fails; it is closed either way.
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The status when no scanner can be opened: one in a mode the kiosk cannot read is named, else none is there. */
function noScannerStatus(devices: HidDeviceInfo[]): ScannerStatus {
  const unreadable = findUnreadableScanner(devices, describeDevice);
  return unreadable
    ? { state: 'disconnected', reason: 'unreadable_mode', message: unreadable.message }
    : {
        state: 'disconnected',
        reason: 'no_scanner',
        message:
          'No scanner connected: no HID-POS scanner (usage page 0x8C) or listed scanner found. A scanner in a serial (COM port) mode does not show here: scan its USB HID POS or keyboard programming code.',
      };
}
