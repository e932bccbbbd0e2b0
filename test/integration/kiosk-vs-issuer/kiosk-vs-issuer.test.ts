/**
 * The kiosk core against the REAL issuer: issuer/server.ts on a loopback port
 * (plain HTTP), a real KioskCore on a temp SQLite file, the API key in the
 * real OS keyring. Admin changes (revocations, key rotation) are made on the
 * issuer's database through its own store functions while it serves.
 *
 *   scripts/with-keyring.sh npx vitest run test/integration/kiosk-vs-issuer
 */
import Database from 'better-sqlite3';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeTicketCode, encodeBase64Url, utf8Encode } from '../../../protocol/index.js';
import type { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import { DEFAULT_REPEAT_READ_WINDOW_MS, VERDICT_ON_SCREEN_MS } from '../../../main/kiosk/decide/repeat-reads.js';
import { enrollWith, eventually, KioskHarness, verdictOf } from './helpers/kiosk.js';
import { RealIssuer } from './helpers/real-issuer.js';
import { useIssuerAndKiosks } from './helpers/rig.js';

const rig = useIssuerAndKiosks();

/** A kiosk enrolled with the real issuer through a real setup code. */
async function enrolledKiosk(label = 'main', options: Parameters<KioskHarness['open']>[1] = {}): Promise<KioskCore> {
  const keys = rig.kiosks.keychain(label);
  rig.kiosks.track(keys);
  const core = rig.kiosks.open(keys, { db: `${label}.db`, ...options });
  await enrollWith(core, rig.issuer.setupCode().code);
  return core;
}

/** The kiosk's own record of its scans of `tid`, read from its SQLite file (a second, read-only connection). */
function kioskScans(label: string, tid: string): { idempotency_key: string; queue_state: string; result_status: string | null }[] {
  const db = new Database(join(rig.kiosks.dir, `${label}.db`), { readonly: true });
  try {
    return db.prepare('SELECT idempotency_key, queue_state, result_status FROM scans WHERE tid = ? ORDER BY seq').all(tid) as never;
  } finally {
    db.close();
  }
}

describe('enrollment', () => {
  it('enrolls from a real setup code: the state shows the event, the key is in the keyring and nowhere else', async () => {
    const keys = rig.kiosks.keychain('main');
    rig.kiosks.track(keys);
    const core = rig.kiosks.open(keys, { db: 'main.db' });
    const { code, tokenId } = rig.issuer.setupCode();

    const result = await core.scan(code);

    expect(result).toMatchObject({ type: 'enrolled', issuer_name: 'Harbour Tickets', event_name: 'Autumn Festival', gate_id: null });
    const state = await core.getState();
    expect(state).toMatchObject({
      enrolled: true,
      authorised: true,
      issuer: { iss: rig.issuer.url, name: 'Harbour Tickets' },
      event: { eid: rig.issuer.event.eid, name: 'Autumn Festival', date: rig.issuer.event.date },
    });
    expect(rig.issuer.tokenUsed(tokenId)).toBe(true);
    const row = rig.issuer.fx.db.prepare('SELECT api_key_id, scanner_id FROM api_keys WHERE token_id = ?').get(tokenId) as {
      api_key_id: string;
      scanner_id: string;
    };
    expect(state.api_key_id).toBe(row.api_key_id);
    expect(row.scanner_id).toBe(state.scanner.id);

    // Spec "Authentication" 8: the key is in the keyring (this kiosk's own entry), not in the state, the database or its WAL.
    const apiKey = await keys.loadApiKey({ iss: rig.issuer.url, scanner_id: state.scanner.id });
    expect(apiKey).toEqual(expect.any(String));
    expect(JSON.stringify(state)).not.toContain(apiKey!);
    await core.scan(rig.issuer.issueTicket().code);
    for (const file of readdirSync(rig.kiosks.dir)) expect(readFileSync(join(rig.kiosks.dir, file)).includes(apiKey!), file).toBe(false);
  });
});

describe('online verdicts from the real issuer', () => {
  it('admits a valid ticket and the issuer records the check-in by this scanner', async () => {
    const core = await enrolledKiosk();
    const { tid, code } = rig.issuer.issueTicket({ holderName: 'Ada Lovelace' });

    const verdict = verdictOf(await core.scan(code));

    expect(verdict).toMatchObject({ kind: 'admit', offline: false, decided_by: 'issuer', ticket: { tid, holder_name: 'Ada Lovelace' } });
    const checkin = rig.issuer.checkin(tid);
    expect(checkin).toMatchObject({
      scanner_id: (await core.getState()).scanner.id,
      idempotency_key: kioskScans('main', tid)[0]!.idempotency_key,
    });
  });

  it('refuses the same ticket as already_used with the first-use time: here locally, at another kiosk from the issuer', async () => {
    // The kiosk's clock: moved past the repeat window, so the second scan is a new scan, not a double read.
    let clockOffsetMs = 0;
    const core = await enrolledKiosk('main', { now: () => Date.now() + clockOffsetMs });
    const { tid, code } = rig.issuer.issueTicket();
    const first = verdictOf(await core.scan(code));
    expect(first.kind).toBe('admit');

    clockOffsetMs += Math.max(DEFAULT_REPEAT_READ_WINDOW_MS, VERDICT_ON_SCREEN_MS.admit) + 1;
    const again = verdictOf(await core.scan(code));
    expect(again).toMatchObject({ kind: 'refuse', reason: 'already_used', first_used_at: first.decided_at, decided_by: 'seen_here' });

    const other = await enrolledKiosk('other');
    const elsewhere = verdictOf(await other.scan(code));
    expect(elsewhere).toMatchObject({ kind: 'refuse', reason: 'already_used', offline: false, decided_by: 'issuer' });
    expect(elsewhere.kind === 'refuse' && elsewhere.first_used_at).toBe(rig.issuer.checkin(tid)!.checked_in_at);
  });

  it('refuses a ticket revoked while the issuer runs', async () => {
    const core = await enrolledKiosk();
    const { tid, code } = rig.issuer.issueTicket();
    await rig.issuer.revokeTicket(tid);

    expect(verdictOf(await core.scan(code))).toMatchObject({
      kind: 'refuse',
      reason: 'revoked',
      offline: false,
      decided_by: 'issuer',
      ticket: { tid },
    });
    expect(rig.issuer.checkin(tid)).toBeUndefined();
  });

  it('refuses a ticket of another event as wrong_event, naming that event', async () => {
    const core = await enrolledKiosk();
    const otherEvent = rig.issuer.fx.createEvent({ name: 'Winter Ball' });
    const { tid, code } = rig.issuer.issueTicket({ eid: otherEvent.eid });

    const verdict = verdictOf(await core.scan(code));

    expect(verdict).toMatchObject({
      kind: 'refuse',
      reason: 'wrong_event',
      ticket: { tid, eid: otherEvent.eid, event_name: 'Winter Ball' },
    });
    expect(verdict.kind === 'refuse' && verdict.detail).toContain(otherEvent.eid);
    expect(rig.issuer.checkin(tid)).toBeUndefined();
  });

  it('refuses an expired ticket', async () => {
    const core = await enrolledKiosk();
    const { tid, code } = rig.issuer.issueTicket({ expiresAt: new Date(Date.now() - 60_000) });

    expect(verdictOf(await core.scan(code))).toMatchObject({ kind: 'refuse', reason: 'expired', ticket: { tid } });
    expect(rig.issuer.checkin(tid)).toBeUndefined();
  });

  it('refuses a forged signature and the issuer logs the report in its scan_log', async () => {
    const core = await enrolledKiosk();
    const { tid, code } = rig.issuer.issueTicket({ holderName: 'Ada Lovelace' });
    // The real ticket's signature over a doctored payload ("VIP" for the holder).
    const real = decodeTicketCode(code);
    const forgedPayload = encodeBase64Url(utf8Encode(JSON.stringify({ ...real.payload, tt: 'VIP', hn: 'Mallory' })));
    const forged = `tkt1.${forgedPayload}.${code.split('.')[2]}`;

    const verdict = verdictOf(await core.scan(forged));
    expect(verdict).toMatchObject({ kind: 'refuse', reason: 'invalid_signature', decided_by: 'signature' });
    expect(verdict.ticket).toBeUndefined(); // an unauthenticated holder name is never shown

    const report = await core.drain();
    expect(report?.stop).toBe('empty');
    const state = await core.getState();
    expect(state.pending_scans).toBe(0);
    const logged = await rig.issuer.scanLog('invalid_signature');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ tid, eid: rig.issuer.event.eid, scanner_id: state.scanner.id, api_key_id: state.api_key_id });
    expect(kioskScans('main', tid)).toMatchObject([{ queue_state: 'done', result_status: 'signature_reported' }]);
    expect(rig.issuer.checkin(tid)).toBeUndefined();
  });

  it('refuses garbage as not_a_ticket without asking the issuer', async () => {
    const core = await enrolledKiosk();
    for (const text of ['hello world', 'tkt1.!!!.???', 'https://example.org/ticket/42']) {
      expect(verdictOf(await core.scan(text))).toMatchObject({ kind: 'refuse', reason: 'not_a_ticket' });
    }
    expect(rig.issuer.checkinCount()).toBe(0);
  });

  it('looks a ticket status up without checking it in', async () => {
    const core = await enrolledKiosk();
    const { tid, code } = rig.issuer.issueTicket({ holderName: 'Grace Hopper' });

    expect(await core.lookupStatus(code)).toMatchObject({ type: 'status', status: { tid, status: 'valid', holder_name: 'Grace Hopper' } });
    expect(rig.issuer.checkin(tid)).toBeUndefined();
    await core.scan(code);
    expect(await core.lookupStatus(tid)).toMatchObject({
      type: 'status',
      status: { tid, status: 'checked_in', checked_in_at: rig.issuer.checkin(tid)!.checked_in_at },
    });
    expect(await core.lookupStatus('01HZZZZZZZZZZZZZZZZZZZZZZZ')).toEqual({ type: 'not_found' });
  });
});

describe('offline and back', () => {
  it('admits offline while the issuer is stopped, then drains to zero after a restart on the same port and data', async () => {
    const core = await enrolledKiosk('main', { autoDrain: true, backoff: { baseMs: 100, maxMs: 400 } });
    const { tid, code } = rig.issuer.issueTicket();
    await rig.issuer.stop();

    const verdict = verdictOf(await core.scan(code));
    expect(verdict).toMatchObject({ kind: 'admit', offline: true, decided_by: 'offline_policy' });
    expect(await core.getState()).toMatchObject({ connection: 'offline', pending_scans: 1 });
    expect(rig.issuer.checkin(tid)).toBeUndefined();

    await rig.issuer.start();
    // The background drain finds the issuer back by itself.
    await eventually(async () => (await core.getState()).pending_scans === 0);

    const [scan] = kioskScans('main', tid);
    expect(scan).toMatchObject({ queue_state: 'done', result_status: 'valid' });
    expect(rig.issuer.checkin(tid)).toMatchObject({
      idempotency_key: scan!.idempotency_key,
      scanner_id: (await core.getState()).scanner.id,
    });
    expect((await core.getState()).connection).toBe('online');
  });

  it('a long queue leaves room in the rate limit for the door: the drain stops short of it and a live scan is answered online', async () => {
    await rig.issuer.cleanup();
    rig.issuer = await (await RealIssuer.create({ scannerRpm: 40 })).start();
    const core = await enrolledKiosk('main');
    const queued = Array.from({ length: 40 }, () => rig.issuer.issueTicket());
    const live = rig.issuer.issueTicket();
    await rig.issuer.stop();
    for (const { code } of queued) expect(verdictOf(await core.scan(code))).toMatchObject({ kind: 'admit', offline: true });
    await rig.issuer.start();

    const before = Date.now();
    const report = await core.drain();
    // 40 a minute, 10 kept for the door (queue-drain.ts liveScanReserve): the drain stops once 10 or fewer
    // are left, counting its own requests still in flight (8 at a time) as spent.
    expect(report).toMatchObject({ stop: 'leaving_room' });
    expect(report!.settled.length).toBeGreaterThanOrEqual(23);
    expect(report!.settled.length).toBeLessThanOrEqual(31);
    expect(report!.retryAt).toBeGreaterThan(before);
    expect(report!.retryAt).toBeLessThanOrEqual(Date.now() + 60_000);
    expect((await core.getState()).pending_scans).toBe(40 - report!.settled.length);

    // The next guest is answered by the issuer, not refused or admitted offline after a 429.
    expect(verdictOf(await core.scan(live.code))).toMatchObject({ kind: 'admit', offline: false, decided_by: 'issuer' });
  });

  it('while the background drain leaves room, live scans answered online do not restart it', async () => {
    await rig.issuer.cleanup();
    rig.issuer = await (await RealIssuer.create({ scannerRpm: 40 })).start();
    const core = await enrolledKiosk('main', { autoDrain: true, backoff: { baseMs: 100, maxMs: 400 } });
    const queued = Array.from({ length: 40 }, () => rig.issuer.issueTicket());
    const live = Array.from({ length: 5 }, () => rig.issuer.issueTicket());
    await rig.issuer.stop();
    for (const { code } of queued) expect(verdictOf(await core.scan(code))).toMatchObject({ kind: 'admit', offline: true });
    await rig.issuer.start();

    // The background drain finds the issuer back and stops with 10 or fewer requests of the window left.
    const checkIns = () => (rig.issuer.fx.db.prepare('SELECT COUNT(*) AS n FROM checkins').get() as { n: number }).n;
    // It stops near 30 (40 a minute less 10 for the door): one earlier when two of its requests overtook each
    // other on the way, since each answer's remaining budget then counts one more. Wait until nothing more lands.
    await eventually(() => checkIns() >= 23);
    let drained = checkIns();
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 500)); // requests still in flight land
      if (checkIns() === drained) break;
      drained = checkIns();
    }
    expect(drained).toBeGreaterThanOrEqual(23);
    expect(drained).toBeLessThanOrEqual(31);
    const pending = (await core.getState()).pending_scans;
    expect(pending).toBe(40 - drained);

    // Every guest meanwhile is answered by the issuer, and none of their scans sends more of the queue.
    for (const { code } of live) expect(verdictOf(await core.scan(code))).toMatchObject({ kind: 'admit', offline: false });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(checkIns()).toBe(drained + live.length);
    expect((await core.getState()).pending_scans).toBe(pending);
  });

  it('reports a double admission: admitted here offline, checked in elsewhere first', async () => {
    const here = await enrolledKiosk('here');
    const elsewhere = await enrolledKiosk('elsewhere');
    const { tid, code } = rig.issuer.issueTicket({ holderName: 'Alan Turing' });

    await rig.issuer.stop();
    expect(verdictOf(await here.scan(code))).toMatchObject({ kind: 'admit', offline: true });
    await rig.issuer.start();
    // The other door reaches the issuer first.
    expect(verdictOf(await elsewhere.scan(code))).toMatchObject({ kind: 'admit', offline: false });

    await here.drain();

    const state = await here.getState();
    expect(state.pending_scans).toBe(0);
    expect(state.double_admissions).toEqual([
      {
        tid,
        eid: rig.issuer.event.eid,
        holder_name: 'Alan Turing',
        admitted_here_at: expect.any(String),
        first_checked_in_at: rig.issuer.checkin(tid)!.checked_in_at,
        conflict: 'already_used',
      },
    ]);
    expect(rig.issuer.checkin(tid)!.scanner_id).toBe((await elsewhere.getState()).scanner.id);
  });
});

describe('scanner keys and signing keys', () => {
  it('a scanner revoked on the issuer gets scanner_unauthorized, not a ticket refusal', async () => {
    const core = await enrolledKiosk();
    await rig.issuer.revokeScanner((await core.getState()).api_key_id!);
    const { tid, code } = rig.issuer.issueTicket();

    const result = await core.scan(code);

    expect(result).toMatchObject({ type: 'scanner_unauthorized' });
    expect(await core.getState()).toMatchObject({ authorised: false });
    expect(await core.lookupStatus(tid)).toMatchObject({ type: 'scanner_unauthorized' });
    expect(rig.issuer.checkin(tid)).toBeUndefined();
  });

  it('after a key rotation, a ticket signed with the new key verifies after the unknown-kid refetch', async () => {
    const core = await enrolledKiosk();
    const before = rig.issuer.issueTicket();
    const newKid = await rig.issuer.rotateKey();
    const [ticket] = await rig.issuer.issueWithActiveKey(1);
    expect(decodeTicketCode(ticket!.code).payload.kid).toBe(newKid);

    expect(verdictOf(await core.scan(ticket!.code))).toMatchObject({ kind: 'admit', offline: false, ticket: { tid: ticket!.tid } });
    // A ticket issued before the rotation still verifies: the retired key stays published while its tickets live.
    expect(verdictOf(await core.scan(before.code))).toMatchObject({ kind: 'admit', offline: false });
    expect(rig.issuer.checkin(ticket!.tid)).toBeDefined();
  });
});
