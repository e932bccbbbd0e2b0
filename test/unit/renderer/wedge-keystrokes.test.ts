import { describe, expect, it } from 'vitest';
import {
  controlKeyName,
  DEFAULT_WEDGE_TIMING,
  EMPTY_WEDGE,
  endIfPaused,
  isCollecting,
  pressKey,
  segmentKeystrokes,
  type Keystroke,
} from '../../../renderer/wedge/keystrokes.js';
import { SETUP_CODE, TICKET_CODES, humanStrokes, scannerStrokes } from './fixtures.js';

const code = TICKET_CODES[0]!;

describe('keyboard-wedge bursts', () => {
  it.each(['Enter', 'Tab'] as const)('a scanner burst ended by %s is one scan', (suffix) => {
    expect(segmentKeystrokes(scannerStrokes(code, 1000, suffix))).toMatchObject([
      { kind: 'scan', text: code, end: suffix === 'Enter' ? 'cr' : 'tab', keys: code.length },
    ]);
  });

  it('a scanner without a suffix: the pause after the burst ends the scan', () => {
    const strokes = scannerStrokes(SETUP_CODE, 1000, null);
    const last = strokes.at(-1)!.time;
    let state = EMPTY_WEDGE;
    for (const stroke of strokes) state = pressKey(state, stroke).state;
    expect(isCollecting(state)).toBe(true);
    expect(endIfPaused(state, last + DEFAULT_WEDGE_TIMING.endPauseMs - 1).outputs).toEqual([]);
    expect(endIfPaused(state, last + DEFAULT_WEDGE_TIMING.endPauseMs).outputs).toMatchObject([
      { kind: 'scan', text: SETUP_CODE, end: 'pause' },
    ]);
  });

  it('two scans back to back without suffix are split by the pause between them, even if the timer never fired', () => {
    const first = scannerStrokes(TICKET_CODES[0]!, 1000, null);
    const second = scannerStrokes(TICKET_CODES[1]!, first.at(-1)!.time + 300, null);
    expect(segmentKeystrokes([...first, ...second])).toMatchObject([
      { kind: 'scan', text: TICKET_CODES[0], end: 'pause' },
      { kind: 'scan', text: TICKET_CODES[1], end: 'pause' },
    ]);
  });

  it('a person typing a whole code and Enter is not a scan, and the typed text is not echoed', () => {
    const outputs = segmentKeystrokes(humanStrokes('tkt1.eyJhbGciOiJFZERTQSJ9.c2lnbmF0dXJl'));
    expect(outputs.every((o) => o.kind === 'ignored')).toBe(true);
    expect(JSON.stringify(outputs)).not.toContain('tkt1');
  });

  it('a person typing fast (60 ms) with Enter is still human', () => {
    const strokes: Keystroke[] = [...'tkt1.abcdefgh.ijkl'].map((key, i) => ({ key, time: 1000 + i * 60 }));
    strokes.push({ key: 'Enter', time: 1000 + strokes.length * 60 });
    // 60 ms is under endPauseMs, so it stays one burst; its gaps say a person typed it.
    expect(segmentKeystrokes(strokes)).toEqual([{ kind: 'ignored', reason: 'human_typing', length: 18 }]);
  });

  it('single stray keys (shortcuts, a cat on the keyboard) are too short to be scans', () => {
    expect(segmentKeystrokes([{ key: 'l', time: 0 }])).toEqual([{ kind: 'ignored', reason: 'too_short', length: 1 }]);
    expect(
      segmentKeystrokes([
        { key: 'x', time: 0 },
        { key: 'Enter', time: 5 },
      ]),
    ).toEqual([{ kind: 'ignored', reason: 'too_short', length: 1 }]);
  });

  it('Enter or Tab with nothing collected produce nothing (they belong to the page)', () => {
    const step = pressKey(EMPTY_WEDGE, { key: 'Enter', time: 0 });
    expect(step.outputs).toEqual([]);
    expect(isCollecting(step.state)).toBe(false);
  });

  it('modifier, dead and function keys are not part of a scan', () => {
    const strokes = scannerStrokes(code, 1000);
    const withShift = strokes.flatMap((s) => (s.key >= 'A' && s.key <= 'Z' ? [{ key: 'Shift', time: s.time - 1 }, s] : [s]));
    expect(segmentKeystrokes([{ key: 'Dead', time: 990 }, ...withShift, { key: 'F2', time: 99_999 }])).toMatchObject([
      { kind: 'scan', text: code, end: 'cr' },
    ]);
  });

  it('tolerates one late key in a long burst (event-loop hiccup) but not many', () => {
    const strokes = scannerStrokes(code, 1000);
    const hiccup = strokes.map((s, i) => (i >= 100 ? { ...s, time: s.time + 45 } : s));
    expect(segmentKeystrokes(hiccup)[0]?.kind).toBe('scan');
    const sluggish = strokes.map((s, i) => ({ ...s, time: s.time + Math.floor(i / 3) * 40 }));
    expect(segmentKeystrokes(sluggish)[0]).toMatchObject({ kind: 'ignored', reason: 'human_typing' });
  });

  it('thresholds are configurable (a scanner set to a 40 ms inter-character delay)', () => {
    const slow: Keystroke[] = [...code].map((key, i) => ({ key, time: i * 40 }));
    expect(segmentKeystrokes(slow)[0]).toMatchObject({ kind: 'ignored', reason: 'human_typing' });
    const timing = { ...DEFAULT_WEDGE_TIMING, scannerMaxGapMs: 45, endPauseMs: 120 };
    expect(segmentKeystrokes(slow, timing)).toEqual([
      { kind: 'scan', text: code, end: 'pause', keys: code.length, durationMs: (code.length - 1) * 40 },
    ]);
  });
});

describe('every terminator a scanner sends (issue: CR, LF, CR LF, Tab, Ctrl+J, Ctrl+M, a pause)', () => {
  // The capture turns Ctrl+M / Ctrl+J / Ctrl+I into CR / LF / Tab (controlKeyName); Enter is CR.
  it.each([
    ['Enter', 'cr'],
    ['CR', 'cr'],
    ['LF', 'lf'],
    ['Tab', 'tab'],
  ] as const)('%s ends the scan at once (%s)', (key, end) => {
    const strokes = [...scannerStrokes(code, 1000, null)];
    const last = strokes.at(-1)!.time;
    strokes.push({ key, time: last + 5 });
    let state = EMPTY_WEDGE;
    const outputs = strokes.flatMap((stroke) => {
      const step = pressKey(state, stroke);
      state = step.state;
      return step.outputs;
    });
    expect(outputs).toEqual([{ kind: 'scan', text: code, end, keys: code.length, durationMs: last + 5 - 1000 }]);
  });

  it.each([
    ['m', 'CR'],
    ['M', 'CR'],
    ['j', 'LF'],
    ['J', 'LF'], // Ctrl+Shift+J, as in the capture of node-hid issue #323
    ['i', 'Tab'],
    ['c', null],
    ['v', null],
  ] as const)('Ctrl+%s stands for %s', (key, name) => {
    expect(controlKeyName(key)).toBe(name);
  });

  it('CR LF: the scan ends at the CR; the LF right after it is the scanner’s, not the page’s, and starts nothing', () => {
    const first = scannerStrokes(code, 1000, null);
    const crAt = first.at(-1)!.time + 4;
    let state = EMPTY_WEDGE;
    for (const stroke of first) state = pressKey(state, stroke).state;
    const cr = pressKey(state, { key: 'Enter', time: crAt });
    expect(cr).toMatchObject({ consumed: true, outputs: [{ kind: 'scan', text: code, end: 'cr' }] });
    const lf = pressKey(cr.state, { key: 'LF', time: crAt + 3 });
    expect(lf).toMatchObject({ consumed: true, outputs: [] });
    // The next scan right after is whole.
    const second = scannerStrokes(TICKET_CODES[1]!, crAt + 40, 'Enter');
    state = lf.state;
    const outputs = second.flatMap((stroke) => {
      const step = pressKey(state, stroke);
      state = step.state;
      return step.outputs;
    });
    expect(outputs).toMatchObject([{ kind: 'scan', text: TICKET_CODES[1], end: 'cr' }]);
  });

  it('a person’s Enter long after a scan belongs to the page', () => {
    let state = EMPTY_WEDGE;
    for (const stroke of scannerStrokes(code, 1000, 'Enter')) state = pressKey(state, stroke).state;
    expect(pressKey(state, { key: 'LF', time: 60_000 })).toMatchObject({ consumed: false, outputs: [] });
    expect(pressKey(EMPTY_WEDGE, { key: 'Enter', time: 60_000 })).toMatchObject({ consumed: false, outputs: [] });
  });
});
