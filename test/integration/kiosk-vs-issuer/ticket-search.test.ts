/**
 * Finding a ticket at the kiosk (docs/kiosk.md "Finding a ticket", docs/protocol.md "Ticket search"): KioskCore
 * against the REAL issuer on a loopback port, real SQLite files, the API key in the real OS keyring. A
 * supervisor's kiosk searches by name and checks a found ticket in by hand with a reason; the issuer records the
 * reason and the staff id, the kiosk's chained audit log the attempt, and the door shows the answer as a verdict.
 *
 *   scripts/with-keyring.sh npx vitest run test/integration/kiosk-vs-issuer/ticket-search.test.ts
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import { handleKioskCall } from '../../../main/host/kiosk-calls.js';
import { setTicketTypeAttention, updateTicketAttention } from '../../../issuer/services/attention-notes.js';
import { setTicketHandouts, setTypeHandouts } from '../../../issuer/store/handouts.js';
import { setTicketParty } from '../../../issuer/store/party.js';
import { foundTicketView } from '../../../renderer/view/search-view-model.js';
import { enrollWith } from './helpers/kiosk.js';
import { useIssuerAndKiosks } from './helpers/rig.js';

const rig = useIssuerAndKiosks();

/** A kiosk enrolled through a real setup code whose token gives its key `role`. */
async function kioskAs(label: string, role: 'steward' | 'supervisor'): Promise<KioskCore> {
  const keys = rig.kiosks.keychain(label);
  rig.kiosks.track(keys);
  const core = rig.kiosks.open(keys, { db: `${label}.db`, heartbeatIntervalMs: 0, now: rig.clock });
  const { code, tokenId } = rig.issuer.setupCode();
  rig.issuer.fx.db.prepare('UPDATE enrollment_tokens SET role = ? WHERE token_id = ?').run(role, tokenId);
  await enrollWith(core, code);
  await core.heartbeat();
  return core;
}

function auditRecords(label: string): { kind: string; tid: string | null; detail: Record<string, unknown> }[] {
  const db = new Database(join(rig.kiosks.dir, `${label}.db`), { readonly: true });
  try {
    const rows = db.prepare('SELECT kind, tid, detail FROM audit_log ORDER BY position').all() as {
      kind: string;
      tid: string | null;
      detail: string;
    }[];
    return rows.map((row) => ({ ...row, detail: JSON.parse(row.detail) as Record<string, unknown> }));
  } finally {
    db.close();
  }
}

function entries(tid: string): { action: string; reason: string | null; scanner_id: string | null }[] {
  return rig.issuer.fx.db.prepare('SELECT action, reason, scanner_id FROM admission_events WHERE tid = ? ORDER BY id').all(tid) as never;
}

describe('finding a ticket at the kiosk', () => {
  it('finds a ticket by part of the name, accents aside, and by its tid; the results say its status', async () => {
    const core = await kioskAs('sup', 'supervisor');
    const ada = rig.issuer.issueTicket({ holderName: 'Ada Lovelace' });
    rig.issuer.issueTicket({ holderName: 'Zoë Ångström' });

    const byName = await core.searchTickets('lovel');
    expect(byName).toEqual({
      type: 'results',
      more: false,
      results: [
        expect.objectContaining({ tid: ada.tid, holder_name: 'Ada Lovelace', status: 'valid', presence: null, checked_in_at: null }),
      ],
    });
    expect(await core.searchTickets('zoe ang')).toMatchObject({ type: 'results', results: [{ holder_name: 'Zoë Ångström' }] });
    expect(await core.searchTickets(ada.tid)).toMatchObject({ type: 'results', results: [{ tid: ada.tid }] });
    expect(await core.searchTickets('nobody here')).toEqual({ type: 'results', results: [], more: false });
    expect(await core.searchTickets(' -- ')).toEqual({ type: 'invalid_query' });
  });

  it("shows the notes the issuer's search sends with each result: the type's, then the ticket's (docs/kiosk.md \"Finding a ticket\")", async () => {
    const core = await kioskAs('sup', 'supervisor');
    const ada = rig.issuer.issueTicket({ holderName: 'Ada Lovelace' });
    const adam = rig.issuer.issueTicket({ holderName: 'Adam Smith' });
    const sql = rig.issuer.fx.sql;
    await setTicketTypeAttention(sql, rig.issuer.event.eid, 'Standard', { note: 'Green wristband' }, new Date().toISOString());
    await updateTicketAttention(sql, ada.tid, { attention: true, note: 'Wheelchair user: side door' });

    const found = await core.searchTickets('ada');
    expect(found).toMatchObject({ type: 'results', more: false });
    const results = found.type === 'results' ? found.results : [];
    const byTid = Object.fromEntries(results.map((result) => [result.tid, result]));
    expect(byTid[ada.tid]!.attention).toEqual({ required: true, notes: ['Green wristband', 'Wheelchair user: side door'] });
    expect(byTid[adam.tid]!.attention).toEqual({ required: false, notes: ['Green wristband'] });
    // The dialog's line for each (renderer/screens/ticket-search.ts shows it under the result).
    expect(foundTicketView(byTid[ada.tid]!).notes).toBe('Note: Green wristband · Wheelchair user: side door');
    expect(foundTicketView(byTid[adam.tid]!).notes).toBe('Note: Green wristband');

    // Cleared at the issuer: the next search has no note to show.
    await setTicketTypeAttention(sql, rig.issuer.event.eid, 'Standard', { note: null }, new Date().toISOString());
    const after = await core.searchTickets('adam');
    expect(after).toMatchObject({ type: 'results', results: [{ tid: adam.tid }] });
    expect(after.type === 'results' ? after.results[0]!.attention : 'none').toBeUndefined();
  });

  it('checks a found ticket in by hand: the issuer records the reason, the door shows ADMIT, the audit log has who and why', async () => {
    const core = await kioskAs('sup', 'supervisor');
    const state = await core.getState();
    const { tid } = rig.issuer.issueTicket({ holderName: 'Ada Lovelace' });

    const result = await core.manualCheckIn(tid, 'phone battery dead');

    expect(result).toMatchObject({
      type: 'verdict',
      verdict: { kind: 'admit', offline: false, decided_by: 'issuer', ticket: { tid, holder_name: 'Ada Lovelace' } },
    });
    expect(entries(tid)).toEqual([{ action: 'entry', reason: 'phone battery dead', scanner_id: state.scanner.id }]);
    // The door shows it like a scan's verdict (the state's newest).
    expect((await core.getState()).last_verdicts[0]).toMatchObject({ kind: 'admit', ticket: { tid } });
    const staff = auditRecords('sup').filter((record) => record.detail['action'] === 'manual_check_in');
    expect(staff).toEqual([
      expect.objectContaining({ kind: 'staff', detail: expect.objectContaining({ tid, reason: 'phone battery dead', answer: 'valid' }) }),
    ]);
    expect(auditRecords('sup').some((record) => record.kind === 'verdict' && record.tid === tid)).toBe(true);
    expect(await core.verifyLog()).toMatchObject({ ok: true });

    // The search now says it is in; a second manual entry is refused as already used, at the issuer's first time.
    expect(await core.searchTickets('ada lovelace')).toMatchObject({ type: 'results', results: [{ tid, status: 'checked_in' }] });
    const again = await core.manualCheckIn(tid, 'asked again');
    expect(again).toMatchObject({ type: 'verdict', verdict: { kind: 'refuse', reason: 'already_used' } });
    expect(entries(tid)).toHaveLength(1);
  });

  it("shows a party's counts and the handouts, and checks in the number of the party picked: ADMIT with the issuer's counts and the items", async () => {
    const core = await kioskAs('sup', 'supervisor');
    const { fx, event } = rig.issuer;
    const family = fx.issueTicket(event.eid, { holderName: 'Ada Family', ticketType: 'VIP' });
    expect(await setTicketParty(fx.sql, family.tid, 5)).toEqual({ refusedBelow: null });
    await setTypeHandouts(fx.sql, event.eid, 'VIP', [{ item: 'wristband', count: 1 }], new Date().toISOString());
    expect(await setTicketHandouts(fx.sql, family.tid, [{ item: 'drink voucher', count: 2 }])).toBe(true);

    const found = await core.searchTickets('ada family');
    expect(found).toMatchObject({
      type: 'results',
      results: [
        {
          tid: family.tid,
          party: { size: 5, inside: 0, admitted_total: 0, remaining: 5 },
          handouts: [
            { item: 'wristband', count: 1, given: [] },
            { item: 'drink voucher', count: 2, given: [] },
          ],
        },
      ],
    });
    const view = foundTicketView(found.type === 'results' ? found.results[0]! : (undefined as never));
    expect(view.party).toEqual({ size: 'Ticket for 5 people', known: '0 in so far, 5 may still come', remaining: 5 });
    expect(view.handouts).toEqual(['wristband: 0 of 1 given', 'drink voucher: 0 of 2 given']);

    // More than remain: the issuer refuses, nothing is checked in.
    expect(await core.manualCheckIn(family.tid, 'phones dead', 6)).toMatchObject({
      type: 'verdict',
      verdict: { kind: 'refuse', reason: 'party_exceeded' },
    });
    const three = await core.manualCheckIn(family.tid, 'phones dead', 3);
    expect(three).toMatchObject({
      type: 'verdict',
      verdict: {
        kind: 'admit',
        party: { size: 5, inside: 3, admitted_total: 3, remaining: 2, people: 3 },
        handouts: [{ item: 'wristband' }, { item: 'drink voucher' }],
      },
    });
    expect(rig.issuer.checkin(family.tid)).toMatchObject({ party_inside: 3, party_admitted: 3 });
    const staff = auditRecords('sup').filter(
      (record) => record.detail['action'] === 'manual_check_in' && record.detail['tid'] === family.tid,
    );
    expect(staff.map((record) => [record.detail['people'], record.detail['answer']])).toEqual([
      [6, 'party_exceeded'],
      [3, 'valid'],
    ]);
    const after = await core.searchTickets('ada family');
    expect(after.type === 'results' ? foundTicketView(after.results[0]!).party?.known : null).toBe('3 in so far, 2 may still come');

    // The page call checks the number as the party screen's does.
    for (const people of [0, 1.5, '2', 1001])
      expect(await handleKioskCall(core, 'manualCheckIn', [family.tid, 'phones dead', people])).toMatchObject({
        ok: false,
        error: { code: 'invalid_input' },
      });
  });

  it("a steward's key may neither search nor check in by hand at the issuer", async () => {
    const core = await kioskAs('stw', 'steward');
    const { tid } = rig.issuer.issueTicket({ holderName: 'Ada Lovelace' });
    expect(await core.searchTickets('ada')).toEqual({ type: 'not_allowed' });
    expect(await core.manualCheckIn(tid, 'phone battery dead')).toEqual({ type: 'not_allowed' });
    expect(entries(tid)).toEqual([]);
  });

  it('offline, the search and the manual check-in say they need the issuer, and nothing is checked in later', async () => {
    const core = await kioskAs('sup', 'supervisor');
    const { tid } = rig.issuer.issueTicket({ holderName: 'Ada Lovelace' });
    await rig.issuer.stop();
    expect(await core.searchTickets('ada')).toMatchObject({ type: 'offline', message: expect.stringContaining('unreachable') });
    expect(await core.manualCheckIn(tid, 'phone battery dead')).toMatchObject({ type: 'offline' });
    await rig.issuer.start();
    await core.drain();
    expect(entries(tid)).toEqual([]);
    expect((await core.getState()).pending_scans).toBe(0);
  });

  it('the page calls check their arguments on both hosts: a blank reason or query is refused before the issuer hears it', async () => {
    const core = await kioskAs('sup', 'supervisor');
    const { tid } = rig.issuer.issueTicket({ holderName: 'Ada Lovelace' });
    expect(await handleKioskCall(core, 'manualCheckIn', [tid, '   '])).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await handleKioskCall(core, 'manualCheckIn', [tid])).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await handleKioskCall(core, 'searchTickets', [''])).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await handleKioskCall(core, 'searchTickets', ['x'.repeat(201)])).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(entries(tid)).toEqual([]);
    expect(await handleKioskCall(core, 'searchTickets', ['ada'])).toMatchObject({ ok: true, value: { type: 'results' } });
  });

  it('locked staff functions: the calls answer staff_locked and the issuer hears nothing', async () => {
    const core = await kioskAs('sup', 'supervisor');
    const { tid } = rig.issuer.issueTicket({ holderName: 'Ada Lovelace' });
    expect(await core.setStaffPin('2468')).toMatchObject({ type: 'pin_set' });
    await core.lockStaff();
    expect(await core.searchTickets('ada')).toMatchObject({ type: 'staff_locked' });
    expect(await core.manualCheckIn(tid, 'phone battery dead')).toMatchObject({ type: 'staff_locked' });
    expect(entries(tid)).toEqual([]);
  });
});
