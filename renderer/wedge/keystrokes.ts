/**
 * Telling a keyboard-wedge scanner from a person typing, from key timing alone.
 *
 * A wedge scanner "types" a whole code in a burst, a few milliseconds per
 * character, and usually ends it with Enter or Tab. People type 50 ms or more
 * apart. Pure: the caller passes each key with its event timestamp and, from a
 * timer, the current time; nothing here reads a clock or the DOM.
 */
export interface WedgeTiming {
  /** Gaps up to this are scanner speed. */
  scannerMaxGapMs: number;
  /** A burst ends when no key follows for this long (scanners set to send no suffix). */
  endPauseMs: number;
  /** Shorter bursts are stray keys, not scans (the shortest code is far longer). */
  minScanLength: number;
  /** Share of slower gaps tolerated in a burst: the event loop sometimes delivers a key late. */
  maxSlowGapRatio: number;
}

export const DEFAULT_WEDGE_TIMING: WedgeTiming = {
  scannerMaxGapMs: 30,
  endPauseMs: 80,
  minScanLength: 8,
  maxSlowGapRatio: 0.05,
};

/**
 * `key` as in KeyboardEvent.key, except control keys, which the capture names
 * by the character they stand for: Ctrl+M is `CR`, Ctrl+J is `LF`, Ctrl+I is
 * `Tab` (keyboard emulation sends a scanner's CR and LF suffixes that way).
 * `time` in milliseconds (KeyboardEvent.timeStamp).
 */
export interface Keystroke {
  key: string;
  time: number;
}

/**
 * What ended a burst: CR (Enter, Ctrl+M), LF (Ctrl+J), Tab (Tab, Ctrl+I) or a
 * pause with no terminator. A CR LF suffix ends the burst at its CR (no scan
 * waits for a second key); its LF is then swallowed.
 */
export type BurstEnd = 'cr' | 'lf' | 'tab' | 'pause';

export type WedgeOutput =
  /** `keys` typed the text over `durationMs`, from the first key to the one that ended it. */
  | { kind: 'scan'; text: string; end: BurstEnd; keys: number; durationMs: number }
  /** Not a scan. The typed text is left out on purpose: it may be a half-read setup code. */
  | { kind: 'ignored'; reason: 'too_short' | 'human_typing'; length: number };

export interface WedgeState {
  readonly strokes: readonly Keystroke[];
  /** The terminator that ended the last burst: a second one right after it (CR then LF) belongs to it. */
  readonly ended?: { end: BurstEnd; time: number } | undefined;
}

export const EMPTY_WEDGE: WedgeState = { strokes: [] };

export interface WedgeStep {
  state: WedgeState;
  outputs: WedgeOutput[];
  /** The key was the scanner's (part of a burst or its terminator): the page must not act on it. */
  consumed?: boolean;
}

const TERMINATORS: Readonly<Record<string, BurstEnd>> = { Enter: 'cr', CR: 'cr', LF: 'lf', Tab: 'tab' };

/** True while characters are collected: an Enter or Tab now would end a burst (so the page must not act on it). */
export function isCollecting(state: WedgeState): boolean {
  return state.strokes.length > 0;
}

/** Whether a key matters to the wedge at all: one character or a terminator. Shift, arrows, F-keys and dead keys do not. */
export function isWedgeKey(key: string): boolean {
  return key.length === 1 || Object.hasOwn(TERMINATORS, key);
}

/** The key a control chord stands for, as a scanner in keyboard emulation sends CR, LF and Tab; null for any other chord. */
export function controlKeyName(key: string): 'CR' | 'LF' | 'Tab' | null {
  switch (key.toLowerCase()) {
    case 'm':
      return 'CR';
    case 'j':
      return 'LF';
    case 'i':
      return 'Tab';
    default:
      return null;
  }
}

export function pressKey(state: WedgeState, stroke: Keystroke, timing: WedgeTiming = DEFAULT_WEDGE_TIMING): WedgeStep {
  if (!isWedgeKey(stroke.key)) return { state, outputs: [] };
  // The pause timer may fire late; the timestamps decide, so a late timer never glues two scans together.
  const paused = endIfPaused(state, stroke.time, timing);
  const outputs = paused.outputs;
  const end = TERMINATORS[stroke.key];
  if (end !== undefined) {
    if (!isCollecting(paused.state)) {
      // LF right after a scan's CR is the rest of its CR LF suffix: the scanner's, not the page's.
      const ended = paused.state.ended;
      const tail = ended !== undefined && ended.end === 'cr' && end === 'lf' && stroke.time - ended.time <= timing.scannerMaxGapMs;
      return { state: { strokes: [] }, outputs, consumed: tail };
    }
    outputs.push(finishBurst(paused.state.strokes, end, timing, stroke.time));
    return { state: { strokes: [], ended: { end, time: stroke.time } }, outputs, consumed: true };
  }
  return { state: { strokes: [...paused.state.strokes, stroke] }, outputs, consumed: isCollecting(paused.state) };
}

/** Call from a timer with the current time: ends the burst if the last key is `endPauseMs` old. */
export function endIfPaused(state: WedgeState, now: number, timing: WedgeTiming = DEFAULT_WEDGE_TIMING): WedgeStep {
  const last = state.strokes.at(-1);
  if (last === undefined || now - last.time < timing.endPauseMs) return { state, outputs: [] };
  return { state: EMPTY_WEDGE, outputs: [finishBurst(state.strokes, 'pause', timing, last.time)] };
}

function finishBurst(strokes: readonly Keystroke[], end: BurstEnd, timing: WedgeTiming, endTime: number): WedgeOutput {
  const length = strokes.length;
  if (length < timing.minScanLength) return { kind: 'ignored', reason: 'too_short', length };
  let slowGaps = 0;
  for (let i = 1; i < length; i++) {
    if (strokes[i]!.time - strokes[i - 1]!.time > timing.scannerMaxGapMs) slowGaps++;
  }
  if (slowGaps > (length - 1) * timing.maxSlowGapRatio) return { kind: 'ignored', reason: 'human_typing', length };
  return { kind: 'scan', text: strokes.map((s) => s.key).join(''), end, keys: length, durationMs: Math.max(0, endTime - strokes[0]!.time) };
}

/** Runs a whole recorded sequence, then lets it go quiet: every burst it contains, in order. */
export function segmentKeystrokes(strokes: readonly Keystroke[], timing: WedgeTiming = DEFAULT_WEDGE_TIMING): WedgeOutput[] {
  let state = EMPTY_WEDGE;
  const outputs: WedgeOutput[] = [];
  for (const stroke of strokes) {
    const step = pressKey(state, stroke, timing);
    state = step.state;
    outputs.push(...step.outputs);
  }
  const last = state.strokes.at(-1);
  if (last) outputs.push(...endIfPaused(state, last.time + timing.endPauseMs, timing).outputs);
  return outputs;
}
