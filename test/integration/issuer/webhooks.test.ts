/**
 * Webhooks (docs/issuer.md "Webhooks") on a real SQLite file and real HTTP: every kind of change is told to the
 * endpoints that take it, signed so that the Standard Webhooks library accepts it (test/support/webhook-receiver.ts),
 * in the transaction of the change (a refused scan tells nothing); a failing endpoint is tried again on the
 * schedule and dead-lettered with the reason; a replay sends again under the same message id.
 */
import { updateTicketHandoutsWrite } from '../../../issuer/services/handouts.js';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../../issuer/app.js';
import { createLogger } from '../../../issuer/logging.js';
import { revokeScannerKey, revokeTicketById } from '../../../issuer/services/admin-actions.js';
import { annulCheckIn } from '../../../issuer/services/door.js';
import { setExitAllWrite, settleExitAll } from '../../../issuer/services/exit-all.js';
import { startDeliverer } from '../../../issuer/services/webhook-delivery.js';
import { MAX_ATTEMPTS, RETRY_DELAYS_S, WEBHOOK_EVENT_TYPES } from '../../../issuer/services/webhook-events.js';
import { newWebhookSecret } from '../../../issuer/services/webhook-signature.js';
import {
  addEndpointWrite,
  auditHeadWrite,
  disableEndpointWrite,
  enableEndpointWrite,
  replayWrite,
} from '../../../issuer/services/webhooks.js';
import { endpointHealth } from '../../../issuer/store/webhooks.js';
import { createIssuerFixture, type EnrolledScanner, type IssuerFixture } from '../../support/issuer-fixture.js';
import { startReceiver, type Receiver } from '../../support/webhook-receiver.js';

let fx: IssuerFixture;
let app: FastifyInstance;
let receiver: Receiver;

beforeAll(async () => {
  fx = createIssuerFixture();
  // The app's own deliverer is off: each test runs one, on its own clock.
  app = await build({ dataDir: fx.dataDir.root, webhooks: false, scannerRpm: 1_000_000, logger: createLogger({ level: 'warn' }) });
  receiver = await startReceiver();
}, 60_000);

// Each test's endpoints stop taking messages after it, so the next test's changes reach only its own.
afterEach(async () => {
  for (const { endpoint_id } of await endpointHealth(fx.database.read))
    await fx.database.write(disableEndpointWrite({ endpointId: endpoint_id, now: new Date().toISOString() }));
});

afterAll(async () => {
  await app?.close();
  await receiver?.close();
  fx?.cleanup();
});

async function endpoint(path: string, events: readonly string[] | '*', eid: string | null = null): Promise<string> {
  const secret = newWebhookSecret();
  receiver.secrets.set(path, secret);
  const added = await fx.database.write(
    addEndpointWrite({ url: `${receiver.url}${path}`, events, eid, secret, now: new Date().toISOString() }),
  );
  return added.endpoint_id;
}

async function checkIn(scanner: EnrolledScanner, eid: string, tid: string, extra: Record<string, unknown> = {}) {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/tickets/check-in',
    headers: { authorization: `Bearer ${scanner.apiKey}` },
    payload: { tid, eid, scanned_at: new Date().toISOString(), scanner_id: scanner.scannerId, idempotency_key: randomUUID(), ...extra },
  });
  return { status: response.statusCode, body: response.json<{ status: string }>() };
}

const receivedAt = (path: string) => receiver.received.filter((r) => r.path === path);

describe('webhooks', () => {
  it('tells every kind of change, signed, to the endpoints that take it, once each, and only what committed', async () => {
    const event = fx.createEvent({ entryPolicy: 'reentry' });
    const other = fx.createEvent();
    await endpoint('/all', '*');
    await endpoint('/revocations', ['ticket.revoked']);
    await endpoint('/other-event', '*', other.eid);

    // scanner.enrolled: a real enrollment.
    const setup = fx.createSetupToken(event.eid, { gateId: 'North' });
    const scannerId = randomUUID();
    const enrolled = await app.inject({
      method: 'POST',
      url: '/api/v1/scanners/enroll',
      payload: { token: setup.token, scanner_id: scannerId },
    });
    expect(enrolled.statusCode).toBe(200);
    const scanner: EnrolledScanner = {
      ...fx.enrollScanner(event.eid),
      apiKey: enrolled.json<{ api_key: string }>().api_key,
      scannerId,
    } as EnrolledScanner;

    const ada = fx.issueTicket(event.eid).tid;
    const bob = fx.issueTicket(event.eid).tid;
    expect((await checkIn(scanner, event.eid, ada, { action: 'entry' })).body.status).toBe('valid');
    expect((await checkIn(scanner, event.eid, ada, { action: 'exit' })).status).toBe(200);
    expect((await checkIn(scanner, event.eid, bob)).body.status).toBe('valid');
    await annulCheckIn(fx.database, bob, 'let in on the wrong ticket', 'cli');
    // Refused scans change nothing and tell nothing: another event's ticket, a used one scanned again at once.
    expect((await checkIn(scanner, event.eid, fx.issueTicket(other.eid).tid)).body.status).toBe('wrong_event');
    // A double admission: let in offline two minutes ago, but already used.
    const carol = fx.issueTicket(event.eid).tid;
    expect((await checkIn(scanner, event.eid, carol)).body.status).toBe('valid');
    const late = await checkIn(scanner, event.eid, carol, {
      scanned_at: new Date(Date.now() - 120_000).toISOString(),
      admitted_offline: true,
    });
    expect(late.body.status).toBe('already_used');
    // handout.given: a handout the ticket still had; a second, refused, tells nothing (docs/protocol.md "Handouts (project extension)").
    await fx.database.write(updateTicketHandoutsWrite({ tid: carol, items: [{ item: 'wristband', count: 1 }] }));
    for (const expected of ['given', 'refused']) {
      const handout = await app.inject({
        method: 'POST',
        url: '/api/v1/tickets/handouts',
        headers: { authorization: `Bearer ${scanner.apiKey}` },
        payload: { handout_id: randomUUID(), tid: carol, eid: event.eid, item: 'wristband', given_at: new Date().toISOString() },
      });
      expect(handout.json<{ status: string }>().status).toBe(expected);
    }
    await fx.database.write((db) => revokeTicketById(db, ada, 'refunded', new Date()));
    await fx.database.write((db) => revokeTicketById(db, ada, 'twice', new Date(Date.now() + 1000)));
    await fx.database.write((db) => revokeScannerKey(db, enrolled.json<{ api_key_id: string }>().api_key_id, new Date()));
    expect(await fx.database.write(auditHeadWrite({ now: new Date().toISOString(), everyMs: 60_000 }))).toBe(true);
    // Not again within the period.
    expect(await fx.database.write(auditHeadWrite({ now: new Date().toISOString(), everyMs: 60_000 }))).toBe(false);

    const deliverer = startDeliverer(fx.database, (error) => {
      throw error;
    });
    await deliverer.stop();
    while ((await deliverer.runOnce()) > 0);

    const all = receivedAt('/all');
    expect(all.every((r) => r.verified && r.status === 200)).toBe(true);
    expect(all.map((r) => r.type)).toEqual([
      'scanner.enrolled',
      'checkin.created',
      'checkin.exited',
      'checkin.created',
      'checkin.annulled',
      'checkin.created',
      'double_admission.detected',
      'handout.given',
      'ticket.revoked',
      'scanner.revoked',
      'audit.head',
    ]);
    expect(new Set(WEBHOOK_EVENT_TYPES)).toEqual(new Set(all.map((r) => r.type)));
    expect(new Set(all.map((r) => r.id)).size).toBe(all.length);
    expect(all[0]!.data).toMatchObject({ eid: event.eid, scanner_id: scannerId, gate_id: 'North', role: 'steward' });
    expect(all[1]!.data).toMatchObject({ eid: event.eid, tid: ada, gate_id: 'North', reentry: false, admitted_offline: false });
    expect(all[2]!.data).toMatchObject({ tid: ada });
    expect(all[4]!.data).toMatchObject({ tid: bob, reason: 'let in on the wrong ticket', actor: 'cli' });
    expect(all[6]!.data).toMatchObject({ tid: carol, scanner_id: scannerId });
    expect(all[7]!.data).toMatchObject({ tid: carol, item: 'wristband', scanner_id: scannerId });
    expect(all[8]!.data).toMatchObject({ tid: ada, reason: 'refunded' });
    expect(all[10]!.data).toMatchObject({ position: expect.any(Number), hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    // No holder names: a receiver looks a tid up.
    expect(JSON.stringify(all)).not.toContain('Ada Lovelace');
    expect(receivedAt('/revocations').map((r) => r.type)).toEqual(['ticket.revoked']);
    expect(receivedAt('/other-event')).toEqual([]);
  });

  it("check-out at a set time tells each exit, as the door's exits are told (actor auto, at the moment, no gate)", async () => {
    const event = fx.createEvent({ entryPolicy: 'reentry' });
    await endpoint('/auto-exits', ['checkin.exited'], event.eid);
    const scanner = fx.enrollScanner(event.eid);
    const [ada, bob] = [fx.issueTicket(event.eid).tid, fx.issueTicket(event.eid).tid];
    expect((await checkIn(scanner, event.eid, ada)).body.status).toBe('valid');
    expect((await checkIn(scanner, event.eid, bob)).body.status).toBe('valid');
    // A moment a second ahead, set as of now through the job `event set --exit-all-at` runs; then past it.
    const moment = new Date(Math.ceil((Date.now() + 1_000) / 1000) * 1000);
    await fx.database.write(setExitAllWrite({ eid: event.eid, at: moment.toISOString(), timeZone: null, now: new Date().toISOString() }));
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, moment.getTime() - Date.now()) + 200));
    await settleExitAll(fx.database, event.eid);
    await settleExitAll(fx.database, event.eid); // once per moment: nothing more to tell

    const deliverer = startDeliverer(fx.database, (error) => {
      throw error;
    });
    await deliverer.stop();
    while ((await deliverer.runOnce()) > 0);
    const told = receivedAt('/auto-exits');
    expect(told.every((r) => r.verified && r.type === 'checkin.exited')).toBe(true);
    expect(told.map((r) => r.data['tid']).sort()).toEqual([ada, bob].sort());
    for (const r of told) {
      expect(r.data).toMatchObject({ eid: event.eid, at: moment.toISOString(), gate_id: null, scanner_id: null, actor: 'auto' });
    }
  });

  it('a disabled endpoint is sent nothing; enabled again, what waited goes out', async () => {
    const event = fx.createEvent();
    const endpointId = await endpoint('/paused', ['checkin.created'], event.eid);
    const scanner = fx.enrollScanner(event.eid);
    const tid = fx.issueTicket(event.eid).tid;
    expect((await checkIn(scanner, event.eid, tid)).body.status).toBe('valid');
    await fx.database.write(disableEndpointWrite({ endpointId, now: new Date().toISOString() }));
    const deliverer = startDeliverer(fx.database, (error) => {
      throw error;
    });
    await deliverer.stop();
    while ((await deliverer.runOnce()) > 0);
    expect(receivedAt('/paused')).toEqual([]);
    expect((await fx.database.write(enableEndpointWrite({ endpointId }))).disabled_at).toBeNull();
    while ((await deliverer.runOnce()) > 0);
    expect(receivedAt('/paused').map((r) => [r.type, r.data['tid'], r.verified])).toEqual([['checkin.created', tid, true]]);
  });

  it('tries a failing endpoint again on the schedule, dead-letters it with the reason after the last attempt, and a replay sends it again under the same id', async () => {
    const event = fx.createEvent();
    const id = await endpoint('/failing', ['checkin.created']);
    receiver.statuses.set('/failing', 503);
    const scanner = fx.enrollScanner(event.eid);
    const before = new Date().toISOString();
    expect((await checkIn(scanner, event.eid, fx.issueTicket(event.eid).tid)).body.status).toBe('valid');
    const started = Date.now();
    let clock = started;
    const deliverer = startDeliverer(
      fx.database,
      () => undefined,
      () => clock,
    );
    await deliverer.stop();
    expect(await deliverer.runOnce()).toBe(1);
    const health = async () => (await endpointHealth(fx.database.read)).find((e) => e.endpoint_id === id)!;
    expect(await health()).toMatchObject({ pending: 1, delivered: 0, dead: 0, last_error: 'the endpoint answered 503', last_status: 503 });
    // Not before its time.
    clock = started + RETRY_DELAYS_S[0]! * 1000 - 100;
    expect(await deliverer.runOnce()).toBe(0);
    for (const delay of RETRY_DELAYS_S) {
      clock += delay * 1000 + 100;
      expect(await deliverer.runOnce()).toBe(1);
    }
    expect(receivedAt('/failing')).toHaveLength(MAX_ATTEMPTS);
    expect(new Set(receivedAt('/failing').map((r) => r.id)).size).toBe(1);
    expect(await health()).toMatchObject({ pending: 0, delivered: 0, dead: 1, last_error: 'the endpoint answered 503' });
    clock += 48 * 3_600_000;
    expect(await deliverer.runOnce()).toBe(0);

    // The receiver is mended; a replay since just before the check-in sends it (only it) again, under the same message id.
    receiver.statuses.set('/failing', 200);
    expect(await fx.database.write(replayWrite({ endpointId: id, since: before, now: new Date(clock).toISOString() }))).toBe(1);
    expect(await deliverer.runOnce()).toBe(1);
    const last = receivedAt('/failing').at(-1)!;
    expect(last).toMatchObject({ status: 200, type: 'checkin.created', id: receivedAt('/failing')[0]!.id });
    expect(await health()).toMatchObject({ pending: 0, delivered: 1, dead: 0, last_error: null });
  });

  it("records a batch's outcomes, delivered and failed alike, in one write job after the claim's", async () => {
    const event = fx.createEvent();
    await endpoint('/batch-ok', ['checkin.created'], event.eid);
    const failing = await endpoint('/batch-503', ['checkin.created'], event.eid);
    receiver.statuses.set('/batch-503', 503);
    const scanner = fx.enrollScanner(event.eid);
    const tids = [fx.issueTicket(event.eid).tid, fx.issueTicket(event.eid).tid, fx.issueTicket(event.eid).tid];
    for (const tid of tids) expect((await checkIn(scanner, event.eid, tid)).body.status).toBe('valid');
    // The database as the deliverer sees it, counting its write jobs (each one commit).
    const jobs: string[] = [];
    const counted = Object.create(fx.database) as typeof fx.database;
    counted.write = (job, options) => {
      jobs.push((job as { jobName?: string }).jobName ?? 'unnamed');
      return fx.database.write(job, options);
    };
    const deliverer = startDeliverer(counted, (error) => {
      throw error;
    });
    await deliverer.stop();
    jobs.length = 0;
    expect(await deliverer.runOnce()).toBe(6);
    expect(jobs).toEqual(['webhook-claim', 'webhook-outcomes']);
    expect(
      receivedAt('/batch-ok')
        .map((r) => r.data['tid'])
        .sort(),
    ).toEqual([...tids].sort());
    expect(receivedAt('/batch-503')).toHaveLength(3);
    const health = await endpointHealth(fx.database.read);
    expect(health.find((e) => e.url.endsWith('/batch-ok'))).toMatchObject({ delivered: 3, pending: 0 });
    expect(health.find((e) => e.endpoint_id === failing)).toMatchObject({ delivered: 0, pending: 3, last_status: 503 });
  });

  it('an unreachable endpoint is a failure with words for the operator, not a crash', async () => {
    const event = fx.createEvent();
    const secret = newWebhookSecret();
    const added = await fx.database.write(
      addEndpointWrite({ url: 'http://127.0.0.1:9/nobody', events: '*', eid: event.eid, secret, now: new Date().toISOString() }),
    );
    const scanner = fx.enrollScanner(event.eid);
    expect((await checkIn(scanner, event.eid, fx.issueTicket(event.eid).tid)).body.status).toBe('valid');
    const deliverer = startDeliverer(fx.database, () => undefined);
    await deliverer.stop();
    expect(await deliverer.runOnce()).toBe(1);
    const health = (await endpointHealth(fx.database.read)).find((e) => e.endpoint_id === added.endpoint_id)!;
    expect(health).toMatchObject({ pending: 1, last_status: null });
    expect(health.last_error).toMatch(/^could not reach the endpoint/);
    expect(JSON.stringify(health)).not.toContain(secret);
  });
});
