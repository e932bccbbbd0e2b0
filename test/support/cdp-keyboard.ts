/**
 * A US-layout keyboard-wedge scanner typing into a computer set to another
 * layout, as Chromium receives it: real key events through the DevTools
 * protocol (Input.dispatchKeyEvent) with the physical key (`code`), the
 * character the OS layout makes of it (`key`, `text`) and Shift.
 *
 * The scanner chooses keys for the US layout; the OS turns each physical key
 * into its own layout's character. The layout tables here are written out
 * from the layouts themselves (DIN 2137 German QWERTZ, French AZERTY as on
 * Windows and X11 "fr"), independently of the kiosk's table in
 * protocol/keyboard-layouts.ts, so a mistake there cannot hide in the test.
 */
import type { CDPSession, Page } from 'playwright-core';

export type TestLayout = 'us' | 'de' | 'fr';

/** Physical key (KeyboardEvent.code) and Shift for each character a US scanner types. */
function usKey(character: string): { code: string; shift: boolean } {
  if (/^[a-z]$/.test(character)) return { code: `Key${character.toUpperCase()}`, shift: false };
  if (/^[A-Z]$/.test(character)) return { code: `Key${character}`, shift: true };
  if (/^[0-9]$/.test(character)) return { code: `Digit${character}`, shift: false };
  if (character === '-') return { code: 'Minus', shift: false };
  if (character === '_') return { code: 'Minus', shift: true };
  if (character === '.') return { code: 'Period', shift: false };
  throw new Error(`the test scanner has no key for ${JSON.stringify(character)}`);
}

/** [unshifted, shifted] per physical key, where the layout differs from US for the keys above. */
const LAYOUT_KEYS: Record<Exclude<TestLayout, 'us'>, Record<string, readonly [string, string]>> = {
  de: {
    KeyY: ['z', 'Z'],
    KeyZ: ['y', 'Y'],
    Digit1: ['1', '!'],
    Minus: ['ß', '?'],
    Period: ['.', ':'],
  },
  fr: {
    KeyA: ['q', 'Q'],
    KeyQ: ['a', 'A'],
    KeyW: ['z', 'Z'],
    KeyZ: ['w', 'W'],
    KeyM: [',', '?'],
    Digit1: ['&', '1'],
    Digit2: ['é', '2'],
    Digit3: ['"', '3'],
    Digit4: ["'", '4'],
    Digit5: ['(', '5'],
    Digit6: ['-', '6'],
    Digit7: ['è', '7'],
    Digit8: ['_', '8'],
    Digit9: ['ç', '9'],
    Digit0: ['à', '0'],
    Minus: [')', '°'],
    Period: [':', '/'],
  },
};

function typedOn(layout: TestLayout, character: string): { code: string; shift: boolean; text: string } {
  const { code, shift } = usKey(character);
  const keys = layout === 'us' ? undefined : LAYOUT_KEYS[layout][code];
  return { code, shift, text: keys ? keys[shift ? 1 : 0] : character };
}

/** What the page receives as text when `text` is typed by a US scanner on `layout`. */
export function asTypedOn(layout: TestLayout, text: string): string {
  return [...text].map((c) => typedOn(layout, c).text).join('');
}

const SHIFT = 8;
/** A scanner types a few characters per millisecond; the events carry that time, whatever the machine's load. */
const KEY_INTERVAL_S = 0.002;

/** The page's clock as the functions passed to page.evaluate see it (the Node build has no DOM lib). */
declare const performance: { now(): number };
declare const document: { addEventListener(type: string, listener: () => void, options: { capture: boolean }): void };

/**
 * Types `text` and Enter as key events over CDP. All events are sent at once
 * (pipelined, in order) with scanner-speed timestamps, so a loaded machine
 * delivering them late cannot make the burst look like a person typing.
 *
 * Returns the longest time between two keys' arrivals in the page. CDP
 * delivers each event only after the page acknowledged the previous one, so on
 * a loaded machine two keys can arrive further apart than a real scanner ever
 * sends them; the page then rightly sees a pause (the end of a scan without a
 * terminator, docs/kiosk.md "Terminators").
 */
export async function typeAsScanner(page: Page, text: string, layout: TestLayout): Promise<{ longestArrivalGapMs: number }> {
  await page.evaluate(() => {
    const recorder = globalThis as unknown as { __keyArrivals?: number[] };
    if (!recorder.__keyArrivals) {
      document.addEventListener('keydown', () => recorder.__keyArrivals!.push(performance.now()), { capture: true });
    }
    recorder.__keyArrivals = [];
  });
  const cdp: CDPSession = await page.context().newCDPSession(page);
  try {
    const start = Date.now() / 1000;
    const sends: Promise<unknown>[] = [];
    const keyPress = (
      at: number,
      event: { key: string; code: string; text?: string; modifiers?: number; windowsVirtualKeyCode?: number },
    ): void => {
      sends.push(cdp.send('Input.dispatchKeyEvent', { type: 'keyDown', timestamp: at, ...event }));
      const { text: _text, ...up } = event;
      sends.push(cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', timestamp: at + KEY_INTERVAL_S / 2, ...up }));
    };
    [...text].forEach((character, index) => {
      const key = typedOn(layout, character);
      keyPress(start + index * KEY_INTERVAL_S, { key: key.text, code: key.code, text: key.text, modifiers: key.shift ? SHIFT : 0 });
    });
    keyPress(start + [...text].length * KEY_INTERVAL_S, { key: 'Enter', code: 'Enter', text: '\r', windowsVirtualKeyCode: 13 });
    await Promise.all(sends);
  } finally {
    await cdp.detach().catch(() => undefined);
  }
  const arrivals = await page.evaluate(() => (globalThis as unknown as { __keyArrivals?: number[] }).__keyArrivals ?? []);
  const gaps = arrivals.slice(1).map((at, index) => at - arrivals[index]!);
  return { longestArrivalGapMs: Math.max(0, ...gaps) };
}

/**
 * Types `text` as one unbroken scan: when the machine delivered two of its
 * keys `pauseMs` or more apart (so the page saw a pause and, correctly, ended
 * the scan there), it says so and types the code again, up to three times.
 * A split the page makes with every key on time still fails the test.
 */
export async function typeAsScannerUnbroken(page: Page, text: string, layout: TestLayout, pauseMs: number): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const { longestArrivalGapMs } = await typeAsScanner(page, text, layout);
    if (longestArrivalGapMs < pauseMs) return;
    if (attempt === 3)
      throw new Error(
        `the machine kept delivering key events ${Math.round(longestArrivalGapMs)} ms apart (a scan pause is ${pauseMs} ms): too loaded to type like a scanner`,
      );
    console.log(
      `[cdp-keyboard] two keys arrived ${Math.round(longestArrivalGapMs)} ms apart (machine under load), so the page saw a pause: typing the code again`,
    );
  }
}
