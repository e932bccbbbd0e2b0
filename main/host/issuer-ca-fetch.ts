/**
 * A fetch for an on-site issuer whose TLS certificate comes from its own CA
 * (e.g. `ticket-issuer serve` with a self-signed certificate), without
 * NODE_EXTRA_CA_CERTS (read only at process start) or a dependency on undici.
 * Electron-free; only what the kiosk's issuer client uses: method, headers,
 * a string body, an abort signal, `redirect: 'error'`, and text of the answer.
 */
import { request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { rootCertificates } from 'node:tls';
import type { FetchLike } from '../kiosk/sync/issuer-client.js';

/** Trusts the public roots plus the PEM certificate(s) in `caPem`. */
export function fetchTrustingCa(caPem: string): FetchLike {
  const ca = [...rootCertificates, caPem];
  return (input, init = {}) => {
    const url = new URL(input);
    // Plain http is allowed for loopback issuers only (protocol/base-url.ts) and involves no certificate.
    if (url.protocol !== 'https:') return fetch(input, init);
    return new Promise<Response>((resolve, reject) => {
      const request = httpsRequest(
        url,
        { method: init.method ?? 'GET', headers: plainHeaders(init.headers), ca, ...(init.signal ? { signal: init.signal } : {}) },
        (response) => {
          const status = response.statusCode ?? 0;
          if (status >= 300 && status < 400 && init.redirect === 'error') {
            response.resume();
            reject(new TypeError('the issuer answered with a redirect, which is not followed'));
            return;
          }
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            const bodyless = status === 204 || status === 304 || init.method === 'HEAD';
            resolve(new Response(bodyless ? null : Buffer.concat(chunks), { status, headers: responseHeaders(response.headers) }));
          });
        },
      );
      request.on('error', reject);
      request.end(typeof init.body === 'string' ? init.body : undefined);
    });
  };
}

function plainHeaders(headers: RequestInit['headers']): Record<string, string> {
  return Object.fromEntries(new Headers(headers).entries());
}

function responseHeaders(headers: IncomingHttpHeaders): Headers {
  const result = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) result.append(name, item);
  }
  return result;
}
