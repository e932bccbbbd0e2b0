/** POST /api/v1/scanners/enroll through app.inject, on a real SQLite file. */
import crypto, { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { build } from '../../../issuer/app.js';
import { hashSecret } from '../../../issuer/secrets.js';
import type { EventRow } from '../../../issuer/store/events.js';
import { findTokenById, revokeToken } from '../../../issuer/store/scanners.js';
import { checkKioskCertificate, decodeKioskCertificate } from '../../../protocol/kiosk-certificate.js';
import type { PublicKey } from '../../../protocol/types.js';
import { createIssuerFixture, type IssuerFixture } from '../../support/issuer-fixture.js';
import { captureLog } from '../../support/unit/log-capture.js';

let fx: IssuerFixture;
let app: FastifyInstance;
let event: EventRow;

beforeAll(async () => {
  fx = createIssuerFixture();
  // A high per-IP limit: app.inject always comes from 127.0.0.1; limits have their own test.
  app = await build({ dataDir: fx.dataDir.root, enrollRpm: 10_000, logger: captureLog().logger });
  event = fx.createEvent({ name: 'Gala', date: new Date('2026-12-31T20:00:00Z') });
});

afterAll(async () => {
  await app.close();
  fx.cleanup();
});

const enroll = (payload: object) => app.inject({ method: 'POST', url: '/api/v1/scanners/enroll', payload });

const publishedKeys = (): PublicKey[] =>
  (fx.db.prepare('SELECT kid, public_key, valid_from, valid_until FROM signing_keys').all() as Omit<PublicKey, 'alg'>[]).map((key) => ({
    ...key,
    alg: 'Ed25519' as const,
  }));

describe('enrollment: the kiosk LAN certificate', () => {
  test('a lan_public_key gets a tkc1. certificate for this scanner, event and gate, until the key expires, signed by the active key', async () => {
    const keyExpiresAt = new Date('2027-01-01T08:00:00.000Z');
    const { token } = fx.createSetupToken(event.eid, { gateId: 'east', keyExpiresAt });
    const lanKeys = crypto.generateKeyPairSync('ed25519');
    const pub = lanKeys.publicKey.export({ format: 'jwk' }).x!;
    const scannerId = randomUUID();
    const response = await enroll({ token, scanner_id: scannerId, lan_public_key: pub });
    expect(response.statusCode).toBe(200);
    const answer = response.json<{ lan_certificate: string; lan_key?: string }>();
    expect(answer.lan_key).toBeUndefined();
    const checked = checkKioskCertificate(answer.lan_certificate, {
      issuer: fx.baseUrl,
      keys: publishedKeys(),
      nowMs: Date.now(),
      eid: event.eid,
      isScannerRevoked: () => false,
    });
    expect(checked).toMatchObject({
      ok: true,
      certificate: { v: 1, iss: fx.baseUrl, scanner_id: scannerId, eid: event.eid, gate: 'east', pub, exp: keyExpiresAt.getTime() / 1000 },
    });
    expect(decodeKioskCertificate(answer.lan_certificate).payload.kid).toBe(publishedKeys().find((k) => k.valid_until === null)!.kid);
    // For another event's kiosks it is no certificate at all.
    expect(
      checkKioskCertificate(answer.lan_certificate, {
        issuer: fx.baseUrl,
        keys: publishedKeys(),
        nowMs: Date.now(),
        eid: 'other',
        isScannerRevoked: () => false,
      }),
    ).toMatchObject({ ok: false, check: 'event' });
  });

  test('a lan_public_key that is not 32 bytes of base64url is refused (400), and the token stays unused', async () => {
    const { token, tokenId } = fx.createSetupToken(event.eid);
    for (const bad of ['short', 'A'.repeat(43).replace(/A$/, '!'), 'B'.repeat(43)]) {
      const response = await enroll({ token, scanner_id: randomUUID(), lan_public_key: bad });
      expect(response.statusCode, bad).toBe(400);
      expect(response.json()).toMatchObject({ error: { code: 'INVALID_REQUEST' } });
    }
    expect((await findTokenById(fx.sql, tokenId))?.used_at).toBeNull();
  });
});

describe('enrollment', () => {
  test("a good token gives a key scoped to the token's event and gate, expiring at the token's key_expires_at", async () => {
    const keyExpiresAt = new Date('2027-01-01T08:00:00.000Z');
    const { token } = fx.createSetupToken(event.eid, { gateId: 'north', keyExpiresAt });
    const scannerId = randomUUID();
    const response = await enroll({ token, scanner_id: scannerId, scanner_name: 'Door 1', scanner_platform: 'linux', protocol_version: 1 });
    expect(response.statusCode).toBe(200);
    const answer = response.json();
    expect(answer).toEqual({
      api_key: expect.stringMatching(/^tvk_/),
      api_key_id: expect.stringMatching(/^key_/),
      scope: {
        eid: event.eid,
        event_name: 'Gala',
        event_date: '2026-12-31T20:00:00.000Z',
        gate_id: 'north',
        expires_at: keyExpiresAt.toISOString(),
      },
      issuer: { name: fx.name, iss: fx.baseUrl },
    });
    // No shared LAN key any more (docs/protocol.md "Enrollment"): without a lan_public_key, no certificate either.
    expect(fx.db.prepare('SELECT count(*) AS n FROM event_lan_keys').get()).toEqual({ n: 0 });
    // Only the hash is stored: no column of the row holds the key.
    const row = fx.db.prepare('SELECT * FROM api_keys WHERE api_key_id = ?').get(answer.api_key_id) as Record<string, unknown>;
    expect(row.key_hash).toBe(hashSecret(answer.api_key));
    expect(Object.values(row)).not.toContain(answer.api_key);
    expect(row).toMatchObject({ scanner_id: scannerId, scanner_name: 'Door 1', scanner_platform: 'linux', gate_id: 'north' });

    // The key works at once, for its own event.
    const ticket = fx.issueTicket(event.eid);
    const status = await app.inject({
      method: 'GET',
      url: `/api/v1/tickets/${ticket.tid}/status`,
      headers: { authorization: `Bearer ${answer.api_key}` },
    });
    expect(status.statusCode).toBe(200);
  });

  test('a token is good for exactly one exchange; the second gets 400 INVALID_TOKEN', async () => {
    const { token } = fx.createSetupToken(event.eid);
    expect((await enroll({ token, scanner_id: 'a' })).statusCode).toBe(200);
    const again = await enroll({ token, scanner_id: 'a' });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ error: { code: 'INVALID_TOKEN' } });
  });

  test('unknown, malformed, missing and expired tokens → 400 INVALID_TOKEN', async () => {
    const { token: expired } = fx.createSetupToken(event.eid, { expiresAt: new Date(Date.now() - 1000) });
    for (const payload of [
      { token: 'A'.repeat(43), scanner_id: 's' },
      { token: 'short', scanner_id: 's' },
      { token: 'not base64url!!!!!!!!!!!!!!!', scanner_id: 's' },
      { token: 42, scanner_id: 's' },
      { scanner_id: 's' },
      { token: expired, scanner_id: 's' },
    ]) {
      const response = await enroll(payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json()).toMatchObject({ error: { code: 'INVALID_TOKEN' } });
    }
  });

  test('a token revoked before use → 403 TOKEN_REVOKED', async () => {
    const { token, tokenId } = fx.createSetupToken(event.eid);
    await revokeToken(fx.sql, tokenId, new Date().toISOString());
    const response = await enroll({ token, scanner_id: 's' });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ error: { code: 'TOKEN_REVOKED' } });
  });

  test('five failed attempts lock a token: it then answers INVALID_TOKEN', async () => {
    const { token, tokenId } = fx.createSetupToken(event.eid);
    await revokeToken(fx.sql, tokenId, new Date().toISOString());
    const codes: string[] = [];
    for (let attempt = 0; attempt < 7; attempt++) codes.push((await enroll({ token, scanner_id: 's' })).json().error.code);
    expect(codes).toEqual([
      'TOKEN_REVOKED',
      'TOKEN_REVOKED',
      'TOKEN_REVOKED',
      'TOKEN_REVOKED',
      'TOKEN_REVOKED',
      'INVALID_TOKEN',
      'INVALID_TOKEN',
    ]);
    expect((await findTokenById(fx.sql, tokenId))?.failed_attempts).toBe(7);
  });

  test('protocol_version not supported → 400 PROTOCOL_VERSION_UNSUPPORTED, before any token check, token kept', async () => {
    const { token, tokenId } = fx.createSetupToken(event.eid);
    for (const payload of [
      { token, scanner_id: 's', protocol_version: 2 },
      { scanner_id: 's', protocol_version: 0 },
    ]) {
      const response = await enroll(payload);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: { code: 'PROTOCOL_VERSION_UNSUPPORTED', details: { supported_versions: [1] } } });
    }
    expect(await findTokenById(fx.sql, tokenId)).toMatchObject({ used_at: null, failed_attempts: 0 });
    expect((await enroll({ token, scanner_id: 's' })).statusCode).toBe(200);
  });

  test('a missing or ill-typed scanner field → 400 INVALID_REQUEST naming it; the token is not spent', async () => {
    const { token, tokenId } = fx.createSetupToken(event.eid);
    for (const [payload, field] of [
      [{ token }, 'scanner_id'],
      [{ token, scanner_id: 7 }, 'scanner_id'],
      [{ token, scanner_id: 's', protocol_version: 'one' }, 'protocol_version'],
    ] as const) {
      const response = await enroll(payload);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: { code: 'INVALID_REQUEST', details: { field } } });
    }
    expect((await findTokenById(fx.sql, tokenId))?.used_at).toBeNull();
  });
});
