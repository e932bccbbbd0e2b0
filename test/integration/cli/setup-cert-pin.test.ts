/**
 * `scanner setup` pins the issuer's self-signed certificate in the setup code
 * (docs/protocol.md "Self-signed issuers"), and `serve` presents exactly that
 * certificate, so an enrolled kiosk can trust it without a CA.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeSetupCode } from '../../../protocol/setup-code.js';
import { createLogger } from '../../../issuer/logging.js';
import { startServer, type RunningServer } from '../../../issuer/server.js';
import { certificateFingerprint, ensureSelfSignedCertificate } from '../../../issuer/tls-certificate.js';
import { cliJson, createEvent, initIssuer, runCli } from '../../support/cli-harness.js';

const servers: RunningServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

describe('scanner setup and the self-signed certificate', () => {
  it('an HTTPS issuer pins its certificate, made before serve first runs, and serve presents the same one', async () => {
    const issuer = await initIssuer('https://127.0.0.1:8443');
    const event = await createEvent(issuer.data);
    const certFile = path.join(issuer.data, 'tls', 'cert.pem');
    expect(fs.existsSync(certFile)).toBe(false);

    const { setup_qr } = await cliJson<{ setup_qr: string }>(['scanner', 'setup', '--data', issuer.data, '--event', event.eid]);
    const pin = decodeSetupCode(setup_qr).tls_cert_sha256;
    expect(pin).toBe(certificateFingerprint(fs.readFileSync(certFile, 'utf8')));
    expect(fs.statSync(path.join(issuer.data, 'tls', 'key.pem')).mode & 0o777).toBe(0o600);

    const second = await cliJson<{ setup_qr: string }>(['scanner', 'setup', '--data', issuer.data, '--event', event.eid]);
    expect(decodeSetupCode(second.setup_qr).tls_cert_sha256).toBe(pin);

    const server = await startServer({
      dataDir: issuer.data,
      host: '127.0.0.1',
      port: 0,
      handleSignals: false,
      logger: createLogger({ level: 'silent' }),
    });
    servers.push(server);
    expect(server.fingerprint).toBe(pin);
  });

  it('--no-cert-pin leaves the pin out, for issuers with a CA-signed certificate', async () => {
    const issuer = await initIssuer('https://tickets.example.com');
    const event = await createEvent(issuer.data);
    const { setup_qr } = await cliJson<{ setup_qr: string }>([
      'scanner',
      'setup',
      '--data',
      issuer.data,
      '--event',
      event.eid,
      '--no-cert-pin',
    ]);
    expect(decodeSetupCode(setup_qr).tls_cert_sha256).toBeUndefined();
  });

  it('after serve ran behind a TLS proxy (--plain-http) or with its own certificate, setup codes pin nothing unless --cert-pin says so; a self-signed serve brings the pin back', async () => {
    const issuer = await initIssuer('https://127.0.0.1:8443');
    const event = await createEvent(issuer.data);
    const setup = async (...extra: string[]) => {
      const result = await runCli(['scanner', 'setup', '--data', issuer.data, '--event', event.eid, '--json', ...extra]);
      expect(result.code).toBe(0);
      return { pin: decodeSetupCode((JSON.parse(result.stdout) as { setup_qr: string }).setup_qr).tls_cert_sha256, stderr: result.stderr };
    };
    const serveOnce = async (options: { plainHttp?: boolean; tlsCert?: string; tlsKey?: string }) => {
      const server = await startServer({
        dataDir: issuer.data,
        host: '127.0.0.1',
        port: 0,
        handleSignals: false,
        logger: createLogger({ level: 'silent' }),
        ...options,
      });
      await server.close();
      return server;
    };

    await serveOnce({ plainHttp: true });
    const behindProxy = await setup();
    expect(behindProxy.pin).toBeUndefined();
    expect(behindProxy.stderr).toContain('--plain-http');
    const forced = await setup('--cert-pin');
    expect(forced.pin).toBe(certificateFingerprint(fs.readFileSync(path.join(issuer.data, 'tls', 'cert.pem'), 'utf8')));

    // A "real" certificate of its own (here: another self-signed pair standing in for a CA-signed one).
    const own = path.join(issuer.data, 'own');
    fs.mkdirSync(own);
    const { cert, key } = await ensureSelfSignedCertificate(own, ['127.0.0.1']);
    fs.writeFileSync(path.join(own, 'c.pem'), cert);
    fs.writeFileSync(path.join(own, 'k.pem'), key);
    await serveOnce({ tlsCert: path.join(own, 'c.pem'), tlsKey: path.join(own, 'k.pem') });
    const withOwnCertificate = await setup();
    expect(withOwnCertificate.pin).toBeUndefined();
    expect(withOwnCertificate.stderr).toContain('--tls-cert');

    const selfSigned = await serveOnce({});
    expect((await setup()).pin).toBe(selfSigned.fingerprint);
  });

  it('a plain-HTTP loopback issuer has nothing to pin', async () => {
    const issuer = await initIssuer('http://127.0.0.1:8080');
    const event = await createEvent(issuer.data);
    const { setup_qr } = await cliJson<{ setup_qr: string }>(['scanner', 'setup', '--data', issuer.data, '--event', event.eid]);
    expect(decodeSetupCode(setup_qr).tls_cert_sha256).toBeUndefined();
    expect(fs.existsSync(path.join(issuer.data, 'tls', 'cert.pem'))).toBe(false);
  });
});
