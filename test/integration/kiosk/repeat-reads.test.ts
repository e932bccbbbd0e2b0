/**
 * Double reads (docs/kiosk.md "Double reads"): a scanner reading one code
 * twice is one scan, from every input path, online and offline, against a
 * real HTTP issuer on loopback and a real SQLite file.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Verdict } from '../../../protocol/index.js';
import { KioskCore, type KioskCoreOptions } from '../../../main/kiosk/kiosk-core.js';
import type { ScanResult } from '../../../main/kiosk/kiosk-api.js';
import { DEFAULT_REPEAT_READ_WINDOW_MS, VERDICT_ON_SCREEN_MS, type ScanOrigin } from '../../../main/kiosk/decide/repeat-reads.js';
import { LoopbackIssuer } from '../../support/loopback-issuer.js';
import { MemoryApiKeys } from '../../support/unit/memory-api-keys.js';
import { tempDir } from '../../support/temp-dir.js';

let issuer: LoopbackIssuer;
let dir: { dir: string; cleanup: () => void };
let clockOffsetMs: number;
let logLines: string[];
const cores: KioskCore[] = [];

beforeEach(async () => {
  issuer = await new LoopbackIssuer().start();
  dir = tempDir();
  clockOffsetMs = 0;
  logLines = [];
});

afterEach(async () => {
  for (const core of cores.splice(0)) await core.close();
  await issuer.close();
  dir.cleanup();
});

/** The kiosk's clock, moved forward by the tests instead of waiting. */
const later = (ms: number): void => void (clockOffsetMs += ms);

async function enrolledCore(options: Partial<KioskCoreOptions> = {}): Promise<KioskCore> {
  const core = new KioskCore({
    dbPath: join(dir.dir, 'kiosk.db'),
    apiKeys: new MemoryApiKeys(),
    autoDrain: false,
    onlineBudgetMs: 800,
    now: () => Date.now() + clockOffsetMs,
    log: (line) => logLines.push(line),
    ...options,
  });
  cores.push(core);
  expect((await core.scan(issuer.setupCode())).type).toBe('enrolled');
  return core;
}

function verdictOf(result: ScanResult): Verdict {
  if (result.type !== 'verdict') throw new Error(`expected a verdict, got ${JSON.stringify(result)}`);
  return result.verdict;
}

const ORIGINS: ScanOrigin[] = ['window', 'hid-pos', 'hid-keyboard'];
const read = (core: KioskCore, origin: ScanOrigin, code: string): Promise<ScanResult> => core.scanFrom(origin, code);
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(['online', 'offline'] as const)('a double read is one scan (%s)', (connection) => {
  /** Enrolled while the issuer is up; then, for the offline cases, the network goes down. */
  async function doorCore(): Promise<KioskCore> {
    const core = await enrolledCore();
    if (connection === 'offline') issuer.down = true;
    return core;
  }

  it.each(ORIGINS)('from %s: one check-in, the first verdict stays, the repeat is logged', async (origin) => {
    const core = await doorCore();
    const { code, tid } = issuer.issueTicket();
    // The second read arrives 5 ms after the first, while the first is still being decided.
    const first = read(core, origin, code);
    await pause(5);
    const second = read(core, origin, code);
    const [a, b] = await Promise.all([first, second]);

    expect(verdictOf(a)).toMatchObject({ kind: 'admit', offline: connection === 'offline', ticket: { tid } });
    expect(b).toEqual({ type: 'repeat_read', reads: 2 });
    // One attempt (offline: it found the network down), none for the repeat.
    expect(issuer.checkInRequests()).toHaveLength(1);
    const state = await core.getState();
    expect(state.last_verdicts).toHaveLength(1);
    expect(state.pending_scans).toBe(connection === 'online' ? 0 : 1);
    expect(state.read_again).toEqual({ decided_at: verdictOf(a).decided_at, tid, reads: 2 });
    const [logged] = core.readLog();
    expect(logged).toMatchObject({ kind: 'repeat_read', origin, tid });
    expect(logged!.detail).toContain('no new check-in');
    expect(logLines.some((line) => line.startsWith(`Repeat read of ticket ${tid}`))).toBe(true);
    // Nothing scanned reaches the log: the code may as well have been a setup code.
    expect(logLines.join('\n')).not.toContain(code);
  });

  it('a read 250 ms after the first, when its verdict is already on screen, is the same scan', async () => {
    const core = await doorCore();
    const { code } = issuer.issueTicket();
    const first = verdictOf(await read(core, 'window', code));
    later(250);
    expect(await read(core, 'hid-pos', code)).toEqual({ type: 'repeat_read', reads: 2 });
    expect((await core.getState()).last_verdicts).toEqual([first]);
  });

  it('a scan of the same ticket after the window is a new scan: already used (the pass-back case)', async () => {
    const core = await doorCore();
    const { code } = issuer.issueTicket();
    const first = verdictOf(await read(core, 'hid-pos', code));
    later(Math.max(DEFAULT_REPEAT_READ_WINDOW_MS, VERDICT_ON_SCREEN_MS.admit) + 1);
    const again = verdictOf(await read(core, 'hid-pos', code));
    expect(again).toMatchObject({ kind: 'refuse', reason: 'already_used', decided_by: 'seen_here', first_used_at: first.decided_at });
    expect((await core.getState()).read_again).toBeNull();
  });
});

describe('the repeat window', () => {
  it('is configurable', async () => {
    const core = await enrolledCore({ repeatReadWindowMs: 10_000 });
    const { code } = issuer.issueTicket();
    await read(core, 'window', code);
    later(9_000);
    expect(await read(core, 'window', code)).toMatchObject({ type: 'repeat_read' });
    later(1_001);
    expect(verdictOf(await read(core, 'window', code))).toMatchObject({ reason: 'already_used' });
  });

  it('covers a refusal for as long as it is on screen', async () => {
    const core = await enrolledCore();
    const { code } = issuer.issueTicket({ eid: 'SOME-OTHER-EVENT' });
    expect(verdictOf(await read(core, 'window', code))).toMatchObject({ kind: 'refuse', reason: 'wrong_event' });
    // Real milliseconds pass between the answer and this read too: stay clear of the edge.
    later(VERDICT_ON_SCREEN_MS.refuse - 500);
    expect(await read(core, 'window', code)).toMatchObject({ type: 'repeat_read' });
    expect((await core.getState()).last_verdicts).toHaveLength(1);
  });

  it('two different codes are two scans', async () => {
    const core = await enrolledCore();
    const [a, b] = await Promise.all([read(core, 'hid-pos', issuer.issueTicket().code), read(core, 'hid-pos', issuer.issueTicket().code)]);
    expect(verdictOf(a)).toMatchObject({ kind: 'admit' });
    expect(verdictOf(b)).toMatchObject({ kind: 'admit' });
    expect(issuer.checkInRequests()).toHaveLength(2);
  });

  it('a setup code read twice enrolls once and asks nothing', async () => {
    const core = new KioskCore({ dbPath: join(dir.dir, 'kiosk.db'), apiKeys: new MemoryApiKeys(), autoDrain: false });
    cores.push(core);
    const setup = issuer.setupCode();
    const [a, b] = await Promise.all([core.scan(setup), core.scan(setup)]);
    expect(a.type).toBe('enrolled');
    expect(b).toMatchObject({ type: 'repeat_read' });
    expect((await core.getState()).re_enroll_pending).toBeNull();
  });
});

describe('a keyboard-mode scanner read over HID also types into the window', () => {
  it.each([
    ['the HID reader first', ['hid-keyboard', 'window'] as const],
    ['the window first', ['window', 'hid-keyboard'] as const],
  ])('its keystroke copy shares the HID read’s answer (%s); a second read of both is a repeat read', async (_order, [first, second]) => {
    const core = await enrolledCore();
    const { code } = issuer.issueTicket();
    // Both copies arrive before either is answered, as they do at the door.
    const [a, b] = await Promise.all([core.scanFrom(first, code), core.scanFrom(second, code)]);
    expect(verdictOf(a)).toMatchObject({ kind: 'admit' });
    expect(b).toBe(a);
    expect(issuer.checkInRequests()).toHaveLength(1);
    expect((await core.getState()).read_again).toBeNull();
    // The trigger held down: the scanner reads it again, and types it again.
    const again = await Promise.all([core.scanFrom(first, code), core.scanFrom(second, code)]);
    expect(again).toEqual([
      { type: 'repeat_read', reads: 2 },
      { type: 'repeat_read', reads: 2 },
    ]);
    expect(issuer.checkInRequests()).toHaveLength(1);
    // One more read of the code (its keystroke copy is not a read of its own).
    expect(core.readLog().filter((entry) => entry.kind === 'repeat_read')).toHaveLength(1);
  });
});
