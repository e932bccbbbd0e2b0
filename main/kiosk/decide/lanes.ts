/**
 * Several scanners on one kiosk (docs/kiosk.md "Several scanners"): each
 * scanner is mapped to a lane, with a label and optionally a direction of its
 * own (an entry lane and an exit lane on one kiosk). Pure: the lanes' shape,
 * which lane a device's scan belongs to, the mapping by calibration code, the
 * configuration file's format, and what the screens are told.
 *
 * A device is matched by its USB serial number when it has one (that
 * survives a re-plug into another port), otherwise by vendor and product id
 * plus the port path (a re-plug into the same port keeps the lane).
 */
import type { GateDirection } from '../../../protocol/index.js';
import type { LaneMappingState, LanesState, LaneView } from '../../../renderer/kiosk-bridge-types.js';
import type { ScannerDevice } from '../scanner/scan-event.js';

/** How a lane recognises its scanner. */
export type ScannerMatch = { vendorId: number; productId: number; serial: string } | { vendorId: number; productId: number; path: string };

export interface Lane {
  id: string;
  label: string;
  /** Null: the kiosk's direction (setDirection). */
  direction: GateDirection | null;
  /** Null: no scanner (scans reach it from the window only). */
  scanner: ScannerMatch | null;
  /** The scanner's name when it was mapped, to say which one is missing. */
  scanner_label?: string;
}

export interface Lanes {
  lanes: Lane[];
  /** The lane keyboard-wedge scans from the window go to. */
  window_lane: string;
}

export const MAX_LANES = 4;
const MAX_LABEL = 40;

export function laneId(index: number): string {
  return `lane-${index + 1}`;
}

/** How `device` is recognised later: by serial when it has one, else by ids and port path. */
export function matchOf(device: ScannerDevice): ScannerMatch {
  return device.serialNumber
    ? { vendorId: device.vendorId, productId: device.productId, serial: device.serialNumber }
    : { vendorId: device.vendorId, productId: device.productId, path: device.path };
}

export function matches(match: ScannerMatch, device: ScannerDevice): boolean {
  if (match.vendorId !== device.vendorId || match.productId !== device.productId) return false;
  return 'serial' in match ? match.serial === device.serialNumber : match.path === device.path;
}

/** The lane a scan belongs to: its device's lane, else (the window, an unmapped scanner) the window's lane. */
export function laneFor(lanes: Lanes, device: ScannerDevice | undefined): Lane {
  const mapped = device ? lanes.lanes.find((lane) => lane.scanner !== null && matches(lane.scanner, device)) : undefined;
  return mapped ?? lanes.lanes.find((lane) => lane.id === lanes.window_lane) ?? lanes.lanes[0]!;
}

/** The lanes a staff member asks for: 2 to MAX_LANES, each with a label. Throws a sentence saying what is wrong. */
export function checkLaneRequest(lanes: ReadonlyArray<{ label: string; direction: GateDirection | null }>): void {
  if (lanes.length < 2 || lanes.length > MAX_LANES) throw new Error(`between 2 and ${MAX_LANES} lanes, not ${lanes.length}`);
  for (const lane of lanes) {
    const label = lane.label.trim();
    if (label.length === 0 || label.length > MAX_LABEL) throw new Error(`a lane label has 1 to ${MAX_LABEL} characters`);
  }
}

/**
 * A mapping on the Setup screen: the calibration code is scanned with the
 * scanner of lane 1, then lane 2, … Each read from a device maps it to the
 * lane whose turn it is; the last one completes the lanes.
 */
export class LaneMapping {
  private readonly mapped: Lane[] = [];
  problem: LaneMappingState['problem'] = null;

  constructor(private readonly wanted: ReadonlyArray<{ label: string; direction: GateDirection | null }>) {
    checkLaneRequest(wanted);
  }

  /** A calibration read: the device it came from (undefined: the window). Returns the lanes once every lane has its scanner. */
  read(device: ScannerDevice | undefined): Lanes | null {
    if (!device) {
      this.problem = 'window';
      return null;
    }
    if (this.mapped.some((lane) => lane.scanner !== null && matches(lane.scanner, device))) {
      this.problem = 'already_mapped';
      return null;
    }
    const index = this.mapped.length;
    const wanted = this.wanted[index]!;
    this.mapped.push({
      id: laneId(index),
      label: wanted.label.trim(),
      direction: wanted.direction,
      scanner: matchOf(device),
      scanner_label: device.label,
    });
    this.problem = null;
    if (this.mapped.length < this.wanted.length) return null;
    return { lanes: this.mapped, window_lane: laneId(0) };
  }

  view(): LaneMappingState {
    const step = this.mapped.length;
    return { step: step + 1, of: this.wanted.length, label: this.wanted[step]!.label.trim(), problem: this.problem };
  }
}

/** What the screens are told about the lanes (no serial numbers). */
export function lanesView(
  lanes: Lanes | null,
  source: LanesState['source'],
  kioskDirection: GateDirection,
  connected: readonly ScannerDevice[],
  mapping: LaneMapping | null,
): LanesState | null {
  if (!lanes && !mapping) return null;
  const views: LaneView[] = (lanes?.lanes ?? []).map((lane) => {
    const device = lane.scanner ? connected.find((each) => matches(lane.scanner!, each)) : undefined;
    return {
      id: lane.id,
      label: lane.label,
      direction: lane.direction ?? kioskDirection,
      own_direction: lane.direction !== null,
      scanner: device?.label ?? lane.scanner_label ?? (lane.scanner ? describeMatch(lane.scanner) : null),
      connected: device !== undefined,
    };
  });
  return { source, lanes: views, window_lane: lanes?.window_lane ?? laneId(0), mapping: mapping?.view() ?? null };
}

/** A mapped scanner in words, when no name was kept (the configuration file): ids, and "serial" or the port. */
export function describeMatch(match: ScannerMatch): string {
  const ids = `${hex4(match.vendorId)}:${hex4(match.productId)}`;
  return 'serial' in match ? `${ids} (by serial number)` : `${ids} at ${match.path}`;
}

function hex4(value: number): string {
  return value.toString(16).padStart(4, '0');
}

/**
 * The lanes of the configuration file `kiosk-config.json` in the data
 * directory (docs/kiosk.md "Several scanners"), or of the store: checked
 * field by field, with an error naming the field.
 *
 * ```json
 * { "lanes": [
 *     { "label": "North entry", "direction": "entry", "scanner": { "vendor": "0c2e", "product": "0b87", "serial": "21045B0123" } },
 *     { "label": "North exit",  "direction": "exit",  "scanner": { "vendor": "0c2e", "product": "0b87", "path": "/dev/hidraw4" } }
 *   ],
 *   "window_lane": 1 }
 * ```
 */
export function parseLanesConfig(value: unknown, where = 'kiosk-config.json'): Lanes | null {
  if (!isObject(value)) throw new Error(`${where}: expected a JSON object`);
  if (value['lanes'] === undefined) return null;
  const list = value['lanes'];
  if (!Array.isArray(list) || list.length < 2 || list.length > MAX_LANES)
    throw new Error(`${where}: "lanes" must be a list of 2 to ${MAX_LANES} lanes`);
  const lanes = list.map((entry: unknown, index): Lane => {
    const at = `${where}: lanes[${index}]`;
    if (!isObject(entry)) throw new Error(`${at} must be an object`);
    const label = entry['label'];
    if (typeof label !== 'string' || label.trim().length === 0 || label.trim().length > MAX_LABEL)
      throw new Error(`${at}.label must be text of 1 to ${MAX_LABEL} characters`);
    const direction = entry['direction'] ?? null;
    if (direction !== null && direction !== 'entry' && direction !== 'exit')
      throw new Error(`${at}.direction must be "entry" or "exit" (or left out: the kiosk's direction)`);
    const scanner = entry['scanner'] === undefined || entry['scanner'] === null ? null : parseMatch(entry['scanner'], `${at}.scanner`);
    return { id: laneId(index), label: label.trim(), direction, scanner };
  });
  const windowLane = value['window_lane'] ?? 1;
  if (typeof windowLane !== 'number' || !Number.isInteger(windowLane) || windowLane < 1 || windowLane > lanes.length)
    throw new Error(`${where}: "window_lane" must be a lane number from 1 to ${lanes.length}`);
  return { lanes, window_lane: laneId(windowLane - 1) };
}

function parseMatch(value: unknown, at: string): ScannerMatch {
  if (!isObject(value)) throw new Error(`${at} must be an object`);
  const id = (key: 'vendor' | 'product'): number => {
    const text = value[key];
    if (typeof text !== 'string' || !/^[0-9a-f]{4}$/i.test(text))
      throw new Error(`${at}.${key} must be 4 hex digits as lsusb prints it, e.g. "0c2e"`);
    return parseInt(text, 16);
  };
  const vendorId = id('vendor');
  const productId = id('product');
  const serial = value['serial'];
  const path = value['path'];
  if (typeof serial === 'string' && serial.length > 0) return { vendorId, productId, serial };
  if (typeof path === 'string' && path.length > 0) return { vendorId, productId, path };
  throw new Error(`${at} needs "serial" (the USB serial number) or, for a scanner without one, "path" (its port, e.g. /dev/hidraw4)`);
}

/** The stored lanes (written by this module), or null when absent or not in the expected shape. */
export function storedLanes(value: unknown): Lanes | null {
  if (!isObject(value) || !Array.isArray(value['lanes']) || typeof value['window_lane'] !== 'string') return null;
  return value as unknown as Lanes;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
