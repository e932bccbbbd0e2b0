/**
 * Handouts and party tickets on the admin dashboard's API (docs/issuer.md "Handouts", "Admin dashboard"), by
 * app.inject on a real SQLite file: a ticket type's items set as `event ticket-type set --handout` sets them (the
 * same parsing and label rules), the event's counts per item (due, given, refused) and the lookup card's handouts
 * and party, as the status answer carries them. Both stores over real sockets: test/integration/issuer/ticket-search.test.ts.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { build } from '../../../issuer/app.js';
import type { HandoutCounts, LookupResult, TicketTypeRules } from '../../../issuer/dashboard-api.js';
import { resetAdminToken } from '../../../issuer/services/admin-credential.js';
import { setTicketHandouts } from '../../../issuer/store/handouts.js';
import { setTicketParty } from '../../../issuer/store/party.js';
import { createIssuerFixture, type IssuerFixture } from '../../support/issuer-fixture.js';
import { captureLog } from '../../support/unit/log-capture.js';

let fx: IssuerFixture;
let app: FastifyInstance;
let auth: Record<string, string>;

beforeAll(async () => {
  fx = createIssuerFixture();
  app = await build({ dataDir: fx.dataDir.root, logger: captureLog().logger });
  auth = { authorization: `Bearer ${(await resetAdminToken(fx.sql, new Date())).token}` };
});

afterAll(async () => {
  await app.close();
  fx.cleanup();
});

const admin = (method: 'GET' | 'POST', url: string, payload?: object) =>
  app.inject({ method, url: `/admin/api${url}`, headers: auth, ...(payload === undefined ? {} : { payload }) });

describe("a ticket type's handouts from the dashboard", () => {
  test("sets, replaces and removes the items by the CLI's parsing; bad input is refused and changes nothing", async () => {
    const night = fx.createEvent({ name: 'Handout night' });
    const set = (payload: object, eid = night.eid) => admin('POST', `/events/${eid}/ticket-types/handouts`, payload);
    const saved = await set({ ticket_type: 'VIP', handouts: ['wristband', ' 2 drink voucher ', ''] });
    expect(saved.statusCode).toBe(200);
    expect(saved.json<TicketTypeRules>()).toEqual({
      eid: night.eid,
      types: [],
      handouts: [
        {
          ticket_type: 'VIP',
          items: [
            { item: 'wristband', count: 1 },
            { item: 'drink voucher', count: 2 },
          ],
        },
      ],
    });
    // The list the ticket types panel reads, with the attention rules.
    expect((await admin('GET', `/events/${night.eid}/ticket-types`)).json<TicketTypeRules>().handouts).toEqual(
      saved.json<TicketTypeRules>().handouts,
    );

    const refused = async (payload: object, words: string): Promise<void> => {
      const response = await set(payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect((response.json() as { error: { message: string } }).error.message).toContain(words);
    };
    await refused({ ticket_type: 'VIP', handouts: ['0 wristband'] }, 'count of 1 or more');
    await refused({ ticket_type: 'VIP', handouts: ['bad\u0007item'] }, 'printable text');
    await refused({ ticket_type: 'VIP', handouts: ['21 wristband'] }, 'at most 20');
    await refused({ ticket_type: 'VIP', handouts: ['wristband', 'wristband'] }, 'twice');
    await refused({ ticket_type: 'VIP', handouts: Array.from({ length: 11 }, (_, i) => `item ${i}`) }, 'handouts');
    await refused({ ticket_type: 'V\u202eIP', handouts: ['wristband'] }, 'character');
    await refused({ ticket_type: 'VIP' }, 'handouts');
    expect((await admin('GET', `/events/${night.eid}/ticket-types`)).json<TicketTypeRules>().handouts).toEqual(
      saved.json<TicketTypeRules>().handouts,
    );
    expect((await set({ ticket_type: 'VIP', handouts: ['wristband'] }, 'no-such-event')).statusCode).toBe(404);
    const anonymous = await app.inject({
      method: 'POST',
      url: `/admin/api/events/${night.eid}/ticket-types/handouts`,
      payload: { ticket_type: 'VIP', handouts: [] },
    });
    expect(anonymous.statusCode).toBe(401);

    // An empty list removes them.
    expect((await set({ ticket_type: 'VIP', handouts: [] })).json<TicketTypeRules>().handouts).toEqual([]);
  });
});

describe('handout counts and the lookup card', () => {
  test("counts per item: due by the tickets' lists (revoked ones aside), given and refused; the lookup shows items and party", async () => {
    const night = fx.createEvent({ name: 'Counts night' });
    expect(
      (
        await admin('POST', `/events/${night.eid}/ticket-types/handouts`, {
          ticket_type: 'VIP',
          handouts: ['wristband', '2 drink voucher'],
        })
      ).statusCode,
    ).toBe(200);
    const ada = fx.issueTicket(night.eid, { holderName: 'Ada Family', ticketType: 'VIP' });
    fx.issueTicket(night.eid, { holderName: 'Bo Vip', ticketType: 'VIP' });
    const revoked = fx.issueTicket(night.eid, { holderName: 'Cy Vip', ticketType: 'VIP' });
    const crew = fx.issueTicket(night.eid, { holderName: 'Di Crew', ticketType: 'Crew' });
    // Ada's own list: no vouchers, a cap; Di (no type items) gets a T-shirt.
    await setTicketHandouts(fx.sql, ada.tid, [
      { item: 'drink voucher', count: 0 },
      { item: 'cap', count: 1 },
    ]);
    await setTicketHandouts(fx.sql, crew.tid, [{ item: 'T-shirt M', count: 1 }]);
    expect(await setTicketParty(fx.sql, ada.tid, 4)).toEqual({ refusedBelow: null });
    expect((await admin('POST', `/tickets/${revoked.tid}/revoke`, {})).statusCode).toBe(200);

    const scanner = fx.enrollScanner(night.eid, { gateId: 'North' });
    const give = async (tid: string, item: string) => {
      const response = await app.inject({
        method: 'POST',
        url: '/api/v1/tickets/handouts',
        headers: { authorization: `Bearer ${scanner.apiKey}` },
        payload: { handout_id: randomUUID(), tid, eid: night.eid, item, given_at: '2030-01-01T18:00:00.000Z', gate_id: 'North' },
      });
      expect(response.statusCode).toBe(200);
      return (response.json() as { status: string }).status;
    };
    expect(await give(ada.tid, 'wristband')).toBe('given');
    expect(await give(ada.tid, 'wristband')).toBe('refused');
    expect(await give(crew.tid, 'T-shirt M')).toBe('given');
    const entry = await app.inject({
      method: 'POST',
      url: '/api/v1/tickets/check-in',
      headers: { authorization: `Bearer ${scanner.apiKey}` },
      payload: {
        tid: ada.tid,
        eid: night.eid,
        scanned_at: new Date().toISOString(),
        scanner_id: scanner.scannerId,
        idempotency_key: randomUUID(),
        people: 3,
      },
    });
    expect(entry.statusCode).toBe(200);

    const counts = await admin('GET', `/events/${night.eid}/handouts`);
    expect(counts.statusCode).toBe(200);
    expect(counts.json<HandoutCounts>()).toEqual({
      eid: night.eid,
      items: [
        { item: 'T-shirt M', due: 1, given: 1, refused: 0 },
        { item: 'cap', due: 1, given: 0, refused: 0 },
        { item: 'drink voucher', due: 2, given: 0, refused: 0 },
        { item: 'wristband', due: 2, given: 1, refused: 1 },
      ],
    });
    expect((await admin('GET', '/events/no-such-event/handouts')).statusCode).toBe(404);
    expect((await app.inject({ url: `/admin/api/events/${night.eid}/handouts` })).statusCode).toBe(401);

    const found = (await admin('GET', `/events/${night.eid}/tickets?q=${encodeURIComponent('ada family')}`)).json<LookupResult>();
    expect(found.tickets).toHaveLength(1);
    expect(found.tickets[0]).toMatchObject({
      party: { size: 4, inside: 3, admitted_total: 3, remaining: 1 },
      handouts: [
        { item: 'wristband', count: 1, given: [{ at: '2030-01-01T18:00:00.000Z', gate: 'North' }] },
        { item: 'cap', count: 1, given: [] },
      ],
    });
    // The same as the ticket's status answer.
    const status = await app.inject({ url: `/api/v1/tickets/${ada.tid}/status`, headers: { authorization: `Bearer ${scanner.apiKey}` } });
    const answer = status.json() as { handouts: unknown; party: unknown };
    expect([found.tickets[0]!.handouts, found.tickets[0]!.party]).toEqual([answer.handouts, answer.party]);
    const plain = (await admin('GET', `/events/${night.eid}/tickets?q=${encodeURIComponent('bo vip')}`)).json<LookupResult>();
    expect(plain.tickets[0]).toMatchObject({ party: null, handouts: [{ item: 'wristband' }, { item: 'drink voucher' }] });
  });
});
