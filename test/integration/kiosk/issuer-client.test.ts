import { freePort } from '../../support/free-port.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { CheckInRequest } from '../../../protocol/index.js';
import { IssuerClient } from '../../../main/kiosk/sync/issuer-client.js';
import { LoopbackIssuer } from '../../support/loopback-issuer.js';

let issuer: LoopbackIssuer;
let client: IssuerClient;
const API_KEY = 'sk_secret_value_that_must_not_leak';

beforeEach(async () => {
  issuer = await new LoopbackIssuer().start();
  issuer.apiKeys.set(API_KEY, { eid: issuer.eid, gate_id: null, api_key_id: 'ak_1' });
  client = new IssuerClient({ timeoutMs: 2000 });
});
afterEach(() => issuer.close());

function request(tid: string, overrides: Partial<CheckInRequest> = {}): CheckInRequest {
  return {
    tid,
    eid: issuer.eid,
    scanned_at: new Date().toISOString(),
    scanner_id: randomUUID(),
    idempotency_key: randomUUID(),
    ...overrides,
  };
}
const checkInUrl = () => `${issuer.url}/api/v1/tickets/check-in`;

describe('IssuerClient', () => {
  it('checks in, and a replay with the same key gets the same answer', async () => {
    const { tid } = issuer.issueTicket();
    const body = request(tid);
    const first = await client.checkIn(checkInUrl(), API_KEY, body);
    const replay = await client.checkIn(checkInUrl(), API_KEY, body);
    expect(first).toMatchObject({ kind: 'answered', response: { status: 'valid' } });
    expect(replay).toEqual(first);
    expect(await client.checkIn(checkInUrl(), API_KEY, request(tid))).toMatchObject({ response: { status: 'already_used' } });
    const sent = issuer.checkInRequests()[0]!;
    expect(sent.headers['authorization']).toBe(`Bearer ${API_KEY}`);
    expect(sent.headers['idempotency-key']).toBe(body.idempotency_key);
  });

  it('treats the 400 for a reported bad signature as reported, not as an error', async () => {
    const { tid } = issuer.issueTicket();
    expect(await client.checkIn(checkInUrl(), API_KEY, request(tid, { signature_status: 'invalid' }))).toEqual({
      kind: 'signature_reported',
    });
    // The same 400 without a report is a rejection.
    const bad = await client.checkIn(checkInUrl(), API_KEY, request(tid, { idempotency_key: 'not-a-uuid' }));
    expect(bad).toMatchObject({ kind: 'rejected', status: 400, code: 'INVALID_REQUEST', details: { field: 'idempotency_key' } });
  });

  it('401 and 403 are "unauthorized", and never carry the key', async () => {
    const { tid } = issuer.issueTicket();
    const wrongKey = await client.checkIn(checkInUrl(), 'sk_unknown', request(tid));
    expect(wrongKey).toEqual({ kind: 'unauthorized', status: 401, code: 'UNAUTHORIZED' });
    const otherEvent = await client.checkIn(checkInUrl(), API_KEY, request(tid, { eid: 'E_OTHER' }));
    expect(otherEvent).toEqual({ kind: 'unauthorized', status: 403, code: 'FORBIDDEN' });
    expect(JSON.stringify([wrongKey, otherEvent])).not.toContain(API_KEY);
  });

  it('409 on the same key with another body', async () => {
    const { tid } = issuer.issueTicket();
    const body = request(tid);
    await client.checkIn(checkInUrl(), API_KEY, body);
    expect(await client.checkIn(checkInUrl(), API_KEY, { ...body, gate_id: 'G2' })).toMatchObject({
      kind: 'rejected',
      status: 409,
      code: 'IDEMPOTENCY_CONFLICT',
    });
  });

  it('404 for an unknown ticket', async () => {
    expect(await client.checkIn(checkInUrl(), API_KEY, request('01JNOPE'))).toEqual({ kind: 'not_found' });
    expect(await client.status(`${issuer.url}/api/v1/tickets/{tid}/status`, API_KEY, '01JNOPE')).toEqual({ kind: 'not_found' });
  });

  it('5xx is a server error; 429 carries Retry-After', async () => {
    const { tid } = issuer.issueTicket();
    issuer.fail5xx = 1;
    expect(await client.checkIn(checkInUrl(), API_KEY, request(tid))).toEqual({ kind: 'server_error', status: 500, code: 'INTERNAL' });
    issuer.rateLimit = { count: 1, retryAfterS: 3 };
    expect(await client.checkIn(checkInUrl(), API_KEY, request(tid))).toEqual({ kind: 'rate_limited', retryAfterMs: 3000 });
  });

  it('a closed port and a silent server are "unreachable"', async () => {
    const port = await freePort();
    const refused = await client.checkIn(`http://127.0.0.1:${port}/api/v1/tickets/check-in`, API_KEY, request('T'));
    expect(refused).toMatchObject({ kind: 'unreachable' });
    expect(JSON.stringify(refused)).not.toContain(API_KEY);
    issuer.hang = true;
    const started = Date.now();
    expect(await client.checkIn(checkInUrl(), API_KEY, request('T'), { timeoutMs: 200 })).toEqual({
      kind: 'unreachable',
      detail: 'timed out',
    });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('a 200 that is not per spec is a server error, not a verdict', async () => {
    const weird = new IssuerClient({ fetch: async () => new Response(JSON.stringify({ status: 'maybe', ticket: {} }), { status: 200 }) });
    expect(await weird.checkIn(checkInUrl(), API_KEY, request('T'))).toEqual({ kind: 'server_error', status: 200 });
  });

  it('reads the status and the discovery document', async () => {
    const { tid } = issuer.issueTicket();
    expect(await client.status(`${issuer.url}/api/v1/tickets/{tid}/status`, API_KEY, tid)).toMatchObject({
      kind: 'answered',
      status: { tid, status: 'valid' },
    });
    expect(await client.fetchDiscovery(issuer.url)).toMatchObject({ kind: 'answered', body: { issuer: issuer.url } });
  });

  it('enrollment errors: used token, revoked token', async () => {
    const url = `${issuer.url}/api/v1/scanners/enroll`;
    issuer.tokens.set('tok_revoked', 'revoked');
    expect(await client.enroll(url, { token: 'tok_revoked', scanner_id: randomUUID() })).toMatchObject({
      kind: 'rejected',
      status: 403,
      code: 'TOKEN_REVOKED',
    });
    issuer.tokens.set('tok_ok', 'unused');
    expect(await client.enroll(url, { token: 'tok_ok', scanner_id: randomUUID() })).toMatchObject({ kind: 'enrolled' });
    expect(await client.enroll(url, { token: 'tok_ok', scanner_id: randomUUID() })).toMatchObject({
      kind: 'rejected',
      code: 'INVALID_TOKEN',
    });
  });
});
