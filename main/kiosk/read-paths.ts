/**
 * The kiosk's input paths before a scan is decided (docs/kiosk.md "Double reads", "Calibration", "Several
 * scanners"): a read repeating a recent one is the same scan (decide/repeat-reads.ts); the calibration code
 * calibrates the path it came through (decide/calibration.ts) and, during a lane mapping, maps its scanner
 * to a lane (decide/lanes.ts); a calibrated path's reads are translated; a scanner's read goes to its lane.
 *
 * At the top of main/kiosk/: the rules are pure in decide/; this file keeps what they learned (in the
 * store) and what is under way (a lane mapping, the scanners open now).
 */
import type { GateDirection } from '../../protocol/index.js';
import type { KioskState, LanesRequest, ScanResult } from './kiosk-api.js';
import {
  diagnose,
  findCalibrationCode,
  needsConfirmation,
  translate,
  type CalibrationMatch,
  type CalibrationResult,
} from './decide/calibration.js';
import { LaneMapping, laneFor, lanesView, matches, storedLanes, type Lane, type Lanes } from './decide/lanes.js';
import {
  DEFAULT_REPEAT_READ_WINDOW_MS,
  RepeatReadFilter,
  VERDICT_ON_SCREEN_MS,
  type RepeatRead,
  type ScanOrigin,
} from './decide/repeat-reads.js';
import type { ReadDetails, ScannerDevice } from './scanner/scan-event.js';
import type { LocalStore, StoredCalibrations } from './store/local-store.js';

export interface ReadPathsDeps {
  store: LocalStore;
  now: () => number;
  log: (line: string) => void;
  changed: () => void;
  /** Lanes from the configuration file (docs/kiosk.md "Several scanners"): they win over the Setup screen's mapping. */
  lanes: Lanes | null | undefined;
  /** See KioskCoreOptions.repeatReadWindowMs. */
  repeatReadWindowMs: number | undefined;
  /**
   * docs/kiosk.md "Calibration": whether a calibration code read now is acted on (decide/access.ts
   * actsOnCalibration), given whether a lane mapping is under way.
   */
  actsOnCalibration: (mappingLanes: boolean) => boolean;
}

/** What the door answers a calibration code read where it is not acted on (docs/kiosk.md "Calibration"). */
export const STAFF_CODE_IGNORED = 'staff code: ignored';

export class ReadPaths {
  /** What calibration learned per input path; read once, changed only by calibrate and reset. */
  private calibrations: StoredCalibrations;
  private readonly repeatReads: RepeatReadFilter<ScanResult>;
  /** The verdict on screen was read again (cleared by the next verdict). */
  readAgain: KioskState['read_again'] = null;
  /** The last calibration code ignored (docs/kiosk.md "Calibration"), shown by the page whichever path read it. */
  staffCodeIgnored: KioskState['staff_code_ignored'] = null;
  /** Several scanners, one per lane (lanes.ts): the lanes, where they come from, a mapping under way, the scanners open now. */
  private lanes: Lanes | null;
  private readonly lanesSource: 'setup' | 'file';
  private laneMapping: LaneMapping | null = null;
  private scannerDevices: ScannerDevice[] = [];
  /** Translations that match no known layout, per input path, until staff confirm or discard them (not saved). */
  private unconfirmed = new Map<ScanOrigin, CalibrationResult>();

  constructor(private readonly deps: ReadPathsDeps) {
    this.calibrations = deps.store.getCalibrations();
    this.lanesSource = deps.lanes ? 'file' : 'setup';
    this.lanes = deps.lanes ?? storedLanes(deps.store.getLanes());
    this.repeatReads = new RepeatReadFilter<ScanResult>({
      windowMs: deps.repeatReadWindowMs ?? DEFAULT_REPEAT_READ_WINDOW_MS,
      now: deps.now,
      onScreenMs: (result) => (result.type === 'verdict' ? VERDICT_ON_SCREEN_MS[result.verdict.kind] : 0),
    });
  }

  /**
   * One read from an input path. A read repeating a recent one is the same scan and runs nothing; a
   * keyboard-mode scanner's keystroke copy shares its HID read's answer. Reads through a calibrated path are
   * translated first, so both copies of a scan compare equal. `inTurn` runs work one scan at a time.
   */
  read(
    origin: ScanOrigin,
    raw: string,
    details: { read?: ReadDetails | undefined; symbologyId?: string | null | undefined; device?: ScannerDevice | undefined },
    inTurn: <T>(work: () => Promise<T>) => Promise<T>,
    scanNow: (text: string, lane: Lane | null) => Promise<ScanResult>,
  ): Promise<ScanResult> {
    // Each read of the calibration code calibrates its own path, keystroke echoes too: a
    // keyboard-mode scanner read over HID is learned on both of its paths at once.
    const calibration = findCalibrationCode(raw);
    if (calibration && !this.deps.actsOnCalibration(this.laneMapping !== null)) return inTurn(() => this.ignoreStaffCode(origin));
    if (calibration) return inTurn(() => this.calibrate(origin, calibration, details.read, details.symbologyId, details.device));
    const text = this.translated(origin, raw);
    // docs/kiosk.md "Several scanners": the device's lane; the window's lane for the window and unmapped scanners.
    const lane = this.lanes ? laneFor(this.lanes, details.device) : null;
    return this.repeatReads.read(
      origin,
      text,
      () => inTurn(() => scanNow(text, lane)),
      (repeat) => repeat.first.then((first) => this.noteRepeatRead(origin, first, repeat)),
    );
  }

  translated(origin: ScanOrigin, text: string): string {
    const translation = this.calibrations[origin]?.translation;
    return translation ? translate(text, translation) : text;
  }

  resetCalibration(): void {
    this.deps.store.clearCalibrations();
    this.calibrations = {};
    this.unconfirmed.clear();
    this.deps.log('Scanner calibration reset: reads are taken as they arrive.');
  }

  calibrationView(): KioskState['calibration'] {
    const stored = Object.entries(this.calibrations) as Array<[ScanOrigin, CalibrationResult]>;
    if (stored.length === 0) return null;
    const latest = stored.reduce((a, b) => (b[1].diagnosis.calibrated_at > a[1].diagnosis.calibrated_at ? b : a));
    return {
      diagnosis: latest[1].diagnosis,
      translating: stored.filter(([, result]) => result.translation !== null).map(([origin]) => origin),
    };
  }

  /** The newest calibration waiting for staff to confirm its translation, or null. */
  unconfirmedView(): KioskState['calibration_to_confirm'] {
    const waiting = [...this.unconfirmed.values()];
    if (waiting.length === 0) return null;
    return waiting.reduce((a, b) => (b.diagnosis.calibrated_at > a.diagnosis.calibrated_at ? b : a)).diagnosis;
  }

  /**
   * docs/kiosk.md "Calibration": staff keep (save) or discard the translations waiting for confirmation.
   * False when none was waiting.
   */
  confirm(keep: boolean, by: string): boolean {
    if (this.unconfirmed.size === 0) return false;
    const at = new Date(this.deps.now()).toISOString();
    this.deps.store.atomically(() => {
      for (const [origin, result] of this.unconfirmed) {
        if (keep) this.deps.store.saveCalibration(origin, result);
        const detail = `input ${origin}, layout ${result.diagnosis.layout}: translation ${keep ? 'confirmed' : 'discarded'} by ${by}`;
        this.deps.store.logRead({ at, kind: 'calibration', origin, tid: null, detail });
        this.deps.log(`Scanner calibration ${keep ? 'confirmed' : 'discarded'}: ${detail}.`);
      }
    });
    if (keep) this.calibrations = { ...this.calibrations, ...Object.fromEntries(this.unconfirmed) };
    this.unconfirmed.clear();
    return true;
  }

  lanesView(direction: GateDirection): KioskState['lanes'] {
    return lanesView(this.lanes, this.lanesSource, direction, this.scannerDevices, this.laneMapping);
  }

  /** The HID scanners open now (the runtime's scanner manager), to tell which lane's scanner is missing. */
  setScannerDevices(devices: readonly ScannerDevice[]): void {
    const before = this.scannerDevices;
    this.scannerDevices = [...devices];
    for (const lane of this.lanes?.lanes ?? []) {
      if (!lane.scanner) continue;
      const was = before.some((device) => matches(lane.scanner!, device));
      const is = devices.some((device) => matches(lane.scanner!, device));
      if (was && !is) this.deps.log(`Lane ${lane.label}: its scanner is missing; it keeps its lane when plugged in again.`);
      if (!was && is) this.deps.log(`Lane ${lane.label}: its scanner is connected.`);
    }
  }

  /**
   * docs/kiosk.md "Several scanners": staff map lanes by scanning the
   * calibration code with each lane's scanner in turn, cancel a mapping, or
   * forget the lanes. Lanes from the configuration file are not changed here.
   * False when the lanes come from the file (nothing changed).
   */
  configureLanes(request: LanesRequest): boolean {
    if (this.lanesSource === 'file') {
      this.deps.log('Lanes come from the configuration file (kiosk-config.json): change them there.');
      return false;
    }
    if (request.action === 'map') {
      this.laneMapping = new LaneMapping(request.lanes);
      this.deps.log(`Lane mapping started: ${request.lanes.length} lanes; scan the calibration code with each lane's scanner.`);
    } else if (request.action === 'cancel') {
      this.laneMapping = null;
    } else {
      this.laneMapping = null;
      this.lanes = null;
      this.deps.store.saveLanes(null);
      this.deps.log('Lanes forgotten: every scanner serves the whole kiosk again.');
    }
    return true;
  }

  /** A calibration read during a lane mapping: its device gets the lane whose turn it is; the last one saves the lanes. */
  private mapLane(device: ScannerDevice | undefined): void {
    const mapping = this.laneMapping;
    if (!mapping) return;
    const done = mapping.read(device);
    if (!done) return;
    this.deps.store.saveLanes(done);
    this.lanes = done;
    this.laneMapping = null;
    this.deps.log(`Lanes mapped: ${done.lanes.map((lane) => `${lane.label} (${lane.direction ?? 'kiosk direction'})`).join(', ')}.`);
  }

  /**
   * docs/kiosk.md "Calibration": a calibration code read at the door, with no technician at the kiosk, changes
   * nothing; the read log and the audit log record it.
   */
  private async ignoreStaffCode(origin: ScanOrigin): Promise<ScanResult> {
    const detail = `calibration code read from ${origin} outside Setup, with no technician unlocked: ignored`;
    this.deps.store.logRead({ at: new Date(this.deps.now()).toISOString(), kind: 'staff_code_ignored', origin, tid: null, detail });
    this.deps.log(`Staff code ignored: ${detail}.`);
    this.staffCodeIgnored = { at: new Date(this.deps.now()).toISOString(), origin };
    this.deps.changed();
    return { type: 'staff_code_ignored', message: STAFF_CODE_IGNORED };
  }

  /** docs/kiosk.md "Double reads": logged, marked on the verdict still shown, nothing else. */
  private noteRepeatRead(origin: ScanOrigin, first: ScanResult, outcome: RepeatRead<ScanResult>): ScanResult {
    const verdict = first.type === 'verdict' ? first.verdict : null;
    const tid = verdict?.ticket?.tid ?? null;
    const detail = `read again from ${origin} ${outcome.sinceFirstMs} ms after the first read (from ${outcome.firstOrigin}; ${outcome.reads} reads): the same scan, no new check-in`;
    this.deps.store.logRead({ at: new Date(this.deps.now()).toISOString(), kind: 'repeat_read', origin, tid, detail });
    this.deps.log(`Repeat read${tid ? ` of ticket ${tid}` : ''}: ${detail}.`);
    if (verdict) {
      this.readAgain = { decided_at: verdict.decided_at, tid, reads: outcome.reads };
      this.deps.changed();
    }
    return { type: 'repeat_read', reads: outcome.reads };
  }

  /** docs/kiosk.md "Calibration": diagnose, keep what was learned for this input path, explain it. */
  private async calibrate(
    origin: ScanOrigin,
    match: CalibrationMatch,
    read: ReadDetails | undefined,
    symbologyId: string | null | undefined,
    device?: ScannerDevice,
  ): Promise<ScanResult> {
    this.mapLane(device);
    const result: CalibrationResult = diagnose({ origin, match, read, symbologyId, atMs: this.deps.now() });
    const { diagnosis } = result;
    const detail = `input ${origin}, layout ${diagnosis.layout}, translation ${diagnosis.translation}, terminator ${diagnosis.terminator ?? 'unknown'}, ${diagnosis.characters} characters in ${diagnosis.ms_per_code ?? '?'} ms`;
    if (needsConfirmation(result)) {
      // Kept in memory only, until staff confirm it on screen (calibrate).
      this.unconfirmed.set(origin, result);
      this.deps.store.logRead({
        at: diagnosis.calibrated_at,
        kind: 'calibration',
        origin,
        tid: null,
        detail: `${detail}, awaiting confirmation`,
      });
      this.deps.log(`Scanner calibration waits for staff to confirm it: ${detail}.`);
      this.deps.changed();
      return { type: 'calibration_unconfirmed', diagnosis };
    }
    this.unconfirmed.delete(origin);
    this.deps.store.atomically(() => {
      this.deps.store.saveCalibration(origin, result);
      this.deps.store.logRead({ at: diagnosis.calibrated_at, kind: 'calibration', origin, tid: null, detail });
    });
    this.calibrations = { ...this.calibrations, [origin]: result };
    this.deps.log(`Scanner calibrated: ${detail}.`);
    this.deps.changed();
    return { type: 'calibrated', diagnosis };
  }
}
