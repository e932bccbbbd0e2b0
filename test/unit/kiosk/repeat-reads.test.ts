/** main/kiosk/decide/repeat-reads.ts: which reads of a code are one scan. */
import { describe, expect, it } from 'vitest';
import { RepeatReadFilter, VERDICT_ON_SCREEN_MS, type ScanOrigin } from '../../../main/kiosk/decide/repeat-reads.js';
import { VERDICT_SHOWN_MS } from '../../../renderer/view/screen-choice.js';

function deferred(): { promise: Promise<string>; resolve: (value: string) => void } {
  let resolve!: (value: string) => void;
  const promise = new Promise<string>((r) => (resolve = r));
  return { promise, resolve };
}

function filter(windowMs = 3000, onScreenMs = 3000): { reads: RepeatReadFilter<string>; at: (ms: number) => void } {
  let now = 0;
  const reads = new RepeatReadFilter<string>({ windowMs, now: () => now, onScreenMs: () => onScreenMs });
  return { reads, at: (ms) => void (now = ms) };
}

/** Reads `text` from `origin`: 'ran' when it ran as a new scan, else what it was given. */
async function readAs(
  reads: RepeatReadFilter<string>,
  origin: ScanOrigin,
  text: string,
  run: () => Promise<string> = () => Promise.resolve('ran'),
): Promise<string> {
  return reads.read(origin, text, run, async (repeat) => `repeat ${repeat.reads} of ${await repeat.first}`);
}

describe('RepeatReadFilter', () => {
  it('the window holds while the first read is undecided, however long that takes', async () => {
    const { reads, at } = filter();
    const first = deferred();
    const answer = readAs(reads, 'hid-pos', 'tkt1.a', () => first.promise);
    at(60_000); // a very slow issuer
    const repeat = readAs(reads, 'hid-pos', 'tkt1.a');
    first.resolve('admit');
    expect(await answer).toBe('admit');
    expect(await repeat).toBe('repeat 2 of admit');
  });

  it('closes at the later of the window after the first read and the answer’s screen time after it is known', async () => {
    const { reads, at } = filter(3000, 6000);
    const first = deferred();
    const answer = readAs(reads, 'window', 'tkt1.a', () => first.promise);
    at(1000);
    first.resolve('refuse');
    await answer;
    at(6999); // 1000 + 6000 on screen
    expect(await readAs(reads, 'window', 'tkt1.a')).toBe('repeat 2 of refuse');
    at(7001);
    expect(await readAs(reads, 'window', 'tkt1.a')).toBe('ran');
  });

  it('a long configured window outlasts the screen time', async () => {
    const { reads, at } = filter(10_000, 3000);
    await readAs(reads, 'window', 'tkt1.a');
    at(9_999);
    expect(await readAs(reads, 'window', 'tkt1.a')).toBe('repeat 2 of ran');
    at(10_001);
    expect(await readAs(reads, 'window', 'tkt1.a')).toBe('ran');
  });

  it('any origin repeats any other, except a keystroke echo, which shares its read’s answer', async () => {
    const { reads } = filter();
    expect(await readAs(reads, 'hid-pos', 'tkt1.a')).toBe('ran');
    expect(await readAs(reads, 'window', 'tkt1.a')).toBe('repeat 2 of ran');
    expect(await readAs(reads, 'hid-keyboard', 'tkt1.b')).toBe('ran');
    expect(await readAs(reads, 'window', 'tkt1.b')).toBe('ran'); // the echo: the same answer, not a read
    expect(await readAs(reads, 'hid-keyboard', 'tkt1.b')).toBe('repeat 2 of ran');
    expect(await readAs(reads, 'window', 'tkt1.b')).toBe('repeat 2 of ran'); // the echo of that repeat
    expect(await readAs(reads, 'window', 'tkt1.b')).toBe('repeat 3 of ran'); // no HID read to echo: a read
  });

  it('different texts are different scans', async () => {
    const { reads } = filter();
    expect(await readAs(reads, 'hid-pos', 'tkt1.a')).toBe('ran');
    expect(await readAs(reads, 'hid-pos', 'tkt1.b')).toBe('ran');
  });

  it('the core’s screen times are the renderer’s', () => {
    expect(VERDICT_ON_SCREEN_MS).toEqual(VERDICT_SHOWN_MS);
  });
});
