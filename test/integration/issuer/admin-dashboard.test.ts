/**
 * The admin dashboard's API with the admin token (docs/issuer.md "Admin
 * dashboard"): live counts after check-ins through the public API, the four
 * kinds of alert, and each action (lookup, revoke ticket, setup QR, revoke
 * scanner, CSV export), the door operations (occupancy, door settings,
 * offline policies, annulment, the kiosks' offline exposure), all through
 * app.inject on a real SQLite file.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { decodeSetupCode } from '../../../protocol/setup-code.js';
import { build } from '../../../issuer/app.js';
import { resetAdminToken } from '../../../issuer/services/admin-credential.js';
import { exportCsv, exportRows } from '../../../issuer/services/checkins-export.js';
import { DashboardAggregator, LATE_SCAN_MS, ONLINE_WINDOW_MS } from '../../../issuer/services/dashboard.js';
import type { EventOverview, LookupResult, SetupCodeResult } from '../../../issuer/dashboard-api.js';
import type { EventRow } from '../../../issuer/store/events.js';
import { syncedOfflineAdmissions } from '../../../issuer/store/door.js';
import { typeRulesOf } from '../../../issuer/store/attention-notes.js';
import { createIssuerFixture, type EnrolledScanner, type IssuerFixture } from '../../support/issuer-fixture.js';
import { captureLog } from '../../support/unit/log-capture.js';

let fx: IssuerFixture;
let app: FastifyInstance;
let auth: Record<string, string>;
let event: EventRow;
let otherEvent: EventRow;
let north: EnrolledScanner;
let south: EnrolledScanner;

beforeAll(async () => {
  fx = createIssuerFixture();
  app = await build({ dataDir: fx.dataDir.root, logger: captureLog().logger });
  auth = { authorization: `Bearer ${(await resetAdminToken(fx.sql, new Date())).token}` };
  event = fx.createEvent({ name: 'Main night' });
  otherEvent = fx.createEvent({ name: 'Other night' });
  north = fx.enrollScanner(event.eid, { gateId: 'North' });
  south = fx.enrollScanner(event.eid, { gateId: 'South' });
});

afterAll(async () => {
  await app.close();
  fx.cleanup();
});

async function checkIn(scanner: EnrolledScanner, tid: string, changes: Record<string, unknown> = {}) {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/tickets/check-in',
    headers: { authorization: `Bearer ${scanner.apiKey}` },
    payload: {
      tid,
      eid: scanner.eid,
      scanned_at: new Date().toISOString(),
      scanner_id: scanner.scannerId,
      idempotency_key: randomUUID(),
      ...changes,
    },
  });
  return response;
}

async function overview(eid = event.eid): Promise<EventOverview> {
  const response = await app.inject({ url: `/admin/api/events/${eid}/overview`, headers: auth });
  expect(response.statusCode).toBe(200);
  return response.json() as EventOverview;
}

async function admin(method: 'GET' | 'POST', url: string, payload?: object) {
  return app.inject({ method, url: `/admin/api${url}`, headers: auth, ...(payload === undefined ? {} : { payload }) });
}

describe('live counts', () => {
  test('checked in / issued, per gate, per type, scans per minute and scanners follow the check-ins', async () => {
    const before = await overview();
    expect(before.totals).toEqual({ issued: 0, checked_in: 0, revoked: 0 });
    expect(before.scans.per_minute).toHaveLength(15);

    const vip = [
      fx.issueTicket(event.eid, { ticketType: 'VIP', holderName: 'Vera Vip' }),
      fx.issueTicket(event.eid, { ticketType: 'VIP', holderName: 'Victor Vip' }),
    ];
    const standard = Array.from({ length: 4 }, (_, i) =>
      fx.issueTicket(event.eid, { ticketType: 'Standard', holderName: `Sam Standard ${i}` }),
    );
    const untyped = fx.issueTicket(event.eid, { ticketType: null, holderName: null });
    fx.issueTicket(otherEvent.eid); // another event's ticket: not counted here

    expect((await checkIn(north, vip[0]!.tid)).json()).toMatchObject({ status: 'valid' });
    expect((await checkIn(north, standard[0]!.tid)).json()).toMatchObject({ status: 'valid' });
    expect((await checkIn(south, standard[1]!.tid)).json()).toMatchObject({ status: 'valid' });
    expect((await checkIn(south, untyped.tid)).json()).toMatchObject({ status: 'valid' });
    // The request names no gate: it is counted at the key's gate.
    const once = { idempotency_key: randomUUID(), scanned_at: new Date().toISOString() };
    expect((await checkIn(south, standard[2]!.tid, once)).json()).toMatchObject({ status: 'valid' });
    // A replay of the same request (an offline queue resending it) is not a new scan.
    const replay = await checkIn(south, standard[2]!.tid, once);
    expect(replay.json()).toMatchObject({ status: 'valid' });

    const now = await overview();
    expect(now.totals).toEqual({ issued: 7, checked_in: 5, revoked: 0 });
    expect(now.by_gate).toEqual([
      { gate_id: 'North', checked_in: 2 },
      { gate_id: 'South', checked_in: 3 },
    ]);
    expect(now.by_type).toEqual([
      { ticket_type: 'Standard', issued: 4, checked_in: 3 },
      { ticket_type: 'VIP', issued: 2, checked_in: 1 },
      { ticket_type: null, issued: 1, checked_in: 1 },
    ]);
    // 5 check-ins (the replay not counted), all in the last minute and in the current minute's bar.
    expect(now.scans.last_minute).toBe(5);
    expect(now.scans.per_minute.at(-1)!.scans).toBe(5);
    expect(now.scans.per_minute.reduce((sum, minute) => sum + minute.scans, 0)).toBe(5);

    const byKey = new Map(now.scanners.map((scanner) => [scanner.api_key_id, scanner]));
    expect(byKey.get(north.apiKeyId)).toMatchObject({
      gate_id: 'North',
      online: true,
      revoked: false,
      scans: 2,
      scanner_id: north.scannerId,
    });
    expect(byKey.get(south.apiKeyId)).toMatchObject({ gate_id: 'South', online: true, scans: 3 });
    expect(Date.now() - Date.parse(byKey.get(south.apiKeyId)!.last_contact_at)).toBeLessThan(ONLINE_WINDOW_MS);

    // Another event's dashboard sees none of it.
    expect((await overview(otherEvent.eid)).totals).toEqual({ issued: 1, checked_in: 0, revoked: 0 });
  });

  test('a scanner whose last contact is older than the online window is shown offline, with that last contact', async () => {
    const quiet = fx.enrollScanner(event.eid, { gateId: 'East' });
    const longAgo = new Date(Date.now() - ONLINE_WINDOW_MS - 60_000).toISOString();
    fx.db.prepare('UPDATE api_keys SET created_at = ? WHERE api_key_id = ?').run(longAgo, quiet.apiKeyId);
    const view = (await overview()).scanners.find((scanner) => scanner.api_key_id === quiet.apiKeyId)!;
    expect(view).toMatchObject({ online: false, last_contact_at: longAgo, scans: 0 });
  });
});

describe('alerts', () => {
  test('forged-signature report, revoked scan, wrong-event scan and a late already_used each raise their alert; a prompt already_used does not', async () => {
    const counts = (await overview()).alerts.counts;
    expect(counts).toEqual({
      offline_double_admission: 0,
      merged_double_admission: 0,
      forged_signature: 0,
      revoked_ticket: 0,
      wrong_event: 0,
    });

    const forgedFrom = fx.issueTicket(event.eid, { holderName: 'Grace Genuine' });
    const forged = await checkIn(north, forgedFrom.tid, { signature_status: 'invalid' });
    expect(forged.statusCode).toBe(400);

    const revoked = fx.issueTicket(event.eid, { holderName: 'Rita Revoked' });
    fx.db.prepare('UPDATE tickets SET revoked_at = ? WHERE tid = ?').run(new Date().toISOString(), revoked.tid);
    expect((await checkIn(south, revoked.tid)).json()).toMatchObject({ status: 'revoked' });

    const foreign = fx.issueTicket(otherEvent.eid, { holderName: 'Otto Other' });
    expect((await checkIn(north, foreign.tid)).json()).toMatchObject({ status: 'wrong_event' });

    // One holder in at the north gate now; the south kiosk was offline and admitted the same ticket 5 minutes ago.
    const shared = fx.issueTicket(event.eid, { holderName: 'Dora Double' });
    expect((await checkIn(north, shared.tid)).json()).toMatchObject({ status: 'valid' });
    const lateScannedAt = new Date(Date.now() - 5 * 60_000).toISOString();
    expect((await checkIn(south, shared.tid, { scanned_at: lateScannedAt })).json()).toMatchObject({ status: 'already_used' });
    // Scanned just now and refused at the door: an ordinary second scan, not an alert.
    expect((await checkIn(north, shared.tid)).json()).toMatchObject({ status: 'already_used' });
    // Late, but within the threshold: not an alert either.
    expect((await checkIn(north, shared.tid, { scanned_at: new Date(Date.now() - LATE_SCAN_MS / 2).toISOString() })).json()).toMatchObject({
      status: 'already_used',
    });

    const { alerts } = await overview();
    expect(alerts.counts).toEqual({
      offline_double_admission: 1,
      merged_double_admission: 0,
      forged_signature: 1,
      revoked_ticket: 1,
      wrong_event: 1,
    });
    // Newest first.
    expect(alerts.recent.map((alert) => alert.kind)).toEqual([
      'offline_double_admission',
      'wrong_event',
      'revoked_ticket',
      'forged_signature',
    ]);
    const [double, wrong, rev, forgery] = alerts.recent as [
      (typeof alerts.recent)[0],
      (typeof alerts.recent)[0],
      (typeof alerts.recent)[0],
      (typeof alerts.recent)[0],
    ];

    expect(double).toMatchObject({
      tid: shared.tid,
      holder_name: 'Dora Double',
      gate_id: 'South',
      api_key_id: south.apiKeyId,
      scanner_name: 'Test scanner',
      scanned_at: lateScannedAt,
    });
    expect(double.delay_seconds).toBeGreaterThanOrEqual(299);
    expect(double.first_check_in).toMatchObject({ gate_id: 'North', scanner: 'Test scanner' });
    expect(wrong).toMatchObject({ tid: foreign.tid, holder_name: 'Otto Other', ticket_event_name: 'Other night', gate_id: 'North' });
    expect(rev).toMatchObject({ tid: revoked.tid, holder_name: 'Rita Revoked', gate_id: 'South', first_check_in: null });
    // The claims of a forged code are not the issuer's: no holder is named.
    expect(forgery).toMatchObject({ tid: forgedFrom.tid, holder_name: null, gate_id: 'North' });

    // The alerts belong to this event only.
    expect((await overview(otherEvent.eid)).alerts.recent).toEqual([]);
  });
});

describe('actions', () => {
  test('lookup by ticket id (any case, any event) or by part of the holder name, with LIKE wildcards taken literally', async () => {
    const ada = fx.issueTicket(event.eid, { holderName: 'Ada Lovelace', ticketType: 'VIP' });
    fx.issueTicket(event.eid, { holderName: 'Ada_Underscore' });
    fx.issueTicket(event.eid, { holderName: '100% Percent' });
    const other = fx.issueTicket(otherEvent.eid, { holderName: 'Ada Elsewhere' });

    const byId = (await admin('GET', `/events/${event.eid}/tickets?q=${ada.tid.toLowerCase()}`)).json() as LookupResult;
    expect(byId.tickets.map((t) => t.tid)).toEqual([ada.tid]);
    expect(byId.tickets[0]).toMatchObject({
      holder_name: 'Ada Lovelace',
      ticket_type: 'VIP',
      status: 'valid',
      event_name: 'Main night',
      checked_in_at: null,
    });

    const byName = (await admin('GET', `/events/${event.eid}/tickets?q=ada`)).json() as LookupResult;
    expect(byName.tickets.map((t) => t.holder_name).sort()).toEqual(['Ada Lovelace', 'Ada_Underscore']);
    expect(byName.truncated).toBe(false);
    // Another event's ticket by id, but not by name.
    expect(((await admin('GET', `/events/${event.eid}/tickets?q=${other.tid}`)).json() as LookupResult).tickets[0]).toMatchObject({
      event_name: 'Other night',
    });

    expect(
      ((await admin('GET', `/events/${event.eid}/tickets?q=${encodeURIComponent('a_u')}`)).json() as LookupResult).tickets.map(
        (t) => t.holder_name,
      ),
    ).toEqual(['Ada_Underscore']);
    expect(
      ((await admin('GET', `/events/${event.eid}/tickets?q=${encodeURIComponent('%')}`)).json() as LookupResult).tickets.map(
        (t) => t.holder_name,
      ),
    ).toEqual(['100% Percent']);
    expect(((await admin('GET', `/events/${event.eid}/tickets?q=nobody`)).json() as LookupResult).tickets).toEqual([]);
  });

  test('lookup matches names as the ticket search does (accents and case aside, words in any order) and short ids', async () => {
    const zoe = fx.issueTicket(event.eid, { holderName: 'Zoë Ångström' });
    fx.issueTicket(event.eid, { holderName: 'Zoe Smith' });
    const names = async (q: string) =>
      ((await admin('GET', `/events/${event.eid}/tickets?q=${encodeURIComponent(q)}`)).json() as LookupResult).tickets.map(
        (t) => t.holder_name,
      );
    expect(await names('zoe ang')).toEqual(['Zoë Ångström']);
    expect(await names('ÅNGSTRÖM ZOË')).toEqual(['Zoë Ångström']);
    expect(await names('zoe')).toEqual(['Zoe Smith', 'Zoë Ångström']);
    expect(await names(`${zoe.tid.slice(-8, -4)}-${zoe.tid.slice(-4)}`.toLowerCase())).toEqual(['Zoë Ångström']);
  });

  test('lookup answers at most 20 tickets and says there are more', async () => {
    for (let i = 0; i < 22; i++) fx.issueTicket(event.eid, { holderName: `Many Zed ${String(i).padStart(2, '0')}` });
    const result = (await admin('GET', `/events/${event.eid}/tickets?q=${encodeURIComponent('many zed')}`)).json() as LookupResult;
    expect(result.tickets).toHaveLength(20);
    expect(result.truncated).toBe(true);
  });

  test('lookup refuses an empty or missing query (400) and an unknown event (404)', async () => {
    expect((await admin('GET', `/events/${event.eid}/tickets?q=${encodeURIComponent('   ')}`)).json()).toMatchObject({
      error: { code: 'INVALID_REQUEST', details: { field: 'q' } },
    });
    expect((await admin('GET', `/events/${event.eid}/tickets`)).statusCode).toBe(400);
    const unknown = await admin('GET', '/events/NO-SUCH-EVENT/tickets?q=x');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: 'NOT_FOUND', details: { reason: 'event_not_found' } } });
  });

  test('revoke a ticket: the next scan is refused, the count goes up, the lookup shows it; an unknown ticket is 404', async () => {
    const ticket = fx.issueTicket(event.eid, { holderName: 'Refund Rex' });
    const revokedBefore = (await overview()).totals.revoked;
    const response = await admin('POST', `/tickets/${ticket.tid}/revoke`, { reason: 'refund' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      tid: ticket.tid,
      status: 'revoked',
      ticket: { status: 'revoked', revoke_reason: 'refund', holder_name: 'Refund Rex' },
    });
    expect((await checkIn(north, ticket.tid)).json()).toMatchObject({ status: 'revoked' });
    expect((await overview()).totals.revoked).toBe(revokedBefore + 1);

    const unknown = await admin('POST', '/tickets/NO-SUCH-TICKET/revoke', {});
    expect(unknown.statusCode).toBe(404);
    // The same failure as `ticket-issuer ticket revoke` (issuer/services/admin-actions.ts).
    expect(unknown.json()).toEqual({
      error: { code: 'NOT_FOUND', message: 'no ticket NO-SUCH-TICKET at this issuer', details: { reason: 'ticket_not_found' } },
    });
    expect((await admin('POST', `/tickets/${ticket.tid}/revoke`, { reason: 'x'.repeat(201) })).statusCode).toBe(400);
  });

  test('setup QR for a gate: a single-use code that enrolls a scanner scoped to that gate, as an SVG image; revoking an unused one works', async () => {
    const response = await admin('POST', `/events/${event.eid}/setup-codes`, { gate_id: '  West  ' });
    expect(response.statusCode).toBe(200);
    const setup = response.json() as SetupCodeResult;
    expect(setup).toMatchObject({ eid: event.eid, event_name: 'Main night', gate_id: 'West', tls_cert_sha256: null });
    expect(setup.qr_image).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(setup.qr_image.split(',')[1]!, 'base64').toString('utf8')).toContain('<svg');
    const payload = decodeSetupCode(setup.setup_qr);
    expect(payload).toMatchObject({
      iss: fx.baseUrl,
      eid: event.eid,
      gate_id: 'West',
      event_name: 'Main night',
      enroll_url: `${fx.baseUrl}/api/v1/scanners/enroll`,
    });
    expect(payload.tls_cert_sha256).toBeUndefined();
    // The token is stored as a hash only.
    const row = fx.db.prepare('SELECT * FROM enrollment_tokens WHERE token_id = ?').get(setup.token_id) as { token_hash: string };
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);

    const enroll = (token: string) =>
      app.inject({
        method: 'POST',
        url: '/api/v1/scanners/enroll',
        payload: { token, scanner_id: randomUUID(), scanner_name: 'West kiosk' },
      });
    const enrolled = await enroll(payload.token);
    expect(enrolled.statusCode).toBe(200);
    expect(enrolled.json()).toMatchObject({ scope: { eid: event.eid, gate_id: 'West' } });
    expect((await enroll(payload.token)).json()).toMatchObject({ error: { code: 'INVALID_TOKEN' } });
    expect((await overview()).scanners.find((s) => s.scanner_name === 'West kiosk')).toMatchObject({ gate_id: 'West', online: true });
    // A used code cannot be revoked (revoke the scanner instead).
    expect((await admin('POST', `/setup-codes/${setup.token_id}/revoke`, {})).json()).toMatchObject({
      error: { code: 'INVALID_REQUEST', details: { reason: 'token_already_used' } },
    });

    const unused = (await admin('POST', `/events/${event.eid}/setup-codes`, {})).json() as SetupCodeResult;
    expect(unused.gate_id).toBeNull();
    expect(decodeSetupCode(unused.setup_qr).gate_id).toBeUndefined();
    expect((await admin('POST', `/setup-codes/${unused.token_id}/revoke`, {})).json()).toEqual({
      token_id: unused.token_id,
      status: 'revoked',
    });
    expect((await enroll(decodeSetupCode(unused.setup_qr).token)).json()).toMatchObject({ error: { code: 'TOKEN_REVOKED' } });
    expect((await admin('POST', '/setup-codes/tok_nothing/revoke', {})).statusCode).toBe(404);
    expect((await admin('POST', '/events/NO-SUCH-EVENT/setup-codes', {})).statusCode).toBe(404);
  });

  test('revoke a scanner: its next request is refused and it shows revoked, not online; an unknown key is 404', async () => {
    const doomed = fx.enrollScanner(event.eid, { gateId: 'Lost' });
    const ticket = fx.issueTicket(event.eid);
    const response = await admin('POST', `/scanners/${doomed.apiKeyId}/revoke`, {});
    expect(response.json()).toEqual({ api_key_id: doomed.apiKeyId, status: 'revoked' });
    expect((await checkIn(doomed, ticket.tid)).statusCode).toBe(401);
    expect((await overview()).scanners.find((s) => s.api_key_id === doomed.apiKeyId)).toMatchObject({ revoked: true, online: false });
    const unknown = await admin('POST', '/scanners/key_nothing/revoke', {});
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: 'NOT_FOUND', details: { reason: 'api_key_not_found' } } });
  });

  test('CSV export: the rows of `checkins export --format csv`, as a download', async () => {
    const response = await admin('GET', `/events/${event.eid}/checkins.csv`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="checkins-${event.eid}.csv"`);
    expect(response.body).toBe(exportCsv(await exportRows(fx.sql, event.eid)));
    const lines = response.body.trim().split('\n');
    expect(lines[0]).toBe(
      'source,at,outcome,tid,eid,holder_name,ticket_type,scanned_at,scanner_id,api_key_id,gate_id,idempotency_key,details,action,state,actor,reason,staff_id,attention_overridden_by,id_check',
    );
    expect(lines.filter((line) => line.startsWith('checkins,')).length).toBe((await overview()).totals.checked_in);
    expect(response.body).toContain(',invalid_signature,');
    expect((await admin('GET', '/events/NO-SUCH-EVENT/checkins.csv')).statusCode).toBe(404);
  });
});

describe('door operations', () => {
  let night: EventRow;
  let gateA: EnrolledScanner;
  let gateB: EnrolledScanner;

  beforeAll(() => {
    night = fx.createEvent({ name: 'Door night' });
    gateA = fx.enrollScanner(night.eid, { gateId: 'A' });
    gateB = fx.enrollScanner(night.eid, { gateId: 'B' });
  });

  const door = async (scanner: EnrolledScanner, tid: string, action: 'entry' | 'exit', extra: Record<string, unknown> = {}) =>
    ((await checkIn(scanner, tid, { action, ...extra })).json() as { status: string }).status;

  test('entry policy and capacity: set, changed, removed; refusals name the field; an unknown event is 404', async () => {
    expect((await overview(night.eid)).door).toMatchObject({ entry_policy: 'single', capacity: null });
    const set = await admin('POST', `/events/${night.eid}/door`, { entry_policy: 'reentry', capacity: 10 });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toEqual({ eid: night.eid, entry_policy: 'reentry', capacity: 10 });
    expect((await overview(night.eid)).door).toMatchObject({
      entry_policy: 'reentry',
      capacity: 10,
      occupancy: { capacity: 10, level: 'open' },
    });
    // Each field alone; null removes the capacity.
    expect((await admin('POST', `/events/${night.eid}/door`, { capacity: null })).json()).toMatchObject({
      capacity: null,
      entry_policy: 'reentry',
    });
    expect((await admin('POST', `/events/${night.eid}/door`, { capacity: 10 })).json()).toMatchObject({ capacity: 10 });

    for (const body of [{}, { capacity: 0 }, { capacity: 2.5 }, { entry_policy: 'twice' }]) {
      const refused = await admin('POST', `/events/${night.eid}/door`, body);
      expect({ body, status: refused.statusCode }).toEqual({ body, status: 400 });
      expect(refused.json()).toMatchObject({ error: { code: 'INVALID_REQUEST' } });
    }
    const unknown = await admin('POST', '/events/NO-SUCH-EVENT/door', { capacity: 5 });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: 'NOT_FOUND', details: { reason: 'event_not_found' } } });
    const anonymous = await app.inject({ method: 'POST', url: `/admin/api/events/${night.eid}/door`, payload: { capacity: 1 } });
    expect(anonymous.statusCode).toBe(401);
    expect((await overview(night.eid)).door.capacity).toBe(10);
  });

  test('offline exposure policies per ticket type: the default, a type of its own, the types that follow the default', async () => {
    fx.issueTicket(night.eid, { ticketType: 'Standard', holderName: 'Stan' });
    const set = await admin('POST', `/events/${night.eid}/offline-policies`, { ticket_type: 'VIP', policy: 'capped', per_hour: 2 });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toEqual({
      eid: night.eid,
      offline_policies: [
        { ticket_type: '', policy: 'offline', per_hour: null, own: true },
        { ticket_type: 'Standard', policy: 'offline', per_hour: null, own: false },
        { ticket_type: 'VIP', policy: 'capped', per_hour: 2, own: true },
      ],
    });
    const strict = await admin('POST', `/events/${night.eid}/offline-policies`, { ticket_type: '', policy: 'online-only' });
    expect((strict.json() as { offline_policies: unknown[] }).offline_policies).toEqual([
      { ticket_type: '', policy: 'online-only', per_hour: null, own: true },
      { ticket_type: 'Standard', policy: 'online-only', per_hour: null, own: false },
      { ticket_type: 'VIP', policy: 'capped', per_hour: 2, own: true },
    ]);
    // What the kiosks are told (the heartbeat answer) is what the dashboard set.
    const beat = await app.inject({
      method: 'POST',
      url: '/api/v1/scanners/heartbeat',
      headers: { authorization: `Bearer ${gateA.apiKey}` },
      payload: { scanner_id: gateA.scannerId },
    });
    expect(beat.json()).toMatchObject({
      offline_policies: { default: { policy: 'online-only' }, by_type: { VIP: { policy: 'capped', per_hour: 2 } } },
    });

    for (const body of [
      { ticket_type: 'VIP', policy: 'capped' },
      { ticket_type: 'VIP', policy: 'offline', per_hour: 3 },
      { ticket_type: 'VIP', policy: 'sometimes' },
      { policy: 'offline' },
      { ticket_type: 'VIP', policy: 'capped', per_hour: 0 },
    ]) {
      const refused = await admin('POST', `/events/${night.eid}/offline-policies`, body);
      expect({ body, status: refused.statusCode }).toEqual({ body, status: 400 });
    }
    expect((await admin('POST', '/events/NO-SUCH-EVENT/offline-policies', { ticket_type: '', policy: 'offline' })).statusCode).toBe(404);
    await admin('POST', `/events/${night.eid}/offline-policies`, { ticket_type: '', policy: 'offline' });
  });

  test('occupancy: inside now in total and per gate of entry, entries and exits, nearly full from 90%, full at 100%', async () => {
    const tickets = Array.from({ length: 11 }, (_, i) => fx.issueTicket(night.eid, { ticketType: 'Standard', holderName: `Guest ${i}` }));
    for (const ticket of tickets.slice(0, 5)) expect(await door(gateA, ticket.tid, 'entry')).toBe('valid');
    for (const ticket of tickets.slice(5, 9)) expect(await door(gateB, ticket.tid, 'entry')).toBe('valid');
    let occupancy = (await overview(night.eid)).door.occupancy;
    expect(occupancy).toEqual({
      inside: 9,
      capacity: 10,
      level: 'nearly_full',
      entries: 9,
      exits: 0,
      by_gate: [
        { gate_id: 'A', inside: 5, entries: 5, exits: 0 },
        { gate_id: 'B', inside: 4, entries: 4, exits: 0 },
      ],
    });
    // Out at B, of someone who came in at A: inside is counted at the gate of entry, the exit where it was scanned.
    expect(await door(gateB, tickets[0]!.tid, 'exit')).toBe('exited');
    occupancy = (await overview(night.eid)).door.occupancy;
    expect(occupancy).toMatchObject({ inside: 8, level: 'open', exits: 1 });
    expect(occupancy.by_gate).toEqual([
      { gate_id: 'A', inside: 4, entries: 5, exits: 0 },
      { gate_id: 'B', inside: 4, entries: 4, exits: 1 },
    ]);
    expect(await door(gateA, tickets[9]!.tid, 'entry')).toBe('valid');
    expect(await door(gateA, tickets[0]!.tid, 'entry')).toBe('valid'); // re-entry
    expect((await overview(night.eid)).door.occupancy).toMatchObject({ inside: 10, level: 'full', entries: 11 });
    expect(await door(gateA, tickets[10]!.tid, 'entry')).toBe('venue_full');
  });

  test('check in by hand from a lookup card: a reason is required; the issuer judges it as an entry, recorded with its reason', async () => {
    const guest = fx.issueTicket(night.eid, { ticketType: 'Standard', holderName: 'Lost Phone' });
    // The test before filled the venue (capacity 10); a full venue would refuse this entry as it refuses a door's.
    await admin('POST', `/events/${night.eid}/door`, { capacity: null });
    const revoked = fx.issueTicket(night.eid, { ticketType: 'Standard', holderName: 'Refunded' });
    await admin('POST', `/tickets/${revoked.tid}/revoke`, { reason: 'refund' });
    for (const payload of [{}, { reason: '' }, { reason: 'x'.repeat(201) }, { reason: '   ' }]) {
      const refused = await admin('POST', `/tickets/${guest.tid}/check-in`, payload);
      expect({ payload, status: refused.statusCode }).toEqual({ payload, status: 400 });
    }
    expect((await admin('POST', '/tickets/NO_SUCH_TICKET/check-in', { reason: 'phone dead' })).statusCode).toBe(404);
    const before = (await overview(night.eid)).totals.checked_in;

    const manual = await admin('POST', `/tickets/${guest.tid}/check-in`, { reason: ' phone dead, ID seen ' });
    expect(manual.statusCode).toBe(200);
    expect(manual.json()).toMatchObject({
      tid: guest.tid,
      status: 'valid',
      ticket: { tid: guest.tid, status: 'checked_in', presence: 'inside' },
    });
    const after = await overview(night.eid);
    expect(after.totals.checked_in).toBe(before + 1);
    const rows = await exportRows(fx.sql, night.eid);
    expect(rows).toContainEqual(expect.objectContaining({ tid: guest.tid, scanner_id: 'dashboard', reason: 'phone dead, ID seen' }));

    // Judged like any entry: once in, again is already used; a revoked ticket is refused; nothing more is recorded.
    expect((await admin('POST', `/tickets/${guest.tid}/check-in`, { reason: 'again' })).json()).toMatchObject({ status: 'already_used' });
    expect((await admin('POST', `/tickets/${revoked.tid}/check-in`, { reason: 'phone dead' })).json()).toMatchObject({ status: 'revoked' });
    expect((await overview(night.eid)).totals.checked_in).toBe(before + 1);
    // The same ticket at a door afterwards: already used.
    expect(await door(gateA, guest.tid, 'entry')).toBe('already_used');
  });

  test('annul a check-in: a reason is required; the ticket is usable again, occupancy drops, the annulment is in the activity', async () => {
    const guest = fx.issueTicket(night.eid, { ticketType: 'Standard', holderName: 'Wrong Person' });
    await admin('POST', `/events/${night.eid}/door`, { capacity: 100 });
    expect(await door(gateA, guest.tid, 'entry')).toBe('valid');
    const checkedIn = async () => {
      const view = await overview(night.eid);
      return {
        total: view.totals.checked_in,
        standard: view.by_type.find((type) => type.ticket_type === 'Standard')?.checked_in ?? 0,
        gateA: view.by_gate.find((gate) => gate.gate_id === 'A')?.checked_in ?? 0,
      };
    };
    const counted = await checkedIn();
    const before = (await overview(night.eid)).door.occupancy;

    for (const payload of [{}, { reason: '' }, { reason: 'x'.repeat(201) }, { reason: '   ' }]) {
      const refused = await admin('POST', `/tickets/${guest.tid}/annul`, payload);
      expect({ payload, status: refused.statusCode }).toEqual({ payload, status: 400 });
    }
    const annulled = await admin('POST', `/tickets/${guest.tid}/annul`, { reason: ' let in on a friend’s ticket ' });
    expect(annulled.statusCode).toBe(200);
    expect(annulled.json()).toMatchObject({
      tid: guest.tid,
      status: 'annulled',
      already: false,
      ticket: { tid: guest.tid, status: 'valid', presence: 'annulled' },
    });
    const after = await overview(night.eid);
    expect(after.door.occupancy).toMatchObject({ inside: before.inside - 1, entries: before.entries - 1 });
    expect(after.activity.annulments).toBe(1);
    // An undone check-in is not counted as checked in: in total, by type and at the gate it happened.
    expect(await checkedIn()).toEqual({ total: counted.total - 1, standard: counted.standard - 1, gateA: counted.gateA - 1 });
    expect(after.activity.recent[0]).toMatchObject({
      tid: guest.tid,
      holder_name: 'Wrong Person',
      ticket_type: 'Standard',
      actor: 'dashboard',
      reason: 'let in on a friend’s ticket',
    });
    // Recorded as the CLI's annulment is: in the admission history and the reconciliation export.
    const rows = await exportRows(fx.sql, night.eid);
    expect(rows).toContainEqual(
      expect.objectContaining({ tid: guest.tid, outcome: 'annulled', actor: 'dashboard', reason: 'let in on a friend’s ticket' }),
    );
    expect(rows).toContainEqual(expect.objectContaining({ tid: guest.tid, source: 'checkins', outcome: 'check_in_annulled' }));

    // Again: nothing changes (already). The ticket may enter again.
    expect((await admin('POST', `/tickets/${guest.tid}/annul`, { reason: 'twice' })).json()).toMatchObject({ already: true });
    expect((await overview(night.eid)).activity.annulments).toBe(1);
    expect(await door(gateB, guest.tid, 'entry')).toBe('valid');
    // Admitted again, at gate B this time: a check-in again, counted where it happened.
    const readmitted = await checkedIn();
    expect(readmitted).toEqual({ ...counted, gateA: counted.gateA - 1 });
    const live = await overview(night.eid);
    expect(live.by_gate.find((gate) => gate.gate_id === 'B')?.checked_in).toBeGreaterThan(0);
    // A dashboard started now (the issuer restarted) counts the same from the stored rows, though the
    // check-in row's gate has moved to B since.
    const restarted = new DashboardAggregator(fx.sql);
    expect(await restarted.refresh(1_000)).toBe(true);
    const recounted = await restarted.overview(night.eid);
    expect({ totals: recounted.totals, by_gate: recounted.by_gate, by_type: recounted.by_type }).toEqual({
      totals: live.totals,
      by_gate: live.by_gate,
      by_type: live.by_type,
    });
    const lookup = (await admin('GET', `/events/${night.eid}/tickets?q=${guest.tid}`)).json() as LookupResult;
    expect(lookup.tickets[0]).toMatchObject({ status: 'checked_in', presence: 'inside' });

    const never = fx.issueTicket(night.eid);
    const nothing = await admin('POST', `/tickets/${never.tid}/annul`, { reason: 'mistake' });
    expect(nothing.statusCode).toBe(400);
    expect(nothing.json()).toMatchObject({ error: { code: 'INVALID_REQUEST', details: { reason: 'not_checked_in' } } });
    const unknown = await admin('POST', '/tickets/NO-SUCH-TICKET/annul', { reason: 'mistake' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: 'NOT_FOUND', details: { reason: 'ticket_not_found' } } });
  });

  test('kiosks: direction, last heartbeat, queue, offline exposure per type against its cap, and what was synced', async () => {
    const before = (await overview(night.eid)).door.kiosks.find((kiosk) => kiosk.api_key_id === gateB.apiKeyId)!;
    expect(before).toMatchObject({ gate_id: 'B', direction: null, last_heartbeat_at: null, pending_scans: null, exposure: [] });

    const vip = fx.issueTicket(night.eid, { ticketType: 'VIP', holderName: 'Vic' });
    expect(await door(gateB, vip.tid, 'entry', { admitted_offline: true })).toBe('valid');
    const beat = await app.inject({
      method: 'POST',
      url: '/api/v1/scanners/heartbeat',
      headers: { authorization: `Bearer ${gateB.apiKey}` },
      payload: {
        scanner_id: gateB.scannerId,
        direction: 'exit',
        pending_scans: 4,
        offline_exposure: { VIP: 1, Standard: 3 },
        offline_last_hour: { VIP: 2, Standard: 3 },
      },
    });
    expect(beat.statusCode).toBe(200);
    const kiosk = (await overview(night.eid)).door.kiosks.find((k) => k.api_key_id === gateB.apiKeyId)!;
    expect(kiosk).toMatchObject({ scanner_id: gateB.scannerId, gate_id: 'B', direction: 'exit', pending_scans: 4 });
    expect(Date.now() - Date.parse(kiosk.last_heartbeat_at!)).toBeLessThan(60_000);
    expect(kiosk.exposure).toEqual([
      { ticket_type: 'Standard', unsynced: 3, last_hour: 3, synced: 0, policy: 'offline', per_hour: null, at_cap: false },
      { ticket_type: 'VIP', unsynced: 1, last_hour: 2, synced: 1, policy: 'capped', per_hour: 2, at_cap: true },
    ]);
    // The count the dashboard keeps as it reads the history is the store's own query (issuer/store/door.ts).
    expect(await syncedOfflineAdmissions(fx.sql, night.eid)).toEqual([{ scanner_id: gateB.scannerId, ticket_type: 'VIP', admissions: 1 }]);
    // A revoked kiosk is no longer listed.
    await admin('POST', `/scanners/${gateB.apiKeyId}/revoke`, {});
    expect((await overview(night.eid)).door.kiosks.map((k) => k.api_key_id)).toEqual([gateA.apiKeyId]);
  });
});

describe('catching up', () => {
  test('a server started on a large database counts everything, a chunk at a time', async () => {
    const { DashboardAggregator } = await import('../../../issuer/services/dashboard.js');
    const aggregator = new DashboardAggregator(fx.sql, { chunk: 3 });
    expect(await aggregator.refresh(2)).toBe(false);
    expect((await aggregator.overview(event.eid)).complete).toBe(false);
    while (!(await aggregator.refresh(5)));
    const fresh = await aggregator.overview(event.eid);
    const served = await overview();
    expect(fresh.complete).toBe(true);
    expect({ ...fresh, generated_at: null, scanners: null }).toEqual({ ...served, generated_at: null, scanners: null });
  });
});

describe('the page', () => {
  test('GET /admin and /admin/ serve the built page with its security headers; its assets are served, nothing else', async () => {
    for (const url of ['/admin', '/admin/']) {
      const page = await app.inject({ url });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-security-policy']).toBe(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      );
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['x-content-type-options']).toBe('nosniff');
    }
    const html = (await app.inject({ url: '/admin' })).body;
    const script = /src="(\/admin\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const style = /href="(\/admin\/assets\/[^"]+\.css)"/.exec(html)![1]!;
    const js = await app.inject({ url: script });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
    expect((await app.inject({ url: style })).headers['content-type']).toMatch(/^text\/css/);
    for (const url of [
      '/admin/assets/..%2F..%2F..%2Fpackage.json',
      '/admin/assets/.hidden.js',
      '/admin/assets/nothing.js',
      '/admin/assets/index.html',
    ]) {
      const response = await app.inject({ url });
      expect(response.statusCode, url).toBe(404);
      expect(response.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    }
  });

  test('without a built page, GET /admin answers 500 with the ErrorEnvelope (and the API still works)', async () => {
    const empty = fs.mkdtempSync(path.join(fx.root, 'no-dashboard-'));
    const bare = await build({ dataDir: fx.dataDir.root, logger: captureLog().logger, dashboardDir: empty });
    try {
      const page = await bare.inject({ url: '/admin' });
      expect(page.statusCode).toBe(500);
      expect(page.json()).toMatchObject({ error: { code: 'INTERNAL' } });
      expect((await bare.inject({ url: '/admin/api/session', headers: auth })).statusCode).toBe(200);
    } finally {
      await bare.close();
    }
  });
});

describe('ticket type notes', () => {
  // docs/issuer.md "Attention flags and check-in notes": the dashboard sets a type's rule as `event ticket-type set` does.
  test("sets a ticket type's flag and note, by the CLI's operation; the door is told; bad input changes nothing", async () => {
    const night = fx.createEvent({ name: 'Notes night' });
    const vip = fx.issueTicket(night.eid, { ticketType: 'VIP' });
    const scanner = fx.enrollScanner(night.eid);
    const doorIsTold = async (): Promise<unknown> => {
      const response = await app.inject({
        url: `/api/v1/tickets/${vip.tid}/status`,
        headers: { authorization: `Bearer ${scanner.apiKey}` },
      });
      expect(response.statusCode).toBe(200);
      return (response.json() as { attention?: unknown }).attention ?? null;
    };
    const setRule = (payload: object, eid = night.eid) => admin('POST', `/events/${eid}/ticket-types/attention`, payload);

    const empty = await admin('GET', `/events/${night.eid}/ticket-types`);
    expect(empty.statusCode).toBe(200);
    expect(empty.headers['cache-control']).toBe('no-store');
    expect(empty.json()).toEqual({ eid: night.eid, types: [], handouts: [] });

    const set = await setRule({ ticket_type: ' VIP ', attention: true, note: '  Green wristband ' });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toEqual({
      eid: night.eid,
      types: [{ ticket_type: 'VIP', attention: true, note: 'Green wristband' }],
      handouts: [],
    });
    // The store the CLI's `event ticket-type list` reads, and what a check-in or status answer carries.
    expect(await typeRulesOf(fx.sql, night.eid)).toEqual([{ ticket_type: 'VIP', attention: true, note: 'Green wristband' }]);
    expect(await doorIsTold()).toEqual({ required: true, notes: ['Green wristband'] });
    expect((await admin('GET', `/events/${night.eid}/ticket-types`)).json()).toEqual(set.json());

    // A field left out keeps its value; an empty note removes it.
    expect((await setRule({ ticket_type: 'VIP', note: '' })).json()).toEqual({
      eid: night.eid,
      types: [{ ticket_type: 'VIP', attention: true, note: null }],
      handouts: [],
    });
    expect(await doorIsTold()).toEqual({ required: true, notes: [] });
    expect((await setRule({ ticket_type: 'Crew', note: 'Backstage' })).json().types).toEqual([
      { ticket_type: 'Crew', attention: false, note: 'Backstage' },
      { ticket_type: 'VIP', attention: true, note: null },
    ]);

    // The label rules (protocol/attention.ts noteProblem; protocol/labels.ts for the type), each naming its field.
    const refused = async (payload: object, field: string, words: string): Promise<void> => {
      const response = await setRule(payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      const body = response.json() as { error: { code: string; message: string; details?: { field?: string } } };
      expect(body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field } });
      expect(body.error.message).toContain(words);
    };
    await refused({ ticket_type: 'VIP', note: 'bad\u0007note' }, 'note', 'control character');
    // Over 200 characters: refused by the body's schema, which names the field.
    await refused({ ticket_type: 'VIP', note: 'x'.repeat(201) }, 'note', 'field "note"');
    await refused({ ticket_type: 'V\u202eIP', attention: true }, 'ticket_type', 'character');
    await refused({ ticket_type: '   ', attention: true }, 'ticket_type', 'empty');
    await refused({ ticket_type: 'VIP' }, 'body', 'give attention and/or note');
    expect((await setRule({ attention: true })).statusCode).toBe(400);
    const missing = await setRule({ ticket_type: 'VIP', attention: true }, 'no-such-event');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    expect((await admin('GET', '/events/no-such-event/ticket-types')).statusCode).toBe(404);
    const anonymous = await app.inject({
      method: 'POST',
      url: `/admin/api/events/${night.eid}/ticket-types/attention`,
      payload: { ticket_type: 'VIP', attention: false },
    });
    expect(anonymous.statusCode).toBe(401);
    expect(await typeRulesOf(fx.sql, night.eid)).toEqual([
      { ticket_type: 'Crew', attention: false, note: 'Backstage' },
      { ticket_type: 'VIP', attention: true, note: null },
    ]);

    // Neither flag nor note: the type has no rule any more, and the door is told nothing.
    expect((await setRule({ ticket_type: 'VIP', attention: false })).json().types).toEqual([
      { ticket_type: 'Crew', attention: false, note: 'Backstage' },
    ]);
    expect(await doorIsTold()).toBeNull();
  });
});
