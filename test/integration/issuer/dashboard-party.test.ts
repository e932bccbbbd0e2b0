/**
 * The dashboard's manual check-in of a party ticket (docs/issuer.md "Admin dashboard", docs/protocol.md "Party
 * tickets (project extension)"), by app.inject on both stores: the built CLI makes the issuer (on a throwaway
 * PostgreSQL cluster for 'PostgreSQL') and issues a party ticket, the app is built on that data dir, and the admin
 * route's `people` is judged as a kiosk's: 3 of 5 admits 3, more than remain is `party_exceeded` and changes
 * nothing, a bad number is refused with the field named, and no number is one person. The number is audited.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../../issuer/app.js';
import { resolveDataDir } from '../../../issuer/data-dir.js';
import { openIssuerDatabase } from '../../../issuer/store/open.js';
import type { LookupResult, ManualCheckInResult, TicketView } from '../../../issuer/dashboard-api.js';
import { cliJson, createEvent, issueTickets } from '../../support/cli-harness.js';
import { BOTH_STORES, useIssuerOnStore, type Store } from '../../support/issuer-on-store.js';
import { captureLog } from '../../support/unit/log-capture.js';

describe.each<[Store]>(BOTH_STORES)("the dashboard's manual check-in of a party (%s)", (store) => {
  const issuer = useIssuerOnStore(store, 'Dashboard Party');
  let app: FastifyInstance;
  let auth: Record<string, string>;

  beforeAll(async () => {
    const { admin_token: token } = await cliJson<{ admin_token: string }>(['admin-token', 'reset', '--data', issuer.data]);
    auth = { authorization: `Bearer ${token}` };
    app = await build({ dataDir: issuer.data, logger: captureLog().logger });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  });

  const admin = (method: 'GET' | 'POST', url: string, payload?: object) =>
    app.inject({ method, url: `/admin/api${url}`, headers: auth, ...(payload === undefined ? {} : { payload }) });

  const issue = async (eid: string, holder: string, ...flags: string[]): Promise<string> =>
    (await issueTickets(issuer.data, eid, 1, ['--holder', holder, ...flags]))[0]!;

  async function card(eid: string, tid: string): Promise<TicketView> {
    const response = await admin('GET', `/events/${eid}/tickets?q=${tid}`);
    expect(response.statusCode).toBe(200);
    return response.json<LookupResult>().tickets.find((ticket) => ticket.tid === tid)!;
  }

  const exportRows = (eid: string) =>
    cliJson<Record<string, string | null>[]>(['checkins', 'export', '--data', issuer.data, '--event', eid]);

  it('admits the number asked, refuses more than remain (party_exceeded, nothing changes), audits the number', async () => {
    const event = await createEvent(issuer.data);
    const tid = await issue(event.eid, 'Ada Family', '--party', '5');
    const checkIn = (payload: object) => admin('POST', `/tickets/${tid}/check-in`, payload);

    const three = await checkIn({ reason: 'phones dead', people: 3 });
    expect(three.statusCode).toBe(200);
    expect(three.json<ManualCheckInResult>()).toMatchObject({
      tid,
      status: 'valid',
      party: { size: 5, inside: 3, admitted_total: 3, remaining: 2 },
      ticket: { status: 'checked_in', presence: 'inside', party: { size: 5, inside: 3, admitted_total: 3, remaining: 2 } },
    });

    // More than the two who remain: refused, and nothing is checked in.
    const six = await checkIn({ reason: 'the rest', people: 6 });
    expect(six.statusCode).toBe(200);
    expect(six.json<ManualCheckInResult>()).toMatchObject({
      status: 'party_exceeded',
      party: { size: 5, inside: 3, admitted_total: 3, remaining: 2 },
    });
    const three2 = await checkIn({ reason: 'the rest', people: 3 });
    expect(three2.json<ManualCheckInResult>()).toMatchObject({ status: 'party_exceeded', party: { remaining: 2 } });
    expect((await card(event.eid, tid)).party).toEqual({ size: 5, inside: 3, admitted_total: 3, remaining: 2 });

    // The last two, then nobody more.
    const two = await checkIn({ reason: 'the rest', people: 2 });
    expect(two.json<ManualCheckInResult>()).toMatchObject({ status: 'valid', party: { inside: 5, admitted_total: 5, remaining: 0 } });
    expect((await checkIn({ reason: 'again', people: 1 })).json<ManualCheckInResult>()).toMatchObject({ status: 'already_used' });

    // Audited with the number as with the reason: each entry's history counts its people, every attempt's log names them.
    const database = (await openIssuerDatabase(resolveDataDir(issuer.data), { schema: 'require-current' })).database;
    try {
      const entries = await database.read.all<{ reason: string; people: number }>(
        "SELECT reason, people FROM admission_events WHERE tid = ? AND action = 'entry' ORDER BY id",
        [tid],
      );
      expect(entries.map((row) => [row.reason, Number(row.people)])).toEqual([
        ['phones dead', 3],
        ['the rest', 2],
      ]);
      const logged = await database.read.all<{ outcome: string; details: string }>(
        'SELECT outcome, details FROM scan_log WHERE tid = ? ORDER BY id',
        [tid],
      );
      expect(logged.map((row) => ({ outcome: row.outcome, ...(JSON.parse(row.details) as object) }))).toEqual([
        expect.objectContaining({ outcome: 'valid', actor: 'dashboard', manual_reason: 'phones dead', people: 3 }),
        expect.objectContaining({ outcome: 'party_exceeded', actor: 'dashboard', manual_reason: 'the rest', people: 6 }),
        expect.objectContaining({ outcome: 'party_exceeded', actor: 'dashboard', manual_reason: 'the rest', people: 3 }),
        expect.objectContaining({ outcome: 'valid', actor: 'dashboard', manual_reason: 'the rest', people: 2 }),
        expect.objectContaining({ outcome: 'already_used', actor: 'dashboard', manual_reason: 'again', people: 1 }),
      ]);
    } finally {
      await database.close();
    }
  });

  it('refuses 0, 1001 and "x" with the field named, changing nothing; without a number one person comes in', async () => {
    const event = await createEvent(issuer.data);
    const tid = await issue(event.eid, 'Bo Group', '--party', '4');
    const single = await issue(event.eid, 'Cy Alone');
    const before = (await exportRows(event.eid)).length;
    for (const people of [0, 1001, 'x', 2.5]) {
      const refused = await admin('POST', `/tickets/${tid}/check-in`, { reason: 'phones dead', people });
      expect({ people, status: refused.statusCode }).toEqual({ people, status: 400 });
      expect((refused.json() as { error: { message: string } }).error.message).toContain('people');
    }
    expect((await card(event.eid, tid)).party).toEqual({ size: 4, inside: 0, admitted_total: 0, remaining: 4 });
    expect((await exportRows(event.eid)).length).toBe(before);

    // Absent: one person, as before parties.
    const one = await admin('POST', `/tickets/${tid}/check-in`, { reason: 'phones dead' });
    expect(one.json<ManualCheckInResult>()).toMatchObject({
      status: 'valid',
      party: { size: 4, inside: 1, admitted_total: 1, remaining: 3 },
    });
    // A ticket of one person: no party in the answer; two of it is more than it admits.
    expect((await admin('POST', `/tickets/${single}/check-in`, { reason: 'lost', people: 2 })).json<ManualCheckInResult>()).toMatchObject({
      status: 'party_exceeded',
    });
    const alone = await admin('POST', `/tickets/${single}/check-in`, { reason: 'lost' });
    expect(alone.json<ManualCheckInResult>()).toMatchObject({ status: 'valid', party: null, ticket: { party: null } });
  });
});
