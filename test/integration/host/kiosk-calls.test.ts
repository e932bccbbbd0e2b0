/**
 * The IPC/HTTP handlers against a real kiosk core (temp SQLite file, an
 * in-memory ApiKeyStore, a loopback issuer): hostile inputs, envelopes, and
 * that no answer ever carries the API key.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CALIBRATION_CODE } from '../../../protocol/index.js';
import {
  handleKioskCall,
  INTERNAL_ERROR_MESSAGE,
  KIOSK_CALL_NAMES,
  MAX_INPUT_LENGTH,
  type KioskCalls,
} from '../../../main/host/kiosk-calls.js';
import { KIOSK_CHANNELS } from '../../../main/host/call-channels.js';
import { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import { SecretStoreUnavailableError } from '../../../main/kiosk/store/api-key-store.js';
import { LoopbackIssuer } from '../../support/loopback-issuer.js';
import { MemoryApiKeys } from '../../support/unit/memory-api-keys.js';
import { tempDir } from '../../support/temp-dir.js';

let issuer: LoopbackIssuer;
let apiKeys: MemoryApiKeys;
let dir: { dir: string; cleanup: () => void };
let core: KioskCore;

beforeEach(async () => {
  issuer = await new LoopbackIssuer().start();
  apiKeys = new MemoryApiKeys();
  dir = tempDir('kiosk-ipc-');
  core = new KioskCore({ dbPath: join(dir.dir, 'kiosk.db'), apiKeys, autoDrain: false, onlineBudgetMs: 800 });
});

afterEach(async () => {
  await core.close();
  await issuer.close();
  dir.cleanup();
});

describe('call names', () => {
  it('covers every request/answer call of KioskApi, one channel each', () => {
    expect([...KIOSK_CALL_NAMES].sort()).toEqual([
      'annul',
      'attentionDone',
      'calibrate',
      'cancelParty',
      'cancelReEnroll',
      'chooseParty',
      'configureLanes',
      'confirmIdCheck',
      'confirmReEnroll',
      'denyIdCheck',
      'getState',
      'giveHandout',
      'leaveKioskMode',
      'lockStaff',
      'lookupStatus',
      'manualCheckIn',
      'overrideAttention',
      'overrideIdCheck',
      'removeStaffPin',
      'resetCalibration',
      'scan',
      'searchTickets',
      'setDirection',
      'setLanguage',
      'setScannerName',
      'setStaffPin',
      'unlockStaff',
      'verdictDetails',
      'verifyLog',
    ]);
    expect(new Set(Object.values(KIOSK_CHANNELS)).size).toBe(KIOSK_CALL_NAMES.length);
  });

  it.each(['onStateChange', 'drain', 'close', '__proto__', 'constructor', 'toString', 'hasOwnProperty', '', 'SCAN', 'scan '])(
    'refuses %j as unknown_method',
    async (name) => {
      expect(await handleKioskCall(core, name, [])).toEqual({
        ok: false,
        error: { code: 'unknown_method', message: 'There is no such kiosk call.' },
      });
    },
  );
});

describe('input validation', () => {
  const tooLong = 'x'.repeat(MAX_INPUT_LENGTH + 1);
  const hostile: Array<[string, unknown, RegExp]> = [
    ['scan', undefined, /must be a list/],
    ['scan', 'tkt1.abc', /must be a list/],
    ['scan', { 0: 'tkt1.abc', length: 1 }, /must be a list/],
    ['scan', [], /exactly one argument/],
    ['scan', ['a', 'b', 'c'], /exactly one argument/],
    ['scan', ['a', 'b'], /read details must be an object/],
    ['scan', ['a', null], /read details must be an object/],
    ['scan', ['a', { terminator: 'cr', units: 5, durationMs: 3, extra: 1 }], /unknown field/],
    ['scan', ['a', { terminator: 'report_end', units: 5, durationMs: 3 }], /terminator must be one of/],
    ['scan', ['a', { terminator: 'cr', units: -1, durationMs: 3 }], /key count/],
    ['scan', ['a', { terminator: 'cr', units: 1.5, durationMs: 3 }], /key count/],
    ['scan', ['a', { terminator: 'cr', units: 5, durationMs: Number.NaN }], /duration/],
    ['scan', ['a', { terminator: 'cr', units: 5, durationMs: 1e12 }], /duration/],
    ['scan', ['a', { terminator: 'cr', units: 5, durationMs: 3, prefixKeys: 'STX' }], /list of at most/],
    ['scan', ['a', { terminator: 'cr', units: 5, durationMs: 3, suffixKeys: ['a\nforged log line'] }], /printable/],
    ['scan', ['a', { terminator: 'cr', units: 5, durationMs: 3, prefixKeys: Array(9).fill('STX') }], /list of at most/],
    ['resetCalibration', ['x'], /takes no arguments/],
    ['scan', [42], /must be a string/],
    ['scan', [null], /must be a string/],
    ['scan', [['tkt1.abc']], /must be a string/],
    ['scan', [{ toString: () => 'tkt1.abc' }], /must be a string/],
    ['scan', [''], /is empty/],
    ['scan', [tooLong], /longer than 4096/],
    ['lookupStatus', [123], /must be a string/],
    ['lookupStatus', [tooLong], /longer than 4096/],
    ['lookupStatus', [], /exactly one argument/],
    ['setScannerName', ['   '], /1 to 200 characters/],
    ['setScannerName', ['x'.repeat(201)], /1 to 200 characters/],
    ['setScannerName', ['Door 1\nFAKE LOG LINE'], /control characters/],
    ['setScannerName', ['Door\u0000'], /control characters/],
    ['setScannerName', ['Door \u202eevil'], /control characters/],
    ['setScannerName', ['Door\u009b'], /control characters/],
    ['setScannerName', [true], /must be a string/],
    ['getState', ['extra'], /takes no arguments/],
    ['confirmReEnroll', [undefined], /takes no arguments/],
    ['cancelReEnroll', [{}], /takes no arguments/],
    ['overrideAttention', ['now'], /takes no arguments/],
    ['confirmIdCheck', ['yes'], /takes no arguments/],
    ['denyIdCheck', [1], /takes no arguments/],
    ['overrideIdCheck', [{}], /takes no arguments/],
    ['cancelParty', [2], /takes no arguments/],
    ['chooseParty', [], /how many people of the party come in now/],
    ['chooseParty', [0], /how many people of the party come in now/],
    ['chooseParty', [2.5], /how many people of the party come in now/],
    ['chooseParty', ['3'], /how many people of the party come in now/],
    ['chooseParty', [1001], /how many people of the party come in now/],
    // docs/kiosk.md "Finding a ticket": a party ticket's manual check-in says how many, as the party screen does.
    ['manualCheckIn', ['01J0000000000000000000TEST', 'phone dead', 0], /how many people of the party come in now/],
    ['manualCheckIn', ['01J0000000000000000000TEST', 'phone dead', '2'], /how many people of the party come in now/],
    ['manualCheckIn', ['01J0000000000000000000TEST', 'phone dead', 2, 3], /two or three arguments/],
    ['verdictDetails', [], /exactly one argument/],
    ['verdictDetails', [1752867720000], /must be a string/],
    ['verdictDetails', ['yesterday'], /ISO 8601/],
    ['giveHandout', ['2026-07-18T19:42:00.000Z'], /two arguments/],
    ['giveHandout', ['yesterday', 'wristband'], /ISO 8601/],
    ['giveHandout', ['2026-07-18T19:42:00.000Z', 'wrist\u0000band'], /control character/],
    ['verdictDetails', ['2026-07-18T19:42:00.000Z\nforged'], /ISO 8601/],
  ];

  it.each(hostile)('%s(%j) → invalid_input', async (method, args, message) => {
    const before = await core.getState();
    const answer = await handleKioskCall(core, method, args);
    expect(answer.ok).toBe(false);
    if (answer.ok) return;
    expect(answer.error.code).toBe('invalid_input');
    expect(answer.error.message).toMatch(message);
    expect(answer).not.toBeInstanceOf(Error);
    // Refused before the core: nothing changed.
    expect(await core.getState()).toEqual(before);
  });

  it('accepts the longest allowed input and passes a trimmed scanner name', async () => {
    const scan = await handleKioskCall(core, 'scan', ['x'.repeat(MAX_INPUT_LENGTH)]);
    expect(scan).toEqual({ ok: true, value: { type: 'not_enrolled', message: expect.any(String) } });
    const named = await handleKioskCall(core, 'setScannerName', ['  North door  ']);
    expect(named.ok && named.value.scanner.name).toBe('North door');
  });
});

describe('scan with read details', () => {
  it('passes a wedge read’s details to the core; resetCalibration forgets what was learned', async () => {
    const read = { terminator: 'cr', prefixKeys: [], suffixKeys: [], units: CALIBRATION_CODE.length, durationMs: 140 };
    const answer = await handleKioskCall(core, 'scan', [CALIBRATION_CODE, read]);
    expect(answer).toMatchObject({
      ok: true,
      value: { type: 'calibrated', diagnosis: { input_path: 'window', terminator: 'cr', ms_per_code: 140 } },
    });
    expect((await core.getState()).calibration).not.toBeNull();
    expect(await handleKioskCall(core, 'resetCalibration', [])).toMatchObject({ ok: true, value: { calibration: null } });
  });
});

describe('answers', () => {
  it('are plain JSON envelopes that survive a structured-clone or JSON round trip', async () => {
    const answer = await handleKioskCall(core, 'getState', []);
    expect(answer.ok).toBe(true);
    expect(JSON.parse(JSON.stringify(answer))).toEqual(answer);
    expect(structuredClone(answer)).toEqual(answer);
  });

  it('never carry the API key, through enrollment, scans, lookups and re-enrollment', async () => {
    const answers: unknown[] = [];
    const call = async (method: string, ...args: unknown[]) => {
      const answer = await handleKioskCall(core, method, args);
      answers.push(answer);
      return answer;
    };
    expect(await call('scan', issuer.setupCode())).toMatchObject({ ok: true, value: { type: 'enrolled' } });
    const firstKey = apiKeys.key!;
    expect(firstKey).toMatch(/^sk_/);
    const ticket = issuer.issueTicket();
    expect(await call('scan', ticket.code)).toMatchObject({ ok: true, value: { type: 'verdict' } });
    await call('scan', ticket.code);
    await call('lookupStatus', ticket.tid);
    await call('lookupStatus', ticket.code);
    await call('setScannerName', 'East gate');
    await call('scan', issuer.setupCode());
    await call('cancelReEnroll');
    await call('scan', issuer.setupCode());
    expect(await call('confirmReEnroll')).toMatchObject({ ok: true, value: { type: 'enrolled' } });
    await call('getState');

    const everything = JSON.stringify(answers);
    expect(apiKeys.key).not.toBe(firstKey);
    expect(everything).not.toContain(firstKey);
    expect(everything).not.toContain(apiKeys.key!);
    expect(everything).not.toMatch(/sk_[A-Za-z0-9_-]{8,}/);
  });

  it('turn an unexpected failure into a fixed message; the error goes only to the host log', async () => {
    const secretish = 'sk_live_should_never_leave_main';
    const failing = {
      scan: async () => {
        throw new Error(`database exploded near ${secretish}`);
      },
    } as unknown as KioskCalls;
    const logged: Array<[string, unknown]> = [];
    const answer = await handleKioskCall(failing, 'scan', ['tkt1.x'], { onInternalError: (method, error) => logged.push([method, error]) });
    expect(answer).toEqual({ ok: false, error: { code: 'internal_error', message: INTERNAL_ERROR_MESSAGE } });
    expect(JSON.stringify(answer)).not.toContain(secretish);
    expect(logged).toHaveLength(1);
    expect(logged[0]![0]).toBe('scan');
  });

  it('pass on what IT must do when the keyring is unavailable', async () => {
    const noKeyring = {
      scan: async () => {
        throw new SecretStoreUnavailableError('keyring_failed', "No usable OS keyring to keep the kiosk's API key: install gnome-keyring.");
      },
    } as unknown as KioskCalls;
    expect(await handleKioskCall(noKeyring, 'scan', ['tkt1.x'])).toEqual({
      ok: false,
      error: { code: 'secret_store_unavailable', message: "No usable OS keyring to keep the kiosk's API key: install gnome-keyring." },
    });
  });
});
