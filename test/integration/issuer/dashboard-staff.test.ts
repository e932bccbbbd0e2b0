/**
 * The dashboard names who at the door (docs/issuer.md "Admin dashboard"), all real, on both stores: a served
 * issuer, a steward's kiosk enrolled with a CLI-made setup code, badges issued with the CLI, the admin token reset
 * with the CLI. An annulment made with a supervisor's badge is listed with the badge's sid, its holder's name and
 * role and the reason; the entry it undid names the kiosk's own staff id (no badge: the id alone); a staff id that
 * is a badge of another event names nobody.
 */
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AnnulmentView, EventOverview, LookupResult, TicketView } from '../../../issuer/dashboard-api.js';
import { decodeSetupCode } from '../../../protocol/setup-code.js';
import { cliJson, createEvent, issueTickets } from '../../support/cli-harness.js';
import { enrollWith, postCheckIn, type HttpScanner } from '../../support/issuer-http.js';
import { BOTH_STORES, useIssuerOnStore, type Store } from '../../support/issuer-on-store.js';

describe.each<[Store]>(BOTH_STORES)('the dashboard names the staff (%s)', (store) => {
  const issuer = useIssuerOnStore(store, 'Dashboard Staff', { servePerTest: true });

  async function scanner(eid: string, role: string): Promise<HttpScanner> {
    const setup = await cliJson<{ setup_qr: string }>(['scanner', 'setup', '--data', issuer.data, '--event', eid, '--role', role]);
    const scannerId = crypto.randomUUID();
    const response = await enrollWith(issuer.url, decodeSetupCode(setup.setup_qr).token, scannerId);
    return { apiKey: ((await response.json()) as { api_key: string }).api_key, scannerId };
  }

  const badge = (eid: string, name: string, role: string) =>
    cliJson<{ sid: string; badge_qr: string }>([
      'staff',
      'badge',
      'issue',
      '--data',
      issuer.data,
      '--event',
      eid,
      '--name',
      name,
      '--role',
      role,
    ]);

  const send = async (who: HttpScanner, eid: string, tid: string, fields: Record<string, unknown>) => {
    const answer = await postCheckIn(issuer.url, who, {
      tid,
      eid,
      scanned_at: new Date().toISOString(),
      scanner_id: who.scannerId,
      idempotency_key: crypto.randomUUID(),
      ...fields,
    });
    return { status: answer.status, body: JSON.parse(answer.text) as { status?: string }, text: answer.text };
  };

  let adminToken = '';
  async function lookup(eid: string, tid: string): Promise<TicketView> {
    const response = await fetch(`${issuer.url}/admin/api/events/${eid}/tickets?q=${tid}`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as LookupResult).tickets.find((ticket) => ticket.tid === tid)!;
  }

  async function annulments(eid: string): Promise<AnnulmentView[]> {
    const { admin_token } = await cliJson<{ admin_token: string }>(['admin-token', 'reset', '--data', issuer.data]);
    adminToken = admin_token;
    // The dashboard catches up with new rows in the background: ask until the annulments are in.
    for (let tries = 0; ; tries++) {
      const response = await fetch(`${issuer.url}/admin/api/events/${eid}/overview`, {
        headers: { authorization: `Bearer ${admin_token}` },
      });
      expect(response.status).toBe(200);
      const overview = (await response.json()) as EventOverview;
      if (overview.activity.annulments >= 2 || tries > 100) return overview.activity.recent;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it("lists each annulment with the annulling badge's name, role and sid, the reason, and who let the holder in; a looked-up ticket names who checked it in", async () => {
    const event = await createEvent(issuer.data);
    const other = await createEvent(issuer.data);
    const [first, second, third, fourth] = await issueTickets(issuer.data, event.eid, 4);
    const steward = await scanner(event.eid, 'steward');
    const sam = await badge(event.eid, 'Sam Super', 'supervisor');
    const elsewhere = await badge(other.eid, 'Olga Elsewhere', 'supervisor');

    expect((await send(steward, event.eid, first!, { action: 'entry', staff_id: 'steward-7' })).body.status).toBe('valid');
    const annulled = await send(steward, event.eid, first!, { action: 'annul', reason: 'wrong wristband', staff_badge: sam.badge_qr });
    expect(annulled.status, annulled.text).toBe(200);
    // A kiosk's staff id that happens to be another event's badge names nobody here.
    expect((await send(steward, event.eid, second!, { action: 'entry', staff_id: elsewhere.sid })).body.status).toBe('valid');
    const second_ = await send(steward, event.eid, second!, { action: 'annul', reason: 'duplicate', staff_badge: sam.badge_qr });
    expect(second_.status, second_.text).toBe(200);

    // Check-ins that stand: one made under the supervisor's badge, one with no staff id at all.
    expect((await send(steward, event.eid, third!, { action: 'entry', staff_badge: sam.badge_qr })).body.status).toBe('valid');
    expect((await send(steward, event.eid, fourth!, { action: 'entry' })).body.status).toBe('valid');

    const recent = await annulments(event.eid);
    const byTid = new Map(recent.map((annulment) => [annulment.tid, annulment]));
    expect(byTid.get(first!)).toMatchObject({
      reason: 'wrong wristband',
      actor: `scanner:${steward.scannerId}`,
      annulled_by: { staff_id: sam.sid, name: 'Sam Super', role: 'supervisor' },
      admitted_by: { staff_id: 'steward-7', name: null, role: null },
    });
    expect(byTid.get(second!)).toMatchObject({
      reason: 'duplicate',
      annulled_by: { staff_id: sam.sid, name: 'Sam Super', role: 'supervisor' },
      admitted_by: { staff_id: elsewhere.sid, name: null, role: null },
    });
    // The badge's code itself is never sent to the page.
    expect(JSON.stringify(recent)).not.toContain(sam.badge_qr.split('.')[1]!);

    // A ticket looked up on the dashboard names who made its check-in, annulled or standing.
    expect((await lookup(event.eid, first!)).checked_in_staff).toEqual({ staff_id: 'steward-7', name: null, role: null });
    expect((await lookup(event.eid, third!)).checked_in_staff).toEqual({ staff_id: sam.sid, name: 'Sam Super', role: 'supervisor' });
    expect((await lookup(event.eid, fourth!)).checked_in_staff).toBeNull();
  });
});
