/**
 * Parts of one party at two doors on one LAN, offline from the issuer (docs/kiosk.md "Party tickets", "Kiosks on one
 * LAN"; docs/protocol.md "LAN messages between kiosks (project extension)", `ppl`): two REAL KioskCores, each with
 * its own LanTransport on a UDP socket bound to 127.0.0.1 (discovery off, each other's port as its only peer),
 * enrolled with the REAL issuer on loopback (API keys and LAN keys in the real OS keyring). Each door limits itself
 * to the party's remaining count as it last knew it plus the people its peer told of (signed `ppl`/`psig`); a third
 * door off the LAN lets in a part that no longer fits. Drained, the issuer never counts more than the party, and the
 * late part is in that door's conflict report as `party_full`.
 *
 *   scripts/with-keyring.sh npx vitest run test/integration/lan-peers/party-parts.test.ts
 */
import { describe, expect, it } from 'vitest';
import { setTicketParty } from '../../../issuer/store/party.js';
import type { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import type { ScanResult } from '../../../main/kiosk/kiosk-api.js';
import { LanTransport } from '../../../main/kiosk/sync/lan-transport.js';
import { enrollWith, eventually, verdictOf } from '../kiosk-vs-issuer/helpers/kiosk.js';
import { useIssuerAndKiosks } from '../kiosk-vs-issuer/helpers/rig.js';
import { freeUdpPort } from './kiosk-process.js';

const rig = useIssuerAndKiosks();

/** A door enrolled with the issuer (notes list with the party's size synced), on the LAN when given a transport. */
async function openDoor(name: string, lan?: LanTransport): Promise<KioskCore> {
  const keys = rig.kiosks.keychain(name);
  rig.kiosks.track(keys);
  const kiosk = rig.kiosks.open(keys, { db: `${name}.db`, heartbeatIntervalMs: 0, now: rig.clock, ...(lan ? { lan } : {}) });
  await enrollWith(kiosk, rig.issuer.setupCode({ gateId: name }).code);
  await kiosk.syncRevocations();
  return kiosk;
}

/** Scan, then pick `people` on the party screen; the answer without a prompt as it came. */
async function part(kiosk: KioskCore, qr: string, people: number): Promise<{ asked: ScanResult; result: ScanResult }> {
  const asked = await kiosk.scan(qr);
  if (asked.type !== 'party') return { asked, result: asked };
  rig.skew += 1_000;
  return { asked, result: (await kiosk.chooseParty(people)) as ScanResult };
}

describe('parts of one party at two doors on one LAN, offline', () => {
  it('each door limits itself to what it knows and its peer told; drained, the issuer counts at most N; the late part is party_full', async () => {
    const ports = { A: await freeUdpPort(), B: await freeUdpPort() };
    const transport = async (self: 'A' | 'B', peer: 'A' | 'B'): Promise<LanTransport> =>
      LanTransport.start({
        port: ports[self],
        bindAddress: '127.0.0.1',
        discovery: false,
        peers: [{ address: '127.0.0.1', port: ports[peer] }],
        log: () => undefined,
        now: rig.clock,
      });
    const lans = { A: await transport('A', 'B'), B: await transport('B', 'A') };
    try {
      const { fx, event } = rig.issuer;
      const ticket = fx.issueTicket(event.eid, { holderName: 'Gia Family' });
      await setTicketParty(fx.sql, ticket.tid, 5);
      const a = await openDoor('A', lans.A);
      const b = await openDoor('B', lans.B);
      // A third door off the LAN: it knows only its own parts.
      const c = await openDoor('C');
      await rig.issuer.stop();

      // A lets 3 in; B hears of them over UDP (signed ppl), so it offers only the 2 left.
      const atA = verdictOf((await part(a, ticket.qr, 3)).result);
      expect(atA).toMatchObject({ kind: 'admit', offline: true, party: { admitted_total: 3, remaining: 2, people: 3 } });
      await eventually(() => lans.B.peopleAfter(ticket.tid, null) === 3, 5_000);
      rig.skew += 7_000;
      const atB = await part(b, ticket.qr, 3);
      expect(atB.asked).toMatchObject({ type: 'party', prompt: { remaining: 2, admitted_total: 3, source: 'known' } });
      // 3 is more than it knows remain: refused, the prompt stays; 2 fit.
      expect(atB.result).toMatchObject({ type: 'party', prompt: { remaining: 2 } });
      const two = verdictOf((await b.chooseParty(2)) as ScanResult);
      expect(two).toMatchObject({ kind: 'admit', offline: true, party: { admitted_total: 5, remaining: 0, people: 2 } });

      // A hears of B's 2: the party is in as A knows it, refused without asking.
      await eventually(() => lans.A.peopleAfter(ticket.tid, null) === 2, 5_000);
      rig.skew += 7_000;
      expect(verdictOf(await a.scan(ticket.qr))).toMatchObject({ kind: 'refuse', reason: 'already_used', party: { remaining: 0 } });

      // C, off the LAN, knows 5 remain and lets 2 in: a part that no longer fits.
      expect(verdictOf((await part(c, ticket.qr, 2)).result)).toMatchObject({ kind: 'admit', offline: true });

      await rig.issuer.start();
      for (const door of [a, b, c]) await door.drain();
      expect(rig.issuer.checkin(ticket.tid)).toMatchObject({ party_inside: 5, party_admitted: 5 });
      expect((await a.getState()).double_admissions).toEqual([]);
      expect((await b.getState()).double_admissions).toEqual([]);
      expect((await c.getState()).double_admissions).toEqual([
        expect.objectContaining({ tid: ticket.tid, conflict: 'party_full', refused_people: 2, holder_name: 'Gia Family' }),
      ]);
    } finally {
      await lans.A.close();
      await lans.B.close();
    }
  }, 90_000);
});
