/**
 * The revocation list (docs/kiosk.md "Revocation list", docs/protocol.md "Revocation list"): KioskCore against
 * the REAL issuer on a loopback port, real SQLite files, the API key in the real OS keyring. The issuer is
 * stopped to make the kiosk offline and started again on the same port.
 *
 *   scripts/with-keyring.sh npx vitest run test/integration/kiosk-vs-issuer/revocations.test.ts
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import { RealIssuer } from './helpers/real-issuer.js';
import { enrollWith, eventually, KioskHarness, requireKeyring, testKeychain, verdictOf } from './helpers/kiosk.js';

let issuer: RealIssuer;
let kiosks: KioskHarness;
/** The kiosk's clock runs ahead by `skew`: moved on past a verdict's time on screen, so a rescan is a new scan. */
let skew = 0;
const clock = (): number => Date.now() + skew;

beforeAll(async () => {
  await requireKeyring(testKeychain('probe'));
});

beforeEach(async () => {
  issuer = await (await RealIssuer.create()).start();
  kiosks = new KioskHarness();
  skew = 0;
});

afterEach(async () => {
  await kiosks.cleanup();
  await issuer.cleanup();
});

/** A kiosk with no timers (the tests call syncRevocations), enrolled through a real setup code. */
async function gate(label = 'gate', enroll = true): Promise<KioskCore> {
  const keys = kiosks.keychain(label);
  kiosks.track(keys, issuer.url);
  const core = kiosks.open(keys, { db: `${label}.db`, heartbeatIntervalMs: 0, revocationSyncIntervalMs: 0, now: clock });
  if (enroll) await enrollWith(core, issuer.setupCode().code);
  return core;
}

describe('revocation list against the real issuer', () => {
  it('revoked at the issuer, synced online, refused offline with the time of the last sync; a restart keeps the list', async () => {
    const core = await gate();
    const revoked = issuer.issueTicket({ holderName: 'Refunded Guest' });
    const fine = issuer.issueTicket();
    await issuer.revokeTicket(revoked.tid);

    await core.syncRevocations();
    const state = await core.getState();
    expect(state.revocations).toMatchObject({ count: 1, max_age_ms: 15 * 60_000 });
    const syncedAt = state.revocations!.synced_at!;
    expect(Date.parse(syncedAt)).toBeGreaterThan(Date.now() - 60_000);

    await issuer.stop();
    const verdict = verdictOf(await core.scan(revoked.code));
    expect(verdict).toMatchObject({
      kind: 'refuse',
      reason: 'revoked',
      offline: true,
      decided_by: 'revoked_list',
      revocations_synced_at: syncedAt,
    });
    expect(verdict.ticket?.tid).toBe(revoked.tid);
    // Known offline now: the next revoked scan is refused by the offline check itself, the others still admitted.
    skew += 7_000;
    expect(verdictOf(await core.scan(revoked.code))).toMatchObject({ reason: 'revoked', decided_by: 'revoked_list' });
    expect(verdictOf(await core.scan(fine.code))).toMatchObject({ kind: 'admit', offline: true });

    // A restart, still offline: the list and its sync time are in kiosk.db.
    await core.close();
    const again = await gate('gate', false);
    expect((await again.getState()).revocations).toMatchObject({ count: 1, synced_at: syncedAt });
    skew += 7_000;
    expect(verdictOf(await again.scan(revoked.code))).toMatchObject({ kind: 'refuse', reason: 'revoked', revocations_synced_at: syncedAt });
  });

  it('syncs only what is new, and online the issuer decides', async () => {
    const core = await gate();
    const first = issuer.issueTicket();
    const second = issuer.issueTicket();
    await issuer.revokeTicket(first.tid);
    await core.syncRevocations();
    await issuer.revokeTicket(second.tid);
    await core.syncRevocations();
    expect((await core.getState()).revocations?.count).toBe(2);
    // Online, the issuer answers (its own revoked answer, not the list's).
    expect(verdictOf(await core.scan(second.code))).toMatchObject({
      kind: 'refuse',
      reason: 'revoked',
      offline: false,
      decided_by: 'issuer',
    });

    // Behind: a minute after the last sync, a successful check-in makes the kiosk sync again by itself.
    const third = issuer.issueTicket();
    await issuer.revokeTicket(third.tid);
    skew += 61_000;
    expect(verdictOf(await core.scan(issuer.issueTicket().code))).toMatchObject({ kind: 'admit', offline: false });
    await eventually(async () => (await core.getState()).revocations?.count === 3);
  });

  it('revoked while the kiosk was offline: admitted offline, then in the conflict report after sync', async () => {
    issuer.issueTicket(); // revoked before the kiosk enrolls: its enrollment syncs the list by itself
    const early = issuer.issueTicket();
    await issuer.revokeTicket(early.tid);
    const core = await gate();
    await eventually(async () => (await core.getState()).revocations?.count === 1);
    const ticket = issuer.issueTicket({ holderName: 'Stolen Ticket' });
    await issuer.stop();
    await issuer.revokeTicket(ticket.tid); // the issuer's database, while the kiosk cannot reach it
    expect(verdictOf(await core.scan(ticket.code))).toMatchObject({ kind: 'admit', offline: true });
    expect((await core.getState()).double_admissions).toEqual([]);

    await issuer.start();
    const report = await core.drain();
    expect(report?.settled.length).toBe(1);
    await core.syncRevocations();
    const state = await core.getState();
    expect(state.double_admissions).toEqual([
      expect.objectContaining({ tid: ticket.tid, conflict: 'revoked', holder_name: 'Stolen Ticket', first_checked_in_at: null }),
    ]);
    expect(state.revocations?.count).toBe(2);
  });
});
