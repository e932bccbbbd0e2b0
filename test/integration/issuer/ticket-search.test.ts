/**
 * Ticket search and the manual check-in (docs/protocol.md "Ticket search"), all real on both stores: the built
 * CLI issues named tickets and makes setup codes, a `serve` on loopback enrolls a supervisor's and a steward's
 * kiosk, and the search and check-in go over HTTP. The manual entry's reason and staff id reach `checkins export`.
 * The admin dashboard's search and manual check-in (docs/issuer.md "Admin dashboard") too, with the admin token.
 */
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeSetupCode } from '../../../protocol/setup-code.js';
import type { TicketSearchAnswer } from '../../../protocol/search-name.js';
import { cliJson, createEvent } from '../../support/cli-harness.js';
import { enrollWith, postCheckIn, type HttpScanner } from '../../support/issuer-http.js';
import { BOTH_STORES, useIssuerOnStore } from '../../support/issuer-on-store.js';

describe.each(BOTH_STORES)('ticket search on %s', (store) => {
  const issuer = useIssuerOnStore(store, 'Search', { servePerTest: true });

  async function scanner(eid: string, role: string): Promise<HttpScanner> {
    const setup = await cliJson<{ setup_qr: string }>(['scanner', 'setup', '--data', issuer.data, '--event', eid, '--role', role]);
    const scannerId = crypto.randomUUID();
    const response = await enrollWith(issuer.url, decodeSetupCode(setup.setup_qr).token, scannerId);
    expect(response.status).toBe(200);
    return { apiKey: ((await response.json()) as { api_key: string }).api_key, scannerId };
  }

  async function issue(eid: string, holder: string, type: string, ...flags: string[]): Promise<string> {
    const { tickets } = await cliJson<{ tickets: { tid: string }[] }>([
      'ticket',
      'issue',
      '--data',
      issuer.data,
      '--event',
      eid,
      '--holder',
      holder,
      '--type',
      type,
      ...flags,
    ]);
    return tickets[0]!.tid;
  }

  async function search(
    who: HttpScanner | null,
    q: string,
  ): Promise<{ status: number; json: TicketSearchAnswer & { error?: { code: string } } }> {
    const response = await fetch(`${issuer.url}/api/v1/tickets/search?q=${encodeURIComponent(q)}`, {
      headers: who === null ? {} : { authorization: `Bearer ${who.apiKey}` },
    });
    return { status: response.status, json: (await response.json()) as TicketSearchAnswer & { error?: { code: string } } };
  }

  const names = (answer: TicketSearchAnswer): (string | null)[] => answer.results.map((result) => result.holder_name);

  it('finds tickets by partial name regardless of accents and case, by short id and by tid, in its own event only', async () => {
    const event = await createEvent(issuer.data);
    const other = await createEvent(issuer.data);
    const zoe = await issue(event.eid, 'Zoë Ångström', 'VIP');
    await issue(event.eid, 'Zoe Smith', 'Standard');
    await issue(event.eid, 'Jean-Luc Picard', 'Standard');
    await issue(event.eid, 'محمد علي', 'Standard');
    await issue(other.eid, 'Zoë Ångström', 'VIP');
    const supervisor = await scanner(event.eid, 'supervisor');

    const found = await search(supervisor, 'zoe ang');
    expect(found.status).toBe(200);
    expect(found.json).toEqual({
      more: false,
      results: [
        {
          tid: zoe,
          short_id: `${zoe.slice(-8, -4)}-${zoe.slice(-4)}`,
          holder_name: 'Zoë Ångström',
          ticket_type: 'VIP',
          status: 'valid',
          presence: null,
          checked_in_at: null,
        },
      ],
    });
    expect(names((await search(supervisor, 'ZOË')).json)).toEqual(['Zoë Ångström', 'Zoe Smith']); // by searchable name: "zoe angstrom" < "zoe smith"
    expect(names((await search(supervisor, 'luc jean')).json)).toEqual(['Jean-Luc Picard']);
    expect(names((await search(supervisor, 'علي')).json)).toEqual(['محمد علي']);
    expect(names((await search(supervisor, 'zoe picard')).json)).toEqual([]);
    const short = `${zoe.slice(-8, -4)}-${zoe.slice(-4)}`.toLowerCase();
    expect((await search(supervisor, short)).json.results.map((r) => r.tid)).toEqual([zoe]);
    expect((await search(supervisor, zoe)).json.results.map((r) => r.tid)).toEqual([zoe]);
    expect((await search(supervisor, zoe.toLowerCase())).json.results.map((r) => r.tid)).toEqual([zoe]);
  });

  it("carries each ticket's attention as the check-in answer does: the type's note, then the ticket's; absent when none applies", async () => {
    const event = await createEvent(issuer.data);
    await cliJson([
      'event',
      'ticket-type',
      'set',
      '--data',
      issuer.data,
      '--event',
      event.eid,
      '--type',
      'VIP',
      '--note',
      'Green wristband',
    ]);
    const both = await issue(event.eid, 'Zoë Ångström', 'VIP', '--attention', '--note', 'Wheelchair user: side door');
    const typeOnly = await issue(event.eid, 'Zoe Smith', 'VIP');
    const flagOnly = await issue(event.eid, 'Zoe Adams', 'Standard', '--attention');
    const none = await issue(event.eid, 'Zoe Brown', 'Standard');
    const supervisor = await scanner(event.eid, 'supervisor');

    const found = await search(supervisor, 'zoe');
    expect(found.status).toBe(200);
    const attention = Object.fromEntries(found.json.results.map((result) => [result.tid, result.attention]));
    expect(attention).toEqual({
      [both]: { required: true, notes: ['Green wristband', 'Wheelchair user: side door'] },
      [typeOnly]: { required: false, notes: ['Green wristband'] },
      [flagOnly]: { required: true, notes: [] },
      [none]: undefined,
    });
    expect(found.json.results.find((result) => result.tid === none)).not.toHaveProperty('attention');

    // The same as the status answer carries for the ticket (docs/protocol.md "Attention notes (project extension)").
    const status = await fetch(`${issuer.url}/api/v1/tickets/${both}/status`, {
      headers: { authorization: `Bearer ${supervisor.apiKey}` },
    });
    expect(((await status.json()) as { attention?: unknown }).attention).toEqual(attention[both]);

    // A change made after the search shows in the next one; clearing the type's rule leaves the ticket's own.
    await cliJson(['event', 'ticket-type', 'set', '--data', issuer.data, '--event', event.eid, '--type', 'VIP', '--no-note']);
    const again = await search(supervisor, 'zoe ang');
    expect(again.json.results.map((result) => result.attention)).toEqual([{ required: true, notes: ['Wheelchair user: side door'] }]);
  });

  it("carries each ticket's handouts and party as its status answer does, read for the page of results", async () => {
    const event = await createEvent(issuer.data);
    await cliJson(['event', 'ticket-type', 'set', '--data', issuer.data, '--event', event.eid, '--type', 'VIP', '--handout', 'wristband']);
    const family = await issue(event.eid, 'Zoë Ångström', 'VIP', '--party', '5', '--handout', '2 drink voucher');
    const single = await issue(event.eid, 'Zoe Smith', 'VIP');
    const plain = await issue(event.eid, 'Zoe Brown', 'Standard');
    const party = await issue(event.eid, 'Zoe Adams', 'Standard', '--party', '3');
    const supervisor = await scanner(event.eid, 'supervisor');
    const given = await fetch(`${issuer.url}/api/v1/tickets/handouts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${supervisor.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        handout_id: crypto.randomUUID(),
        tid: family,
        eid: event.eid,
        item: 'drink voucher',
        given_at: '2030-01-01T18:00:00.000Z',
        gate_id: 'north',
      }),
    });
    expect(given.status).toBe(200);
    const admitted = await postCheckIn(issuer.url, supervisor, {
      tid: family,
      eid: event.eid,
      scanned_at: new Date().toISOString(),
      scanner_id: supervisor.scannerId,
      idempotency_key: crypto.randomUUID(),
      action: 'entry',
      people: 3,
    });
    expect(admitted.status).toBe(200);

    const found = await search(supervisor, 'zoe');
    expect(found.status).toBe(200);
    const byTid = new Map(found.json.results.map((result) => [result.tid, result]));
    expect(byTid.get(family)).toMatchObject({
      status: 'checked_in',
      party: { size: 5, inside: 3, admitted_total: 3, remaining: 2 },
      handouts: [
        { item: 'wristband', count: 1, given: [] },
        { item: 'drink voucher', count: 2, given: [{ at: '2030-01-01T18:00:00.000Z', gate: 'north', scanner: expect.any(String) }] },
      ],
    });
    expect(byTid.get(single)).toMatchObject({ handouts: [{ item: 'wristband', count: 1, given: [] }] });
    expect(byTid.get(single)).not.toHaveProperty('party');
    expect(byTid.get(party)).toMatchObject({ status: 'valid', party: { size: 3, inside: 0, admitted_total: 0, remaining: 3 } });
    expect(byTid.get(party)).not.toHaveProperty('handouts');
    expect(byTid.get(plain)).not.toHaveProperty('handouts');
    expect(byTid.get(plain)).not.toHaveProperty('party');

    // The same fields, the same values, as the ticket's status answer (docs/protocol.md "Ticket search").
    for (const tid of [family, single, party, plain]) {
      const status = (await (
        await fetch(`${issuer.url}/api/v1/tickets/${tid}/status`, { headers: { authorization: `Bearer ${supervisor.apiKey}` } })
      ).json()) as { handouts?: unknown; party?: unknown };
      expect([byTid.get(tid)!.handouts, byTid.get(tid)!.party]).toEqual([status.handouts, status.party]);
    }

    // The dashboard's lookup and counts on this store (docs/issuer.md "Admin dashboard", "Handouts").
    const { admin_token: token } = await cliJson<{ admin_token: string }>(['admin-token', 'reset', '--data', issuer.data]);
    const admin = async (path: string) =>
      (await (await fetch(`${issuer.url}/admin/api${path}`, { headers: { authorization: `Bearer ${token}` } })).json()) as Record<
        string,
        unknown
      >;
    const card = ((await admin(`/events/${event.eid}/tickets?q=${encodeURIComponent('zoe ang')}`))['tickets'] as object[])[0];
    expect(card).toMatchObject({ handouts: byTid.get(family)!.handouts, party: byTid.get(family)!.party });
    expect(await admin(`/events/${event.eid}/handouts`)).toEqual({
      eid: event.eid,
      items: [
        { item: 'drink voucher', due: 2, given: 1, refused: 0 },
        { item: 'wristband', due: 2, given: 0, refused: 0 },
      ],
    });
  });

  it("refuses a steward's key, a missing key and a query with nothing to search for", async () => {
    const event = await createEvent(issuer.data);
    await issue(event.eid, 'Zoë Ångström', 'VIP');
    const steward = await scanner(event.eid, 'steward');
    const supervisor = await scanner(event.eid, 'supervisor');
    const refused = await search(steward, 'zoe');
    expect(refused.status).toBe(403);
    expect(refused.json.error?.code).toBe('FORBIDDEN');
    expect(refused.json.results).toBeUndefined();
    expect((await search(null, 'zoe')).status).toBe(401);
    const empty = await search(supervisor, ' -- ');
    expect(empty.status).toBe(400);
    expect(empty.json.error?.code).toBe('INVALID_REQUEST');
    expect((await search(supervisor, 'x'.repeat(201))).status).toBe(400);
  });

  it('checks a found ticket in by hand with a reason, for a supervisor only; the export shows the reason and who', async () => {
    const event = await createEvent(issuer.data);
    const tid = await issue(event.eid, 'Zoë Ångström', 'VIP');
    const steward = await scanner(event.eid, 'steward');
    const supervisor = await scanner(event.eid, 'supervisor');
    const manual = (who: HttpScanner, extra: Record<string, unknown>) =>
      postCheckIn(issuer.url, who, {
        tid,
        eid: event.eid,
        scanned_at: new Date().toISOString(),
        scanner_id: who.scannerId,
        idempotency_key: crypto.randomUUID(),
        action: 'entry',
        staff_id: 'sup-anna',
        ...extra,
      });

    const bySteward = await manual(steward, { manual_reason: 'QR code unreadable' });
    expect(bySteward.status).toBe(403);
    expect(JSON.parse(bySteward.text).error.details.reason).toBe('action_not_allowed');
    expect((await manual(supervisor, { manual_reason: '  ' })).status).toBe(400);
    expect((await manual(supervisor, { manual_reason: 'QR code unreadable', action: 'exit' })).status).toBe(400);
    expect((await search(supervisor, 'zoe')).json.results[0]!.status).toBe('valid');

    const admitted = await manual(supervisor, { manual_reason: 'QR code unreadable' });
    expect(admitted.status).toBe(200);
    expect(JSON.parse(admitted.text).status).toBe('valid');
    const after = (await search(supervisor, 'zoe')).json.results[0]!;
    expect(after).toMatchObject({ status: 'checked_in', presence: 'inside' });
    expect(after.checked_in_at).not.toBeNull();

    const rows = await cliJson<Record<string, string | null>[]>(['checkins', 'export', '--data', issuer.data, '--event', event.eid]);
    const admission = rows.find((row) => row['source'] === 'checkins' && row['tid'] === tid);
    expect(admission).toMatchObject({ outcome: 'checked_in', reason: 'QR code unreadable', staff_id: 'sup-anna' });
  });

  it("the dashboard's search finds the ticket, its manual check-in with a reason admits once and is audited", async () => {
    const event = await createEvent(issuer.data);
    const tid = await issue(event.eid, 'Zoë Ångström', 'VIP');
    await issue(event.eid, 'Zoe Smith', 'Standard');
    const { admin_token: token } = await cliJson<{ admin_token: string }>(['admin-token', 'reset', '--data', issuer.data]);
    const admin = async (method: 'GET' | 'POST', path: string, body?: object) => {
      const response = await fetch(`${issuer.url}/admin/api${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, json: (await response.json()) as Record<string, unknown> };
    };
    const audited = async () =>
      (await cliJson<{ ok: boolean; rows: number }>(['audit', 'verify', '--data', issuer.data, '--event', event.eid])).rows;

    // The dashboard's ticket search: accent- and case-insensitive and partial, as the kiosk's.
    const found = await admin('GET', `/events/${event.eid}/tickets?q=${encodeURIComponent('zoe ang')}`);
    expect(found.status).toBe(200);
    expect((found.json['tickets'] as { tid: string; holder_name: string }[]).map((t) => [t.tid, t.holder_name])).toEqual([
      [tid, 'Zoë Ångström'],
    ]);

    // A reason is required; nothing is recorded without one.
    const logBefore = await audited();
    for (const body of [{}, { reason: '   ' }, { reason: 'x'.repeat(201) }]) {
      expect((await admin('POST', `/tickets/${tid}/check-in`, body)).status).toBe(400);
    }
    expect(await audited()).toBe(logBefore);

    const admitted = await admin('POST', `/tickets/${tid}/check-in`, { reason: ' phone dead, ID seen ' });
    expect(admitted).toMatchObject({ status: 200, json: { tid, status: 'valid', ticket: { status: 'checked_in', presence: 'inside' } } });
    // Again: judged again, already used, and audited as such.
    expect((await admin('POST', `/tickets/${tid}/check-in`, { reason: 'again' })).json).toMatchObject({ status: 'already_used' });
    const verified = await cliJson<{ ok: boolean; rows: number }>(['audit', 'verify', '--data', issuer.data, '--event', event.eid]);
    expect(verified).toMatchObject({ ok: true, rows: logBefore + 2 });

    const rows = await cliJson<Record<string, string | null>[]>(['checkins', 'export', '--data', issuer.data, '--event', event.eid]);
    expect(rows.filter((row) => row['tid'] === tid && row['source'] === 'checkins')).toEqual([
      expect.objectContaining({ outcome: 'checked_in', scanner_id: 'dashboard', reason: 'phone dead, ID seen' }),
    ]);
    expect(rows.filter((row) => row['tid'] === tid && row['source'] === 'scan_log')).toEqual([
      expect.objectContaining({ outcome: 'already_used', details: expect.stringContaining('"actor":"dashboard"') }),
    ]);
  });
});
