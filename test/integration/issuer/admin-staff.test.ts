/**
 * The dashboard's API for staff badges and kiosk clocks (docs/issuer.md "Staff roles and badges", "Admin
 * dashboard", "Kiosk clocks") through app.inject on a real SQLite file, served with the SQLite database thread as
 * `serve` runs: a badge issued (as `staff badge issue`, signed with the data dir's key, verified as a kiosk
 * verifies it), refusals of bad requests with the catalogue's codes, the event's badges listed, one revoked (as
 * `staff badge revoke`), and a kiosk whose heartbeat reports a clock two hours off flagged in the overview.
 */
import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventOverview, StaffBadgeIssued } from '../../../issuer/dashboard-api.js';
import { build } from '../../../issuer/app.js';
import { keyFile } from '../../../issuer/signing.js';
import { resetAdminToken } from '../../../issuer/services/admin-credential.js';
import type { EventRow } from '../../../issuer/store/events.js';
import { findStaffBadge, insertStaffBadge } from '../../../issuer/store/staff-badges.js';
import { checkStaffBadge, decodeStaffBadge } from '../../../protocol/staff-badge.js';
import type { PublicKey } from '../../../protocol/types.js';
import { createIssuerFixture, type IssuerFixture } from '../../support/issuer-fixture.js';
import { captureLog } from '../../support/unit/log-capture.js';

let fx: IssuerFixture;
let app: FastifyInstance;
let auth: Record<string, string>;
let event: EventRow;

beforeAll(async () => {
  fx = createIssuerFixture();
  app = await build({ dataDir: fx.dataDir.root, logger: captureLog().logger });
  auth = { authorization: `Bearer ${(await resetAdminToken(fx.sql, new Date())).token}` };
  event = fx.createEvent({ name: 'Crew night' });
});

afterAll(async () => {
  await app.close();
  fx.cleanup();
});

const admin = (method: 'GET' | 'POST', url: string, payload?: object) =>
  app.inject({ method, url: `/admin/api${url}`, headers: auth, ...(payload === undefined ? {} : { payload }) });

/** The ErrorEnvelope of a refused request: status, code and details.reason, and the message. */
async function refusal(url: string, payload: object): Promise<{ status: number; code: string; reason: unknown; message: string }> {
  const response = await admin('POST', url, payload);
  const { error } = response.json<{ error: { code: string; message: string; details?: { reason?: unknown } } }>();
  return { status: response.statusCode, code: error.code, reason: error.details?.reason, message: error.message };
}

describe('issuing a staff badge on the dashboard', () => {
  const check = (code: string, eid: string, nowMs = Date.now()) =>
    checkStaffBadge(code, {
      issuer: fx.baseUrl,
      // The issuer's published keys, as a kiosk holds them (docs/protocol.md "Keys").
      keys: (fx.db.prepare('SELECT kid, public_key, valid_from, valid_until FROM signing_keys').all() as Omit<PublicKey, 'alg'>[]).map(
        (key) => ({ ...key, alg: 'Ed25519' as const }),
      ),
      nowMs,
      eid,
      isRevoked: () => false,
    });

  it('signs a tstaff1. badge with the active key, from now to the event end + 12 h; the code and its QR come back once', async () => {
    const response = await admin('POST', `/events/${event.eid}/staff-badges`, { name: '  Zoë Ångström ', role: 'supervisor' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const badge = response.json<StaffBadgeIssued>();
    expect(badge).toMatchObject({
      eid: event.eid,
      event_name: 'Crew night',
      name: 'Zoë Ångström',
      role: 'supervisor',
      revoked_at: null,
      revoked_reason: null,
    });
    expect(badge.qr_image).toMatch(/^data:image\/svg\+xml[;,]/);
    const { payload } = decodeStaffBadge(badge.badge_qr);
    expect(payload).toMatchObject({ v: 1, iss: fx.baseUrl, kid: fx.signingKey.kid, sid: badge.sid, role: 'supervisor', eids: [event.eid] });
    // Unix seconds: the event's end + 12 h, to the second.
    expect(payload.exp).toBe(Math.floor((Date.parse(event.ends_at) + 12 * 3600_000) / 1000));
    expect(Math.abs(payload.nbf * 1000 - Date.now())).toBeLessThan(60_000);
    expect(Date.parse(badge.expires_at)).toBe(payload.exp * 1000);
    expect(check(badge.badge_qr, event.eid)).toMatchObject({ ok: true, badge: { sid: badge.sid, name: 'Zoë Ångström' } });
    expect(check(badge.badge_qr, 'another-event')).toMatchObject({ ok: false, check: 'event' });

    // Recorded as `staff badge issue` records it: the badge's row, with its code, listed (without the code) from now on.
    expect(await findStaffBadge(fx.sql, badge.sid)).toMatchObject({ eid: event.eid, kid: fx.signingKey.kid, qr: badge.badge_qr });
    const listed = await admin('GET', `/events/${event.eid}/staff-badges`);
    expect(listed.json<{ badges: { sid: string }[] }>().badges.map((b) => b.sid)).toContain(badge.sid);
    expect(listed.body).not.toContain(badge.badge_qr);
  });

  it('takes not_before and expires_at (ISO 8601 with a zone)', async () => {
    const response = await admin('POST', `/events/${event.eid}/staff-badges`, {
      name: 'Night crew',
      role: 'technician',
      not_before: '2099-01-01T18:00:00Z',
      expires_at: '2099-01-02T07:00:00+01:00',
    });
    expect(response.statusCode, response.body).toBe(200);
    const badge = response.json<StaffBadgeIssued>();
    expect(badge).toMatchObject({ role: 'technician', not_before: '2099-01-01T18:00:00Z', expires_at: '2099-01-02T06:00:00Z' });
    expect(check(badge.badge_qr, event.eid)).toMatchObject({ ok: false, check: 'not_yet_valid' });
  });

  it('refuses what `staff badge issue` refuses, each with the catalogue code and a message naming the field', async () => {
    const url = `/events/${event.eid}/staff-badges`;
    const badRequest = { status: 400, code: 'INVALID_REQUEST' };
    expect(await refusal(url, { name: 'Kim', role: 'owner' })).toMatchObject({
      ...badRequest,
      reason: 'invalid_argument',
      message: 'role must be one of steward, supervisor, technician, not "owner"',
    });
    expect(await refusal(url, { name: '   ', role: 'steward' })).toMatchObject({
      ...badRequest,
      reason: 'invalid_argument',
      message: 'name must not be empty',
    });
    for (const name of ['Kim\u0007', 'Kim\nLee', 'Kim\u202Egate']) {
      const refused = await refusal(url, { name, role: 'steward' });
      expect(refused, JSON.stringify(name)).toMatchObject({ ...badRequest, reason: 'invalid_argument' });
      expect(refused.message).toMatch(/^name .*only printable text is accepted$/);
    }
    expect(await refusal(url, { name: 'K'.repeat(81), role: 'steward' })).toMatchObject({
      ...badRequest,
      message: 'name is 81 characters long; keep it to 80',
    });
    expect(await refusal(url, { name: 'Kim', role: 'steward', expires_at: '2020-01-01T00:00:00Z' })).toMatchObject({
      ...badRequest,
      reason: 'invalid_date',
      message: 'expires_at has passed; a badge must still be usable',
    });
    expect(await refusal(url, { name: 'Kim', role: 'steward', expires_at: 'tomorrow' })).toMatchObject({
      ...badRequest,
      reason: 'invalid_date',
    });
    expect(
      await refusal(url, { name: 'Kim', role: 'steward', not_before: '2099-01-02T00:00:00Z', expires_at: '2099-01-01T00:00:00Z' }),
    ).toMatchObject({ ...badRequest, reason: 'invalid_date', message: 'expires_at must be later than not_before' });
    // Missing or mistyped fields: the schema's answer, naming the field.
    expect(await refusal(url, { role: 'steward' })).toMatchObject({
      ...badRequest,
      message: 'field "name" is missing or has the wrong type',
    });
    expect(await refusal(url, { name: 'Kim', role: 3 })).toMatchObject({
      ...badRequest,
      message: 'field "role" is missing or has the wrong type',
    });
    expect(await refusal('/events/NO-SUCH-EVENT/staff-badges', { name: 'Kim', role: 'steward' })).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
      reason: 'event_not_found',
    });
    // Without the admin token, nothing is issued.
    const anonymous = await app.inject({ method: 'POST', url: `/admin/api${url}`, payload: { name: 'Kim', role: 'steward' } });
    expect(anonymous.statusCode).toBe(401);
    const names = (await admin('GET', `/events/${event.eid}/staff-badges`))
      .json<{ badges: { name: string }[] }>()
      .badges.map((b) => b.name);
    expect(names).not.toContain('Kim');
  });

  it('a data dir without the private signing key (a serving node) refuses with SERVING_NODE_DIR and stores nothing', async () => {
    const file = keyFile(fx.dataDir.keysDir, fx.signingKey.kid);
    const pem = fs.readFileSync(file);
    fs.rmSync(file);
    try {
      expect(await refusal(`/events/${event.eid}/staff-badges`, { name: 'Without key', role: 'steward' })).toMatchObject({
        status: 400,
        code: 'INVALID_REQUEST',
        reason: 'serving_node_dir',
      });
    } finally {
      fs.writeFileSync(file, pem, { mode: 0o600 });
    }
    const names = (await admin('GET', `/events/${event.eid}/staff-badges`))
      .json<{ badges: { name: string }[] }>()
      .badges.map((b) => b.name);
    expect(names).not.toContain('Without key');
  });
});

describe('staff badges on the dashboard', () => {
  it('lists the event’s badges and revokes one, with its reason; an unknown sid is 404', async () => {
    const kid = fx.db.prepare('SELECT kid FROM signing_keys').pluck().get() as string;
    for (const [sid, name] of [
      ['01STAFF0000000000000000001', 'Kim'],
      ['01STAFF0000000000000000002', 'Lee'],
    ] as const)
      await insertStaffBadge(fx.sql, {
        sid,
        eid: event.eid,
        kid,
        name,
        role: 'supervisor',
        nbf: 1_900_000_000,
        exp: 1_900_086_400,
        qr: 'tstaff1.x.y',
        issued_at: '2030-01-01T00:00:00Z',
      });
    const listed = await admin('GET', `/events/${event.eid}/staff-badges`);
    expect(listed.statusCode).toBe(200);
    // In the order issued (these two are dated 2030, after the badges issued above).
    expect(
      listed
        .json<{ badges: { name: string; not_before: string }[] }>()
        .badges.map((b) => b.name)
        .slice(-2),
    ).toEqual(['Kim', 'Lee']);
    expect(listed.body).not.toContain('tstaff1.');

    const revoked = await admin('POST', '/staff-badges/01STAFF0000000000000000002/revoke', { reason: 'left the crew' });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({
      sid: '01STAFF0000000000000000002',
      revoked_reason: 'left the crew',
      revoked_at: expect.any(String),
    });
    expect((await admin('POST', '/staff-badges/nope/revoke', {})).statusCode).toBe(404);
    expect((await admin('GET', '/events/NO-SUCH/staff-badges')).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: `/admin/api/events/${event.eid}/staff-badges` })).statusCode).toBe(401);
  });
});

describe('kiosk clocks on the dashboard', () => {
  it('a kiosk that reports a clock two hours off is flagged; one a second off is not', async () => {
    const beat = async (apiKey: string, scannerId: string, offset: number) =>
      app.inject({
        method: 'POST',
        url: '/api/v1/scanners/heartbeat',
        headers: { authorization: `Bearer ${apiKey}` },
        payload: { scanner_id: scannerId, clock_offset_ms: offset },
      });
    const off = fx.enrollScanner(event.eid, { gateId: 'North' });
    const fine = fx.enrollScanner(event.eid, { gateId: 'South' });
    expect((await beat(off.apiKey, off.scannerId, -7_200_000)).statusCode).toBe(200);
    expect((await beat(fine.apiKey, fine.scannerId, 1_000)).statusCode).toBe(200);
    const overview = (await admin('GET', `/events/${event.eid}/overview`)).json<EventOverview>();
    const kiosk = (id: string) => overview.door.kiosks.find((k) => k.scanner_id === id)!;
    expect(kiosk(off.scannerId)).toMatchObject({ clock_offset_ms: -7_200_000, clock_off: true });
    expect(kiosk(fine.scannerId)).toMatchObject({ clock_offset_ms: 1_000, clock_off: false });
  });
});
