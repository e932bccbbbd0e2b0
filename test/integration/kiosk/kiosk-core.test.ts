import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isUuidV4, type Verdict } from '../../../protocol/index.js';
import { KioskCore, type KioskCoreOptions } from '../../../main/kiosk/kiosk-core.js';
import type { KioskState, ScanResult } from '../../../main/kiosk/kiosk-api.js';
import { LocalStore } from '../../../main/kiosk/store/local-store.js';
import { DEFAULT_REPEAT_READ_WINDOW_MS, VERDICT_ON_SCREEN_MS } from '../../../main/kiosk/decide/repeat-reads.js';
import { LoopbackIssuer, makeSigningKey } from '../../support/loopback-issuer.js';
import { MemoryApiKeys } from '../../support/unit/memory-api-keys.js';
import { tempDir } from '../../support/temp-dir.js';

let issuer: LoopbackIssuer;
let apiKeys: MemoryApiKeys;
/** Moves the kiosk's clock on, so the same ticket scanned again is a new scan and not a double read (repeat-reads.ts). */
let clockOffsetMs = 0;
const PAST_REPEAT_WINDOW_MS = Math.max(DEFAULT_REPEAT_READ_WINDOW_MS, VERDICT_ON_SCREEN_MS.admit, VERDICT_ON_SCREEN_MS.refuse) + 1;
const passTheRepeatWindow = (): void => void (clockOffsetMs += PAST_REPEAT_WINDOW_MS);
let dir: { dir: string; cleanup: () => void };
const cores: KioskCore[] = [];

beforeEach(async () => {
  issuer = await new LoopbackIssuer().start();
  apiKeys = new MemoryApiKeys();
  dir = tempDir();
  clockOffsetMs = 0;
});

afterEach(async () => {
  for (const core of cores.splice(0)) await core.close();
  await issuer.close();
  dir.cleanup();
});

function openCore(options: Partial<KioskCoreOptions> = {}): KioskCore {
  const core = new KioskCore({
    dbPath: join(dir.dir, 'kiosk.db'),
    apiKeys,
    autoDrain: false,
    onlineBudgetMs: 800,
    now: () => Date.now() + clockOffsetMs,
    ...options,
  });
  cores.push(core);
  return core;
}

async function enrolledCore(options: Partial<KioskCoreOptions> = {}): Promise<KioskCore> {
  const core = openCore(options);
  const result = await core.scan(issuer.setupCode());
  expect(result.type).toBe('enrolled');
  return core;
}

function verdictOf(result: ScanResult): Verdict {
  if (result.type !== 'verdict') throw new Error(`expected a verdict, got ${JSON.stringify(result)}`);
  return result.verdict;
}

describe('enrollment', () => {
  it('refuses tickets before enrollment and has a stable scanner id from the first start', async () => {
    const core = openCore();
    const state = await core.getState();
    expect(state.enrolled).toBe(false);
    expect(isUuidV4(state.scanner.id)).toBe(true);
    expect((await core.scan(issuer.issueTicket().code)).type).toBe('not_enrolled');
    await core.close();
    const again = openCore();
    expect((await again.getState()).scanner.id).toBe(state.scanner.id);
  });

  it('enrolls with a setup code: key to the secret store, scope to local state, nothing secret in the state', async () => {
    const core = openCore({ platform: 'test-platform' });
    const result = await core.scan(issuer.setupCode() + '\r\n');
    expect(result).toMatchObject({ type: 'enrolled', issuer_name: 'Loopback Tickets', event_name: 'Summer Gala', gate_id: null });
    expect(apiKeys.key).toMatch(/^sk_/);
    const enrollRequest = issuer.requests.find((r) => r.path === '/api/v1/scanners/enroll')!;
    const state = await core.getState();
    expect(enrollRequest.body).toMatchObject({
      scanner_id: state.scanner.id,
      scanner_name: state.scanner.name,
      scanner_platform: 'test-platform',
    });
    expect(state).toMatchObject({
      enrolled: true,
      authorised: true,
      event: { eid: issuer.eid, name: 'Summer Gala' },
      issuer: { iss: issuer.url },
    });
    expect(JSON.stringify(state)).not.toContain(apiKeys.key);
    // Spec "EnrollResponse": never stored in plain text. Not in the SQLite file nor its WAL.
    await core.scan(issuer.issueTicket().code);
    for (const file of readdirSync(dir.dir)) expect(readFileSync(join(dir.dir, file)).includes(apiKeys.key!)).toBe(false);
  });

  it('a setup code while enrolled asks for confirmation; confirm re-enrolls, cancel keeps the old enrollment', async () => {
    const core = await enrolledCore();
    const firstKey = apiKeys.key;
    const ask = await core.scan(issuer.setupCode());
    expect(ask).toMatchObject({
      type: 'confirm_re_enroll',
      current: { event_name: 'Summer Gala' },
      proposed: { eid: issuer.eid },
      pending_scans: 0,
    });
    expect(apiKeys.key).toBe(firstKey);
    expect((await core.getState()).re_enroll_pending).not.toBeNull();
    expect((await core.confirmReEnroll()).type).toBe('enrolled');
    expect(apiKeys.key).not.toBe(firstKey);
    expect((await core.confirmReEnroll()).type).toBe('nothing_to_confirm');

    await core.scan(issuer.setupCode());
    const state = await core.cancelReEnroll();
    expect(state.re_enroll_pending).toBeNull();
    expect((await core.confirmReEnroll()).type).toBe('nothing_to_confirm');
  });

  it.each([
    ['expired setup code', () => issuer.setupCode({ expires_at: '2020-01-01T00:00:00Z' }), 'setup_expired'],
    ['enroll_url not the discovery one', () => issuer.setupCode({ enroll_url: `${issuer.url}/elsewhere` }), 'enroll_url_mismatch'],
    ['plain http to a remote host', () => issuer.setupCode({ iss: 'http://tickets.example.org' }), 'bad_issuer_url'],
    ['unknown token', () => issuer.setupCode({ token: 'not-a-real-token-at-all' }), 'token_invalid'],
    ['damaged code', () => 'tsetup1.!!!', 'not_a_setup_code'],
    ['future version', () => 'tsetup2.abc', 'unsupported_version'],
  ])('refuses a %s', async (_name, make, code) => {
    const core = openCore();
    const result = await core.scan(make());
    expect(result).toMatchObject({ type: 'enroll_failed', code });
    expect((await core.getState()).enrolled).toBe(false);
    expect(apiKeys.key).toBeNull();
  });

  it('a token used twice fails the second time', async () => {
    const code = issuer.setupCode();
    await enrolledCore();
    const other = new KioskCore({ dbPath: join(dir.dir, 'other.db'), apiKeys: new MemoryApiKeys(), autoDrain: false });
    cores.push(other);
    expect((await other.scan(code)).type).toBe('enrolled');
    const third = new KioskCore({ dbPath: join(dir.dir, 'third.db'), apiKeys: new MemoryApiKeys(), autoDrain: false });
    cores.push(third);
    expect(await third.scan(code)).toMatchObject({ type: 'enroll_failed', code: 'token_invalid' });
  });
});

describe('online scans', () => {
  it('admits a valid ticket, with a fresh UUID v4 idempotency key in header and body', async () => {
    const core = await enrolledCore();
    const { code, tid } = issuer.issueTicket({ hn: 'Ada L.', tt: 'VIP' });
    const verdict = verdictOf(await core.scan(code));
    expect(verdict).toMatchObject({
      kind: 'admit',
      offline: false,
      ticket: { tid, holder_name: 'Ada L.', ticket_type: 'VIP', event_name: 'Summer Gala' },
    });
    const [request] = issuer.checkInRequests();
    const body = request!.body as Record<string, unknown>;
    expect(isUuidV4(body['idempotency_key'])).toBe(true);
    expect(request!.headers['idempotency-key']).toBe(body['idempotency_key']);
    expect(body).toMatchObject({ tid, eid: issuer.eid, scanner_id: (await core.getState()).scanner.id });
    expect(body['signature_status']).toBeUndefined();
  });

  it('refuses a second scan here locally with the time of first use, without asking the issuer', async () => {
    const core = await enrolledCore();
    const { code } = issuer.issueTicket();
    const first = verdictOf(await core.scan(code));
    passTheRepeatWindow();
    const second = verdictOf(await core.scan(code));
    expect(second).toMatchObject({ kind: 'refuse', reason: 'already_used', first_used_at: first.decided_at, decided_by: 'seen_here' });
    expect(issuer.checkInRequests()).toHaveLength(1);
  });

  it.each([
    ['already_used', (tid: string) => void (issuer.tickets.get(tid)!.checked_in_at = '2026-06-01T18:00:00.000Z')],
    ['revoked', (tid: string) => void (issuer.tickets.get(tid)!.revoked = true)],
    ['unknown_ticket', (tid: string) => void issuer.tickets.delete(tid)],
  ])('maps the issuer answer %s to a refusal', async (reason, arrange) => {
    const core = await enrolledCore();
    const { code, tid } = issuer.issueTicket();
    arrange(tid);
    const verdict = verdictOf(await core.scan(code));
    expect(verdict).toMatchObject({ kind: 'refuse', reason, offline: false, decided_by: 'issuer' });
    if (reason === 'already_used') expect(verdict).toMatchObject({ first_used_at: '2026-06-01T18:00:00.000Z' });
  });

  it('refuses locally, without a request: garbage, wrong event, expired, wrong issuer', async () => {
    const core = await enrolledCore();
    const cases: Array<[string, string]> = [
      ['hello', 'not_a_ticket'],
      ['tkt9.abc.def', 'unsupported_version'],
      [
        issuer.issueTicket({ eid: '01JOTHER00000000000000000Z', ev: { name: 'Winter Ball', date: '2026-12-01T19:00:00Z', venue: 'X' } })
          .code,
        'wrong_event',
      ],
      [issuer.issueTicket({ exp: Math.floor(Date.now() / 1000) - 60 }).code, 'expired'],
      [issuer.issueTicket({ iss: 'https://other.example' }).code, 'wrong_issuer'],
    ];
    for (const [code, reason] of cases) expect(verdictOf(await core.scan(code))).toMatchObject({ kind: 'refuse', reason });
    const wrongEvent = (await core.getState()).last_verdicts.find((v) => v.kind === 'refuse' && v.reason === 'wrong_event');
    expect(wrongEvent?.ticket).toMatchObject({ eid: '01JOTHER00000000000000000Z', event_name: 'Winter Ball' });
    expect(issuer.checkInRequests()).toHaveLength(0);
  });

  it('reports a failed signature to the issuer as decided, not as an error', async () => {
    const core = await enrolledCore();
    const forger = makeSigningKey(99);
    const { payload } = issuer.issueTicket();
    const forged = issuer.issueTicket(
      { tid: payload.tid + 'X', kid: issuer.signingKeys[0]!.key.kid },
      { ...forger, key: { ...forger.key, kid: issuer.signingKeys[0]!.key.kid } },
    );
    const verdict = verdictOf(await core.scan(forged.code));
    expect(verdict).toMatchObject({ kind: 'refuse', reason: 'invalid_signature' });
    expect(verdict.ticket).toBeUndefined();
    expect((await core.getState()).pending_scans).toBe(1);
    const report = await core.drain();
    expect(report?.stop).toBe('empty');
    expect(issuer.signatureReports).toHaveLength(1);
    expect(issuer.signatureReports[0]).toMatchObject({ tid: forged.tid, signature_status: 'invalid' });
    expect((await core.getState()).pending_scans).toBe(0);
  });

  it('401 surfaces as "re-enroll", never as a ticket refusal', async () => {
    const core = await enrolledCore();
    issuer.apiKeys.clear();
    const { code } = issuer.issueTicket();
    const result = await core.scan(code);
    expect(result).toMatchObject({ type: 'scanner_unauthorized' });
    expect(JSON.stringify(result)).not.toContain('sk_');
    expect((await core.getState()).authorised).toBe(false);
    expect((await core.lookupStatus(code)).type).toBe('scanner_unauthorized');
    // After re-enrolling, a rescan resends the held request with the same idempotency key.
    await core.scan(issuer.setupCode());
    expect((await core.confirmReEnroll()).type).toBe('enrolled');
    passTheRepeatWindow();
    expect(verdictOf(await core.scan(code)).kind).toBe('admit');
    const keys = issuer.checkInRequests().map((r) => (r.body as { idempotency_key: string }).idempotency_key);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it('an expired scanner key stops admissions, even offline', async () => {
    let clock = Date.now();
    const core = await enrolledCore({ now: () => clock });
    issuer.down = true;
    clock += 2 * 86_400_000;
    expect(await core.scan(issuer.issueTicket({ exp: Math.floor(clock / 1000) + 3600 }).code)).toMatchObject({
      type: 'scanner_unauthorized',
    });
    expect((await core.getState()).authorised).toBe(false);
  });

  it('looks up a ticket status by code or tid without checking it in', async () => {
    const core = await enrolledCore();
    const { code, tid } = issuer.issueTicket();
    expect(await core.lookupStatus(code)).toMatchObject({ type: 'status', status: { tid, status: 'valid' } });
    expect(await core.lookupStatus(tid)).toMatchObject({ type: 'status', status: { tid, status: 'valid' } });
    expect(await core.lookupStatus('01JUNKNOWN')).toEqual({ type: 'not_found' });
    expect(await core.lookupStatus('no spaces allowed')).toEqual({ type: 'not_a_ticket' });
    expect(issuer.checkInRequests()).toHaveLength(0);
  });
});

describe('offline scans and the queue', () => {
  it('admits optimistically when the issuer is down, refuses its own second admission, drains when back', async () => {
    let clock = Date.now();
    const core = await enrolledCore({ now: () => clock });
    issuer.down = true;
    const { code, tid } = issuer.issueTicket();
    const first = verdictOf(await core.scan(code));
    expect(first).toMatchObject({ kind: 'admit', offline: true, decided_by: 'offline_policy' });
    clock += PAST_REPEAT_WINDOW_MS;
    expect(verdictOf(await core.scan(code))).toMatchObject({ reason: 'already_used', first_used_at: first.decided_at, offline: true });
    expect(await core.getState()).toMatchObject({ connection: 'offline', pending_scans: 1 });

    const report = await core.drain();
    expect(report?.stop).toBe('offline');
    issuer.down = false;
    expect((await core.drain())?.settled).toHaveLength(0); // backing off: not due yet
    clock = report!.retryAt!;
    const back = await core.drain();
    expect(back).toMatchObject({ stop: 'empty' });
    expect(back!.settled.map((s) => s.result_status)).toEqual(['valid']);
    expect(await core.getState()).toMatchObject({ connection: 'online', pending_scans: 0 });
    expect(issuer.tickets.get(tid)!.checked_in_at).not.toBeNull();
    const keys = new Set(issuer.checkInRequests().map((r) => (r.body as { idempotency_key: string }).idempotency_key));
    expect(keys.size).toBe(1);
  });

  it('known offline: no keyring read, and each scan is committed with its verdict in one transaction before it is shown', async () => {
    const core = await enrolledCore();
    issuer.down = true;
    const loads = vi.spyOn(apiKeys, 'loadApiKey');
    expect(verdictOf(await core.scan(issuer.issueTicket().code))).toMatchObject({ kind: 'admit', offline: true }); // learns it is offline
    expect(loads).toHaveBeenCalledTimes(1);

    // From here the kiosk knows it is offline: the key would not be used, so it is not read.
    const writes: { method: string; inTransaction: boolean }[] = [];
    for (const method of ['insertScan', 'decideScan', 'setQueueState'] as const) {
      const original = LocalStore.prototype[method] as (...args: unknown[]) => unknown;
      vi.spyOn(LocalStore.prototype, method).mockImplementation(function (this: LocalStore, ...args: unknown[]) {
        writes.push({ method, inTransaction: (this as unknown as { db: { inTransaction: boolean } }).db.inTransaction });
        return original.apply(this, args);
      } as never);
    }
    const atomically = vi.spyOn(LocalStore.prototype, 'atomically');
    const { code, tid } = issuer.issueTicket();
    const verdict = verdictOf(await core.scan(code));
    expect(verdict).toMatchObject({ kind: 'admit', offline: true });
    expect(loads).toHaveBeenCalledTimes(1);
    expect(writes).toEqual([
      { method: 'insertScan', inTransaction: true },
      { method: 'decideScan', inTransaction: true },
    ]);
    expect(atomically).toHaveBeenCalledTimes(1);
    vi.restoreAllMocks();
    await core.close();

    const store = LocalStore.open(join(dir.dir, 'kiosk.db'));
    const [stored] = store.dueScans(Number.MAX_SAFE_INTEGER, 10).filter((s) => s.tid === tid);
    store.close();
    expect(stored).toMatchObject({ queue_state: 'pending', admitted_at: verdict.decided_at, admitted_offline: true, verdict });
    expect(isUuidV4(stored!.idempotency_key)).toBe(true);
  });

  it('takes the offline path after the online budget when the issuer does not answer', async () => {
    const core = await enrolledCore({ onlineBudgetMs: 300 });
    issuer.hang = true;
    const started = Date.now();
    const verdict = verdictOf(await core.scan(issuer.issueTicket().code));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(verdict).toMatchObject({ kind: 'admit', offline: true });
    issuer.hang = false;
    await core.drain();
    const keys = issuer.checkInRequests().map((r) => (r.body as { idempotency_key: string }).idempotency_key);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]); // the timed-out attempt and the drain are one scan attempt
  });

  it('keeps an offline admission the issuer answers already_used as a double admission', async () => {
    const core = await enrolledCore();
    issuer.down = true;
    const { code, tid } = issuer.issueTicket({ hn: 'Grace H.' });
    expect(verdictOf(await core.scan(code)).kind).toBe('admit');
    issuer.tickets.get(tid)!.checked_in_at = '2026-06-01T18:30:00.000Z'; // another door let it in meanwhile
    issuer.down = false;
    await core.drain();
    const state = await core.getState();
    expect(state.double_admissions).toEqual([
      {
        tid,
        eid: issuer.eid,
        holder_name: 'Grace H.',
        admitted_here_at: expect.any(String),
        first_checked_in_at: '2026-06-01T18:30:00.000Z',
        conflict: 'already_used',
      },
    ]);
  });

  it('strict policy refuses offline, and a rescan resends the same request when the issuer is back', async () => {
    const core = await enrolledCore({ offlinePolicy: 'strict' });
    issuer.down = true;
    const { code } = issuer.issueTicket();
    expect(verdictOf(await core.scan(code))).toMatchObject({ kind: 'refuse', reason: 'offline', offline: true });
    expect((await core.getState()).pending_scans).toBe(0); // held, never checked in behind the holder's back
    expect((await core.drain())?.settled).toHaveLength(0);
    issuer.down = false;
    passTheRepeatWindow();
    expect(verdictOf(await core.scan(code))).toMatchObject({ kind: 'admit', offline: false });
    const keys = issuer.checkInRequests().map((r) => (r.body as { idempotency_key: string }).idempotency_key);
    expect(new Set(keys).size).toBe(1);
  });

  it('a kiosk restarted offline still verifies with the persisted discovery document and queue', async () => {
    const first = await enrolledCore();
    issuer.down = true;
    const a = issuer.issueTicket();
    expect(verdictOf(await first.scan(a.code)).kind).toBe('admit');
    await first.close();

    const second = openCore();
    expect(await second.getState()).toMatchObject({ enrolled: true, pending_scans: 1 });
    expect(verdictOf(await second.scan(a.code))).toMatchObject({ reason: 'already_used' });
    expect(verdictOf(await second.scan(issuer.issueTicket().code))).toMatchObject({ kind: 'admit', offline: true });
    const forged = issuer.issueTicket({}, { ...makeSigningKey(42), key: issuer.signingKeys[0]!.key });
    expect(verdictOf(await second.scan(forged.code))).toMatchObject({ reason: 'invalid_signature' });
    issuer.down = false;
    await second.drain();
    expect((await second.getState()).pending_scans).toBe(0);
    expect(issuer.signatureReports).toHaveLength(1);
  });

  it('honours Retry-After on 429 while draining', async () => {
    let clock = Date.now();
    const core = await enrolledCore({ now: () => clock });
    issuer.down = true;
    await core.scan(issuer.issueTicket().code);
    issuer.down = false;
    issuer.rateLimit = { count: 1, retryAfterS: 7 };
    const report = await core.drain();
    expect(report).toMatchObject({ stop: 'rate_limited', retryAt: clock + 7000 });
    expect((await core.drain())?.settled).toHaveLength(0); // not due yet
    clock += 7000;
    expect((await core.drain())?.settled).toHaveLength(1);
  });

  it('a 429 at the door admits per policy and holds the scan back for Retry-After', async () => {
    let clock = Date.now();
    const core = await enrolledCore({ now: () => clock });
    issuer.rateLimit = { count: 1, retryAfterS: 5 };
    expect(verdictOf(await core.scan(issuer.issueTicket().code))).toMatchObject({ kind: 'admit', offline: true });
    expect((await core.drain())?.settled).toHaveLength(0);
    clock += 5000;
    expect((await core.drain())?.settled.map((s) => s.result_status)).toEqual(['valid']);
  });

  it('drains in the background when autoDrain is on', async () => {
    const core = await enrolledCore({ autoDrain: true, backoff: { baseMs: 50, maxMs: 100 } });
    issuer.down = true;
    await core.scan(issuer.issueTicket().code);
    await core.scan(issuer.issueTicket().code);
    const states: KioskState[] = [];
    core.onStateChange((s) => states.push(s));
    issuer.down = false;
    await waitFor(async () => (await core.getState()).pending_scans === 0);
    expect(states.at(-1)).toMatchObject({ pending_scans: 0, connection: 'online' });
  });
});

describe('keys and discovery', () => {
  it('an unknown kid triggers one discovery refetch and verifies with the rotated key', async () => {
    const core = await enrolledCore();
    const rotated = makeSigningKey(2, '2026-05-01T00:00:00Z');
    issuer.signingKeys = [issuer.signingKeys[0]!, rotated];
    const before = discoveryFetches();
    expect(verdictOf(await core.scan(issuer.issueTicket({}, rotated).code)).kind).toBe('admit');
    expect(discoveryFetches()).toBe(before + 1);
  });

  it('garbage with random kids cannot hammer the issuer: refetches are rate-limited', async () => {
    const core = await enrolledCore({ discoveryMinRefetchIntervalMs: 60_000 });
    const before = discoveryFetches();
    for (let i = 0; i < 5; i++) {
      const stranger = makeSigningKey(50 + i);
      expect(verdictOf(await core.scan(issuer.issueTicket({}, stranger).code))).toMatchObject({ reason: 'unknown_key' });
    }
    expect(discoveryFetches() - before).toBeLessThanOrEqual(1);
  });

  it('refreshes a document older than one hour, and keeps the old one when the refresh fails', async () => {
    let clock = Date.now();
    const core = await enrolledCore({ now: () => clock });
    const before = discoveryFetches();
    clock += 61 * 60_000;
    issuer.discoveryOverride = () => ({ broken: true });
    expect(verdictOf(await core.scan(issuer.issueTicket().code)).kind).toBe('admit');
    await waitFor(async () => discoveryFetches() > before);
    expect(verdictOf(await core.scan(issuer.issueTicket().code)).kind).toBe('admit');
    const store = LocalStore.open(join(dir.dir, 'kiosk.db'));
    expect(store.getDiscovery(issuer.url)?.document.name).toBe('Loopback Tickets');
    store.close();
  });
});

function discoveryFetches(): number {
  return issuer.requests.filter((r) => r.path === '/.well-known/ticket-issuer.json').length;
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
