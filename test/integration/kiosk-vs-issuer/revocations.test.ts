/**
 * The revocation list (docs/kiosk.md "Revocation list", docs/protocol.md "Revocation list"): KioskCore against
 * the REAL issuer on a loopback port, real SQLite files, the API key in the real OS keyring. The issuer is
 * stopped to make the kiosk offline and started again on the same port.
 *
 *   scripts/with-keyring.sh npx vitest run test/integration/kiosk-vs-issuer/revocations.test.ts
 */
import { describe, expect, it } from 'vitest';
import type { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import { enrollWith, eventually, verdictOf } from './helpers/kiosk.js';
import { useIssuerAndKiosks } from './helpers/rig.js';

const rig = useIssuerAndKiosks();

/** A kiosk with no timers (the tests call syncRevocations), enrolled through a real setup code. */
async function gate(label = 'gate', enroll = true): Promise<KioskCore> {
  const keys = rig.kiosks.keychain(label);
  rig.kiosks.track(keys);
  const core = rig.kiosks.open(keys, { db: `${label}.db`, heartbeatIntervalMs: 0, revocationSyncIntervalMs: 0, now: rig.clock });
  if (enroll) await enrollWith(core, rig.issuer.setupCode().code);
  return core;
}

describe('revocation list against the real issuer', () => {
  it('revoked at the issuer, synced online, refused offline with the time of the last sync; a restart keeps the list', async () => {
    const core = await gate();
    const revoked = rig.issuer.issueTicket({ holderName: 'Refunded Guest' });
    const fine = rig.issuer.issueTicket();
    await rig.issuer.revokeTicket(revoked.tid);

    await core.syncRevocations();
    const state = await core.getState();
    expect(state.revocations).toMatchObject({ count: 1, max_age_ms: 15 * 60_000 });
    const syncedAt = state.revocations!.synced_at!;
    expect(Date.parse(syncedAt)).toBeGreaterThan(Date.now() - 60_000);

    await rig.issuer.stop();
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
    rig.skew += 7_000;
    expect(verdictOf(await core.scan(revoked.code))).toMatchObject({ reason: 'revoked', decided_by: 'revoked_list' });
    expect(verdictOf(await core.scan(fine.code))).toMatchObject({ kind: 'admit', offline: true });

    // A restart, still offline: the list and its sync time are in kiosk.db.
    await core.close();
    const again = await gate('gate', false);
    expect((await again.getState()).revocations).toMatchObject({ count: 1, synced_at: syncedAt });
    rig.skew += 7_000;
    expect(verdictOf(await again.scan(revoked.code))).toMatchObject({ kind: 'refuse', reason: 'revoked', revocations_synced_at: syncedAt });
  });

  it('syncs only what is new, and online the issuer decides', async () => {
    const core = await gate();
    const first = rig.issuer.issueTicket();
    const second = rig.issuer.issueTicket();
    await rig.issuer.revokeTicket(first.tid);
    await core.syncRevocations();
    await rig.issuer.revokeTicket(second.tid);
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
    const third = rig.issuer.issueTicket();
    await rig.issuer.revokeTicket(third.tid);
    rig.skew += 61_000;
    expect(verdictOf(await core.scan(rig.issuer.issueTicket().code))).toMatchObject({ kind: 'admit', offline: false });
    await eventually(async () => (await core.getState()).revocations?.count === 3);
  });

  it('revoked while the kiosk was offline: admitted offline, then in the conflict report after sync', async () => {
    rig.issuer.issueTicket(); // revoked before the kiosk enrolls: its enrollment syncs the list by itself
    const early = rig.issuer.issueTicket();
    await rig.issuer.revokeTicket(early.tid);
    const core = await gate();
    await eventually(async () => (await core.getState()).revocations?.count === 1);
    const ticket = rig.issuer.issueTicket({ holderName: 'Stolen Ticket' });
    await rig.issuer.stop();
    await rig.issuer.revokeTicket(ticket.tid); // the issuer's database, while the kiosk cannot reach it
    expect(verdictOf(await core.scan(ticket.code))).toMatchObject({ kind: 'admit', offline: true });
    expect((await core.getState()).double_admissions).toEqual([]);

    await rig.issuer.start();
    // A background pass begun while the issuer was down may still be under way (a drain then answers that
    // pass): drain until the one waiting scan is settled, and never more than it.
    let settled = 0;
    await eventually(async () => {
      settled += (await core.drain())?.settled.length ?? 0;
      return settled >= 1;
    });
    expect(settled).toBe(1);
    await core.syncRevocations();
    const state = await core.getState();
    expect(state.double_admissions).toEqual([
      expect.objectContaining({ tid: ticket.tid, conflict: 'revoked', holder_name: 'Stolen Ticket', first_checked_in_at: null }),
    ]);
    expect(state.revocations?.count).toBe(2);
  });
});
