/** main/kiosk/keystroke-echo.ts: which copies of a scan are one scan. */
import { describe, expect, it } from 'vitest';
import { ECHO_WINDOW_MS, KeystrokeEchoMerger, type ScanOrigin } from '../../../main/kiosk/keystroke-echo.js';

/** Feeds copies in order; returns which ran and which shared an earlier answer. */
function feed(copies: ReadonlyArray<[ScanOrigin, string, number]>): string[] {
  const merger = new KeystrokeEchoMerger<string>();
  const outcomes: string[] = [];
  copies.forEach(([origin, text, atMs], index) => {
    let ran = false;
    void merger.merge(origin, text, atMs, () => {
      ran = true;
      return Promise.resolve(`answer ${index}`);
    });
    outcomes.push(ran ? `ran ${index}` : `shared`);
  });
  return outcomes;
}

describe('KeystrokeEchoMerger', () => {
  it('pairs a keyboard-mode HID copy and a window copy of the same text, in either order', () => {
    expect(feed([['hid-keyboard', 'tkt1.a', 0], ['window', 'tkt1.a', 40]])).toEqual(['ran 0', 'shared']);
    expect(feed([['window', 'tkt1.a', 0], ['hid-keyboard', 'tkt1.a', 40]])).toEqual(['ran 0', 'shared']);
  });

  it('shares the first copy’s answer itself', async () => {
    const merger = new KeystrokeEchoMerger<{ verdict: string }>();
    const first = merger.merge('hid-keyboard', 'tkt1.a', 0, () => Promise.resolve({ verdict: 'admit' }));
    const echo = merger.merge('window', 'tkt1.a', 10, () => Promise.reject(new Error('must not run')));
    expect(await echo).toBe(await first);
  });

  it('never pairs copies from the same origin, HID-POS copies, or different texts', () => {
    expect(feed([['window', 'tkt1.a', 0], ['window', 'tkt1.a', 10]])).toEqual(['ran 0', 'ran 1']);
    expect(feed([['hid-keyboard', 'tkt1.a', 0], ['hid-keyboard', 'tkt1.a', 10]])).toEqual(['ran 0', 'ran 1']);
    expect(feed([['hid-pos', 'tkt1.a', 0], ['window', 'tkt1.a', 10]])).toEqual(['ran 0', 'ran 1']);
    expect(feed([['window', 'tkt1.a', 0], ['hid-pos', 'tkt1.a', 10]])).toEqual(['ran 0', 'ran 1']);
    expect(feed([['hid-keyboard', 'tkt1.a', 0], ['window', 'tkt1.b', 10]])).toEqual(['ran 0', 'ran 1']);
  });

  it('pairs only within the echo window', () => {
    expect(feed([['hid-keyboard', 'tkt1.a', 0], ['window', 'tkt1.a', ECHO_WINDOW_MS]])).toEqual(['ran 0', 'shared']);
    expect(feed([['hid-keyboard', 'tkt1.a', 0], ['window', 'tkt1.a', ECHO_WINDOW_MS + 1]])).toEqual(['ran 0', 'ran 1']);
  });

  it('pairs each copy once: a rescan is a new scan, and its own echo pairs with it', () => {
    expect(
      feed([
        ['hid-keyboard', 'tkt1.a', 0],
        ['window', 'tkt1.a', 30],
        ['hid-keyboard', 'tkt1.a', 900],
        ['window', 'tkt1.a', 930],
        ['window', 'tkt1.a', 960],
      ]),
    ).toEqual(['ran 0', 'shared', 'ran 2', 'shared', 'ran 4']);
  });

  it('pairs copies of interleaved scans by text', () => {
    expect(
      feed([
        ['hid-keyboard', 'tkt1.a', 0],
        ['hid-keyboard', 'tkt1.b', 20],
        ['window', 'tkt1.a', 40],
        ['window', 'tkt1.b', 60],
      ]),
    ).toEqual(['ran 0', 'ran 1', 'shared', 'shared']);
  });
});
