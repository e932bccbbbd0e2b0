/**
 * Bad input at the issuer, generated: at least 10,000 check-in, enroll and
 * status requests built from valid ones by mutation (bodies, headers,
 * methods, content types, paths) and from scratch, sent through the real app
 * (`app.inject`, real SQLite). Whatever arrives (docs/issuer.md "Threats handled"):
 * - never a 500;
 * - every 4xx carries the error envelope;
 * - an invalid request changes nothing: check-ins, scanner keys, ticket
 *   states and setup-token use stay as they were, and no answer is stored
 *   under its idempotency key, except the answers docs/protocol.md says are
 *   stored (a check-in's 403, 404 and invalid-signature 400, so a replay gets
 *   the same answer). Two more records are written on purpose and not
 *   counted: the audit log of attempts, and a setup token's failed-attempt
 *   counter, which locks it.
 */
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../issuer/app.js';
import { createIssuerFixture, type EnrolledScanner, type IssuerFixture, type SetupToken } from '../support/issuer-fixture.js';
import { captureLog } from '../support/unit/log-capture.js';

const RUNS = 10_000;
let fx: IssuerFixture;
let app: FastifyInstance;
let scanner: EnrolledScanner;
let otherEventScanner: EnrolledScanner;
let setup: SetupToken;
let tids: string[];

beforeAll(async () => {
  fx = createIssuerFixture();
  // Limits high enough that the requests reach validation instead of stopping at 429.
  app = await build({ dataDir: fx.dataDir.root, logger: captureLog('warn').logger, scannerRpm: 100_000_000, enrollRpm: 100_000_000 });
  const event = fx.createEvent();
  scanner = fx.enrollScanner(event.eid);
  otherEventScanner = fx.enrollScanner(fx.createEvent({ name: 'Other' }).eid);
  setup = fx.createSetupToken(event.eid);
  tids = Array.from({ length: 20 }, () => fx.issueTicket(event.eid).tid);
});

afterAll(async () => {
  await app.close();
  fx.cleanup();
});

const storedAnswers = (): number => (fx.db.prepare('SELECT count(*) AS n FROM idempotency').get() as { n: number }).n;

/** Everything an invalid request must leave alone. */
function stateFingerprint(): string {
  const rows = [
    fx.db.prepare('SELECT tid, checked_in_at, idempotency_key FROM checkins ORDER BY tid').all(),
    fx.db.prepare('SELECT api_key_id, revoked_at FROM api_keys ORDER BY api_key_id').all(),
    fx.db.prepare('SELECT tid, revoked_at FROM tickets ORDER BY tid').all(),
    fx.db.prepare('SELECT token_id, used_at, revoked_at FROM enrollment_tokens ORDER BY token_id').all(),
  ];
  return JSON.stringify(rows);
}

const jsonish = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.integer({ min: 33, max: 200 }).map((depth) => JSON.parse('['.repeat(depth) + ']'.repeat(depth)) as unknown) },
);

/** A field's value: the right one, or something else. */
const fieldValue = (right: () => string) =>
  fc.oneof({ weight: 2, arbitrary: fc.constant(null).map(() => right()) }, { weight: 3, arbitrary: jsonish });

const checkInBody = fc
  .record(
    {
      tid: fieldValue(() => tids[0]!),
      eid: fieldValue(() => scanner.eid),
      scanned_at: fieldValue(() => new Date().toISOString()),
      scanner_id: fieldValue(() => scanner.scannerId),
      idempotency_key: fieldValue(() => randomUUID()),
      extra: jsonish,
    },
    { requiredKeys: [] },
  )
  .map((body) => JSON.stringify(body));

const enrollBody = fc
  .record(
    {
      token: fc.oneof(
        fc.constant(null).map(() => setup.token.slice(0, -1) + 'x'),
        jsonish,
      ),
      scanner_id: fieldValue(() => randomUUID()),
      scanner_name: jsonish,
      extra: jsonish,
    },
    { requiredKeys: [] },
  )
  .map((body) => JSON.stringify(body));

/** A text mutated: a slice cut, a character replaced, or text inserted. */
const mutated = (text: fc.Arbitrary<string>) =>
  fc.tuple(text, fc.nat(), fc.nat(), fc.string({ maxLength: 8 })).map(([value, at, length, insert]) => {
    const i = value.length === 0 ? 0 : at % value.length;
    return value.slice(0, i) + insert + value.slice(i + (length % 4));
  });

const body = fc.oneof(
  { weight: 4, arbitrary: checkInBody },
  { weight: 2, arbitrary: enrollBody },
  { weight: 3, arbitrary: mutated(fc.oneof(checkInBody, enrollBody)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  { weight: 1, arbitrary: fc.json({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.constant('') },
);

const path = fc.oneof(
  { weight: 4, arbitrary: fc.constant('/api/v1/tickets/check-in') },
  { weight: 2, arbitrary: fc.constant('/api/v1/scanners/enroll') },
  { weight: 2, arbitrary: fc.constantFrom(0, 1, 2).map((i) => `/api/v1/tickets/${tids[i]}/status`) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }).map((tid) => `/api/v1/tickets/${encodeURIComponent(tid)}/status`) },
  {
    weight: 1,
    arbitrary: mutated(
      fc.constantFrom('/api/v1/tickets/check-in', '/api/v1/scanners/enroll', '/.well-known/ticket-issuer.json', '/api/v2/tickets/check-in'),
    ),
  },
  { weight: 1, arbitrary: fc.webPath().map((p) => p || '/') },
);

const authorization = fc.oneof(
  { weight: 4, arbitrary: fc.constant(null).map(() => `Bearer ${scanner.apiKey}`) },
  { weight: 1, arbitrary: fc.constant(null).map(() => `Bearer ${otherEventScanner.apiKey}`) },
  { weight: 1, arbitrary: mutated(fc.constant(null).map(() => `Bearer ${scanner.apiKey}`)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((text) => text.replace(/[^\x20-\x7e]/g, '')) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

const contentType = fc.oneof(
  { weight: 5, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'text/plain',
      'application/json; charset=utf-16',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
      '*/*',
    ),
  },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

const request = fc.record({
  method: fc.oneof(
    { weight: 6, arbitrary: fc.constant('POST' as const) },
    { weight: 3, arbitrary: fc.constant('GET' as const) },
    { weight: 1, arbitrary: fc.constantFrom('PUT' as const, 'DELETE' as const, 'PATCH' as const, 'OPTIONS' as const, 'HEAD' as const) },
  ),
  path,
  authorization,
  contentType,
  body,
});

describe(`${RUNS.toLocaleString('en-US')} generated requests through the real issuer`, () => {
  it('never a 500, always the envelope on an error, no state change from an invalid request', async () => {
    const tally = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const before = stateFingerprint();
        const answersBefore = storedAnswers();
        const headers: Record<string, string> = {};
        if (r.authorization !== undefined) headers['authorization'] = r.authorization;
        if (r.contentType !== undefined) headers['content-type'] = r.contentType;
        const withBody = r.method !== 'GET' && r.method !== 'HEAD';
        const response = await app.inject({ method: r.method, url: r.path, headers, ...(withBody ? { payload: r.body } : {}) });
        tally.set(response.statusCode, (tally.get(response.statusCode) ?? 0) + 1);
        expect(response.statusCode).toBeLessThan(500);
        if (response.statusCode >= 400) {
          if (r.method !== 'HEAD') {
            const envelope = response.json() as { error?: { code?: unknown; message?: unknown } };
            expect(Object.keys(envelope)).toEqual(['error']);
            expect(typeof envelope.error?.code).toBe('string');
            expect(typeof envelope.error?.message).toBe('string');
          }
          expect(stateFingerprint()).toBe(before);
          const error =
            r.method === 'HEAD' ? undefined : (response.json() as { error: { code: string; details?: { reason?: string } } }).error;
          const storedByDesign =
            r.path.startsWith('/api/v1/tickets/check-in') &&
            (error?.code === 'FORBIDDEN' || error?.code === 'NOT_FOUND' || error?.details?.reason === 'invalid_signature');
          if (!storedByDesign) expect(storedAnswers()).toBe(answersBefore);
          else expect(storedAnswers() - answersBefore).toBeLessThanOrEqual(1);
        }
      }),
      { numRuns: RUNS, seed: 20261124 },
    );
    // The generator reached both sides: refusals and accepted requests.
    const statuses = [...tally.keys()];
    expect(statuses.some((status) => status >= 400)).toBe(true);
    expect(statuses.some((status) => status < 300)).toBe(true);
    console.log(
      `[issuer-requests] ${RUNS} requests, by status: ${[...tally]
        .sort(([a], [b]) => a - b)
        .map(([status, count]) => `${status}×${count}`)
        .join(' ')}`,
    );
  }, 300_000);
});
