/**
 * Holder names on the kiosk's verdict and lookup screens, measured in real Chromium (docs/kiosk.md
 * "Holder names"): a real issuer (the built CLI) issues the tickets, the real kiosk core behind the web
 * host admits them, and the page's own layout is read back. An 80-character name (the longest the issuer
 * accepts), an Arabic and a Hebrew two-word name: each whole, inside the screen, two lines at most,
 * its full text in `title`, right-to-left names in their own direction with the words in reading order
 * and the space between them; the "Undo check-in" dialog isolates the name the same way.
 *
 *   scripts/with-keyring.sh npx playwright test test/e2e/holder-names.e2e.test.ts
 */
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { scanInPage as scan, type KioskDoor } from '../support/door-harness.js';
import { createDoorScenario, DOOR_WAIT_MS, E2E_SHOTS as SHOTS, type DoorScenario } from '../support/door-scenario.js';
import { MAX_LABEL_LENGTH } from '../../issuer/admin/validators.js';

/** The page's globals as the function passed to $eval sees them (the Node build has no DOM lib). */
declare const window: { readonly innerWidth: number; readonly innerHeight: number };
declare const document: { readonly documentElement: { readonly scrollWidth: number }; createRange(): PageRange };
declare function getComputedStyle(element: unknown): { readonly lineHeight: string; readonly fontSize: string; readonly direction: string };
interface PageRange {
  setStart(node: unknown, offset: number): void;
  setEnd(node: unknown, offset: number): void;
  getBoundingClientRect(): { readonly left: number; readonly right: number };
}

/** 80 characters with ordinary word breaks, and 80 with none (a name is whatever the organiser typed). */
const LONG_NAME = 'Maximiliane Alexandrina Konstantinopoulou-Wolfeschlegelsteinhausen von Ostfriesl';
const LONG_WORD = 'Wolfeschlegelsteinhausenbergerdorffwelchevoralternwarengewissenhaftschaferswesen';
const ARABIC = 'محمد الأحمد';
const HEBREW = 'דוד כהן';

interface NameLayout {
  text: string;
  title: string | null;
  direction: string;
  fontPx: number;
  lineFontPx: number;
  lines: number;
  truncated: boolean;
  inside: boolean;
  pageOverflow: boolean;
  /** The words' boxes, left to right positions, when the name is two words. */
  words: { left: number; right: number }[];
}

/** Reads the name element's layout off the page. */
function measure(page: Page, selector: string): Promise<NameLayout> {
  return page.$eval(selector, (element) => {
    const box = element.getBoundingClientRect();
    const style = getComputedStyle(element);
    const lineHeight = parseFloat(style.lineHeight);
    const text = element.firstChild as unknown as { readonly data: string };
    const space = text.data.indexOf(' ');
    const wordBox = (start: number, end: number): { left: number; right: number } => {
      const range = document.createRange();
      range.setStart(text, start);
      range.setEnd(text, end);
      const rect = range.getBoundingClientRect();
      return { left: rect.left, right: rect.right };
    };
    const twoWords = space > 0 && text.data.indexOf(' ', space + 1) === -1;
    return {
      text: element.textContent ?? '',
      title: element.getAttribute('title'),
      direction: style.direction,
      fontPx: parseFloat(style.fontSize),
      lineFontPx: parseFloat(getComputedStyle(element.parentElement!).fontSize),
      lines: Math.round(box.height / lineHeight),
      truncated: element.scrollHeight > element.clientHeight + 1,
      inside: box.left >= 0 && box.right <= window.innerWidth && box.top >= 0 && box.bottom <= window.innerHeight,
      pageOverflow: document.documentElement.scrollWidth > window.innerWidth,
      words: twoWords ? [wordBox(0, space), wordBox(space + 1, text.data.length)] : [],
    };
  });
}

let scenario: DoorScenario;
let door: KioskDoor;

async function issueTicket(holder: string): Promise<{ tid: string; qr: string }> {
  const issued = await scenario.cli<{ tickets: { tid: string; qr: string }[] }>(
    'ticket',
    'issue',
    '--event',
    scenario.eid,
    '--holder',
    holder,
    '--type',
    'VIP',
  );
  return issued.tickets[0]!;
}

async function verdictFor(page: Page, holder: string): Promise<NameLayout> {
  await scan(page, (await issueTicket(holder)).qr);
  await page.waitForSelector('section[data-verdict="admit"] [data-holder-name]');
  const layout = await measure(page, 'section[data-verdict] [data-holder-name]');
  await page.screenshot({
    path: join(SHOTS, `holder-name-${page.viewportSize()?.width ?? 0}-${holder.length}-${[...holder][0]!.charCodeAt(0).toString(16)}.png`),
  });
  await page.keyboard.press('Escape');
  await page.waitForSelector('#screen[data-screen="ready"]');
  return layout;
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  scenario = await createDoorScenario({ name: 'holder-names', eventName: 'Names Night' });
  await scenario.startIssuer();
  door = await scenario.openDoor(browser, 'door');
  // A supervisor's key: the "Undo check-in" dialog (docs/kiosk.md "Door operations") names the holder too.
  await scenario.enroll(door, '--role', 'supervisor');
});

test.afterAll(async () => {
  test.setTimeout(60_000);
  await scenario?.close();
});

test.describe.serial('holder names on the kiosk (real issuer, web host, Chromium)', () => {
  test.describe.configure({ timeout: 120_000 });

  test('an 80-character name on the verdict: whole, inside the screen, two lines, no smaller than the floor', async () => {
    expect([...LONG_NAME].length).toBe(MAX_LABEL_LENGTH);
    const layout = await verdictFor(door.page, LONG_NAME);
    expect(layout).toMatchObject({
      text: LONG_NAME,
      title: LONG_NAME,
      direction: 'ltr',
      truncated: false,
      inside: true,
      pageOverflow: false,
    });
    expect(layout.lines).toBeGreaterThanOrEqual(1);
    expect(layout.lines).toBeLessThanOrEqual(2);
    // Shrunk, but not past the floor (0.55 of the holder line, 18px) and at this size still read from a step away.
    expect(layout.fontPx).toBeLessThan(layout.lineFontPx);
    expect(layout.fontPx).toBeGreaterThanOrEqual(Math.max(0.55 * layout.lineFontPx, 18) - 0.5);
    expect(layout.fontPx).toBeGreaterThanOrEqual(24);
  });

  test('80 characters without a break wrap inside the screen too (two lines at most)', async () => {
    expect([...LONG_WORD].length).toBe(MAX_LABEL_LENGTH);
    const layout = await verdictFor(door.page, LONG_WORD);
    expect(layout).toMatchObject({ text: LONG_WORD, title: LONG_WORD, inside: true, pageOverflow: false });
    expect(layout.lines).toBeLessThanOrEqual(2);
  });

  test('on a phone-wide screen an 80-character name ends in an ellipsis after two lines, the whole name in its title', async () => {
    const { page } = door;
    await page.setViewportSize({ width: 360, height: 740 });
    try {
      const layout = await verdictFor(page, LONG_NAME);
      expect(layout).toMatchObject({ title: LONG_NAME, text: LONG_NAME, truncated: true, inside: true, pageOverflow: false, lines: 2 });
      // At the smallest size, not smaller: two lines of it are all there is room for.
      expect(layout.fontPx).toBeCloseTo(Math.max(0.55 * layout.lineFontPx, 18), 0);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  for (const [script, name] of [
    ['Arabic', ARABIC],
    ['Hebrew', HEBREW],
  ] as const) {
    test(`a two-word ${script} name reads right to left, the first word on the right, with its space`, async () => {
      const layout = await verdictFor(door.page, name);
      expect(layout).toMatchObject({
        text: name,
        title: name,
        direction: 'rtl',
        lines: 1,
        truncated: false,
        inside: true,
        pageOverflow: false,
      });
      const [first, second] = layout.words;
      // Right to left: the first word is drawn right of the second, with the space's gap between them.
      expect(first!.left).toBeGreaterThan(second!.right);
    });
  }

  test('the lookup screen shows the name in the same element: labelled, whole, two lines at most', async () => {
    const { page } = door;
    const ticket = await issueTicket(LONG_NAME);
    await page.keyboard.press('F2');
    await page.waitForSelector('#screen[data-screen="lookup"]');
    await page.fill('[data-lookup-input]', ticket.tid);
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-lookup-result][data-status="valid"] [data-lookup-holder] [data-holder-name]');
    expect(await page.textContent('[data-lookup-holder]')).toBe(`Holder: ${LONG_NAME}`);
    const layout = await measure(page, '[data-lookup-holder] [data-holder-name]');
    expect(layout).toMatchObject({ text: LONG_NAME, title: LONG_NAME, inside: true, pageOverflow: false });
    expect(layout.lines).toBeLessThanOrEqual(2);
    await page.screenshot({ path: join(SHOTS, 'holder-name-lookup.png') });
    await page.keyboard.press('Escape');
    await page.waitForSelector('#screen[data-screen="ready"]');
    expect(scenario.pageErrors).toEqual([]);
  });

  test('the "Undo check-in" dialog isolates a right-to-left name: its words in reading order, the type and id after it', async () => {
    const { page, runtime } = door;
    await expect.poll(async () => (await runtime.core.getState()).door?.can_annul, { timeout: DOOR_WAIT_MS }).toBe(true);
    const ticket = await issueTicket(ARABIC);
    await scan(page, ticket.qr);
    await page.waitForSelector('section[data-verdict="admit"] [data-action="annul-open"]');
    await page.click('section[data-verdict="admit"] [data-action="annul-open"]');
    const selector = `[data-annul-dialog] [data-annul-tid="${ticket.tid}"] [data-holder-name]`;
    await page.waitForSelector(selector);
    const layout = await measure(page, selector);
    expect(layout).toMatchObject({ text: ARABIC, title: ARABIC, direction: 'rtl', truncated: false, pageOverflow: false });
    const [first, second] = layout.words;
    expect(first!.left).toBeGreaterThan(second!.right);
    // The rest of the line stays left to right after the name, not pulled into its direction.
    expect(await page.textContent(`[data-annul-tid="${ticket.tid}"]`)).toMatch(new RegExp(`^${ARABIC} · VIP — .*${ticket.tid}`));
    await page.screenshot({ path: join(SHOTS, 'holder-name-annul.png') });
    expect(scenario.pageErrors).toEqual([]);
  });
});
