/**
 * What the kiosk says about its scanner: the calibration diagnosis in plain
 * words (docs/kiosk.md "Calibration") and the USB scanner's status. Pure.
 */
import type { KioskState, LayoutDifference, ScannerDiagnosis } from '../kiosk-bridge-types.js';
import { t, tn } from '../messages/format.js';
import { formatClockTime, type TimeOptions } from './dates.js';

export interface DiagnosisView {
  title: string;
  when: string;
  /** One plain sentence per finding, in the order IT reads them. */
  lines: string[];
  /** The finding that matters most: fixed, nothing to fix, or how to fix it. */
  verdict: string;
  dataTranslation: ScannerDiagnosis['translation'];
}

/** Differences listed by name before "and N more": enough to recognise a layout. */
const DIFFERENCES_NAMED = 4;

export function diagnosisView(diagnosis: ScannerDiagnosis, time: TimeOptions = {}): DiagnosisView {
  // The layout first after the path: it is what decides whether tickets are read right.
  const lines: string[] = [t(`scanner.path.${diagnosis.input_path}`), layoutLine(diagnosis)];
  if (diagnosis.terminator !== null) lines.push(t(`scanner.end.${diagnosis.terminator}`));
  if (diagnosis.prefix.length > 0) lines.push(t('scanner.prefix', { keys: diagnosis.prefix.join(' ') }));
  if (diagnosis.suffix.length > 0) lines.push(t('scanner.suffix', { keys: diagnosis.suffix.join(' ') }));
  if (diagnosis.prefix.length === 0 && diagnosis.suffix.length === 0) lines.push(t('scanner.no_framing'));
  if (diagnosis.ms_per_character !== null && diagnosis.ms_per_code !== null) {
    lines.push(tn('scanner.speed', diagnosis.characters, { perCharacter: diagnosis.ms_per_character, perCode: diagnosis.ms_per_code }));
  }
  if (diagnosis.symbology_id) lines.push(t('scanner.symbology', { id: diagnosis.symbology_id }));
  if (diagnosis.hid_layout) lines.push(t('scanner.hid_layout', { layout: diagnosis.hid_layout }));
  return {
    title: t('scanner.title'),
    when: t('scanner.calibrated_at', { time: formatClockTime(diagnosis.calibrated_at, time) }),
    lines,
    verdict: fixLine(diagnosis),
    dataTranslation: diagnosis.translation,
  };
}

function layoutLine(diagnosis: ScannerDiagnosis): string {
  if (diagnosis.layout === 'us' || diagnosis.differences.length === 0) return t('scanner.layout.us');
  const named = diagnosis.differences.slice(0, DIFFERENCES_NAMED).map(differenceText);
  const more = diagnosis.differences.length - named.length;
  const differences = [...named, ...(more > 0 ? [tn('scanner.difference.more', more)] : [])].join(', ');
  return t(`scanner.layout.${diagnosis.layout}`, { differences });
}

export function differenceText(difference: LayoutDifference): string {
  return difference.kind === 'swapped'
    ? t('scanner.difference.swapped', { a: difference.a, b: difference.b })
    : t('scanner.difference.typed_as', { expected: difference.expected, received: difference.received });
}

function fixLine(diagnosis: ScannerDiagnosis): string {
  if (diagnosis.translation === 'impossible') {
    const collisions = diagnosis.collisions
      .map((c) => t('scanner.collision', { expected: c.expected.join(' '), received: c.received }))
      .join('; ');
    return t('scanner.fix.impossible', { collisions });
  }
  return diagnosis.translation === 'learned' ? t('scanner.fix.learned') : t('scanner.fix.not_needed');
}

/** The USB scanner line: always on Setup (IT's screen); on Ready only when something is wrong with it. */
export function hidScannerLine(state: KioskState, screen: 'setup' | 'ready'): { text: string; problem: boolean } | null {
  const hid = state.hid_scanner;
  if (!hid) return null;
  // "No scanner" is normal where a keyboard-wedge scanner is used; a scanner the kiosk cannot read is not.
  const problem = hid.state === 'disconnected' && hid.reason !== 'no_scanner' && hid.reason !== 'not_started' && hid.reason !== 'stopped';
  if (screen === 'ready' && !problem) return null;
  return { text: t(problem ? 'scanner.hid.problem' : 'scanner.hid.connected', { message: hid.message }), problem };
}

/** Which input paths are translated, in words, or null when none is. */
export function translatingText(state: KioskState): string | null {
  const paths = state.calibration?.translating ?? [];
  if (paths.length === 0) return null;
  return t('scanner.translating', { paths: paths.map((path) => t(`scanner.path_name.${path}`)).join(t('scanner.path_name.and')) });
}
