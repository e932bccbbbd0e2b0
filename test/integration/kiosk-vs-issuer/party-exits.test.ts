/**
 * Party exits, one answer online and offline (docs/protocol.md "Party tickets (project extension)", docs/kiosk.md
 * "Party tickets"): exits and re-entry count people. The SAME sequences of entries and exits of one party through the
 * REAL issuer (HTTP on a loopback port, a real SQLite file) and through a KioskCore that synced the notes list and
 * then lost the issuer; the kiosk asks how many leave (1 to those inside) as it asks how many come in, queues the
 * exit with its people, and once drained the issuer holds the same counts for both tickets. Online, the kiosk asks
 * from the issuer's status, and the occupancy it shows counts people.
 *
 *   scripts/with-keyring.sh npx vitest run test/integration/kiosk-vs-issuer/party-exits.test.ts
 */
import { describe, expect, it } from 'vitest';
import { decodeSetupCode, encodeSetupCode, type EntryPolicy, type GateDirection } from '../../../protocol/index.js';
import { setTicketParty } from '../../../issuer/store/party.js';
import type { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import type { ScanResult } from '../../../main/kiosk/kiosk-api.js';
import { enrollWith, verdictOf } from './helpers/kiosk.js';
import { checkInPeople } from './helpers/party.js';
import { useIssuerAndKiosks } from './helpers/rig.js';

const rig = useIssuerAndKiosks();

type Step = readonly [GateDirection, number];
type Said = 'valid' | 'exited' | 'already_used' | 'party_exceeded';
interface Counts {
  inside: number;
  admitted_total: number;
  remaining: number;
}

/** Entry policy, size, the steps (direction, people) and what the issuer and the offline kiosk say to each. */
const CASES: readonly [string, EntryPolicy, number, readonly Step[], readonly Said[]][] = [
  [
    're-entry: 3 in, 2 out, then 4 (back) in, all 5 out, 2 back',
    'reentry',
    5,
    [
      ['entry', 3],
      ['exit', 2],
      ['entry', 4],
      ['exit', 5],
      ['entry', 2],
    ],
    ['valid', 'exited', 'valid', 'exited', 'valid'],
  ],
  [
    'single entry: all 4 in, 3 out; nobody may come back',
    'single',
    4,
    [
      ['entry', 4],
      ['exit', 3],
      ['entry', 1],
    ],
    ['valid', 'exited', 'already_used'],
  ],
  [
    'single entry: 2 in, 1 out, then the other 2 in',
    'single',
    4,
    [
      ['entry', 2],
      ['exit', 1],
      ['entry', 2],
      ['exit', 3],
    ],
    ['valid', 'exited', 'valid', 'exited'],
  ],
];

function setPolicy(policy: EntryPolicy): void {
  rig.issuer.fx.db.prepare('UPDATE events SET entry_policy = ? WHERE eid = ?').run(policy, rig.issuer.event.eid);
}

/** A kiosk enrolled through a real setup code, its heartbeat (entry policy, occupancy) and notes list synced. */
async function openKiosk(name: string, direction: GateDirection = 'entry'): Promise<KioskCore> {
  const keys = rig.kiosks.keychain(name);
  rig.kiosks.track(keys);
  const kiosk = rig.kiosks.open(keys, { db: `${name}.db`, heartbeatIntervalMs: 0, now: rig.clock });
  const { code } = rig.issuer.setupCode();
  await enrollWith(kiosk, direction === 'entry' ? code : encodeSetupCode({ ...decodeSetupCode(code), direction }));
  await kiosk.heartbeat();
  await kiosk.syncRevocations();
  return kiosk;
}

/** One step at the kiosk: scan (the party screen asks), then pick `people`; the verdict, or the answer without a prompt. */
async function step(kiosk: KioskCore, qr: string, people: number): Promise<{ asked: ScanResult; result: ScanResult }> {
  const asked = await kiosk.scan(qr);
  if (asked.type !== 'party') return { asked, result: asked };
  rig.skew += 1_000;
  return { asked, result: (await kiosk.chooseParty(people)) as ScanResult };
}

const saidOf = (result: ScanResult): string => {
  const verdict = verdictOf(result);
  return verdict.kind === 'admit' ? 'valid' : verdict.kind === 'exit' ? 'exited' : verdict.reason;
};

const countsOf = (party: Counts | undefined): Counts | undefined =>
  party === undefined ? undefined : { inside: party.inside, admitted_total: party.admitted_total, remaining: party.remaining };

describe('party exits: the same steps through the issuer and through an offline kiosk', () => {
  it.each(CASES)(
    '%s',
    async (_name, policy, size, steps, expected) => {
      setPolicy(policy);
      const { fx, event } = rig.issuer;
      const atIssuer = fx.issueTicket(event.eid, { holderName: 'Ada Family' });
      const atKiosk = fx.issueTicket(event.eid, { holderName: 'Bo Family' });
      for (const ticket of [atIssuer, atKiosk]) expect(await setTicketParty(fx.sql, ticket.tid, size)).toEqual({ refusedBelow: null });

      // Online: the issuer's answers to a scanner that says how many, and its counts after each step.
      const scanner = { ...fx.enrollScanner(event.eid), url: rig.issuer.url, eid: event.eid };
      const online: string[] = [];
      const onlineCounts: (Counts | undefined)[] = [];
      for (const [action, people] of steps) {
        const body = await checkInPeople(scanner, atIssuer.tid, action, people);
        online.push(body.status);
        onlineCounts.push(countsOf(body.party));
      }
      expect(online).toEqual(expected);

      // Offline: the kiosk synced the list (with the party's size) and the policy, then lost the issuer.
      const kiosk = await openKiosk('door');
      await rig.issuer.stop();
      const offline: string[] = [];
      let before: Counts = { inside: 0, admitted_total: 0, remaining: size };
      for (const [index, [direction, people]] of steps.entries()) {
        await kiosk.setDirection(direction);
        const { asked, result } = await step(kiosk, atKiosk.qr, people);
        offline.push(saidOf(result));
        if (asked.type === 'party') {
          // The prompt offers 1 to remaining for an entry, 1 to those inside for an exit, as the issuer counted them.
          expect(asked.prompt).toMatchObject({ direction, source: 'known', ...before });
        }
        const verdict = verdictOf(result);
        if (verdict.kind !== 'refuse') {
          expect(countsOf(verdict.party)).toEqual(onlineCounts[index]);
          expect(verdict.party).toMatchObject({ people });
          before = onlineCounts[index]!;
        }
        rig.skew += 7_000;
      }
      expect(offline).toEqual(expected);

      // Drained, the issuer counted the kiosk's queued entries and exits with their people: the same as online.
      await rig.issuer.start();
      await kiosk.drain();
      const counted = (tid: string): unknown => {
        const row = rig.issuer.checkin(tid) as { party_inside: number; party_admitted: number; state: string } | undefined;
        return row === undefined ? undefined : { inside: row.party_inside, admitted: row.party_admitted, state: row.state };
      };
      expect(counted(atKiosk.tid)).toEqual(counted(atIssuer.tid));
      expect((await kiosk.getState()).pending_scans).toBe(0);
    },
    60_000,
  );

  it('online at an exit: asks how many leave (1..inside) from the issuer; a pick above is refused; the occupancy counts people; re-entry asks again', async () => {
    setPolicy('reentry');
    // The answers carry the occupancy of an event with a capacity (docs/protocol.md "Occupancy").
    rig.issuer.fx.db.prepare('UPDATE events SET capacity = 100 WHERE eid = ?').run(rig.issuer.event.eid);
    const { fx, event } = rig.issuer;
    const ticket = fx.issueTicket(event.eid, { holderName: 'Cy Party' });
    await setTicketParty(fx.sql, ticket.tid, 6);
    const kiosk = await openKiosk('door');
    expect(verdictOf((await step(kiosk, ticket.qr, 4)).result)).toMatchObject({ kind: 'admit', party: { inside: 4 } });
    expect((await kiosk.getState()).door?.occupancy.inside).toBe(4);
    rig.skew += 7_000;

    await kiosk.setDirection('exit');
    const asked = await kiosk.scan(ticket.qr);
    expect(asked).toMatchObject({ type: 'party', prompt: { direction: 'exit', inside: 4, size: 6, source: 'issuer' } });
    expect(rig.issuer.checkin(ticket.tid)).toMatchObject({ party_inside: 4 });
    expect((await kiosk.chooseParty(5)) as ScanResult).toMatchObject({ type: 'party', prompt: { direction: 'exit', inside: 4 } });
    const out = verdictOf((await kiosk.chooseParty(3)) as ScanResult);
    expect(out).toMatchObject({ kind: 'exit', offline: false, party: { size: 6, inside: 1, admitted_total: 4, remaining: 5, people: 3 } });
    expect(rig.issuer.checkin(ticket.tid)).toMatchObject({ party_inside: 1, party_admitted: 4, state: 'inside' });
    expect((await kiosk.getState()).door?.occupancy.inside).toBe(1);
    rig.skew += 7_000;

    // Cancel at an exit: nobody leaves, nothing is sent.
    expect(await kiosk.scan(ticket.qr)).toMatchObject({ type: 'party', prompt: { direction: 'exit', inside: 1 } });
    expect(await kiosk.cancelParty()).toEqual({ type: 'nothing_to_confirm' });
    expect(rig.issuer.checkin(ticket.tid)).toMatchObject({ party_inside: 1 });
    rig.skew += 7_000;

    // Re-entry: those outside may come back, 1 to 5.
    await kiosk.setDirection('entry');
    expect(await kiosk.scan(ticket.qr)).toMatchObject({ type: 'party', prompt: { direction: 'entry', remaining: 5, inside: 1 } });
    expect(verdictOf((await kiosk.chooseParty(5)) as ScanResult)).toMatchObject({ kind: 'admit', party: { inside: 6, admitted_total: 6 } });
    expect((await kiosk.getState()).door?.occupancy.inside).toBe(6);
  }, 60_000);

  it('nobody of the party inside: no prompt; online the issuer answers not_inside, offline the door lets them out as any ticket', async () => {
    const { fx, event } = rig.issuer;
    const ticket = fx.issueTicket(event.eid, { holderName: 'Di Party' });
    await setTicketParty(fx.sql, ticket.tid, 3);
    const kiosk = await openKiosk('exit', 'exit');
    expect(verdictOf(await kiosk.scan(ticket.qr))).toMatchObject({ kind: 'refuse', reason: 'not_inside', offline: false });
    rig.skew += 7_000;
    await rig.issuer.stop();
    const offline = verdictOf(await kiosk.scan(ticket.qr));
    expect(offline).toMatchObject({ kind: 'exit', offline: true });
    expect(offline.party).toBeUndefined();
  }, 60_000);
});
