/**
 * DOM wiring of the keyboard wedge: listens to keys on the whole document (no
 * focused field needed) and feeds the pure burst logic in ./keystrokes.ts.
 */
import { classifyScannedText, type ScannedText } from './classify.js';
import { DEFAULT_WEDGE_TIMING, EMPTY_WEDGE, endIfPaused, isCollecting, isWedgeKey, pressKey, type WedgeOutput, type WedgeTiming } from './keystrokes.js';

export interface WedgeCaptureOptions {
  timing?: WedgeTiming;
  /** Keys aimed at this element are a person typing (the lookup field): the wedge leaves them alone. */
  isTypingTarget(target: EventTarget | null): boolean;
  onScan(scan: ScannedText): void;
}

/** Starts capturing; returns the function that stops it. */
export function startWedgeCapture(doc: Document, options: WedgeCaptureOptions): () => void {
  const timing = options.timing ?? DEFAULT_WEDGE_TIMING;
  const win = doc.defaultView ?? window;
  let state = EMPTY_WEDGE;
  let pauseTimer: number | undefined;

  const emit = (outputs: WedgeOutput[]): void => {
    for (const output of outputs) if (output.kind === 'scan') options.onScan(classifyScannedText(output.text));
  };

  const onPauseTimer = (): void => {
    const step = endIfPaused(state, win.performance.now(), timing);
    state = step.state;
    emit(step.outputs);
  };

  const onKeyDown = (event: KeyboardEvent): void => {
    if (options.isTypingTarget(event.target)) return;
    // Shortcuts and auto-repeat are a person at the keyboard; scanners send neither.
    if (event.ctrlKey || event.altKey || event.metaKey || event.repeat || !isWedgeKey(event.key)) return;
    // Once a burst is under way its keys are not for the page: a scanner's Enter must not press a focused button.
    if (isCollecting(state)) event.preventDefault();
    const step = pressKey(state, { key: event.key, time: event.timeStamp }, timing);
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
