/**
 * Exits and handouts told on the LAN, offline from the issuer (docs/kiosk.md "Kiosks on one LAN", "Party tickets",
 * "Handouts"; docs/protocol.md "LAN messages between kiosks (project extension)", types `exit` and `handout`): REAL
 * KioskCores, each with its own LanTransport on a UDP socket bound to 127.0.0.1 (discovery off, the other's port as
 * its peer), enrolled with the REAL issuer on loopback (API keys and LAN keys in the real OS keyring), which then
 * stops. A party's exits at door A bound door B's exit prompt and its re-entry count; a handout given at door A is
 * refused at station B with when and where, also after B restarts and catches up; drained, the issuer's counts agree.
 *
 *   scripts/with-keyring.sh npx vitest run test/integration/lan-peers/exits-handouts.test.ts
 */
import { describe, expect, it } from 'vitest';
import { setTypeHandouts } from '../../../issuer/store/handouts.js';
import { setTicketParty } from '../../../issuer/store/party.js';
import type { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import type { ScanResult } from '../../../main/kiosk/kiosk-api.js';
import { LanTransport } from '../../../main/kiosk/sync/lan-transport.js';
import { enrollWith, eventually, verdictOf } from '../kiosk-vs-issuer/helpers/kiosk.js';
import { useIssuerAndKiosks } from '../kiosk-vs-issuer/helpers/rig.js';
import { freeUdpPort } from './kiosk-process.js';

const rig = useIssuerAndKiosks();

type Door = 'A' | 'B';

/** Two loopback transports, each with the other as its only peer; `lines` keeps each one's log. */
async function twoTransports(): Promise<{ ports: Record<Door, number>; start: (self: Door) => Promise<LanTransport>; lines: string[] }> {
  const ports = { A: await freeUdpPort(), B: await freeUdpPort() };
  const lines: string[] = [];
  const start = (self: Door): Promise<LanTransport> =>
    LanTransport.start({
      port: ports[self],
      bindAddress: '127.0.0.1',
      discovery: false,
      peers: [{ address: '127.0.0.1', port: ports[self === 'A' ? 'B' : 'A'] }],
      log: (line) => lines.push(`${self}: ${line}`),
      now: rig.clock,
    });
  return { ports, start, lines };
}

/** A door enrolled with the issuer, its heartbeat (entry policy, role) and notes list synced, on the LAN. */
async function openDoor(name: string, lan: LanTransport, setup = rig.issuer.setupCode({ gateId: name })): Promise<KioskCore> {
  const keys = rig.kiosks.keychain(name);
  rig.kiosks.track(keys);
  const kiosk = rig.kiosks.open(keys, { db: `${name}.db`, heartbeatIntervalMs: 0, now: rig.clock, lan });
  await enrollWith(kiosk, setup.code);
  await kiosk.heartbeat();
  await kiosk.syncRevocations();
  return kiosk;
}

/** Scan, then pick `people` on the party screen. */
async function pick(kiosk: KioskCore, qr: string, people: number): Promise<{ asked: ScanResult; result: ScanResult }> {
  rig.skew += 7_000; // never a repeat read of the same code
  const asked = await kiosk.scan(qr);
  if (asked.type !== 'party') return { asked, result: asked };
  rig.skew += 1_000;
  return { asked, result: (await kiosk.chooseParty(people)) as ScanResult };
}

describe('exits and handouts told on the LAN, offline', () => {
  it("a party's exits at A bound B's exit prompt and its re-entry count; drained, the issuer agrees", async () => {
    const { start } = await twoTransports();
    const lans = { A: await start('A'), B: await start('B') };
    try {
      const { fx, event } = rig.issuer;
      fx.db.prepare("UPDATE events SET entry_policy = 'reentry' WHERE eid = ?").run(event.eid);
      const ticket = fx.issueTicket(event.eid, { holderName: 'Gia Family' });
      await setTicketParty(fx.sql, ticket.tid, 5);
      const a = await openDoor('A', lans.A);
      const b = await openDoor('B', lans.B);
      await rig.issuer.stop();

      // All 5 come in at A; A lets 2 of them out.
      expect(verdictOf((await pick(a, ticket.qr, 5)).result)).toMatchObject({ kind: 'admit', offline: true, party: { inside: 5 } });
      await a.setDirection('exit');
      const out = await pick(a, ticket.qr, 2);
      expect(out.asked).toMatchObject({ type: 'party', prompt: { direction: 'exit', inside: 5 } });
      expect(verdictOf(out.result)).toMatchObject({ kind: 'exit', offline: true, party: { inside: 3, people: 2 } });

      // B heard both over UDP: its exit prompt offers the 3 inside, not 5.
      await eventually(() => lans.B.exitsOf(ticket.tid).length === 1, 5_000);
      expect(lans.B.exitsOf(ticket.tid)[0]).toMatchObject({ gate: 'A', people: 2, offline: true });
      await b.setDirection('exit');
      const atB = await pick(b, ticket.qr, 1);
      expect(atB.asked).toMatchObject({ type: 'party', prompt: { direction: 'exit', inside: 3, source: 'known' } });
      expect(verdictOf(atB.result)).toMatchObject({ kind: 'exit', offline: true, party: { inside: 2, people: 1 } });

      // Re-entry: B knows 3 are out (2 at A, 1 here), so 3 may come back in; A, told of B's exit, knows the same.
      await b.setDirection('entry');
      const back = await pick(b, ticket.qr, 3);
      expect(back.asked).toMatchObject({ type: 'party', prompt: { direction: 'entry', inside: 2, remaining: 3 } });
      expect(verdictOf(back.result)).toMatchObject({ kind: 'admit', offline: true, party: { inside: 5, people: 3 } });
      await eventually(() => lans.A.partyMovesAfter(ticket.tid, null).length === 2, 5_000);
      rig.skew += 7_000;
      expect(await a.scan(ticket.qr)).toMatchObject({ type: 'party', prompt: { direction: 'exit', inside: 5 } });
      await a.cancelParty();

      await rig.issuer.start();
      // A drain that meets the issuer still waking is tried again, as the kiosk's own schedule would.
      await eventually(async () => {
        await a.drain();
        await b.drain();
        return (await a.getState()).pending_scans === 0 && (await b.getState()).pending_scans === 0;
      }, 15_000);
      expect(rig.issuer.checkin(ticket.tid)).toMatchObject({ party_inside: 5, party_admitted: 5 });
      expect((await a.getState()).double_admissions).toEqual([]);
      expect((await b.getState()).double_admissions).toEqual([]);
    } finally {
      await lans.A.close();
      await lans.B.close();
    }
  }, 120_000);

  it('a handout given at A is refused at station B with when and where, after B restarts too; drained, the issuer has one', async () => {
    const { start, lines } = await twoTransports();
    const lans = { A: await start('A'), B: await start('B') };
    try {
      const { fx, event } = rig.issuer;
      await setTypeHandouts(fx.sql, event.eid, 'VIP', [{ item: 'wristband', count: 1 }], new Date().toISOString());
      const ticket = fx.issueTicket(event.eid, { holderName: 'Ada Lovelace', ticketType: 'VIP' });
      const a = await openDoor('A', lans.A);
      const stationSetup = rig.issuer.setupCode({ gateId: 'B' });
      fx.db.prepare("UPDATE enrollment_tokens SET station = 'handout' WHERE token_id = ?").run(stationSetup.tokenId);
      let b = await openDoor('B', lans.B, stationSetup);
      await rig.issuer.stop();

      // A admits the holder and gives the wristband (queued: the issuer is away).
      rig.skew += 7_000;
      const admitted = verdictOf(await a.scan(ticket.qr));
      expect(admitted).toMatchObject({ kind: 'admit', offline: true });
      expect(await a.giveHandout(admitted.decided_at, 'wristband')).toMatchObject({ type: 'handout_given', offline: true });
      await eventually(() => lans.B.handoutsOf(ticket.tid).length === 1, 5_000);
      expect(lines.some((line) => line.startsWith('B: LAN: learned handout of wristband to ticket'))).toBe(true);

      // Station B: the ticket's items show the wristband given at A, and a tap is refused with when and where.
      const handoutTime = lans.B.handoutsOf(ticket.tid)[0]!.at;
      rig.skew += 7_000;
      const shown = verdictOf(await b.scan(ticket.qr));
      expect(shown).toMatchObject({ kind: 'admit', station: 'handout', offline: true });
      const tap = await b.giveHandout(shown.decided_at, 'wristband');
      expect(tap).toMatchObject({ type: 'handout_refused', reason: 'already_given' });
      expect(tap.type === 'handout_refused' ? tap.given.at(-1) : undefined).toMatchObject({ gate: 'A', at: handoutTime });

      // B restarts (its memory of the LAN gone): catching up, it learns the handout again from A and refuses again.
      await b.close();
      await lans.B.close();
      lans.B = await start('B');
      const keys = rig.kiosks.keychain('B');
      b = rig.kiosks.open(keys, { db: 'B.db', heartbeatIntervalMs: 0, now: rig.clock, lan: lans.B });
      await eventually(() => lans.B.handoutsOf(ticket.tid).length === 1, 10_000);
      rig.skew += 7_000;
      const again = verdictOf(await b.scan(ticket.qr));
      expect(await b.giveHandout(again.decided_at, 'wristband')).toMatchObject({
        type: 'handout_refused',
        reason: 'already_given',
        given: [expect.objectContaining({ gate: 'A', at: handoutTime })],
      });

      // Nothing refused was queued at B: drained, the issuer holds A's one handout, given.
      await rig.issuer.start();
      await a.drain();
      await b.drain();
      // ...named as B named it when it refused: the same when and where as the issuer says.
      const where = tap.type === 'handout_refused' ? tap.given.at(-1) : undefined;
      expect(fx.db.prepare('SELECT status, gate_id, scanner_name, given_at FROM handouts WHERE tid = ?').all(ticket.tid)).toEqual([
        { status: 'given', gate_id: 'A', scanner_name: where?.scanner, given_at: handoutTime },
      ]);
    } finally {
      await lans.A.close();
      await lans.B.close();
    }
  }, 120_000);
});
