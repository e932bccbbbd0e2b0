/** GET /.well-known/ticket-issuer.json through app.inject. */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { build } from '../../../issuer/app.js';
import { generateSigningKey, publicKeyBase64Url } from '../../../issuer/signing.js';
import { rotateKey } from '../../../issuer/store/signing-keys.js';
import { createIssuerFixture, type IssuerFixture } from '../../support/issuer-fixture.js';
import { captureLog } from '../../support/unit/log-capture.js';

let fx: IssuerFixture;
let app: FastifyInstance;

beforeAll(async () => {
  fx = createIssuerFixture({ baseUrl: 'https://tickets.example.test', name: 'Example Tickets' });
  app = await build({ dataDir: fx.dataDir.root, logger: captureLog().logger });
});

afterAll(async () => {
  await app.close();
  fx.cleanup();
});

const discovery = (headers: Record<string, string> = {}) => app.inject({ method: 'GET', url: '/.well-known/ticket-issuer.json', headers });

describe('discovery', () => {
  test('the document, with endpoints built from the base URL', async () => {
    const response = await discovery();
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual({
      protocol_version: 1,
      issuer: 'https://tickets.example.test',
      name: 'Example Tickets',
      keys: [
        {
          kid: fx.signingKey.kid,
          alg: 'Ed25519',
          public_key: publicKeyBase64Url(fx.signingKey),
          valid_from: expect.any(String),
          valid_until: null,
        },
      ],
      endpoints: {
        check_in: 'https://tickets.example.test/api/v1/tickets/check-in',
        status: 'https://tickets.example.test/api/v1/tickets/{tid}/status',
        scanner_enroll: 'https://tickets.example.test/api/v1/scanners/enroll',
        // docs/protocol.md "Scanner heartbeat": an extra field spec scanners ignore.
        scanner_heartbeat: 'https://tickets.example.test/api/v1/scanners/heartbeat',
        // docs/protocol.md "Revocation list": another extra field.
        scanner_revocations: 'https://tickets.example.test/api/v1/scanners/revocations',
        scanner_notes: 'https://tickets.example.test/api/v1/scanners/notes',
        // docs/protocol.md "Ticket search": one more, for a supervisor's key.
        ticket_search: 'https://tickets.example.test/api/v1/tickets/search',
        ticket_handouts: 'https://tickets.example.test/api/v1/tickets/handouts',
      },
      supported_versions: [1],
    });
  });

  test('Cache-Control public, max-age=3600 and a strong ETag; If-None-Match → 304 without a body', async () => {
    const first = await discovery();
    expect(first.headers['cache-control']).toBe('public, max-age=3600');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[^"]+"$/); // strong: no W/ prefix
    const notModified = await discovery({ 'if-none-match': etag });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.body).toBe('');
    expect(notModified.headers.etag).toBe(etag);
    expect((await discovery({ 'if-none-match': `"other", ${etag}` })).statusCode).toBe(304);
    expect((await discovery({ 'if-none-match': '"stale"' })).statusCode).toBe(200);
  });

  test('a rotation shows at once, with a new ETag; the retired key stays while its tickets are unexpired', async () => {
    const event = fx.createEvent();
    fx.issueTicket(event.eid); // signed by the first key, unexpired
    const before = await discovery();
    const next = generateSigningKey();
    await rotateKey(
      fx.sql,
      { kid: next.kid, public_key: publicKeyBase64Url(next), valid_from: new Date().toISOString() },
      new Date().toISOString(),
    );
    const after = await discovery();
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect((await discovery({ 'if-none-match': before.headers.etag as string })).statusCode).toBe(200);
    const keys = after.json().keys as { kid: string; valid_until: string | null }[];
    expect(keys.map((k) => k.kid)).toEqual([next.kid, fx.signingKey.kid]);
    expect(keys[1]!.valid_until).not.toBeNull();
  });
});
