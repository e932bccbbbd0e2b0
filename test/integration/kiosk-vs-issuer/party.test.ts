/**
 * Party tickets, one answer online and offline (docs/protocol.md "Party tickets (project extension)", docs/kiosk.md
 * "Party tickets"): the SAME party cases through the REAL issuer (HTTP on a loopback port, a real SQLite file) and
 * through KioskCores that synced the notes list and then lost the issuer. The kiosk asks how many come in (1 to
 * remaining) before anything is checked in; offline it limits itself to the party's remaining count as it knows it;
 * two doors admitting parts of one party at once, online and offline; a late offline part the issuer must refuse
 * is in the conflict report as `party_full` with how many were refused.
 *
 *   scripts/with-keyring.sh npx vitest run test/integration/kiosk-vs-issuer/party.test.ts
 */
import { describe, expect, it } from 'vitest';
import { setTicketParty } from '../../../issuer/store/party.js';
import type { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import type { ScanResult } from '../../../main/kiosk/kiosk-api.js';
import { enrollWith, verdictOf } from './helpers/kiosk.js';
import { checkInPeople } from './helpers/party.js';
import { useIssuerAndKiosks } from './helpers/rig.js';

const rig = useIssuerAndKiosks();

/** Size, then the parts picked one after another, and for each what the issuer and the offline kiosk say. */
const CASES: readonly [string, number, readonly number[], readonly ('valid' | 'party_exceeded' | 'already_used')[]][] = [
  ['3 of 5, then 2', 5, [3, 2], ['valid', 'valid']],
  ['one by one until the party is in', 3, [1, 1, 1, 1], ['valid', 'valid', 'valid', 'already_used']],
  ['all at once', 4, [4, 1], ['valid', 'already_used']],
];

async function openKiosk(name: string): Promise<KioskCore> {
  const keys = rig.kiosks.keychain(name);
  rig.kiosks.track(keys);
  const kiosk = rig.kiosks.open(keys, { db: `${name}.db`, heartbeatIntervalMs: 0, now: rig.clock });
  await enrollWith(kiosk, rig.issuer.setupCode().code);
  await kiosk.syncRevocations();
  return kiosk;
}

/** One part at the kiosk: scan (the party screen asks), then pick `people`; returns the verdict, or the refusal without a prompt. */
async function part(kiosk: KioskCore, qr: string, people: number): Promise<ScanResult> {
  const asked = await kiosk.scan(qr);
  if (asked.type !== 'party') return asked;
  rig.skew += 1_000;
  return (await kiosk.chooseParty(people)) as ScanResult;
}

describe('the same party cases through the issuer and through an offline kiosk', () => {
  it.each(CASES)(
    '%s',
    async (_name, size, parts, expected) => {
      const { fx, event } = rig.issuer;
      const atIssuer = fx.issueTicket(event.eid, { holderName: 'Ada Family' });
      const atKiosk = fx.issueTicket(event.eid, { holderName: 'Bo Family' });
      for (const ticket of [atIssuer, atKiosk]) expect(await setTicketParty(fx.sql, ticket.tid, size)).toEqual({ refusedBelow: null });

      // Online: the issuer's answers to a kiosk that says how many.
      const scanner = { ...fx.enrollScanner(event.eid), url: rig.issuer.url, eid: event.eid };
      const online: string[] = [];
      for (const people of parts) online.push((await checkInPeople(scanner, atIssuer.tid, 'entry', people)).status);
      expect(online).toEqual(expected);

      // Offline: the kiosk synced the list (with the party's size), then lost the issuer.
      const kiosk = await openKiosk('door');
      await rig.issuer.stop();
      const offline: string[] = [];
      let admitted = 0;
      for (const people of parts) {
        const result = await part(kiosk, atKiosk.qr, people);
        const verdict = verdictOf(result);
        offline.push(verdict.kind === 'admit' ? 'valid' : verdict.kind === 'refuse' ? verdict.reason : verdict.kind);
        if (verdict.kind === 'admit') {
          admitted += people;
          // "3 of 5 in, 2 to come": the kiosk's counts after the part.
          expect(verdict.party).toMatchObject({ size, admitted_total: admitted, remaining: size - admitted, people });
        }
        rig.skew += 7_000;
      }
      expect(offline).toEqual(expected);
    },
    60_000,
  );

  it('nothing is checked in until a number is picked; a pick above what remains is refused and the prompt stays; Cancel lets nobody in', async () => {
    const { fx, event } = rig.issuer;
    const ticket = fx.issueTicket(event.eid, { holderName: 'Cy Party' });
    await setTicketParty(fx.sql, ticket.tid, 5);
    const kiosk = await openKiosk('door');
    const asked = await kiosk.scan(ticket.qr);
    expect(asked).toMatchObject({ type: 'party', prompt: { tid: ticket.tid, size: 5, remaining: 5, admitted_total: 0, source: 'issuer' } });
    expect(rig.issuer.checkin(ticket.tid)).toBeUndefined();
    const other = fx.issueTicket(event.eid, { holderName: 'Di Other' });
    expect((await kiosk.scan(other.qr)).type).toBe('party_pending');
    expect((await kiosk.chooseParty(6)) as ScanResult).toMatchObject({ type: 'party', prompt: { remaining: 5 } });
    expect(rig.issuer.checkin(ticket.tid)).toBeUndefined();
    const three = verdictOf((await kiosk.chooseParty(3)) as ScanResult);
    expect(three.kind).toBe('admit');
    expect(three.party).toMatchObject({ size: 5, inside: 3, admitted_total: 3, remaining: 2, people: 3 });
    rig.skew += 7_000;
    expect(await kiosk.scan(ticket.qr)).toMatchObject({ type: 'party', prompt: { remaining: 2, admitted_total: 3 } });
    expect(await kiosk.cancelParty()).toEqual({ type: 'nothing_to_confirm' });
    expect((await kiosk.getState()).party_prompt).toBeNull();
    expect(rig.issuer.checkin(ticket.tid)).toMatchObject({ party_inside: 3, party_admitted: 3 });
  }, 60_000);

  it('two doors admitting parts of one party at once, online: the issuer never lets in more than the party', async () => {
    const { fx, event } = rig.issuer;
    const ticket = fx.issueTicket(event.eid, { holderName: 'Ed Party' });
    await setTicketParty(fx.sql, ticket.tid, 5);
    const doors = [await openKiosk('door-a'), await openKiosk('door-b')];
    // Both ask first (each sees 5 remaining), then both pick 3 at once.
    for (const door of doors) expect(await door.scan(ticket.qr)).toMatchObject({ type: 'party', prompt: { remaining: 5 } });
    const picked = (await Promise.all(doors.map((door) => door.chooseParty(3)))).map((result) => verdictOf(result as ScanResult));
    const kinds = picked.map((v) => (v.kind === 'refuse' ? v.reason : v.kind)).sort();
    expect(kinds).toEqual(['admit', 'party_exceeded']);
    const refused = picked.find((v) => v.kind === 'refuse')!;
    expect(refused.party).toMatchObject({ size: 5, admitted_total: 3, remaining: 2 });
    expect(rig.issuer.checkin(ticket.tid)).toMatchObject({ party_admitted: 3 });
  }, 60_000);

  it('two doors admitting parts offline: each limits itself to what it knows; the late part the issuer must refuse is in the conflict report', async () => {
    const { fx, event } = rig.issuer;
    const ticket = fx.issueTicket(event.eid, { holderName: 'Fay Party' });
    await setTicketParty(fx.sql, ticket.tid, 5);
    const doors = [await openKiosk('door-a'), await openKiosk('door-b')];
    await rig.issuer.stop();
    // Each door, alone, knows 5 remain and lets 3 in; its own next scan knows only 2 remain.
    for (const door of doors) {
      const three = verdictOf((await part(door, ticket.qr, 3)) as ScanResult);
      expect(three).toMatchObject({ kind: 'admit', offline: true, party: { admitted_total: 3, remaining: 2 } });
      rig.skew += 7_000;
    }
    const again = await doors[0]!.scan(ticket.qr);
    expect(again).toMatchObject({ type: 'party', prompt: { remaining: 2, admitted_total: 3, source: 'known' } });
    expect(((await doors[0]!.chooseParty(3)) as ScanResult).type).toBe('party');
    await doors[0]!.cancelParty();

    await rig.issuer.start();
    await doors[0]!.drain();
    await doors[1]!.drain();
    // The issuer counted 5: 3 from the first door, 2 of the second's 3; 1 refused.
    expect(rig.issuer.checkin(ticket.tid)).toMatchObject({ party_inside: 5, party_admitted: 5 });
    const reports = await Promise.all(doors.map(async (door) => (await door.getState()).double_admissions));
    expect(reports[0]).toEqual([]);
    expect(reports[1]).toEqual([
      expect.objectContaining({ tid: ticket.tid, conflict: 'party_full', refused_people: 1, holder_name: 'Fay Party' }),
    ]);
    // Now either door knows the party is full: offline it refuses without asking.
    await rig.issuer.stop();
    rig.skew += 7_000;
    const full = verdictOf(await doors[1]!.scan(ticket.qr));
    expect(full).toMatchObject({ kind: 'refuse', reason: 'already_used', party: { remaining: 0 } });
  }, 60_000);
});
