/**
 * The dashboard's API for staff badges and kiosk clocks (docs/issuer.md "Staff roles and badges", "Kiosk clocks")
 * through app.inject on a real SQLite file: the event's badges listed, one revoked (as `staff badge revoke`), and a
 * kiosk whose heartbeat reports a clock two hours off flagged in the overview.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventOverview } from '../../../issuer/dashboard-api.js';
import { build } from '../../../issuer/app.js';
import { resetAdminToken } from '../../../issuer/services/admin-credential.js';
import type { EventRow } from '../../../issuer/store/events.js';
import { insertStaffBadge } from '../../../issuer/store/staff-badges.js';
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
    expect(listed.json<{ badges: { name: string; not_before: string }[] }>().badges.map((b) => b.name)).toEqual(['Kim', 'Lee']);
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
