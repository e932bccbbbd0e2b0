/**
 * What the calibration code tells about a scanner (docs/kiosk.md
 * "Calibration"). Pure: a read in, a diagnosis and a translation out.
 *
 * The calibration code (protocol/calibration-code.ts) holds every character a
 * ticket or setup code can contain, once each after a prefix whose characters
 * repeat. A US-layout scanner typing into a computer set to another layout
 * turns each key into that layout's character: `y` arrives as `z`, `-` as `ß`.
 * Comparing what arrived with what the code holds gives, per character, what
 * it becomes on this path. Where no two code characters arrive as the same
 * one, that is a one-to-one table, and later reads are translated back with
 * it: deterministic, learned from this scanner on this computer, never a guess
 * between layouts. The signature still decides whether a translated ticket is
 * admitted, so a translation cannot make a forged ticket valid.
 */
import { CALIBRATION_CODE } from '../../../protocol/index.js';
import { FOREIGN_LAYOUTS, mangleForLayout } from '../../../protocol/keyboard-layouts.js';
import type {
  Collision,
  LayoutDifference,
  LayoutId,
  ReadDetails,
  ScannerDiagnosis,
  ScanOrigin,
} from '../../../renderer/kiosk-bridge-types.js';

// The diagnosis crosses to the page: its types are the bridge's (renderer/kiosk-bridge-types.ts).
export type { Collision, LayoutDifference, LayoutId, ScannerDiagnosis };

const CODE = [...CALIBRATION_CODE];
/** Code characters that may arrive as one character before a read is no longer this code (the alphabet has 65). */
const MAX_COLLISIONS = 8;

/** Where the calibration code was found in a read, and what each of its characters arrived as. */
export interface CalibrationMatch {
  /** Text the scanner sent before the code (a configured prefix, an AIM identifier). */
  prefix: string;
  /** Text after it, before the terminator. */
  suffix: string;
  /** Code character → the character that arrived for it. */
  arrivedAs: ReadonlyMap<string, string>;
}

/** The calibration code inside `text`, however a keyboard layout changed its characters; null when `text` is not it. */
export function findCalibrationCode(text: string): CalibrationMatch | null {
  const received = [...text];
  for (let offset = 0; offset + CODE.length <= received.length; offset++) {
    const arrivedAs = readAt(received, offset);
    if (arrivedAs) {
      return { prefix: received.slice(0, offset).join(''), suffix: received.slice(offset + CODE.length).join(''), arrivedAs };
    }
  }
  return null;
}

function readAt(received: readonly string[], offset: number): Map<string, string> | null {
  const arrivedAs = new Map<string, string>();
  for (let i = 0; i < CODE.length; i++) {
    const expected = CODE[i]!;
    const got = received[offset + i]!;
    const earlier = arrivedAs.get(expected);
    // One code character always arrives as the same character: a layout maps keys, it does not vary.
    if (earlier !== undefined && earlier !== got) return null;
    arrivedAs.set(expected, got);
  }
  const distinct = new Set(arrivedAs.values()).size;
  return arrivedAs.size - distinct <= MAX_COLLISIONS ? arrivedAs : null;
}

/** A learned translation: arrived character → the code character it stands for. Only characters that change. */
export type Translation = Readonly<Record<string, string>>;

export interface CalibrationResult {
  diagnosis: ScannerDiagnosis;
  /** Null when nothing needs translating or nothing can be. */
  translation: Translation | null;
}

export interface CalibrationRead {
  origin: ScanOrigin;
  match: CalibrationMatch;
  read?: ReadDetails | undefined;
  symbologyId?: string | null | undefined;
  atMs: number;
}

export function diagnose({ origin, match, read, symbologyId, atMs }: CalibrationRead): CalibrationResult {
  const collisions = collisionsOf(match.arrivedAs);
  const differences = differencesOf(match.arrivedAs);
  const translatable = collisions.length === 0;
  const translation = translatable && differences.length > 0 ? translationOf(match.arrivedAs) : null;
  const characters = [...match.prefix].length + CODE.length + [...match.suffix].length;
  const durationMs = read ? read.durationMs : null;
  const diagnosis: ScannerDiagnosis = {
    input_path: origin,
    layout: layoutOf(match.arrivedAs),
    differences,
    collisions,
    translation: differences.length === 0 && translatable ? 'not_needed' : translatable ? 'learned' : 'impossible',
    terminator: read?.terminator ?? null,
    prefix: [...(read?.prefixKeys ?? []), ...(match.prefix ? [match.prefix] : [])],
    suffix: [...(match.suffix ? [match.suffix] : []), ...(read?.suffixKeys ?? [])],
    characters,
    ms_per_character: durationMs === null || characters < 2 ? null : round(durationMs / (characters - 1)),
    ms_per_code: durationMs === null ? null : round(durationMs),
    hid_layout: read?.layout ?? null,
    symbology_id: symbologyId ?? null,
    calibrated_at: new Date(atMs).toISOString(),
  };
  return { diagnosis, translation };
}

/**
 * docs/kiosk.md "Calibration": a translation that matches no layout the kiosk
 * knows is kept only once staff confirm it on screen (a code made up to break
 * the door looks like that; a real scanner on a known layout does not).
 */
export function needsConfirmation(result: CalibrationResult): boolean {
  return result.translation !== null && result.diagnosis.layout === 'unknown';
}

/** `text` as the calibrated scanner meant it. Characters the translation does not know pass unchanged. */
export function translate(text: string, translation: Translation): string {
  let out = '';
  for (const c of text) out += Object.hasOwn(translation, c) ? translation[c]! : c;
  return out;
}

function translationOf(arrivedAs: ReadonlyMap<string, string>): Translation {
  const table: Record<string, string> = {};
  for (const [expected, got] of arrivedAs) if (expected !== got) table[got] = expected;
  return table;
}

function collisionsOf(arrivedAs: ReadonlyMap<string, string>): Collision[] {
  const byReceived = new Map<string, string[]>();
  for (const [expected, got] of arrivedAs) byReceived.set(got, [...(byReceived.get(got) ?? []), expected]);
  return [...byReceived].filter(([, expected]) => expected.length > 1).map(([received, expected]) => ({ received, expected }));
}

/** Swaps named once per letter pair (y and z, not also Y and Z); everything else as "typed as". */
function differencesOf(arrivedAs: ReadonlyMap<string, string>): LayoutDifference[] {
  const differences: LayoutDifference[] = [];
  const described = new Set<string>();
  for (const [expected, got] of arrivedAs) {
    if (expected === got || described.has(expected)) continue;
    described.add(expected);
    if (arrivedAs.get(got) === expected) {
      described.add(got);
      const [a, b] = [expected, got].sort() as [string, string];
      const lower = a.toLowerCase() !== a || b.toLowerCase() !== b;
      // "Y and Z swapped" adds nothing once "y and z swapped" is said.
      if (lower && arrivedAs.get(a.toLowerCase()) === b.toLowerCase()) continue;
      differences.push({ kind: 'swapped', a, b });
    } else {
      differences.push({ kind: 'typed_as', expected, received: got });
    }
  }
  return differences;
}

function layoutOf(arrivedAs: ReadonlyMap<string, string>): LayoutId {
  const arrived = CODE.map((c) => arrivedAs.get(c)).join('');
  if (arrived === CALIBRATION_CODE) return 'us';
  return FOREIGN_LAYOUTS.find((layout) => mangleForLayout(CALIBRATION_CODE, layout) === arrived) ?? 'unknown';
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
