/**
 * Door operations (docs/protocol.md "Door operations", docs/kiosk.md "Exit
 * scans", "Annul at the door", "Offline exposure policy"): KioskCore against
 * the REAL issuer on a loopback port, real SQLite files, the API key in the
 * real OS keyring. The issuer is stopped to make the kiosk offline and started
 * again on the same port.
 *
 *   scripts/with-keyring.sh npx vitest run test/integration/kiosk-vs-issuer/door-operations.test.ts
 */
import { describe, expect, it } from 'vitest';
import { decodeSetupCode, encodeSetupCode, type GateDirection } from '../../../protocol/index.js';
import type { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import { enrollWith, verdictOf } from './helpers/kiosk.js';
import { useIssuerAndKiosks } from './helpers/rig.js';

const rig = useIssuerAndKiosks();

interface DoorKiosk {
  direction?: GateDirection;
  canAnnul?: boolean;
}

/** A kiosk enrolled through a real setup code carrying `direction`, whose token gives the annul right when asked. */
async function doorKiosk(label: string, { direction, canAnnul = false }: DoorKiosk = {}): Promise<KioskCore> {
  const keys = rig.kiosks.keychain(label);
  rig.kiosks.track(keys);
  const core = rig.kiosks.open(keys, { db: `${label}.db`, heartbeatIntervalMs: 0, now: rig.clock });
  const { code, tokenId } = rig.issuer.setupCode();
  rig.issuer.fx.db
    .prepare('UPDATE enrollment_tokens SET role = ?, direction = ? WHERE token_id = ?')
    .run(canAnnul ? 'supervisor' : 'steward', direction ?? null, tokenId);
  await enrollWith(core, direction ? encodeSetupCode({ ...decodeSetupCode(code), direction }) : code);
  await core.heartbeat();
  return core;
}

function setEvent(fields: { entry_policy?: 'single' | 'reentry'; capacity?: number | null }): void {
  for (const [column, value] of Object.entries(fields)) {
    rig.issuer.fx.db.prepare(`UPDATE events SET ${column} = ? WHERE eid = ?`).run(value, rig.issuer.event.eid);
  }
}

function setOfflinePolicy(ticketType: string, policy: 'online-only' | 'offline' | 'capped', cap: number | null = null): void {
  rig.issuer.fx.db
    .prepare(
      `INSERT INTO offline_policies (eid, ticket_type, policy, cap_per_hour, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (eid, ticket_type) DO UPDATE SET policy = excluded.policy, cap_per_hour = excluded.cap_per_hour`,
    )
    .run(rig.issuer.event.eid, ticketType, policy, cap, new Date().toISOString());
}

function ticketOfType(ticketType: string): { tid: string; code: string } {
  const ticket = rig.issuer.fx.issueTicket(rig.issuer.event.eid, { ticketType });
  return { tid: ticket.tid, code: ticket.qr };
}

const outcome = async (core: KioskCore, code: string): Promise<string> => {
  const verdict = verdictOf(await core.scan(code));
  rig.skew += 7_000;
  return verdict.kind === 'refuse' ? `refuse:${verdict.reason}` : `${verdict.kind}${verdict.offline ? ' (offline)' : ''}`;
};

describe('direction', () => {
  it('takes the setup code direction, shows it in the state and lets staff change it', async () => {
    const core = await doorKiosk('gate', { direction: 'exit' });
    expect((await core.getState()).direction).toBe('exit');
    await core.setDirection('entry');
    expect((await core.getState()).direction).toBe('entry');
    const ticket = rig.issuer.issueTicket();
    expect(await outcome(core, ticket.code)).toBe('admit');
  });
});

describe('exits and re-entry against the real issuer', () => {
  it('entry → exit → entry on a re-entry event; the issuer records each', async () => {
    setEvent({ entry_policy: 'reentry' });
    const entry = await doorKiosk('entry');
    const exit = await doorKiosk('exit', { direction: 'exit' });
    const ticket = rig.issuer.issueTicket();

    expect(await outcome(entry, ticket.code)).toBe('admit');
    expect(await outcome(entry, ticket.code)).toBe('refuse:already_used');
    expect(await outcome(exit, ticket.code)).toBe('exit');
    expect(await outcome(entry, ticket.code)).toBe('admit');
    const actions = rig.issuer.fx.db.prepare('SELECT action FROM admission_events WHERE tid = ? ORDER BY id').all(ticket.tid);
    expect(actions).toEqual([{ action: 'entry' }, { action: 'exit' }, { action: 'entry' }]);
  });

  it('refuses an exit of a ticket that never entered (not_inside)', async () => {
    const exit = await doorKiosk('exit', { direction: 'exit' });
    const verdict = verdictOf(await exit.scan(rig.issuer.issueTicket().code));
    expect(verdict).toMatchObject({ kind: 'refuse', reason: 'not_inside', offline: false });
  });

  it('offline, an exit kiosk lets people out, queues the exits and syncs them in another order than the entries', async () => {
    const entry = await doorKiosk('entry');
    const exit = await doorKiosk('exit', { direction: 'exit' });
    const first = rig.issuer.issueTicket();
    const second = rig.issuer.issueTicket();
    expect(await outcome(entry, second.code)).toBe('admit');
    expect(await outcome(entry, first.code)).toBe('admit');

    await rig.issuer.stop();
    // Exits of tickets this kiosk never admitted: allowed offline (they entered at another gate).
    expect(await outcome(exit, first.code)).toBe('exit (offline)');
    expect(await outcome(exit, second.code)).toBe('exit (offline)');
    expect((await exit.getState()).pending_scans).toBe(2);

    await rig.issuer.start();
    const report = await exit.drain();
    expect(report?.settled.map((scan) => scan.result_status)).toEqual(['exited', 'exited']);
    const presence = rig.issuer.fx.db.prepare(`SELECT state FROM checkins WHERE tid IN (?, ?)`).all(first.tid, second.tid) as {
      state: string;
    }[];
    expect(presence.map((row) => row.state)).toEqual(['outside', 'outside']);
    const offlineFlags = rig.issuer.fx.db
      .prepare(`SELECT admitted_offline FROM admission_events WHERE action = 'exit' ORDER BY id`)
      .all() as {
      admitted_offline: number;
    }[];
    // The first exit's request went out before the kiosk knew it was offline, so it is replayed as first sent (no
    // admitted_offline: the issuer's idempotency compares the whole body); the second was decided with no request.
    expect(offlineFlags).toEqual([{ admitted_offline: 0 }, { admitted_offline: 1 }]);
  });
});

describe('annul at the door', () => {
  it('annuls a fresh check-in with the right; a rescan then admits', async () => {
    const entry = await doorKiosk('entry', { canAnnul: true });
    expect((await entry.getState()).door?.can_annul).toBe(true);
    const ticket = rig.issuer.issueTicket();
    expect(await outcome(entry, ticket.code)).toBe('admit');

    expect(await entry.annul(ticket.tid, 'admitted by mistake')).toEqual({ type: 'annulled', tid: ticket.tid });
    expect(await outcome(entry, ticket.code)).toBe('admit');
    const reasons = rig.issuer.fx.db.prepare(`SELECT action, reason FROM admission_events WHERE tid = ? ORDER BY id`).all(ticket.tid);
    expect(reasons).toEqual([
      { action: 'entry', reason: null },
      { action: 'annul', reason: 'admitted by mistake' },
      { action: 'entry', reason: null },
    ]);
  });

  it('without the right: a clear message, from the heartbeat and from the issuer’s 403', async () => {
    const plain = await doorKiosk('plain');
    const ticket = rig.issuer.issueTicket();
    expect(await outcome(plain, ticket.code)).toBe('admit');
    expect(await plain.annul(ticket.tid, 'mistake')).toMatchObject({
      type: 'not_allowed',
      message: expect.stringContaining('may not annul'),
    });

    // The right withdrawn after the last heartbeat: the issuer says 403 action_not_allowed; the key still works.
    const annuller = await doorKiosk('annuller', { canAnnul: true });
    const other = rig.issuer.issueTicket();
    expect(await outcome(annuller, other.code)).toBe('admit');
    rig.issuer.fx.db.prepare("UPDATE api_keys SET role = 'steward'").run();
    expect(await annuller.annul(other.tid, 'mistake')).toMatchObject({ type: 'not_allowed' });
    expect((await annuller.getState()).authorised).toBe(true);
    expect(await outcome(annuller, rig.issuer.issueTicket().code)).toBe('admit');
  });

  it("a supervisor's staff badge lets a steward's kiosk annul: the annulment carries the badge, the issuer records its staff id", async () => {
    const door = await doorKiosk('steward-key');
    expect((await door.getState()).door?.can_annul).toBe(false);
    const ticket = rig.issuer.issueTicket();
    expect(await outcome(door, ticket.code)).toBe('admit');

    // A steward's badge unlocks, but neither the key nor the badge may annul: no Undo, and the kiosk says why.
    expect(await door.scan(await rig.issuer.staffBadge('steward', 'stf_sam', 'Sam'))).toMatchObject({ type: 'staff_unlocked' });
    expect((await door.getState()).door?.can_annul).toBe(false);
    expect(await door.annul(ticket.tid, 'mistake')).toMatchObject({ type: 'not_allowed' });

    // docs/protocol.md "Roles and rights": a supervisor's badge goes with the annulment, and the issuer allows it by the badge.
    expect(await door.scan(await rig.issuer.staffBadge('supervisor', 'stf_kim'))).toMatchObject({ type: 'staff_unlocked' });
    expect((await door.getState()).door?.can_annul).toBe(true);
    expect(await door.annul(ticket.tid, 'wrong person')).toEqual({ type: 'annulled', tid: ticket.tid });
    const events = rig.issuer.fx.db
      .prepare('SELECT action, reason, staff_id FROM admission_events WHERE tid = ? ORDER BY id')
      .all(ticket.tid);
    expect(events).toEqual([
      { action: 'entry', reason: null, staff_id: null },
      { action: 'annul', reason: 'wrong person', staff_id: 'stf_kim' },
    ]);
  });

  it('refuses to annul a check-in older than the window', async () => {
    const entry = await doorKiosk('entry', { canAnnul: true });
    const ticket = rig.issuer.issueTicket();
    expect(await outcome(entry, ticket.code)).toBe('admit');
    const late = rig.kiosks.open(rig.kiosks.keychain('entry'), {
      db: 'entry.db',
      heartbeatIntervalMs: 0,
      now: () => rig.clock() + 3 * 60_000,
    });
    await entry.close();
    expect(await late.annul(ticket.tid, 'mistake')).toMatchObject({ type: 'too_late' });
  });
});

describe('offline exposure policy', () => {
  it('online-only: admitted online, refused offline with "needs connection"', async () => {
    setOfflinePolicy('VIP', 'online-only');
    const entry = await doorKiosk('entry');
    expect(await outcome(entry, ticketOfType('VIP').code)).toBe('admit');
    await rig.issuer.stop();
    expect(await outcome(entry, ticketOfType('VIP').code)).toBe('refuse:needs_connection');
    expect(await outcome(entry, ticketOfType('Standard').code)).toBe('admit (offline)');
  });

  it('capped: offline admissions up to the cap per rolling hour, then refused with the count; online unaffected', async () => {
    setOfflinePolicy('Day', 'capped', 2);
    const entry = await doorKiosk('entry');
    expect(await outcome(entry, ticketOfType('Day').code)).toBe('admit');
    await rig.issuer.stop();
    expect(await outcome(entry, ticketOfType('Day').code)).toBe('admit (offline)');
    expect(await outcome(entry, ticketOfType('Day').code)).toBe('admit (offline)');
    const refused = verdictOf(await entry.scan(ticketOfType('Day').code));
    expect(refused).toMatchObject({ kind: 'refuse', reason: 'offline_cap_reached', offline_count: 2, offline_cap: 2 });
    const state = await entry.getState();
    expect(state.offline_exposure.find((row) => row.ticket_type === 'Day')).toEqual({
      ticket_type: 'Day',
      policy: 'capped',
      last_hour: 2,
      cap: 2,
      // The issuer is down: both wait in the queue.
      unsynced: 2,
    });
    await rig.issuer.start();
    expect(await outcome(entry, ticketOfType('Day').code)).toBe('admit');
  });

  it('offline (default): today’s optimistic behaviour', async () => {
    const entry = await doorKiosk('entry');
    await rig.issuer.stop();
    expect(await outcome(entry, rig.issuer.issueTicket().code)).toBe('admit (offline)');
  });

  it('a policy change reaches the kiosk with the next heartbeat, without re-enrollment, and survives a restart offline', async () => {
    const entry = await doorKiosk('entry');
    setOfflinePolicy('', 'online-only');
    await entry.heartbeat();
    await entry.close();
    await rig.issuer.stop();
    const restarted = rig.kiosks.open(rig.kiosks.keychain('entry'), { db: 'entry.db', heartbeatIntervalMs: 0, now: rig.clock });
    expect(await outcome(restarted, rig.issuer.issueTicket().code)).toBe('refuse:needs_connection');
  });
});

describe('capacity', () => {
  it('an entry admitted while the issuer did not answer, answered venue_full at sync, is sent again as admitted offline and recorded', async () => {
    setEvent({ capacity: 1 });
    const entry = await doorKiosk('entry');
    const other = await doorKiosk('other');
    const first = rig.issuer.issueTicket();
    // The kiosk believes it is online: its request goes out, finds no issuer, and the door admits offline.
    await rig.issuer.stop();
    expect(await outcome(entry, first.code)).toBe('admit (offline)');
    await rig.issuer.start();
    // Meanwhile the venue filled up at another gate.
    expect(await outcome(other, rig.issuer.issueTicket().code)).toBe('admit');
    await entry.drain();
    const rows = rig.issuer.fx.db.prepare('SELECT state FROM checkins WHERE tid = ?').all(first.tid);
    expect(rows).toEqual([{ state: 'inside' }]);
    expect(rig.issuer.fx.db.prepare('SELECT admitted_offline FROM admission_events WHERE tid = ?').all(first.tid)).toEqual([
      { admitted_offline: 1 },
    ]);
    expect((await entry.getState()).pending_scans).toBe(0);
  });

  it('venue_full from the issuer; the last heartbeat says full', async () => {
    setEvent({ capacity: 1 });
    const entry = await doorKiosk('entry');
    expect(await outcome(entry, rig.issuer.issueTicket().code)).toBe('admit');
    expect(await outcome(entry, rig.issuer.issueTicket().code)).toBe('refuse:venue_full');
    await entry.heartbeat();
    expect((await entry.getState()).door?.occupancy).toEqual({ inside: 1, capacity: 1, level: 'full' });
  });
});
