/**
 * Check-out at a set time, one answer online and offline (docs/protocol.md "Check-out at a set time", docs/kiosk.md
 * "Check-out at a set time"): the SAME cases through the REAL issuer (HTTP on a loopback port, a real SQLite file)
 * and through a KioskCore that got the setting from its heartbeat and then lost the issuer. A ticket admitted
 * before the moment is "already used" on both sides until the moment passes; after it, on a re-entry event both
 * admit it again, and on a single-entry event both still refuse it. The setting is a moment, or a daily time in the
 * event's time zone (one that is not UTC, so both sides must read the zone the same way).
 *
 *   scripts/with-keyring.sh npx vitest run test/integration/kiosk-vs-issuer/exit-all.test.ts
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DoorCheckInResponse, EntryPolicy } from '../../../protocol/door.js';
import type { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import { saveExitAll } from '../../../issuer/store/exit-all.js';
import { enrollWith, verdictOf } from './helpers/kiosk.js';
import { useIssuerAndKiosks } from './helpers/rig.js';

const rig = useIssuerAndKiosks();

/** Far enough ahead for the scans before it (a kiosk's rescan is 7 s later on its clock: kioskOutcome). */
const MOMENT_AHEAD_MS = 15_000;

async function issuerOutcome(tid: string): Promise<string> {
  const scanner = rig.issuer.fx.enrollScanner(rig.issuer.event.eid);
  const response = await fetch(`${rig.issuer.url}/api/v1/tickets/check-in`, {
    method: 'POST',
    headers: { authorization: `Bearer ${scanner.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      tid,
      eid: rig.issuer.event.eid,
      scanned_at: new Date().toISOString(),
      scanner_id: scanner.scannerId,
      idempotency_key: randomUUID(),
      action: 'entry',
    }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as DoorCheckInResponse;
  return body.status === 'valid' ? 'admit' : `refuse:${body.status}`;
}

async function kioskOutcome(core: KioskCore, code: string): Promise<string> {
  const verdict = verdictOf(await core.scan(code));
  rig.skew += 7_000; // a rescan is a new scan, not the same read (docs/kiosk.md "Double reads")
  return verdict.kind === 'refuse' ? `refuse:${verdict.reason}` : verdict.kind;
}

/** How the setting is written: a moment, or a daily HH:MM in a time zone +05:30 from UTC. */
type Form = 'moment' | 'daily';
const DAILY_ZONE = 'Asia/Kolkata';

/**
 * The next moment at least MOMENT_AHEAD_MS away and the setting that names it: for a daily time, the next whole
 * minute far enough ahead (so a case waits up to MOMENT_AHEAD_MS + 60 s), written as HH:MM in DAILY_ZONE.
 */
function settingAhead(form: Form): { moment: Date; at: string; time_zone: string } {
  if (form === 'moment') {
    const moment = new Date(Date.now() + MOMENT_AHEAD_MS);
    return { moment, at: moment.toISOString(), time_zone: 'UTC' };
  }
  const moment = new Date(Math.ceil((Date.now() + MOMENT_AHEAD_MS) / 60_000) * 60_000);
  const at = new Intl.DateTimeFormat('en-GB', { timeZone: DAILY_ZONE, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(
    moment,
  );
  return { moment, at, time_zone: DAILY_ZONE };
}

/** entry policy, the setting's form, the outcomes before the moment (first scan, rescan) and after it. */
const CASES: readonly [EntryPolicy, Form, string, string, string][] = [
  ['reentry', 'moment', 'admit', 'refuse:already_used', 'admit'],
  ['single', 'moment', 'admit', 'refuse:already_used', 'refuse:already_used'],
  ['reentry', 'daily', 'admit', 'refuse:already_used', 'admit'],
];

describe('the same cases through the issuer and through an offline kiosk', () => {
  it.each(CASES)(
    'on a %s event, the setting a %s: before and after the moment',
    async (policy, form, first, rescan, after) => {
      rig.issuer.fx.db.prepare('UPDATE events SET entry_policy = ? WHERE eid = ?').run(policy, rig.issuer.event.eid);
      const keys = rig.kiosks.keychain('door');
      rig.kiosks.track(keys);
      const kiosk = rig.kiosks.open(keys, { db: 'door.db', heartbeatIntervalMs: 0, now: rig.clock });
      await enrollWith(kiosk, rig.issuer.setupCode().code);

      const { moment, at, time_zone } = settingAhead(form);
      await saveExitAll(rig.issuer.fx.sql, rig.issuer.event.eid, { at, time_zone, since: new Date().toISOString() });
      await kiosk.heartbeat();
      const atIssuer = rig.issuer.fx.issueTicket(rig.issuer.event.eid);
      const atKiosk = rig.issuer.fx.issueTicket(rig.issuer.event.eid);

      const online = [await issuerOutcome(atIssuer.tid), await issuerOutcome(atIssuer.tid)];
      await rig.issuer.stop();
      const offline = [await kioskOutcome(kiosk, atKiosk.qr), await kioskOutcome(kiosk, atKiosk.qr)];
      expect(rig.clock()).toBeLessThan(moment.getTime()); // the kiosk's rescan was before the moment, on its own clock

      // The moment passes (the issuer's clock is the real one; the kiosk's runs ahead of it).
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, moment.getTime() - Date.now()) + 500));
      offline.push(await kioskOutcome(kiosk, atKiosk.qr));
      await rig.issuer.start();
      online.push(await issuerOutcome(atIssuer.tid));

      expect(online).toEqual([first, rescan, after]);
      expect(offline).toEqual(online);
    },
    150_000,
  );
});
