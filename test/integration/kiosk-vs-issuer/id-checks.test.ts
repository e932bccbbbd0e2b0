/**
 * ID and age checks, one answer online and offline (docs/protocol.md "ID checks (project extension)", docs/kiosk.md
 * "ID checks"): the SAME cases through the REAL issuer (HTTP on a loopback port, a real SQLite file) and through a
 * KioskCore that synced the notes list and then lost the issuer. The issuer's status answer and the kiosk's ID
 * prompt say the same thing (kind, minimum age, short name, band); nothing is checked in at the kiosk until
 * Confirm, which admits; Deny refuses `id_check_failed`, audited with the staff id. A spec scanner at the issuer is
 * admitted and its entry recorded "ID not checked".
 *
 *   scripts/with-keyring.sh npx vitest run test/integration/kiosk-vs-issuer/id-checks.test.ts
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { parseIdCheck, type IdCheck } from '../../../protocol/id-check.js';
import { setTicketDob, setTypeIdCheck } from '../../../issuer/store/id-checks.js';
import type { ScanResult } from '../../../main/kiosk/kiosk-api.js';
import { enrollWith, verdictOf } from './helpers/kiosk.js';
import { useIssuerAndKiosks } from './helpers/rig.js';

const rig = useIssuerAndKiosks();

/** A date of birth `years` before the event's day, shifted by `days`. */
function dobBefore(eventDate: string, years: number, days = 0): string {
  const date = new Date(`${eventDate.slice(0, 10)}T00:00:00Z`);
  date.setUTCFullYear(date.getUTCFullYear() - years);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** The type's check, the date of birth (years before the event, days after; null: none), the extension expected. */
const CASES: readonly [string, string, [number, number] | null, Omit<IdCheck, 'holder'> | null][] = [
  ['age 18, 30 years old', 'age:18', [30, 0], { kind: 'age', min_age: 18, band: 'over' }],
  ['age 18, 18 on the day', 'age:18', [18, 0], { kind: 'age', min_age: 18, band: 'over' }],
  ['age 18, 18 tomorrow', 'age:18', [18, 1], { kind: 'age', min_age: 18, band: 'under' }],
  ['age 21, no date of birth', 'age:21', null, { kind: 'age', min_age: 21, band: 'unknown' }],
  ['name only', 'name', [30, 0], { kind: 'name', band: 'unknown' }],
  ['no check', 'none', [10, 0], null],
];

describe('the same ID check through the issuer and through an offline kiosk', () => {
  it.each(CASES)(
    '%s',
    async (_name, rule, dob, expected) => {
      const { fx, event } = rig.issuer;
      await setTypeIdCheck(fx.sql, event.eid, 'Bar', parseIdCheck(rule)!, new Date().toISOString());
      const atIssuer = fx.issueTicket(event.eid, { holderName: 'Ada Lovelace', ticketType: 'Bar' });
      const confirmed = fx.issueTicket(event.eid, { holderName: 'Ada Lovelace', ticketType: 'Bar' });
      const denied = fx.issueTicket(event.eid, { holderName: 'Ada Lovelace', ticketType: 'Bar' });
      for (const ticket of [atIssuer, confirmed, denied])
        if (dob !== null) await setTicketDob(fx.sql, ticket.tid, dobBefore(event.date, dob[0], dob[1]));
      const want = expected === null ? null : { ...expected, holder: 'Ada L.' };

      // Online: the issuer's status answer, and a spec scanner's entry (no id_checked): admitted, "ID not checked".
      const scanner = fx.enrollScanner(event.eid);
      const headers = { authorization: `Bearer ${scanner.apiKey}`, 'content-type': 'application/json' };
      const status = (await (await fetch(`${rig.issuer.url}/api/v1/tickets/${atIssuer.tid}/status`, { headers })).json()) as {
        id_check?: IdCheck;
      };
      expect(status.id_check ?? null).toEqual(want);
      const answer = await fetch(`${rig.issuer.url}/api/v1/tickets/check-in`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          tid: atIssuer.tid,
          eid: event.eid,
          scanned_at: new Date().toISOString(),
          scanner_id: scanner.scannerId,
          idempotency_key: randomUUID(),
        }),
      });
      const body = (await answer.json()) as { status: string; id_check?: IdCheck };
      expect(body.status).toBe('valid');
      expect(body.id_check ?? null).toEqual(want);
      const recorded = fx.db.prepare("SELECT id_check FROM admission_events WHERE tid = ? AND action = 'entry'").get(atIssuer.tid) as {
        id_check: string | null;
      };
      expect(recorded.id_check).toBe(expected === null ? null : 'not_checked');

      // Offline: the kiosk synced the list (with its bands), then lost the issuer.
      const keys = rig.kiosks.keychain('door');
      rig.kiosks.track(keys);
      const kiosk = rig.kiosks.open(keys, { db: 'door.db', heartbeatIntervalMs: 0, now: rig.clock });
      await enrollWith(kiosk, rig.issuer.setupCode().code);
      await kiosk.syncRevocations();
      await rig.issuer.stop();

      const first: ScanResult = await kiosk.scan(confirmed.qr);
      if (want === null) {
        expect(verdictOf(first).kind).toBe('admit');
        return;
      }
      expect(first.type).toBe('id_check');
      const prompt = first.type === 'id_check' ? first.prompt : null;
      expect({ kind: prompt!.kind, min_age: prompt!.min_age, holder: prompt!.holder, band: prompt!.band }).toEqual({
        min_age: undefined,
        ...want,
      });
      // Until Confirm or Deny nothing is checked in, and another ticket is refused, not queued.
      expect((await kiosk.getState()).id_check_prompt).toMatchObject({ tid: confirmed.tid });
      const waiting = await kiosk.scan(denied.qr);
      expect(waiting.type).toBe('id_check_pending');
      const confirm = await kiosk.confirmIdCheck();
      expect(verdictOf(confirm as ScanResult).kind).toBe('admit');
      rig.skew += 7_000;

      expect((await kiosk.scan(denied.qr)).type).toBe('id_check');
      const deny = verdictOf((await kiosk.denyIdCheck()) as ScanResult);
      expect(deny.kind).toBe('refuse');
      expect(deny.kind === 'refuse' ? deny.reason : null).toBe('id_check_failed');
      const state = await kiosk.getState();
      expect(state.id_check_prompt).toBeNull();
    },
    60_000,
  );

  it('an online kiosk without a synced list asks the issuer status first: the same prompt, and nothing checked in until Confirm', async () => {
    const { fx, event } = rig.issuer;
    await setTypeIdCheck(fx.sql, event.eid, 'Bar', parseIdCheck('age:18')!, new Date().toISOString());
    const ticket = fx.issueTicket(event.eid, { holderName: 'Ada Lovelace', ticketType: 'Bar' });
    await setTicketDob(fx.sql, ticket.tid, dobBefore(event.date, 17));
    const keys = rig.kiosks.keychain('door');
    rig.kiosks.track(keys);
    const kiosk = rig.kiosks.open(keys, { db: 'door.db', heartbeatIntervalMs: 0, now: rig.clock });
    await enrollWith(kiosk, rig.issuer.setupCode().code);
    await kiosk.syncRevocations();
    // As before the first sync completes: no list of this event.
    const db = new Database(join(rig.kiosks.dir, 'door.db'));
    db.prepare('DELETE FROM attention_sync').run();
    db.close();

    const asked = await kiosk.scan(ticket.qr);
    expect(asked).toMatchObject({ type: 'id_check', prompt: { kind: 'age', min_age: 18, holder: 'Ada L.', band: 'under' } });
    const entries = () =>
      fx.db.prepare("SELECT id_check, staff_id FROM admission_events WHERE tid = ? AND action = 'entry'").all(ticket.tid);
    expect(entries()).toEqual([]);
    expect(verdictOf((await kiosk.confirmIdCheck()) as ScanResult).kind).toBe('admit');
    expect(entries()).toEqual([{ id_check: 'checked', staff_id: null }]);
  }, 60_000);
});
