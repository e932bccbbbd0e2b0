/**
 * --issuer-ca: the kiosk's fetch trusts an on-site issuer's own certificate,
 * and only for what the issuer client needs (real TLS on 127.0.0.1).
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchTrustingCa } from '../../../main/host/issuer-ca-fetch.js';

let server: Server;
let base: string;
let certificate: string;
const seen: Array<{ method: string; url: string; authorization: string | undefined; body: string }> = [];

beforeAll(async () => {
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  certificate = pems.cert;
  server = createServer({ cert: pems.cert, key: pems.private }, (req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, body });
      if (req.url === '/moved') {
        res.writeHead(302, { location: 'https://elsewhere.example/' }).end();
        return;
      }
      res.writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'application/json', 'retry-after': '5' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('fetchTrustingCa', () => {
  it('reaches an issuer whose certificate the system does not trust, sending method, headers and body', async () => {
    await expect(fetch(`${base}/plain`)).rejects.toThrow(); // the default trust store refuses it
    const response = await fetchTrustingCa(certificate)(`${base}/api/v1/tickets/check-in`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk_test', 'content-type': 'application/json' },
      body: '{"tid":"t1"}',
      redirect: 'error',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.text()).toBe('{"ok":true}');
    expect(seen.at(-1)).toEqual({ method: 'POST', url: '/api/v1/tickets/check-in', authorization: 'Bearer sk_test', body: '{"tid":"t1"}' });
    expect((await fetchTrustingCa(certificate)(`${base}/missing`)).status).toBe(404);
  });

  it('refuses to follow a redirect, and still refuses other certificates', async () => {
    await expect(fetchTrustingCa(certificate)(`${base}/moved`, { redirect: 'error' })).rejects.toThrow(/redirect/);
    const other = await generate([{ name: 'commonName', value: 'other' }], { keyType: 'ec', algorithm: 'sha256' });
    await expect(fetchTrustingCa(other.cert)(`${base}/plain`)).rejects.toThrow();
  });

  it('gives up when the signal aborts', async () => {
    await expect(fetchTrustingCa(certificate)(`${base}/plain`, { signal: AbortSignal.abort() })).rejects.toThrow();
  });
});
