/** Transport: HTTPS by default with a self-signed certificate kept in <data>/tls/, or a given certificate. */
import type { DiscoveryDocument } from '../../../protocol/types.js';
import fs from 'node:fs';
import path from 'node:path';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer } from '../../../issuer/server.js';
import { certificateFingerprint } from '../../../issuer/tls-certificate.js';
import { request } from '../../support/http-client.js';
import { createIssuerFixture, type IssuerFixture } from '../../support/issuer-fixture.js';
import { captureLog } from '../../support/unit/log-capture.js';

let fx: IssuerFixture;

beforeAll(() => {
  fx = createIssuerFixture({ baseUrl: 'https://127.0.0.1:8443' });
});

afterAll(() => fx.cleanup());

const FINGERPRINT = /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/;

describe('HTTPS', () => {
  test('self-signed certificate: generated once, key 0600, fingerprint returned and presented, kept across restarts', async () => {
    const log = captureLog();
    const first = await startServer({ dataDir: fx.dataDir.root, host: '127.0.0.1', port: 0, logger: log.logger, handleSignals: false });
    const certFile = path.join(fx.dataDir.tlsDir, 'cert.pem');
    const keyFile = path.join(fx.dataDir.tlsDir, 'key.pem');
    try {
      expect(first.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(first.fingerprint).toMatch(FINGERPRINT);
      expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
      const cert = fs.readFileSync(certFile, 'utf8');
      expect(certificateFingerprint(cert)).toBe(first.fingerprint);
      expect(log.text()).toContain(first.fingerprint!);

      // Trusting exactly that certificate: the name 127.0.0.1 is in its subjectAltName.
      const response = await request<DiscoveryDocument>(`${first.url}/.well-known/ticket-issuer.json`, { ca: cert });
      expect(response.status).toBe(200);
      expect(response.peerFingerprint256).toBe(first.fingerprint);
      expect(response.json.issuer).toBe('https://127.0.0.1:8443');
      // Not trusted by default.
      await expect(request(`${first.url}/.well-known/ticket-issuer.json`)).rejects.toThrow();
    } finally {
      await first.close();
    }

    const certBefore = fs.readFileSync(certFile, 'utf8');
    const second = await startServer({
      dataDir: fx.dataDir.root,
      host: '127.0.0.1',
      port: 0,
      logger: captureLog().logger,
      handleSignals: false,
    });
    try {
      expect(second.fingerprint).toBe(first.fingerprint);
      expect(fs.readFileSync(certFile, 'utf8')).toBe(certBefore);
    } finally {
      await second.close();
    }
  });

  test('a given certificate and key (tlsCert/tlsKey) are served instead', async () => {
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
    });
    const certFile = path.join(fx.root, 'real-cert.pem');
    const keyFile = path.join(fx.root, 'real-key.pem');
    fs.writeFileSync(certFile, pems.cert);
    fs.writeFileSync(keyFile, pems.private, { mode: 0o600 });
    const server = await startServer({
      dataDir: fx.dataDir.root,
      host: '127.0.0.1',
      port: 0,
      tlsCert: certFile,
      tlsKey: keyFile,
      logger: captureLog().logger,
      handleSignals: false,
    });
    try {
      expect(server.fingerprint).toBe(certificateFingerprint(pems.cert));
      const response = await request(`${server.url}/.well-known/ticket-issuer.json`, { ca: pems.cert });
      expect(response.status).toBe(200);
      expect(response.peerFingerprint256).toBe(server.fingerprint);
    } finally {
      await server.close();
    }
  });

  test('tlsCert without tlsKey is refused', async () => {
    await expect(
      startServer({ dataDir: fx.dataDir.root, port: 0, tlsCert: 'x.pem', handleSignals: false, logger: captureLog().logger }),
    ).rejects.toThrow(/together/);
  });
});
