/**
 * DOM wiring of the keyboard wedge: listens to keys on the whole document (no
 * focused field needed) and feeds the pure burst logic in ./keystrokes.ts.
 */
import { classifyScannedText, type ScannedText } from './classify.js';
import type { ReadDetails } from '../kiosk-bridge-types.js';
import {
  controlKeyName,
  DEFAULT_WEDGE_TIMING,
  EMPTY_WEDGE,
  endIfPaused,
  isCollecting,
  isWedgeKey,
  pressKey,
  type WedgeOutput,
  type WedgeTiming,
} from './keystrokes.js';

/** How the wedge read a scan, for the kiosk's calibration diagnosis. */
export type WedgeRead = ReadDetails;

export interface WedgeCaptureOptions {
  timing?: WedgeTiming;
  /** Keys aimed at this element are a person typing (the lookup field): the wedge leaves them alone. */
  isTypingTarget(target: EventTarget | null): boolean;
  onScan(scan: ScannedText, read: WedgeRead): void;
}

/** Starts capturing; returns the function that stops it. */
export function startWedgeCapture(doc: Document, options: WedgeCaptureOptions): () => void {
  const timing = options.timing ?? DEFAULT_WEDGE_TIMING;
  const win = doc.defaultView ?? window;
  let state = EMPTY_WEDGE;
  let pauseTimer: number | undefined;

  const emit = (outputs: WedgeOutput[]): void => {
    for (const output of outputs) {
      if (output.kind !== 'scan') continue;
      const read: WedgeRead = {
        terminator: output.end,
        prefixKeys: [],
        suffixKeys: [],
        units: output.keys,
        durationMs: Math.round(output.durationMs * 10) / 10,
      };
      options.onScan(classifyScannedText(output.text), read);
    }
  };

  const onPauseTimer = (): void => {
    const step = endIfPaused(state, win.performance.now(), timing);
    state = step.state;
    emit(step.outputs);
  };

  const onKeyDown = (event: KeyboardEvent): void => {
    if (options.isTypingTarget(event.target)) return;
    // Keyboard emulation sends a scanner's CR, LF and Tab suffixes as Ctrl+M, Ctrl+J and Ctrl+I.
    // Any other chord, and auto-repeat, is a person at the keyboard.
    const key = event.ctrlKey && !event.altKey && !event.metaKey ? controlKeyName(event.key) : event.key;
    if (key === null || event.altKey || event.metaKey || event.repeat || !isWedgeKey(key)) return;
    const step = pressKey(state, { key, time: event.timeStamp }, timing);
    // A burst's keys and its terminator are not for the page: a scanner's Enter must not press a
    // focused button, nor its Ctrl+J open the browser's downloads.
    if (step.consumed) event.preventDefault();
    state = step.state;
    emit(step.outputs);
    win.clearTimeout(pauseTimer);
    if (isCollecting(state)) pauseTimer = win.setTimeout(onPauseTimer, timing.endPauseMs + 5);
  };

  // Capture phase: the wedge sees a key before any focused control acts on it.
  doc.addEventListener('keydown', onKeyDown, { capture: true });
  return () => {
    doc.removeEventListener('keydown', onKeyDown, { capture: true });
    win.clearTimeout(pauseTimer);
  };
}
